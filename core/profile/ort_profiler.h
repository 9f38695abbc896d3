#pragma once
// The CPU profiler backend: ONNX Runtime runs the model, per-node times come from its trace and
// the end-to-end latency from a separate session without profiling overhead.
#include <filesystem>

#include "model/graph.h"
#include "profile/latency.h"
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
  int threads = 0;       // intra-op threads; 0: the runtime's default (profile/latency.h)
  bool spinning = true;  // see RuntimeOptions::spinning
  InputOptions inputs;
  std::filesystem::path inputsDir;  // empty: seeded random inputs
  std::filesystem::path keepTrace;  // when set, ONNX Runtime's own trace JSON is kept here
  bool measureLatency = true;       // the separate, unprofiled end-to-end measurement
  // That measurement runs at least `iterations` times, then on until its median is known within
  // `latencyTarget` or `latencyBudgetSeconds` have passed (profile/latency.h).
  double latencyTarget = 0.01;
  double latencyBudgetSeconds = 8;
};

// The session settings and the sampling policy these options ask for.
SessionSettings sessionSettings(const CpuProfileOptions& options, GraphOptimization level);
SamplingPolicy samplingPolicy(const CpuProfileOptions& options);

// The model's inputs as the options say: the folder's files, else seeded random values.
Result<std::vector<DataValue>> profileInputs(const Model& model, const CpuProfileOptions& options);

// End-to-end latency of `model` at each optimization level, without profiling, through the
// measurement engine (profile/latency.h): the levels take turns by blocks so that a change of
// machine load touches every level alike. Aligned with `levels`.
Result<std::vector<TimedLatency>> measureLatencies(const Model& model, const std::vector<GraphOptimization>& levels,
                                                   const CpuProfileOptions& options, const SamplingPolicy& sampling,
                                                   const Progress& progress = Progress::none());

// Profiles `model` (its `path` locates external data). Checks progress.cancelled() between runs
// and stops a run in flight; returns ErrorKind::Cancelled then.
Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& options,
                                 const Progress& progress = Progress::none());

}  // namespace msa
