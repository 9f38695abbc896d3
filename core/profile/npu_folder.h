#pragma once
// torch_npu (Ascend PyTorch profiler) and MindSpore (2.3 and later) output:
// <x>_ascend_pt/ (or <x>_ascend_ms/) ASCEND_PROFILER_OUTPUT/ with
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
#include <string>
#include <string_view>
#include <vector>

#include "profile/run_trace.h"

namespace msa::training {

// A run folder of the framework profilers, {worker}_{timestamp}_ascend_{framework}: torch_npu's
// *_ascend_pt and MindSpore's *_ascend_ms hold the same ASCEND_PROFILER_OUTPUT.
bool isFrameworkRunName(std::string_view folderName);

// When `path` is a profiler database (export type Db: *.db), or a folder (a job, a run folder,
// its ASCEND_PROFILER_OUTPUT or a PROF_* folder) holding one where no table msadvisor reads was
// found: a sentence naming the database and how to export the tables; else empty. Appended to
// the "no profile found" errors.
std::string databaseOnlyNote(const std::filesystem::path& path);

// The ASCEND_PROFILER_OUTPUT folder for a run folder (isFrameworkRunName), the output folder
// itself, or a folder holding exactly one run folder (several: an error asking for one rank's).
Result<std::filesystem::path> locateAscendOutput(const std::filesystem::path& dir);

Result<TrainingTrace> loadTorchNpu(const std::filesystem::path& pathOrCsv, const Progress& progress);

Result<std::vector<StepTraceRow>> readStepTraceTime(const std::filesystem::path& csv);

}  // namespace msa::training
