// The catalogue of hostile inputs (tests/support/hostile_cases.h, docs/robustness.md): every case
// through every verb it applies to, with the built CLI. Each must end with the exit code the table
// says, within a bound (a hang fails), never by a signal, with a message naming the file; and the
// docs must hold the same table.
#include <QtTest>

#include <fstream>

#include "cli_run.h"
#include "hostile_cases.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

QStringList verbArgs(const test::HostileCase& c, const std::string& verb, const fs::path& dir, const fs::path& out) {
  const QString file = test::path(dir / c.file);
  QStringList a;
  if (verb == "info") a << "info" << file;
  else if (verb == "estimate") a << "estimate" << file << "--device" << "ascend910b";
  else if (verb == "analyze") a << "analyze" << file << "-n" << "1" << "--warmup" << "0" << "--timeout" << "60";
  else if (verb == "optimize") a << "optimize" << file << "-o" << test::path(out) << "--verify" << "--timeout" << "60";
  else if (verb == "import") a << "profile" << "--import" << file << test::path(dir / "base.onnx");
  else if (verb == "analyze-profile") a << "analyze" << "--profile" << file;
  for (const auto& x : c.extraArgs) a << QString::fromStdString(x);
  return a;
}

}  // namespace

class TestHostileCatalogue : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TempDir> m_dir;

 private slots:
  void initTestCase() {
    m_dir = std::make_unique<test::TempDir>("hostile");
    test::writeHostileCases(m_dir->path());
  }

  void everyVerb_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("verb");
    const auto cases = test::hostileCases();
    for (size_t i = 0; i < cases.size(); ++i)
      for (const auto& [verb, code] : cases[i].exitCode)
        QTest::newRow((cases[i].id + " " + verb).c_str()) << static_cast<int>(i) << QString::fromStdString(verb);
  }

  void everyVerb() {
    QFETCH(int, index);
    QFETCH(QString, verb);
    const test::HostileCase c = test::hostileCases()[static_cast<size_t>(index)];
    const std::string v = verb.toStdString();
    const fs::path out = m_dir->path() / ("out-" + c.id + ".onnx");
    const auto run = test::cli(verbArgs(c, v, m_dir->path(), out), 180000);
    const QString err = QString::fromUtf8(run.err), all = QString::fromUtf8(run.out) + err;
    QVERIFY2(run.exitCode >= 0, qPrintable("crashed or hung: " + err.right(2000)));
    QVERIFY2(run.exitCode == c.exitCode.at(v),
             qPrintable(QStringLiteral("exit %1, the catalogue says %2: ").arg(run.exitCode).arg(c.exitCode.at(v)) + all.right(2000)));
    const std::string says = c.says.count(v) ? c.says.at(v) : std::string();
    if (run.exitCode != 0) {
      // The refusal names the file, in one short message (no runtime's internals).
      const QString name = QString::fromStdString(fs::path(c.file).filename().string());
      QVERIFY2(err.contains(name), qPrintable(err));
      QVERIFY2(!err.contains(QStringLiteral("safeint")) && !err.contains(QStringLiteral(".cc:")), qPrintable(err));
    }
    const QString expected = QString::fromStdString(says);
    if (!says.empty()) QVERIFY2(all.contains(expected), qPrintable(expected + " not in: " + all.right(2000)));
    // A refused optimize writes nothing.
    if (v == "optimize" && run.exitCode != 0) QVERIFY(!fs::exists(out));
  }

  // docs/robustness.md holds the table the cases make (msa-hostile-cases --markdown).
  void docsHoldTheTable() {
    std::ifstream in(test::sourceDir() / "docs" / "robustness.md");
    QVERIFY(in);
    const std::string doc{std::istreambuf_iterator<char>(in), {}};
    const std::string table = test::hostileCasesMarkdown();
    QVERIFY2(doc.find(table) != std::string::npos,
             "docs/robustness.md differs from the catalogue: paste `msa-hostile-cases --markdown` into it");
  }
};

QTEST_GUILESS_MAIN(TestHostileCatalogue)
#include "tst_hostile_catalogue.moc"
