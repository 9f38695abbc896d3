#pragma once
// Importer for Ascend profiles exported by msprof (op_summary_*.csv, fusion_op_*.csv,
// info.json.N) and by the Ascend PyTorch profiler (kernel_details.csv).
//
// Accepted layouts (a file or a folder may be given):
//   PROF_xxx/device_N/summary/op_summary_<dev>_<model>_<iter>.csv   (CANN <= 7; info.json.N in device_N/)
//   PROF_xxx/mindstudio_profiler_output/op_summary_<timestamp>.csv  (CANN >= 8; info.json.N in device_N/)
//   <x>_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv         (torch_npu)
// and a folder that holds exactly one PROF_* or *_ascend_pt folder. fusion_op_*.csv next to
// the op summary names the original ops of fused kernels; info.json.N gives ai_core_num and
// aic_frequency (-> ProfileData::deviceInfo).
//
// Columns are found by name, case-insensitively, in both generations of headers:
//   Op Name | Name, OP Type | Type, Task Type | Accelerator Core, Task Duration(us) | Duration(us),
//   Task Start Time(us) | Task Start Time | Start Time(us), Task Wait Time(us) | Wait Time(us),
//   Block Dim | Block Num, Mix Block Dim | Mix Block Num, Infer ID, Input/Output Shapes,
//   Data Types, Formats. Op Name and the duration are required. Every other numeric column
//   (aicore_time(us), total_cycles, mac_ratio, aic_mac_ratio, …) is kept as a per-node metric
//   under its header name (median over iterations); Block Dim/Num is stored as "block_dim",
//   Mix Block Dim/Num as "mix_block_dim", the wait time as "wait_time(us)".
// Malformed input is an error that names the file and the line: missing required columns,
// a field count that differs from the header, an unterminated quote, a bad number in a
// numeric column (duration, times, block dims, *_ratio, *cycles, *(us)). "N/A" and empty
// cells count as missing values.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "profile/ascend_ops.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct MsprofFiles {
  std::vector<std::filesystem::path> opSummaries;  // one run: several files are several iterations
  std::filesystem::path fusionOps;                 // empty when absent
  std::filesystem::path info;                      // info.json.N, empty when absent
  bool kernelDetails = false;                      // torch_npu kernel_details.csv rather than op_summary
};

Result<MsprofFiles> locateMsprof(const std::filesystem::path& fileOrDir);

// The rows of one op_summary / kernel_details file. Shapes, dtypes and formats are parsed for
// the first row of each op name only (they repeat), unless `everyRow` (the training analysis
// looks for shapes that change from step to step).
Result<std::vector<AscendOpRecord>> readOpSummary(const std::filesystem::path& csv, bool everyRow = false);
// Fusion Op -> Original Ops (split on ';', or ',' when there is no ';').
Result<std::map<std::string, std::vector<std::string>>> readFusionOps(const std::filesystem::path& csv);
// DeviceInfo[0] of info.json.N: ai_core_num, aiv_num, ai_cpu_core_num, aic_frequency_mhz,
// aiv_frequency_mhz, hwts_frequency_mhz (those present).
Result<std::map<std::string, double>> readAscendInfo(const std::filesystem::path& infoJson);

// True when the CSV header names an op column and a duration column (format detection).
bool isOpSummaryHeader(const std::vector<std::string>& header);

Result<ProfileData> importMsprof(const std::filesystem::path& fileOrDir, const Model& model,
                                 const Progress& progress = Progress::none());

}  // namespace msa
