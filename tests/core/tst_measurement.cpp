// The measurement engine (profile/latency.h): contention accounting that tells a busy core from
// a quiet one (a spinning process pinned to the core the runtime computes on), contended blocks
// set aside and replaced, the one-thread comparison, and a speedup that is noise said as such.
// The timing tests run alone (ctest RUN_SERIAL, as tst_measure_alternation).
#include <QtTest>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "optimize/outcome.h"
#include "profile/cpu_share.h"
#include "profile/latency.h"
#include "report/report_format.h"
#include "sanitizers.h"

using namespace msa;

namespace {

// Y = X · W, X [rows, 256], W [256, 256]: about `rows` × 0.13 MFLOP, one kernel.
Model matmulModel(int64_t rows, int repeat = 1) {
  Model m;
  m.opsets.push_back({"", 17});
  Graph& g = m.graph;
  g.name = "matmul";
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{rows, 256}), {}, {}});
  g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{rows, 256}), {}, {}});
  std::vector<float> w(256 * 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7919) % 101) / 1010.0f;
  g.initializers.push_back(Tensor::fromValues("w", DType::Float, {256, 256}, w));
  std::string in = "x";
  for (int k = 0; k < repeat; ++k) {
    Node mm;
    mm.name = "mm" + std::to_string(k);
    mm.opType = "MatMul";
    mm.inputs = {in, "w"};
    mm.outputs = {k + 1 == repeat ? std::string("y") : "h" + std::to_string(k)};
    in = mm.outputs[0];
    g.addNode(mm);
  }
  return m;
}

std::vector<DataValue> inputsFor(int64_t rows) {
  std::vector<float> x(static_cast<size_t>(rows * 256));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) - 6.0f;
  return {DataValue::of(Tensor::fromValues("x", DType::Float, {rows, 256}, x))};
}

std::string loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string s;
  std::getline(in, s);
  return s;
}

// A process spinning on one core while it lives.
class Spinner {
 public:
  explicit Spinner(int core) {
    m_pid = fork();
    if (m_pid == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(core, &set);
      sched_setaffinity(0, sizeof set, &set);
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
  }
  ~Spinner() { stop(); }
  void stop() {
    if (m_pid > 0) {
      kill(m_pid, SIGKILL);
      waitpid(m_pid, nullptr, 0);
      m_pid = -1;
    }
  }

 private:
  pid_t m_pid = -1;
};

// Pins the calling thread (and the runtime threads its sessions create) to one core.
class PinnedTo {
 public:
  explicit PinnedTo(int core) {
    sched_getaffinity(0, sizeof m_saved, &m_saved);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  ~PinnedTo() { sched_setaffinity(0, sizeof m_saved, &m_saved); }

 private:
  cpu_set_t m_saved{};
};

TimedLatency timeOne(const Model& m, const std::vector<DataValue>& in, int threads, double budget, int minRuns = 20) {
  TimedConfig c{&m, in, {}};
  c.session.threads = threads;
  SamplingPolicy p;
  p.minRuns = minRuns;
  p.budgetSeconds = budget;
  auto t = timeConfigs({&c, 1}, p);
  if (!t) qFatal("%s", t.error().describe().c_str());
  return t->front();
}

}  // namespace

class TestMeasurement : public QObject {
  Q_OBJECT
 private slots:
  // The share is the CPU time got over the time ready to run (schedstat), else the CPU clock
  // over wall × threads; steal beyond a tenth of the CPU is contention too.
  void blockLoadArithmetic() {
    CpuSample a, b;
    a.schedstat = b.schedstat = true;
    a.onCpuMs = 100, b.onCpuMs = 130;
    a.waitingMs = 50, b.waitingMs = 60;
    BlockLoad l = loadBetween(a, b, 2);
    QCOMPARE(l.cpuShare, 0.75);
    QVERIFY(contended(l));
    b.waitingMs = 51;
    l = loadBetween(a, b, 2);
    QVERIFY(l.cpuShare > 0.96 && !contended(l));
    // The fallback: the process's CPU clock over wall time × threads.
    a.schedstat = b.schedstat = false;
    a.wallMs = 0, b.wallMs = 20;
    a.onCpuMs = 0, b.onCpuMs = 20;
    QCOMPARE(loadBetween(a, b, 2).cpuShare, 0.5);
    QCOMPARE(loadBetween(a, b, 1).cpuShare, 1.0);
    // Steal: the hypervisor's share of all CPU time between the samples.
    a.totalTicks = 1000, b.totalTicks = 1100;
    a.stealTicks = 10, b.stealTicks = 30;
    l = loadBetween(a, b, 1);
    QCOMPARE(l.stealShare, 0.2);
    QVERIFY(contended(l));
    // A real sample reads this process's threads.
    const CpuSample now = sampleCpu();
    QVERIFY(now.onCpuMs > 0 && now.wallMs > 0);
  }

