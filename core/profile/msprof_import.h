#pragma once
// Importer for Ascend profiles: what msprof and the Ascend PyTorch profiler (torch_npu) write,
// in every generation (docs/profiles.md lists them with the real files they were checked on).
//
// A file or a folder may be given:
//   PROF_x/device_N/summary/op_summary_<dev>_<model>_<iter>.csv      (CANN <= 7; files = iterations)
//   PROF_x/device_N/timeline/msprof_<dev>_<model>_<iter>.json,
//     task_time_*.json, step_trace_*.json, hccl_*.json               (raw, older generation: timeline only)
//   PROF_x/mindstudio_profiler_output/op_summary_<timestamp>.csv     (CANN >= 8; msprof_*.json without it)
//   <x>_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv          (torch_npu; trace_view.json,
//                                                                     step_trace_time.csv beside it)
//   PROF_GROUP_x/PROF_<metric>/PROF_x/…                              (one run per --aic-metrics mode)
// and a folder holding such runs. Several runs of one program (a PROF_GROUP, or PROF_* folders
// side by side with the same kernels) are merged: each run is an iteration, every run's metric
// columns are kept. Several ranks or devices (rank0_ascend_pt, rank1_ascend_pt; device_0,
// device_1) analyse the first, say so in `warnings` and count them in `ranks`. Any other file
// of a run (info.json.0, l2_cache.csv, trace_view.json, …) reads the run it belongs to.
//
// The chip (info.json.N, profiler_info_*.json, profiler_metadata.json, else the kernels' block
// dims and cycles: profile/ascend_chip.h) goes to `deviceInfo` (ai_core_num, aiv_num,
// aic_frequency_mhz) and `device` (the built-in device profile id, "ascend910b2"…).
//
// The tables are read by profile/op_summary_reader.h (every column set and value quirk; ragged
// rows read as far as they are unambiguous, reported in `warnings`). Malformed input that is no
// profile at all is an error naming the file and the line.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "profile/ascend_chip.h"
#include "profile/ascend_ops.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// One profiling run on disk.
struct MsprofFiles {
  std::vector<std::filesystem::path> opSummaries;  // op_summary files (several: iterations) or kernel_details.csv
  std::filesystem::path fusionOps;                 // empty when absent
  std::filesystem::path info;                      // info.json.N, empty when absent
  bool kernelDetails = false;                      // torch_npu kernel_details.csv rather than op_summary
  std::vector<std::filesystem::path> timeline;     // msprof/task_time/hccl/step_trace JSON, when there is no table
  std::filesystem::path stepTraceTime;             // torch_npu step_trace_time.csv
  std::filesystem::path traceView;                 // torch_npu trace_view.json
  std::vector<std::filesystem::path> chipFiles;    // profiler_info_*.json, profiler_metadata.json
  std::filesystem::path root;                      // the run's folder
  std::string label;                               // "rank0_ascend_pt", "PROF_x/device_0", …
};

struct MsprofRuns {
  std::vector<MsprofFiles> runs;  // the analysed run first; several when `group`
  bool group = false;             // runs of one program (PROF_GROUP): merged
  int ranks = 1;                  // rank or device folders found; only the first is analysed
  std::vector<std::string> warnings;
};

// Every run the path holds (see above). Errors: nothing Ascend in it.
Result<MsprofRuns> locateMsprofRuns(const std::filesystem::path& fileOrDir);
// The folder of the Ascend run around a file (its PROF_* or *_ascend_pt, else its export folder
// ASCEND_PROFILER_OUTPUT / mindstudio_profiler_output / device_N), within four levels; empty
// when the file sits in no run.
std::filesystem::path ascendRunAround(const std::filesystem::path& file);
// The analysed run alone.
Result<MsprofFiles> locateMsprof(const std::filesystem::path& fileOrDir);

// The rows of one op_summary / kernel_details file (ragged rows read as far as unambiguous;
// profile/op_summary_reader.h has the details and the warnings). Shapes, dtypes and formats
// are parsed for the first row of each op name only (they repeat), unless `everyRow`.
Result<std::vector<AscendOpRecord>> readOpSummary(const std::filesystem::path& csv, bool everyRow = false);
// Fusion Op -> Original Ops (split on ';', or ',' when there is no ';').
Result<std::map<std::string, std::vector<std::string>>> readFusionOps(const std::filesystem::path& csv);

// True when the CSV header names an op, a duration, and a start time or a type (format detection).
bool isOpSummaryHeader(const std::vector<std::string>& header);

// Imports a run. With a model, entries are per op name and matched onto its IR; without one
// (nullptr: the profile-only analysis) entries are per name and shapes, nothing is matched,
// and the kernels' framework operators and Python lines are read from trace_view.json when it
// is there (profile/kernel_origin.h).
Result<ProfileData> importMsprof(const std::filesystem::path& fileOrDir, const Model* model,
                                 const Progress& progress = Progress::none());
inline Result<ProfileData> importMsprof(const std::filesystem::path& fileOrDir, const Model& model,
                                        const Progress& progress = Progress::none()) {
  return importMsprof(fileOrDir, &model, progress);
}

}  // namespace msa
