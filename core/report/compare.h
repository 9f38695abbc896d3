#pragma once
// Two runs side by side (profiles or analysis reports: per-node time deltas, regressions and
// improvements beyond a noise threshold) or two models (nodes added, removed, changed). Two
// device runs as a whole (steps, phases, kernel types, ranks): report/run_compare.h.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct TimingTable {
  std::string label;
  double totalMs = 0;  // end-to-end latency (median)
  std::vector<std::pair<std::string, double>> nodes;  // node name -> time (ms)
};

struct Report;

// An analysis's node (or kernel) times: measured where measured, else estimated.
TimingTable timingTableOf(const Report& r, const std::string& label);
// Reads `msadvisor-cli profile --json` or `analyze --json` output.
Result<TimingTable> timingTableFromJson(const nlohmann::json& j, const std::string& label);
// Whether `file` can be one (a JSON object with a "nodes" array), told without building its tree:
// compare refuses a file it cannot use before it reads either.
Status checkTimingTableFile(const std::filesystem::path& file);
// The same from a file, its nodes streamed (never the whole tree), within the read limits.
Result<TimingTable> readTimingTable(const std::filesystem::path& file);

struct NodeDelta {
  std::string name;
  double aMs = 0, bMs = 0, deltaMs = 0;
  double ratio = 0;  // b / a; 0 when absent from A
  bool inA = false, inB = false;
};

struct TimingComparison {
  double totalA = 0, totalB = 0;
  std::vector<NodeDelta> nodes;  // by |delta| descending
  std::vector<std::string> regressions, improvements;
};

// A node regresses (improves) when it is slower (faster) by more than `relThreshold` of its time
// in A and by more than `absThresholdMs`: per-node timing noise is several percent.
TimingComparison compareTimings(const TimingTable& a, const TimingTable& b, double relThreshold = 0.10,
                                double absThresholdMs = 0.01);

struct ModelDiff {
  std::vector<std::string> added, removed, changed;  // node names (changed: op, inputs or attributes)
};
ModelDiff diffModels(const Model& a, const Model& b);

nlohmann::json toJson(const TimingComparison& c);
nlohmann::json toJson(const ModelDiff& d);

}  // namespace msa
