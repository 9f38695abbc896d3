#pragma once
// Where the device kernels of a torch_npu run come from, read from its trace_view.json: a
// torch_to_npu flow ("cat": "async_npu") runs from the host thread, at the moment of the
// launch, to the task on the device. The operators open on that thread at that moment say who
// launched it (the outermost: "aten::conv2d", "autograd::engine::evaluate_function:
// ReluBackward0"; the innermost: "aclnnConvolution"), the nn.Module around it says which layer
// ("nn.Module: Conv2d_0", recorded with_modules), and the operator's "Call stack" (recorded
// with_stack) gives the user's Python line: its first frame outside the Python library and
// site-packages. Without flows, an aclnn kernel name still names its API ("aclnnEmbedding_…").
#include <filesystem>
#include <map>
#include <string>
#include <utility>

#include "profile/csv_table.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct KernelOrigins {
  // (kernel name, start time in units of 10 ns) -> origin.
  std::map<std::pair<std::string, long long>, NodeProfile::Origin> byTask;
  size_t flows = 0;  // torch_to_npu flows that reached a task
  // The "AI Core Freq" counter (MHz) over the trace: (time in µs, MHz) samples in time order.
  std::vector<std::pair<double, double>> aicoreFreq;
};

Result<KernelOrigins> readKernelOrigins(const std::filesystem::path& traceView, const Progress& progress = Progress::none());

// The origin a kernel's name gives: "aclnnAddmm_MatMulCommon_MatMulV2" -> launched by
// "aclnnAddmm" (from "name"); empty when the name says nothing.
NodeProfile::Origin originFromName(const std::string& kernelName);

// "…/site-packages/torch/nn/modules/conv.py(456): _conv_forward;\r\n…/imagenet_script/main.py(345): train;…"
// -> "imagenet_script/main.py(345): train": the first frame outside the library.
std::string userSourceLine(const std::string& callStack);

inline long long originKey(double startUs) { return integerOf(startUs * 100.0 + 0.5).value_or(-1); }

}  // namespace msa
