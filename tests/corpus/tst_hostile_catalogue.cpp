// The catalogue of hostile inputs (tests/support/hostile_cases.h, docs/robustness.md): every case
// through every verb it applies to, with the built CLI. Each must end with the exit code the table
// says, within a bound (a hang fails), never by a signal, with a message naming the file; and
// whatever the verb, nothing injected (no control character, escape sequence or bidi override in
// what it printed, no markup in the reports it wrote), memory within 1 GiB + 4 × the input's size
// (a limit on the process: past it, allocation fails), and no input file changed. The docs must
// hold the same table.
#include <QtTest>

#include <sys/stat.h>

#include <fstream>

#include "cli_run.h"
#include "hostile_cases.h"
#include "sanitizers.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

QStringList verbArgs(const test::HostileCase& c, const std::string& verb, const fs::path& dir, const fs::path& out) {
  const QString file = test::path(dir / c.file);
  const QString base = test::path(out);
  QStringList a;
  if (verb == "info") a << "info" << file;
  else if (verb == "estimate") a << "estimate" << file << "--device" << "ascend910b";
  else if (verb == "analyze") a << "analyze" << file << "-n" << "1" << "--warmup" << "0" << "--timeout" << "60";
  else if (verb == "optimize") a << "optimize" << file << "-o" << base + ".onnx" << "--verify" << "--timeout" << "60";
  else if (verb == "report")
    a << "analyze" << file << "--device" << "ascend910b" << "--json" << base + ".json" << "--html" << base + ".html" << "--md"
      << base + ".md";
  else if (verb == "import") a << "profile" << "--import" << file << test::path(dir / "base.onnx");
  else if (verb == "analyze-profile")
    a << "analyze" << "--profile" << file << "--html" << base + ".html" << "--md" << base + ".md";
  else if (verb == "training") a << "training" << file;
  else if (verb == "compare") return {"compare", file, file};  // takes no --dim or --max-events
  for (const auto& x : c.extraArgs) a << QString::fromStdString(x);
  return a;
}

