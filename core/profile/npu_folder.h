#pragma once
// torch_npu (Ascend PyTorch profiler) output: <x>_ascend_pt/ASCEND_PROFILER_OUTPUT/ with
//   trace_view.json      host operators (lane "Python"), CANN APIs, device tasks ("Ascend
//                        Hardware"), torch_to_npu flows; read by the Chrome-trace reader;
//   kernel_details.csv   one row per device task (Name, Type, Accelerator Core, Start Time(us),
//                        Duration(us), Step Id, Input Shapes/Data Types…); read by the msprof
//                        importer (profile/msprof_import.h) and preferred over the trace's device
//                        lane, whose tasks it describes in more detail;
//   step_trace_time.csv  per step: Computing, Communication (Not Overlapped), Overlapped,
//                        Communication, Free, [Stage, Bubble, …, Preparing] (µs).
// At least one of trace_view.json and kernel_details.csv must be present.
#include <filesystem>
#include <vector>

#include "profile/run_trace.h"

namespace msa::training {

// The ASCEND_PROFILER_OUTPUT folder for a *_ascend_pt folder, the output folder itself, or a
// folder holding exactly one *_ascend_pt (several: an error asking for one rank's folder).
Result<std::filesystem::path> locateAscendOutput(const std::filesystem::path& dir);

Result<TrainingTrace> loadTorchNpu(const std::filesystem::path& pathOrCsv, const Progress& progress);

Result<std::vector<StepTraceRow>> readStepTraceTime(const std::filesystem::path& csv);

}  // namespace msa::training
