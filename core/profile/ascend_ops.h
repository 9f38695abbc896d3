#pragma once
// Per-task records of an Ascend run (from msprof op_summary / kernel_details rows, or from the
// ACL subscription API) and their aggregation into a ProfileData mapped onto the IR.
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "model/graph.h"
#include "profile/profile_data.h"

namespace msa {

struct AscendOpRecord {
  std::string name, opType, taskType;  // Op Name, OP Type, Task Type (AI_CORE, AI_CPU, …)
  std::string opState;                 // OP State: "dynamic", "static", "" when not recorded
  double durationUs = 0;
  double startUs = -1;        // < 0: unknown
  long long iteration = -1;   // the run's own iteration id (msprof Infer ID); < 0: unknown
  std::vector<std::string> inputShapes, outputShapes;  // "[1,64,56,56]"
  std::vector<std::string> inputDtypes, outputDtypes;  // "float16"
  std::vector<std::string> inputFormats, outputFormats;  // "NC1HWC0"
  // Numeric columns, compact because exports run to 10^5 rows: metricValues[i] belongs to
  // (*metricNames)[i] (shared by the rows of one file); NaN = missing in this row.
  std::shared_ptr<const std::vector<std::string>> metricNames;
  std::vector<double> metricValues;
  int line = 0;  // source line, 0 when not from a file
  int origin = -1;  // index into AscendAggregateOptions::origins, -1: unknown

  std::optional<double> metric(std::string_view name) const;  // nullopt when absent or missing
};

struct AscendAggregateOptions {
  std::string device = "ascend";
  std::string runtime;
  std::string source;
  // Fused kernel name -> original op names (fusion_op csv).
  const std::map<std::string, std::vector<std::string>>* fusions = nullptr;
  std::map<std::string, double> deviceInfo;  // info.json facts: ai_core_num, aic_frequency_mhz…
  // One entry per distinct (name, shapes, dtypes, formats) instead of per name: the profile-only
  // analysis prices each call from its own shapes (one aclnnMuls name runs on a scalar and on a
  // 4096x9216 weight). Without a graph nothing is matched either way.
  bool groupByShapes = false;
  const std::vector<NodeProfile::Origin>* origins = nullptr;  // AscendOpRecord::origin indexes it
};

// Groups records by op name (or name and shapes) into per-iteration statistics. Iterations: the records' own ids
// when every record has one, else the n-th occurrence of a name belongs to iteration n. The
// end-to-end latency of an iteration is the span from its first task start to its last task
// end (device time, host gaps between tasks included), or the sum of its task times when
// start times are missing; for an excerpt (stepSource "excerpt") the sum of its rows' times.
// Entries keep execution order (the first iteration's start times).
// An excerpt: rows whose busy time is under this share of their span, with gaps their Wait Time
// does not account for over this share (a complete run's gaps are the next task's wait).
inline constexpr double kExcerptBusyShare = 0.1, kExcerptGapShare = 0.5;
ProfileData aggregateAscendOps(std::vector<AscendOpRecord> records, const Graph& graph,
                               const AscendAggregateOptions& options);

// "1,64,56,56;64,64,1,1" -> {"[1,64,56,56]", "[64,64,1,1]"}; an empty tensor slot stays "".
std::vector<std::string> splitAscendShapes(const std::string& field);
// "FLOAT16;INT64" -> {"float16", "int64"} (DT_ prefixes dropped).
std::vector<std::string> splitAscendDtypes(const std::string& field);
// "NC1HWC0;FORMAT_ND" -> {"NC1HWC0", "ND"}.
std::vector<std::string> splitAscendFormats(const std::string& field);

// A metric by its op_summary name, also found under the kernel_details prefixes (aic_, aiv_).
const double* ascendMetric(const NodeProfile& n, const std::string& name);

}  // namespace msa