  // A median's uncertainty: its runs', widened by the kept blocks' medians when there are five,
  // else by every block's (the busy ones set aside too): two quiet blocks say nothing of how
  // much the machine's moments differ.
  void blocksWidenTheUncertainty() {
    std::vector<double> runs;
    for (int i = 0; i < 200; ++i) runs.push_back(3.40 + 0.001 * (i % 7));
    const double ofRuns = medianUncertainty(runs);
    QVERIFY(ofRuns < 0.005);
    const std::vector<double> twoQuiet{3.40, 3.41};
    const std::vector<double> ten{3.40, 3.41, 4.2, 4.5, 3.9, 4.8, 4.1, 4.6, 4.3, 4.0};
    const double u = latencyUncertainty(runs, twoQuiet, ten);
    QCOMPARE(u, medianUncertainty(ten));
    QVERIFY2(u > 0.05, std::to_string(u).c_str());
    // Five kept blocks that agree: the runs and those blocks decide, not the busy ones.
    const std::vector<double> fiveQuiet{3.40, 3.41, 3.40, 3.42, 3.41};
    QCOMPARE(latencyUncertainty(runs, fiveQuiet, ten), std::max(ofRuns, medianUncertainty(fiveQuiet)));
    // Too few blocks of any kind: the runs alone.
    QCOMPARE(latencyUncertainty(runs, twoQuiet, twoQuiet), ofRuns);
  }

  // A ratio is known no better than the ratios of the blocks timed in the same round: sessions
  // whose runs fall into different modes from round to round (a busy core) agree with themselves
  // and not with each other.
  void pairedBlocksBoundTheRatio() {
    TimedLatency a, b;
    a.uncertainty = b.uncertainty = 0.01;
    const double separate = std::hypot(0.01, 0.01, kSessionSpread);
    QCOMPARE(ratioUncertainty(a, b), separate);  // no blocks: the separate figures
    a.blockMedians = {1.0, 1.0, 1.01, 0.99, 1.0, 1.0, 1.01, 1.0};
    b.blockMedians = {1.0, 1.38, 0.80, 1.31, 0.84, 1.40, 0.79, 1.0};
    QVERIFY2(ratioUncertainty(a, b) > 0.15, std::to_string(ratioUncertainty(a, b)).c_str());
    // An eighth of the work, every round: the pairs agree and add nothing.
    b.blockMedians = {0.125, 0.126, 0.125, 0.124, 0.125, 0.125, 0.126, 0.125};
    QCOMPARE(ratioUncertainty(a, b), separate);
  }

  // A process spinning on the core the runtime computes on is seen (the runtime's thread gets
  // about half of it); the same measurement without it is not contended (best of three: other
  // work on a shared machine comes and goes). The quiet half is judged only when the machine's
  // load average is below its core count: on a machine kept busy by others it is busy.
  void spinnerOnTheSameCoreIsDetected() {
    if (test::kSanitized) QSKIP("a sanitizer's own threads take CPU time: the share says nothing");
    const Model m = matmulModel(64);
    const auto in = inputsFor(64);
    PinnedTo pinned(0);
    {
      Spinner spinner(0);
      const TimedLatency busy = timeOne(m, in, 1, 1.0);
      qInfo("busy: CPU share %.2f, %d blocks, median %.3f ms, best uncontended %.3f ms (%s)", busy.measurement.cpuShare,
            busy.measurement.blocks, busy.stats.median, busy.measurement.uncontendedMs, busy.measurement.uncontendedBasis.c_str());
      QVERIFY2(busy.measurement.contended, qPrintable(QString::number(busy.measurement.cpuShare)));
      QVERIFY(busy.measurement.cpuShare < 0.75);
      QVERIFY(busy.measurement.uncontendedMs > 0 && busy.measurement.uncontendedMs <= busy.stats.median);
      QCOMPARE(busy.measurement.threads, 1);
      QCOMPARE(busy.measurement.threadsBasis, std::string("user"));
      // The report says it in one sentence, in both languages.
      QVERIFY(report::busyText(busy.measurement, Lang::En).find("busy machine") != std::string::npos);
      QVERIFY(!report::busyText(busy.measurement, Lang::Zh).empty());
    }
    std::ifstream in1("/proc/loadavg");
    double load1 = 0;
    in1 >> load1;
    if (load1 >= std::thread::hardware_concurrency())
      QSKIP(qPrintable(QStringLiteral("busy half checked; the quiet half needs a quiet machine (load %1)").arg(QString::fromStdString(loadavg()))));
    bool quietSeen = false;
    double quietShare = 0;
    for (int attempt = 0; attempt < 3 && !quietSeen; ++attempt) {
      const TimedLatency quiet = timeOne(m, in, 1, 1.0);
      quietShare = std::max(quietShare, quiet.measurement.cpuShare);
      quietSeen = !quiet.measurement.contended && quiet.measurement.cpuShare >= kContendedShare;
    }
    QVERIFY2(quietSeen, qPrintable(QStringLiteral("no quiet measurement in three (best CPU share %1, load %2)")
                                       .arg(quietShare)
                                       .arg(QString::fromStdString(loadavg()))));
  }

