// The GUI's out-of-process profiler runner against a stand-in that hangs, crashes, is killed
// or writes garbage (fake_profiler.cpp), and against the real msadvisor-cli when it can profile.
#include <QtTest>

#include <signal.h>

#include <QElapsedTimer>
#include <QProcess>

#include <memory>
#include <set>

#include "model/onnx_io.h"
#include "profile/acl_profiler.h"
#include "profile_process.h"
#include "test_paths.h"

using msa::ui::ProfileProcess;

namespace {

ProfileProcess::Request fake(const char* mode, int timeoutMs = 20000, int graceMs = 500) {
  ProfileProcess::Request r;
  r.program = QStringLiteral(FAKE_PROFILER_PATH);
  r.model = QStringLiteral("model.onnx");
  r.arguments = {QStringLiteral("--mode"), QString::fromLatin1(mode)};
  r.timeoutMs = timeoutMs;
  r.killGraceMs = graceMs;
  return r;
}

bool processGone(qint64 pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0; }

struct Spies {
  explicit Spies(ProfileProcess& p)
      : finished(&p, &ProfileProcess::finished), failed(&p, &ProfileProcess::failed),
        cancelled(&p, &ProfileProcess::cancelled), progress(&p, &ProfileProcess::progressChanged) {}
  int outcomes() const { return finished.count() + failed.count() + cancelled.count(); }
  QString failure() const { return failed.isEmpty() ? QString() : failed.first().first().toString(); }
  QSignalSpy finished, failed, cancelled, progress;
};

}  // namespace