// Bytes a terminal or a renderer acts on: C0 controls but the newline (TAB too: the text output
// aligns with spaces), DEL, C1 controls (U+0080..U+009F), the bidi overrides, isolates and marks.
QString actingBytes(const QByteArray& text) {
  const QString s = QString::fromUtf8(text);
  for (qsizetype i = 0; i < s.size(); ++i) {
    const char16_t c = s[i].unicode();
    if ((c < 0x20 && c != '\n') || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F ||
        (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029)
      return QStringLiteral("U+%1 at %2: …%3…").arg(int(c), 4, 16, QLatin1Char('0')).arg(i).arg(s.mid(std::max<qsizetype>(0, i - 40), 80));
  }
  return {};
}

// Markup a report must never hold as markup: a name's <script> and <img onerror> (HTML and
// Markdown), a javascript: link and a forged line (Markdown; in HTML they are inert text).
QString injectedMarkup(const QByteArray& text, bool markdown) {
  for (const char* bad : {"<script", "<img", "](javascript:", "\nFAKE FINDING"}) {
    if (!markdown && bad[0] != '<') continue;
    if (text.contains(bad)) return QString::fromLatin1(bad);
  }
  return {};
}

std::string fingerprint(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return "missing";
  if (!S_ISREG(st.st_mode)) return "special " + std::to_string(st.st_mode);
  std::ifstream in(p, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  return std::to_string(bytes.size()) + ":" + std::to_string(std::hash<std::string>{}(bytes));
}

}  // namespace

class TestHostileCatalogue : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TempDir> m_dir;
  std::map<std::string, std::string> m_inputs;  // every file of the catalogue, as written
  QProcessEnvironment m_env;  // TMPDIR: a folder of the test's own, empty again at the end

  fs::path outBase(const test::HostileCase& c, const std::string& verb) const {
    return m_dir->path() / "out" / (c.id + "-" + verb);
  }

 private slots:
  void initTestCase() {
    m_dir = std::make_unique<test::TempDir>("hostile");
    test::writeHostileCases(m_dir->path());
    fs::create_directories(m_dir->path() / "out");
    fs::create_directories(m_dir->path() / "tmp");
    m_env = QProcessEnvironment::systemEnvironment();
    m_env.insert(QStringLiteral("TMPDIR"), test::path(m_dir->path() / "tmp"));
    for (const auto& e : fs::recursive_directory_iterator(m_dir->path()))
      if (!e.path().string().starts_with((m_dir->path() / "out").string()) &&
          !e.path().string().starts_with((m_dir->path() / "tmp").string()))
        m_inputs[e.path().string()] = fingerprint(e.path());
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
    const fs::path out = outBase(c, v);
    QStringList args = verbArgs(c, v, m_dir->path(), out);
    // Memory within the bound: a limit on the process's data (1 GiB + 4 × the input), past which an
    // allocation fails (a crash, which fails below). Sanitizers reserve terabytes of shadow memory.
    test::CliRun run;
    if (test::kSanitized) {
      run = test::cli(args, 180000, m_env);
    } else {
      const QString limit = QStringLiteral("--data=%1").arg(static_cast<qulonglong>(test::memoryBound(m_dir->path() / c.file)));
      run = test::cli(QStringList{limit, QString::fromStdString(test::cliPath().string())} + args, 180000, m_env,
                      QStringLiteral("prlimit"));
    }
    const QString err = QString::fromUtf8(run.err), all = QString::fromUtf8(run.out) + err;
    QVERIFY2(run.exitCode >= 0, qPrintable("crashed or hung: " + err.right(2000)));
    QVERIFY2(run.exitCode == c.exitCode.at(v),
             qPrintable(QStringLiteral("exit %1, the catalogue says %2: ").arg(run.exitCode).arg(c.exitCode.at(v)) + all.right(2000)));
    const std::string says = c.says.count(v) ? c.says.at(v) : std::string();
    if (run.exitCode != 0) {
      // The refusal names the file, in one short message (no runtime's internals, no temporary file).
      const QString name = QString::fromStdString(fs::path(c.file).filename().string());
      QVERIFY2(err.contains(name), qPrintable(err));
      QVERIFY2(!err.contains(QStringLiteral("safeint")) && !err.contains(QStringLiteral(".cc:")), qPrintable(err));
      QVERIFY2(!err.contains(QStringLiteral("msadvisor-profile-")) && !err.contains(QStringLiteral("msadvisor-run-")), qPrintable(err));
    }
    const QString expected = QString::fromStdString(says);
    if (!says.empty()) QVERIFY2(all.contains(expected), qPrintable(expected + " not in: " + all.right(2000)));
    // Nothing injected into the terminal, a log or the reports.
    for (const QByteArray& printed : {run.out, run.err}) {
      const QString acting = actingBytes(printed);
      QVERIFY2(acting.isEmpty(), qPrintable(QStringLiteral("printed raw: ") + acting));
      QVERIFY2(!printed.contains("\nFAKE FINDING"), printed.right(2000).constData());  // no forged line
    }
    for (const char* ext : {".md", ".html"}) {
      const fs::path report = fs::path(out.string() + ext);
      if (!fs::exists(report)) continue;
      std::ifstream in(report, std::ios::binary);
      const QByteArray bytes = QByteArray::fromStdString(std::string(std::istreambuf_iterator<char>(in), {}));
      QVERIFY2(actingBytes(bytes).isEmpty(), qPrintable(QString::fromStdString(report.string()) + ": " + actingBytes(bytes)));
      const QString markup = injectedMarkup(bytes, std::string_view(ext) == ".md");
      QVERIFY2(markup.isEmpty(), qPrintable(QString::fromStdString(report.string()) + " holds " + markup));
    }
    // A refused optimize writes nothing.
    if (v == "optimize" && run.exitCode != 0) QVERIFY(!fs::exists(out.string() + ".onnx"));
  }

  // No run changed a file it read (the catalogue's inputs, FIFOs and links included).
  void inputsUnchanged() {
    for (const auto& [path, before] : m_inputs) QVERIFY2(fingerprint(path) == before, path.c_str());
  }

  // No run left a temporary file or folder behind ($TMPDIR is the test's own).
  void noTemporaryFolderLeft() {
    for (const auto& e : fs::directory_iterator(m_dir->path() / "tmp"))
      QFAIL(qPrintable("left behind: " + QString::fromStdString(e.path().string())));
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
