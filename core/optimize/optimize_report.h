#pragma once
// What an optimization did and measured, for its clients (msadvisor-cli optimize, the Python
// ModelOptimizer): the timing of original against optimized with the cost model's estimate, and
// the `optimize --json` contract (DESIGN.md: level, applied, rolled_back, verification,
// latency_ms, estimated_speedup, measured_speedup; docs/optimizer.md for the rest).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "optimize/optimizer.h"
#include "optimize/outcome.h"
#include "profile/model_inputs.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct OptimizeMeasurement {
  std::optional<LatencyComparison> latency;
  std::optional<SpeedupEstimate> estimate;
  std::string estimateError;  // why there is no estimate (the run itself was timed)
};

struct MeasureOptimizationOptions {
  int iterations = 30;  // timed runs per configuration
  int threads = 0;      // intra-op threads; 0: the runtime's default
  InputOptions inputs;  // seed, dims
  std::filesystem::path inputsDir;  // the user's inputs (NAME.pb / NAME.npy); empty: seeded random
};

// Times the four configurations (original/optimized × ORT disabled/all, interleaved) and
// estimates the speedup from the original's per-node profile on this host's calibrated cpu-host
// profile. An error only when the timing itself fails; a failed estimate is `estimateError`.
Result<OptimizeMeasurement> measureOptimization(const Model& original, const OptimizeResult& result,
                                                const MeasureOptimizationOptions& options,
                                                const Progress& progress = Progress::none());

struct OptimizeReportContext {
  std::string model;   // the input, as the user named it
  std::string output;  // the file written; empty when nothing was written
  int64_t fileBytesBefore = -1, fileBytesAfter = -1;
};

nlohmann::json optimizeReportJson(const OptimizeResult& result, const OptimizeMeasurement& measured,
                                  const OptimizeReportContext& context);

}  // namespace msa
