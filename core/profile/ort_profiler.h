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
};

// Profiles `model` (its `path` locates external data). Checks progress.cancelled() between runs
// and stops a run in flight; returns ErrorKind::Cancelled then.
Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& options,
                                 const Progress& progress = Progress::none());

}  // namespace msa
