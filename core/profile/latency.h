#pragma once
// The one measurement engine: every latency msadvisor shows — the analysis headline and its
// unoptimized run, `profile`, `optimize --measure` and Verify, Python's measure(), calibration,
// what-if variants, the benchmarks — is timed by timeConfigs(), with one set of session settings
// and one sampling policy, so the same model on the same machine gives the same figure whichever
// path asked.
//  - Sessions: the settings below, nothing else (runtimeOptionsFor is the only translation into
//    ONNX Runtime's options); one session per configuration, all alive while they are timed.
//  - Sampling: configurations take turns by blocks (profile/run_timing.h: a block's first run
//    refills the caches another session's runs left), the order alternating, until every median
//    is known within the target or the budget is spent.
//  - Contention: each block records the CPU share the runtime's threads got, steal time and the
//    machine's runnable load (profile/cpu_share.h). Contended blocks are set aside and replaced
//    while the budget allows; the figures come from uncontended blocks. When too few remain, the
//    figures are every block's and the Measurement says the machine stayed busy, with the best
//    uncontended estimate beside them.
#include <span>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "profile/measurement.h"
#include "profile/ort_session.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// How a timed session runs. Defaults are what an application gets from ONNX Runtime's defaults.
struct SessionSettings {
  GraphOptimization optimization = GraphOptimization::All;
  int threads = 0;               // intra-op threads; 0: defaultThreads()
  bool spinning = true;          // idle intra-op threads spin between a run's parallel parts
  bool parallelExecution = false;  // ORT_PARALLEL (independent branches at once) instead of sequential
  int interOpThreads = 0;        // with parallelExecution; 0: the runtime's default
  friend bool operator==(const SessionSettings&, const SessionSettings&) = default;
};

// The default intra-op thread count: one per physical core this process may run on (sysfs
// topology), ONNX Runtime's documented rule. It is always set explicitly, never left at 0: left
// at 0, ONNX Runtime 1.21 detects one core on this two-core VM and runs one thread, and the old
// optimize --measure (which left it at 0) read the deployed run 1.3-1.5x slower than the analysis
// (which used two).
int defaultThreads();
// The thread count `settings` asks for, resolved.
int resolvedThreads(const SessionSettings& settings);
// The one translation of SessionSettings into the wrapper's options, for every timed session.
RuntimeOptions runtimeOptionsFor(const SessionSettings& settings);

// When to stop timing.
struct SamplingPolicy {
  int warmup = 2;              // untimed runs per session after it is created
  int minRuns = 10;            // uncontended timed runs per configuration, at least
  int maxRuns = 2000;          // uncontended timed runs per configuration, at most
  double target = 0.01;        // relative half-width of each median's 90 % confidence interval
  double budgetSeconds = 8;    // stop here whatever the spread (after minRuns runs of each)
};

// One thing to time: a model, the inputs it runs on, the session it runs in.
struct TimedConfig {
  const Model* model = nullptr;
  std::span<const DataValue> inputs;
  SessionSettings session;
};

struct TimedLatency {
  Stats stats;              // ms per run: the uncontended runs, or every run when the machine stayed busy
  Measurement measurement;
  // Relative half-width of the median's 90 % confidence interval, from the runs and from the
  // blocks' medians (a drift between blocks is not averaged away by many runs in each).
  double uncertainty = 0;
  // Every block's median in the order timed: the configurations take turns, so block k of two
  // of them ran in the same round, moments apart.
  std::vector<double> blockMedians;
};

// Two sessions of one graph, timed interleaved on a quiet machine, differ beyond what the runs'
// spread says (where the runtime placed their buffers and threads): 0.976–1.012 over eight runs
// of a 0.5 ms MatMul chain, 0.993–1.027 for ResNet-18 and MobileNetV2 as deployed (tst_measurement,
// `optimize --measure` of graphs the runtime makes equal); CI's fresh clone then measured 1.042
// for the same chain (its runs' own spread ±1 %). A ratio of two sessions is known no better
// than this.
inline constexpr double kSessionSpread = 0.05;
// Relative uncertainty of the ratio of two configurations' medians, each timed in its own session:
// their own uncertainties and the session spread combined, and at least the spread of the ratios
// of their blocks timed in the same round. With a process spinning on one of two cores, one
// graph against itself read 0.86x and 1.33x with the first alone saying ±8-13 %: the two
// sessions' runs fell into different modes (a thread waiting for the busy core or not), which
// the paired blocks show.
double ratioUncertainty(const TimedLatency& a, const TimedLatency& b);

// Times every configuration (aligned results). Errors name the model; a run the runtime refuses
// is its Error::device. Cancel is checked between runs and stops a run in flight.
Result<std::vector<TimedLatency>> timeConfigs(std::span<const TimedConfig> configs, const SamplingPolicy& policy,
                                              const Progress& progress = Progress::none());

// One intra-op thread beside the configuration's thread count, the two timed in turns, into
// `m.oneThreadMs` / `m.threadsMs` (`m` is the configuration's measurement): when it uses more
// than one thread and either contention was seen (under load one thread ran 2x faster than two
// here) or it is cheap (a run under kOneThreadCheapMs). Does nothing otherwise.
constexpr double kOneThreadCheapMs = 20;
Status compareOneThread(const TimedConfig& config, const SamplingPolicy& policy, double medianMs, Measurement& m,
                        const Progress& progress = Progress::none());

// Relative half-width of the 90 % confidence interval of the median of `samples` (order
// statistics); infinity with fewer than 5 samples.
double medianUncertainty(std::vector<double> samples);

// A timed median's uncertainty: its runs' (`runs`), widened by how the medians of the blocks it
// comes from differ (`keptBlocks`, a drift between moments many runs per block do not average
// away). With fewer than five kept blocks that drift is unknown, and every block timed
// (`allBlocks`, the set-aside busy ones too) says how much the moments differed: two quiet
// blocks kept of ten on a VM whose hypervisor took 15 % read one configuration 26 % slower than
// its equal (Verify of a BatchNormalization fold ONNX Runtime also makes at load).
double latencyUncertainty(const std::vector<double>& runs, const std::vector<double>& keptBlocks,
                          const std::vector<double>& allBlocks);

}  // namespace msa
