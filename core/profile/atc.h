#pragma once
// ONNX -> Ascend offline model (.om) with the CANN ATC compiler, run as a child process:
//   atc --model=M.onnx --framework=5 --output=DIR/M --soc_version=SOC --input_shape="x:1,3,224,224" [extra…]
// Needs no CANN headers: the command can be built and checked anywhere.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct AtcOptions {
  std::filesystem::path atc;           // empty: $ASCEND_TOOLKIT_HOME/bin/atc, else "atc" on PATH
  std::string socVersion;              // required: "Ascend310P3", "Ascend910B4"… (`npu-smi info` name)
  std::filesystem::path outputDir;     // where <model stem>.om is written
  std::vector<std::string> extraArgs;  // passed through verbatim (--precision_mode=force_fp16 …)
  // Symbolic input dims: by dim name ("batch") or "input:axis" (as ShapeOptions::dims).
  std::map<std::string, int64_t, std::less<>> dims;
  std::chrono::seconds timeout{1800};  // ATC compiles kernels: minutes are normal
};

// --input_shape value for the model's (non-initializer) inputs, "x:1,3,224,224;mask:1,128".
// Fails, naming the input and the dim, when a dim is neither known nor bound.
Result<std::string> atcInputShape(const Model& model, const AtcOptions& options);
// The full argv (argv[0] = the atc executable).
Result<std::vector<std::string>> atcCommand(const Model& model, const std::filesystem::path& onnx,
                                            const AtcOptions& options);

struct AtcResult {
  std::filesystem::path om;
  std::string log;  // ATC's combined stdout/stderr (tail)
};

// Runs ATC. Cancel (progress) and the timeout stop it with SIGTERM, then SIGKILL after 5 s.
// Errors quote the last lines ATC printed (its E-codes, e.g. E10016 for a wrong input name).
Result<AtcResult> convertWithAtc(const Model& model, const std::filesystem::path& onnx, const AtcOptions& options,
                                 const Progress& progress = Progress::none());

}  // namespace msa
