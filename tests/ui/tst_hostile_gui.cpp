// The hostile catalogue (tests/support/hostile_cases.h) through the GUI's batch mode: every model
// case opened by `msadvisor --screenshot` (offscreen). A model every CLI verb reads is drawn (exit
// 0); one `info` refuses is refused (exit 2) with the file named, at once — a FIFO or a device
// refused before anything opens it (the screenshot used to print "timed out after 600 s" and never
// exit); never a crash or a hang, never a raw control character on stderr.
#include <QProcess>
#include <QtTest>

#include "hostile_cases.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

class TestHostileGui : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TempDir> m_dir;

 private slots:
  void initTestCase() {
    m_dir = std::make_unique<test::TempDir>("hostile-gui");
    test::writeHostileCases(m_dir->path());
  }

  void batchMode_data() {
    QTest::addColumn<int>("index");
    const auto cases = test::hostileCases();
    for (size_t i = 0; i < cases.size(); ++i)
      if (!cases[i].profile && cases[i].extraArgs.empty()) QTest::newRow(cases[i].id.c_str()) << static_cast<int>(i);
  }

  void batchMode() {
    QFETCH(int, index);
    const test::HostileCase c = test::hostileCases()[static_cast<size_t>(index)];
    const fs::path png = m_dir->path() / (c.id + ".png");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(MSA_GUI_BINARY),
            {QStringLiteral("--screenshot"), QString::fromStdString(png.string()), QString::fromStdString((m_dir->path() / c.file).string())});
    QVERIFY2(p.waitForFinished(300000), "hung");
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    const int expected = c.exitCode.at("info") == 0 ? 0 : 2;
    QVERIFY2(p.exitCode() == expected, qPrintable(QStringLiteral("exit %1, expected %2: ").arg(p.exitCode()).arg(expected) + err));
    if (expected != 0) QVERIFY2(err.contains(QString::fromStdString(fs::path(c.file).filename().string())), qPrintable(err));
    else QVERIFY(fs::exists(png));
    for (const QChar ch : err)
      QVERIFY2(ch.unicode() >= 0x20 || ch == QLatin1Char('\n'), qPrintable(QStringLiteral("raw control character on stderr: ") + err));
  }
};

QTEST_GUILESS_MAIN(TestHostileGui)
#include "tst_hostile_gui.moc"