  // Load that comes and goes: the blocks it hit are set aside and replaced, and the figure is
  // the uncontended runs' (within the quiet figure's spread), not the mixture's.
  void contendedBlocksAreSetAside() {
    if (test::kSanitized) QSKIP("timings under a sanitizer say nothing about the runtime");
    const Model m = matmulModel(64);
    const auto in = inputsFor(64);
    PinnedTo pinned(0);
    const TimedLatency quiet = timeOne(m, in, 1, 1.0);
    if (quiet.measurement.contended) QSKIP(qPrintable(QStringLiteral("the machine is busy: ") + QString::fromStdString(loadavg())));
    auto spinner = std::make_unique<Spinner>(0);
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      spinner->stop();
    });
    const TimedLatency mixed = timeOne(m, in, 1, 3.0, 50);
    stopper.join();
    qInfo("quiet %.4f ms; with a spinner for 0.6 s: %.4f ms, %d of %d blocks set aside", quiet.stats.median, mixed.stats.median,
          mixed.measurement.blocksSetAside, mixed.measurement.blocks);
    QVERIFY(!mixed.measurement.contended);
    QVERIFY(mixed.measurement.blocksSetAside > 0);
    QVERIFY(mixed.measurement.cpuShare >= kContendedShare);
    QVERIFY2(mixed.stats.median <= 1.25 * quiet.stats.median,
             qPrintable(QStringLiteral("%1 against %2 ms quiet").arg(mixed.stats.median).arg(quiet.stats.median)));
  }

  // One thread beside the default count, when the run is cheap: both medians recorded.
  void oneThreadIsComparedWhenCheap() {
    if (defaultThreads() < 2) QSKIP("one core: there is nothing to compare");
    const Model m = matmulModel(64);
    const auto in = inputsFor(64);
    TimedConfig c{&m, in, {}};
    SamplingPolicy p;
    p.budgetSeconds = 1;
    Measurement cheap;
    QVERIFY(compareOneThread(c, p, 1.0, cheap));
    QVERIFY(cheap.oneThreadMs > 0 && cheap.threadsMs > 0);
    Measurement costly;  // 100 ms a run on a quiet machine: not compared
    QVERIFY(compareOneThread(c, p, 100.0, costly));
    QCOMPARE(costly.oneThreadMs, 0.0);
    costly.blocksSetAside = 2;  // unless contention was seen
    QVERIFY(compareOneThread(c, p, 100.0, costly));
    QVERIFY(costly.oneThreadMs > 0);
  }

  // The same graph against itself, in another session, measures no change: its speedup is
  // "within noise", never a result; a model doing an eighth of the work is a measured speedup.
  // Runs of ~0.5 ms, as a small real model's: at 0.04 ms (64² MatMuls) two sessions of one graph
  // differed by up to 4.5 %, where buffers landed mattering more than the work.
  void aSpeedupWithinNoiseIsSaidSo() {
    if (test::kSanitized) QSKIP("timings under a sanitizer say nothing about the runtime");
    const Model m = matmulModel(192, 8);
    const auto in = inputsFor(192);
    LatencyOptions o;
    o.iterations = 20;
    o.budgetSeconds = 2;
    auto same = compareLatency(m, m, in, o);
    QVERIFY2(same, same ? "" : same.error().describe().c_str());
    qInfo("same graph: %.3fx ±%.1f %%", same->speedupAll(), same->speedupAllNoise * 100);
    QVERIFY(same->speedupAllNoise > 0);
    QVERIFY2(same->allWithinNoise(), qPrintable(QStringLiteral("%1x ±%2").arg(same->speedupAll()).arg(same->speedupAllNoise)));
    const std::string text = report::speedupText(same->speedupAll(), same->speedupAllNoise, Lang::En);
    QVERIFY2(text.rfind("within noise (±", 0) == 0, text.c_str());
    const Model lighter = matmulModel(192, 1);
    auto faster = compareLatency(m, lighter, in, o);
    QVERIFY(faster);
    QVERIFY2(!faster->allWithinNoise() && faster->speedupAll() > 3, qPrintable(QString::number(faster->speedupAll())));
    QVERIFY(report::speedupText(faster->speedupAll(), faster->speedupAllNoise, Lang::En).find("×") != std::string::npos);
    QCOMPARE(faster->measurement.threads, defaultThreads());
  }
};

QTEST_GUILESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
