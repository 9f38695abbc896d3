#pragma once
// Timing the variants beside the original as deployed (ONNX Runtime, ORT_ENABLE_ALL), in blocks
// taken in turn (profile/run_timing.h) so that the machine's load touches every configuration
// alike, and speedups are ratios measured in one run.
//
// timeVariants is the one place what-if times anything: when the measurement engine of issue 24
// (profile/latency.h, timeConfigs) lands, this function becomes a call to it — the settings below
// are its SessionSettings field for field.
#include <span>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// How a variant's session runs; the defaults are what an application gets.
struct VariantSettings {
  int threads = 0;  // intra-op threads; 0: one per core (defaultVariantThreads)
  bool spinning = true;
  bool parallelExecution = false;
  int interOpThreads = 0;  // with parallelExecution; 0: the runtime's default
  friend bool operator==(const VariantSettings&, const VariantSettings&) = default;
};
// The thread count an application's session gets when it sets none: one per core. Set
// explicitly: ONNX Runtime 1.21 left at 0 runs one thread on this two-core VM (issue 24).
int defaultVariantThreads();
int resolvedThreads(const VariantSettings& s);

struct TimedVariant {
  const Model* model = nullptr;
  std::span<const DataValue> inputs;
  VariantSettings settings;
};

struct TimingOptions {
  int iterations = 30;         // timed runs per configuration, at least
  int warmup = 2;              // untimed runs after each session is created
  double budgetSeconds = 40;   // stop adding rounds here (after three at least)
};

struct VariantTiming {
  Stats stats;        // ms per run
  std::string error;  // the runtime could not load or run it (then no stats)
};

struct TimingReport {
  std::vector<VariantTiming> timings;  // aligned with the variants
  // The `measurement` of the contract: over the first configuration's blocks, the CPU time its
  // threads got / (wall time × threads); contended below 0.75; the 1-minute load average at the end.
  int threads = 0;
  double cpuShare = 1;
  bool contended = false;
  double load = 0;
  int rounds = 0;
};

// The first variant is the reference (the original as deployed): it must load and run.
Result<TimingReport> timeVariants(std::span<const TimedVariant> variants, const TimingOptions& options,
                                  const Progress& progress = Progress::none());

// The 1-minute load average (/proc/loadavg), 0 when unreadable.
double loadAverage();

}  // namespace msa
