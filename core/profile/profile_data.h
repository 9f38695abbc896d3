#pragma once
// What a profile says, whatever produced it (ONNX Runtime here, an ORT JSON trace, msprof CSV,
// the ACL backend): per-runtime-node timing mapped back to IR nodes, and the end-to-end latency.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "util/error.h"

namespace msa {

// Statistics over iterations, in milliseconds.
struct Stats {
  double median = 0, p10 = 0, p90 = 0, mean = 0, min = 0, max = 0;
  int count = 0;
  static Stats of(std::vector<double> samples);  // percentiles by linear interpolation
};

struct NodeProfile {
  std::string name;    // the runtime's name for the node (ORT node name, msprof "Op Name")
  std::string opType;  // the runtime's op type: "Conv", "FusedConv", "ReorderInput", "TransData"…
  // IR node names whose work this entry did: one for a plain node, several for a node the
  // runtime fused, none for a node the runtime inserted (layout reorder, TransData, copy).
  std::vector<std::string> irNodes;
  bool inserted = false;
  Stats timeMs;
  std::string kernel;  // provider, kernel or task type ("CPUExecutionProvider", "AI_CORE")
  std::vector<std::string> inputShapes, outputShapes;    // "[1,64,56,56]"
  std::vector<std::string> inputDtypes, outputDtypes;    // "float", "float16"
  std::vector<std::string> inputFormats, outputFormats;  // Ascend: "NC1HWC0", "FRACTAL_Z", "ND"
  std::map<std::string, double> metrics;                 // further numeric columns (aicore_time, mac_ratio…)
  // Inserted entries only: the IR nodes on either side of the conversion, where the execution
  // order and the graph tell ("" at a graph input/output or when unknown). A TransData feeding
  // a Conv has consumerIrNode = that Conv.
  std::string producerIrNode, consumerIrNode;
  // Added by the ORT backend (additive): an inserted node's IR neighbours (the nodes producing
  // its inputs and consuming its outputs); and, for a node run inside a subgraph (If/Loop/Scan
  // body), the runtime node running that subgraph, whose own time already includes this one.
  std::vector<std::string> neighbours;
  std::string parent;
};

struct ProfileData {
  std::string device;        // "cpu", "Ascend310P3"…
  std::string runtime;       // "onnxruntime 1.21.1", "msprof"…
  std::string source;        // "measured" or "imported:<file name>"
  std::string optimization;  // runtime graph optimization: "disabled", "all", or "" when unknown
  int threads = 0, iterations = 0, warmup = 0;
  std::map<std::string, std::string> inputShapes;  // input name -> "[1,3,224,224]"
  Stats latencyMs;                                  // end to end, per iteration
  std::vector<NodeProfile> nodes;
  std::vector<std::string> unmatched;  // runtime entries matching no IR node by name (not dropped)
  std::map<std::string, double> deviceInfo;  // device facts the source gave (Ascend info.json: ai_core_num…)
  // Added by the ORT backend (additive): IR nodes no runtime node covers — folded into constants
  // or removed by the runtime's optimizer, Constant nodes, or subgraph branches not taken.
  std::vector<std::string> irNodesNotRun;

  double sumNodeMedians() const;  // top-level entries only: a subgraph's nodes are inside their parent's time
  const NodeProfile* find(std::string_view runtimeName) const;
  // Measured time per IR node name (ms, medians). A fused entry's time is split among its
  // members by `weights` (e.g. their roofline estimates), evenly when none are given.
  std::map<std::string, double> timePerIrNode(const std::map<std::string, double>& weights = {}) const;
};

// The JSON of `msadvisor-cli profile --json` (keys per DESIGN.md; extra keys allowed).
nlohmann::json toJson(const ProfileData& p);
Result<ProfileData> profileFromJson(const nlohmann::json& j, const std::string& label = "profile");

}  // namespace msa
