#pragma once
// The CPU profiler backend: ONNX Runtime runs the model, per-node times come from its trace and
// the end-to-end latency from a separate session without profiling overhead.
#include <filesystem>

#include "model/graph.h"
#include "profile/model_inputs.h"
#include "profile/ort_session.h"
#include "profile/profile_data.h"
#include "util/progress.h"

namespace msa {

struct CpuProfileOptions {
  // Disabled: the model as it is (runtime names = IR names). All: what the runtime's optimizer
  // makes of it (fusions, NCHWc reorders), mapped back to the IR through its dumped graph.
  GraphOptimization optimization = GraphOptimization::Disabled;
  int iterations = 20;
  int warmup = 3;
  int threads = 0;  // intra-op threads; 0: as many as the machine has cores
  bool spinning = true;  // see RuntimeOptions::spinning
  InputOptions inputs;
  std::filesystem::path inputsDir;  // empty: seeded random inputs
  std::filesystem::path keepTrace;  // when set, ONNX Runtime's own trace JSON is kept here
  bool measureLatency = true;       // the separate, unprofiled end-to-end measurement
  // That measurement runs at least `iterations` times, then on until its median is known within
  // `latencyTarget` or `latencyBudgetSeconds` have passed (measureLatencies).
  double latencyTarget = 0.01;
  double latencyBudgetSeconds = 8;
};

// How long to keep timing end-to-end runs.
struct LatencySampling {
  int minRuns = 10;
  int maxRuns = 2000;
  double target = 0.01;        // relative half-width of the median's 90 % confidence interval
  double budgetSeconds = 8;    // stop here whatever the spread
};

// Relative half-width of the 90 % confidence interval of the median of `samples` (order
// statistics); infinity with fewer than 5 samples.
double medianUncertainty(std::vector<double> samples);

// End-to-end latency of `model` at each optimization level, without profiling: one session per
// level, warmed up, then timed in rounds (one block of runs of each a round, run_timing.h; the
// order alternating) so that a change of machine load touches every level alike. Stops when every
// median is known within the target, or at the budget. Stats aligned with `levels`.
Result<std::vector<Stats>> measureLatencies(const Model& model, const std::vector<GraphOptimization>& levels,
                                            const CpuProfileOptions& options, const LatencySampling& sampling,
                                            const Progress& progress = Progress::none());

// Profiles `model` (its `path` locates external data). Checks progress.cancelled() between runs
// and stops a run in flight; returns ErrorKind::Cancelled then.
Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& options,
                                 const Progress& progress = Progress::none());

}  // namespace msa
