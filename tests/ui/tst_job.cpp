// The GUI's worker runner (ui/job.h) across threads: workers report progress and poll the cancel
// flag while the GUI thread starts, supersedes and cancels them. Exactly one callback per start()
// that was not superseded, none for one that was. Runs under ThreadSanitizer in CI (label
// "concurrent"): it links only core and Qt, so the tsan build stays small.
#include <QtTest>

#include <atomic>
#include <thread>

#include "job.h"

using namespace msa;
using namespace msa::ui;

namespace {

// Work that reports progress until cancelled or `steps` are done, then returns its tag.
Job<int>::Work work(int tag, int steps, std::atomic<int>& started) {
  return [tag, steps, &started](const Progress& p) -> Result<int> {
    ++started;
    for (int i = 0; i < steps; ++i) {
      if (p.cancelled()) return Error::cancelled();
      p.report("step", static_cast<double>(i) / steps);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return tag;
  };
}

}  // namespace

class TestJob : public QObject {
  Q_OBJECT
 private slots:
  void supersededJobsSayNothingTheLastOneAnswers() {
    QObject context;
    Job<int> job(&context);
    std::atomic<int> started{0};
    int done = 0, last = -1, failed = 0, cancelled = 0, progress = 0;
    for (int tag = 0; tag < 40; ++tag)
      job.start(work(tag, 50, started), {.done = [&](int v) { ++done, last = v; },
                                         .failed = [&](const Error&) { ++failed; },
                                         .cancelled = [&] { ++cancelled; },
                                         .progress = [&](const QString&, double) { ++progress; }});
    QTRY_VERIFY_WITH_TIMEOUT(!job.running(), 60000);
    QCOMPARE(done, 1);
    QCOMPARE(last, 39);
    QCOMPARE(failed, 0);
    QCOMPARE(cancelled, 0);
    QTRY_COMPARE_WITH_TIMEOUT(started.load(), 40, 60000);  // every worker ran, the superseded ones stopped early
  }

  void cancelWhileTheWorkerRuns() {
    QObject context;
    Job<int> job(&context);
    std::atomic<int> started{0};
    int done = 0, cancelled = 0;
    job.start(work(1, 1000000, started), {.done = [&](int) { ++done; }, .cancelled = [&] { ++cancelled; }});
    QTRY_VERIFY_WITH_TIMEOUT(started.load() == 1, 30000);
    job.cancel();
    QCOMPARE(cancelled, 1);
    QVERIFY(!job.running());
    QTest::qWait(200);  // the worker sees the flag; its late result is dropped
    QCOMPARE(done, 0);
    QCOMPARE(cancelled, 1);
  }

  void destroyingTheContextDropsTheResult() {
    std::atomic<int> started{0};
    std::atomic<bool> release{false};
    int done = 0;
    {
      QObject context;
      Job<int> job(&context);
      // The work ends only after the context is gone (with a value: it ignores the cancel flag);
      // a work that could finish first was answered while the test waited for it to start.
      job.start([&](const Progress&) -> Result<int> {
                  ++started;
                  while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  return 1;
                },
                {.done = [&](int) { ++done; }});
      QTRY_VERIFY_WITH_TIMEOUT(started.load() == 1, 30000);
      QVERIFY(job.running());
    }
    release = true;
    QThreadPool::globalInstance()->waitForDone(30000);
    QCoreApplication::processEvents();
    QCOMPARE(done, 0);
  }
};

QTEST_GUILESS_MAIN(TestJob)
#include "tst_job.moc"
