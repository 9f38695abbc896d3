#pragma once
// One op_summary_*.csv (msprof) or kernel_details.csv (torch_npu) file as records, whatever its
// generation and --aic-metrics mode:
//   - columns are found by name, case-insensitively, under every name CANN and torch_npu used:
//     Op Name | Name, OP Type | Type, Task Type | Accelerator Core, Task Duration(us) |
//     Duration(us), Task Start Time(us) | Task Start Time | Start Time(us), Task Wait Time(us) |
//     Wait Time(us), Block Dim | Block Num, Mix Block Dim | Mix Block Num, Infer ID | Step Id,
//     Input/Output Shapes, Data Types, Formats; leading Device_id / Step Id / Model ID columns,
//     OP State, HF32 Eligible and Context ID are read when present. Only the op name and the
//     duration are required (level-0 exports have 8 columns, Type and Accelerator Core "N/A");
//   - every other numeric column (aicore_time(us), aic_total_cycles, aic_mac_ratio,
//     aiv_main_mem_read_bw(GB/s), aic_l0a_read_bw(GB/s), aiv_vec_bank_cflt_ratio,
//     aic_r0_read_cache_hit, …) is kept as a metric under its header name, whatever the
//     --aic-metrics mode; the mode itself is recognised from the columns (`metricSet`);
//   - values: start times ending in a tab (inside or outside quotes), shapes quoted twice with
//     empty slots ("""512,16;8,2048,16;;;;;;8"""), "N/A" or empty for a missing value, rows
//     whose metric columns are all N/A, HCCL / COMMUNICATION tasks without metrics;
//   - a row with more or fewer fields than the header is read as far as it is unambiguous:
//     every placement of the missing (or merged) fields that leaves each cell well formed for
//     its column is tried, and only the columns that read the same under all of them are kept;
//     the row is counted and reported in `warnings` with its line number. A row whose op name
//     or duration is ambiguous is skipped (and reported).
// The file is refused only when it is no op table at all: no op name or duration column, or a
// malformed quote; the error names the file and the line.
#include <filesystem>
#include <string>
#include <vector>

#include "profile/ascend_ops.h"
#include "util/error.h"

namespace msa {

struct OpSummaryTable {
  std::vector<AscendOpRecord> rows;
  std::vector<std::string> warnings;  // "<file>: line N: …", one per ragged or skipped row
  int raggedRows = 0;                 // rows whose field count differed from the header's
  int skippedRows = 0;                // ragged rows that could not be read (in warnings too)
  // The --aic-metrics mode the columns say: PipeUtilization, ArithmeticUtilization, Memory,
  // MemoryL0, MemoryUB, ResourceConflictRatio, L2Cache, MemoryAccess,
  // PipelineExecuteUtilization; "" without metric columns (level 0, task-time only).
  std::string metricSet;
  bool kernelDetails = false;  // torch_npu's header (Name / Accelerator Core), not msprof's
  bool hasShapes = false;      // an Input Shapes or Output Shapes column
};

// Reads one file. Shapes, dtypes and formats are parsed for the first row of each op name only
// (they repeat), unless `everyRow`.
Result<OpSummaryTable> readOpSummaryTable(const std::filesystem::path& csv, bool everyRow = false);

// The --aic-metrics mode the header names imply ("" when none matches).
std::string ascendMetricSet(const std::vector<std::string>& header);

// An op type from a kernel name when the Type column says N/A (level-0 exports):
// "aclnnAddmm_MatMulCommon_MatMulV2" -> "MatMulV2", "trans_TransData_3" -> "TransData",
// "hcom_allReduce__586_0_1" -> "hcom_allReduce", "Conv2D1" -> "Conv2D" (a trailing index is
// dropped only when what is left is a known CANN type). "" when nothing can be said.
std::string opTypeFromKernelName(const std::string& name);

}  // namespace msa