class TestProfileProcess : public QObject {
  Q_OBJECT
 private slots:
  void successfulRun() {
    ProfileProcess p;
    Spies s(p);
    QVERIFY(p.start(fake("ok")));
    QVERIFY(p.isRunning());
    QVERIFY(!p.start(fake("ok")));  // one run at a time
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 10000);
    QCOMPARE(s.finished.count(), 1);
    const auto profile = s.finished.first().first().value<msa::ProfileData>();
    QCOMPARE(profile.nodes.size(), size_t(1));
    QCOMPARE(profile.nodes[0].name, std::string("/conv1/Conv"));
    QCOMPARE(profile.nodes[0].timeMs.median, 1.25);
    QCOMPARE(profile.latencyMs.median, 2.5);
    QCOMPARE(profile.unmatched, std::vector<std::string>{"ReorderInput_1"});
    // Three progress events, the human-readable line in between ignored.
    // Progress is throttled like every Job's (polled each 100 ms); the last comes before the outcome.
    QVERIFY2(s.progress.count() >= 1 && s.progress.count() <= 3, qPrintable(QString::number(s.progress.count())));
    QCOMPARE(s.progress.last().at(0).toString(), QStringLiteral("profiling"));
    QCOMPARE(s.progress.last().at(1).toDouble(), 1.0);
    const QStringList cmd = p.commandLine();
    QCOMPARE(cmd.mid(1, 2), (QStringList{QStringLiteral("profile"), QStringLiteral("model.onnx")}));
    QVERIFY(cmd.join(QLatin1Char(' ')).contains(QLatin1String("--progress json --json ")));
    QVERIFY(!p.isRunning());
  }

  void hangingProfilerFailsAtItsTimeout() {
    // Ignores SIGTERM: the runner must SIGKILL it and report, not wait for it.
    ProfileProcess p;
    Spies s(p);
    QElapsedTimer t;
    t.start();
    p.start(fake("hang", 1000, 500));
    QTRY_VERIFY_WITH_TIMEOUT(p.processId() > 0 && s.progress.count() == 1, 5000);
    const qint64 pid = p.processId();
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 10000);
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));  // 1 s + 0.5 s grace, not 600 s
    QCOMPARE(s.failed.count(), 1);
    QVERIFY2(s.failure().contains(QLatin1String("did not finish within 1 s")), qPrintable(s.failure()));
    QVERIFY(processGone(pid));
    QVERIFY(!p.isRunning());
  }

  void cancelEndsEvenAProfilerThatIgnoresSigterm() {
    ProfileProcess p;
    Spies s(p);
    p.start(fake("hang", 60000, 300));
    QTRY_COMPARE_WITH_TIMEOUT(s.progress.count(), 1, 5000);
    const qint64 pid = p.processId();
    QElapsedTimer t;
    t.start();
    p.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 5000);
    QCOMPARE(s.cancelled.count(), 1);  // cancelled is its own outcome, not a failure
    QVERIFY(t.elapsed() < 3000);
    QVERIFY(processGone(pid));
  }

  void cancelIsCooperativeWhenHonoured() {
    ProfileProcess p;
    Spies s(p);
    p.start(fake("slow", 60000, 10000));
    QTRY_COMPARE_WITH_TIMEOUT(s.progress.count(), 1, 5000);
    QElapsedTimer t;
    t.start();
    p.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 5000);
    QCOMPARE(s.cancelled.count(), 1);
    QVERIFY(t.elapsed() < 2000);  // SIGTERM sufficed: no wait for the 10 s grace
  }

  void profilerKilledMidRun() {
    ProfileProcess p;
    Spies s(p);
    p.start(fake("slow"));
    QTRY_COMPARE_WITH_TIMEOUT(s.progress.count(), 1, 5000);
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGKILL), 0);
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 5000);
    QCOMPARE(s.failed.count(), 1);
    QVERIFY2(s.failure().contains(QLatin1String("killed by signal 9")), qPrintable(s.failure()));
  }

  void failures_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("crash") << "crash"
                           << "killed by signal 11";
    QTest::newRow("garbage result") << "garbage"
                                    << "not valid JSON";
    QTest::newRow("json that is no profile") << "wrong-json"
                                             << "not a profile";
    QTest::newRow("no result") << "no-result"
                               << "wrote no result";
    // The error record in the result file beats stderr.
    QTest::newRow("error record") << "error-record"
                                  << "node 'Add_3': Non-zero status code";
    QTest::newRow("stderr error line") << "stderr-error"
                                       << "resnet18.onnx: cannot open the file";
    QTest::newRow("unknown mode") << "bogus"
                                  << "unknown mode 'bogus'";
  }
  void failures() {
    QFETCH(QString, mode);
    QFETCH(QString, fragment);
    ProfileProcess p;
    Spies s(p);
    p.start(fake(mode.toLatin1().constData()));
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 10000);
    QCOMPARE(s.failed.count(), 1);
    QVERIFY2(s.failure().contains(fragment), qPrintable(s.failure()));
    // Garbage progress lines (a string fraction, broken JSON, binary) produce no progress.
    if (mode == QLatin1String("garbage")) QCOMPARE(s.progress.count(), 0);
  }

  void programThatCannotStart() {
    ProfileProcess p;
    Spies s(p);
    auto r = fake("ok");
    r.program = QStringLiteral("/nonexistent/msadvisor-cli");
    p.start(r);
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 5000);
    QVERIFY2(s.failure().contains(QLatin1String("Cannot start the profiler")), qPrintable(s.failure()));
    QVERIFY(!p.isRunning());
    QVERIFY(p.start(fake("ok")));  // usable again
    QTRY_COMPARE_WITH_TIMEOUT(s.finished.count(), 1, 10000);
  }

  void destroyingTheRunnerKillsTheChild() {
    auto p = std::make_unique<ProfileProcess>();
    QSignalSpy progress(p.get(), &ProfileProcess::progressChanged);
    p->start(fake("hang", 60000, 60000));
    QTRY_COMPARE_WITH_TIMEOUT(progress.count(), 1, 5000);
    const qint64 pid = p->processId();
    QElapsedTimer t;
    t.start();
    p.reset();
    QVERIFY(t.elapsed() < 4000);
    QVERIFY(processGone(pid));
  }

  void devicesThisBuildCannProfileOnAreNamed() {
    QVERIFY(ProfileProcess::deviceUnavailableReason(QStringLiteral("cpu")).isEmpty());
    const QString acl = ProfileProcess::deviceUnavailableReason(QStringLiteral("acl"));
    QCOMPARE(acl.isEmpty(), msa::aclBackendAvailable());
    if (!acl.isEmpty()) QVERIFY(acl.contains(QLatin1String("CANN was not found")));
    QVERIFY(ProfileProcess::deviceUnavailableReason(QStringLiteral("tpu")).contains(QLatin1String("Unknown device 'tpu'")));
  }

  void realCliOnResnet18() {
    if (!msa::test::hasCorpus()) QSKIP("no model corpus");
    const QString cli = QString::fromStdString(msa::test::cliPath().string());
    QProcess help;
    help.start(cli, {QStringLiteral("profile"), QStringLiteral("--help")});
    if (!help.waitForFinished(10000) || help.exitCode() != 0) QSKIP("this msadvisor-cli has no profile verb yet");
    ProfileProcess p;
    Spies s(p);
    ProfileProcess::Request r;
    r.program = cli;
    r.model = QString::fromStdString(msa::test::corpusModel("resnet18.onnx").string());
    r.arguments = {QStringLiteral("--iterations"), QStringLiteral("3"), QStringLiteral("--warmup"), QStringLiteral("1")};
    r.timeoutMs = 120000;
    p.start(r);
    QTRY_COMPARE_WITH_TIMEOUT(s.outcomes(), 1, 130000);
    QVERIFY2(s.finished.count() == 1, qPrintable(s.failure()));
    QVERIFY(s.progress.count() > 0);
    const auto profile = s.finished.first().first().value<msa::ProfileData>();
    QVERIFY(profile.latencyMs.median > 0);
    // Every Conv of the model is covered by some measured entry.
    auto model = msa::loadModel(msa::test::corpusModel("resnet18.onnx"));
    QVERIFY(model.ok());
    std::set<std::string> covered;
    for (const auto& n : profile.nodes) covered.insert(n.irNodes.begin(), n.irNodes.end());
    for (const auto& n : model->graph.nodes)
      if (n.opType == "Conv") QVERIFY2(covered.count(n.name), n.name.c_str());
  }
};

QTEST_GUILESS_MAIN(TestProfileProcess)
#include "tst_profile_process.moc"
