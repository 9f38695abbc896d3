#pragma once
// msprof's timeline JSON as Ascend task records: the raw PROF_* folders of the older
// generation (device_N/timeline/msprof_<dev>_<model>_<iter>.json, task_time_*.json,
// step_trace_*.json, hccl_*.json) and the msprof_<timestamp>.json of mindstudio_profiler_output.
// A file is a Chrome trace: a bare array of events or {"traceEvents": [...]}; "ts" and "dur"
// may be numbers or strings.
//   - tasks: complete events ("ph": "X") of the "Ascend Hardware" process carrying a
//     "Task Type" arg (AI_CORE, AI_CPU, AI_VECTOR_CORE, MIX_*, MEMCPY_ASYNC, NOTIFY_*, …); the
//     op type is read from the name ("Default/…/Cast-op239" -> Cast);
//   - communication: the "Communication Kernel" lane of the "HCCL" process (one event per
//     collective, "Default/AllReduce-op534_0"), as task type HCCL;
//   - iterations: the "Iteration N" events of the step trace (args "Iteration ID"), with its
//     "FP_BP Time N" and "Reduce_N_k" spans; a task belongs to the iteration whose span holds its
//     start. Without them the file is one run. msprof_*.json holds the iterations its tasks ran
//     in; step_trace_*.json beside it every iteration of the run: both are read.
// Errors name the file and the event index.
#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "profile/ascend_ops.h"
#include "util/error.h"

namespace msa {

struct MsprofTimeline {
  std::vector<AscendOpRecord> tasks;  // every task, compute or not, in file order
  struct Iteration {
    long long id = -1;
    double startUs = 0, durUs = 0;
    // The step trace's own split, when it has one (µs): forward+backward, and the gradient
    // reduction spans (Reduce_<iteration>_<k>) summed; -1 when not recorded.
    double fpBpUs = -1, reduceUs = -1;
  };
  std::vector<Iteration> iterations;  // from the step trace, when the files carry one
  std::vector<std::string> files;
};

// Reads the timeline files of one device: `files` may hold msprof_*.json (which already
// carries the hardware, HCCL and step-trace lanes) or task_time / hccl / step_trace files.
Result<MsprofTimeline> readMsprofTimeline(const std::vector<std::filesystem::path>& files);

// A trace event's number: a JSON number, or a string holding one (torch_npu writes "ts" so).
std::optional<double> traceNumber(const nlohmann::json& v);

// The op type in a framework-scoped task name: the last "/" segment without its "-op<N>"
// suffix ("Default/network/Conv2D-op12" -> "Conv2D"), "" when the name is a plain task name.
std::string opTypeFromScopedName(const std::string& name);

}  // namespace msa
