#pragma once
// What a profile says, whatever produced it (ONNX Runtime here, an ORT JSON trace, msprof CSV,
// the ACL backend): per-runtime-node timing mapped back to IR nodes, and the end-to-end latency.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "profile/measurement.h"
#include "util/error.h"

namespace msa {

// The longest time a profile can hold: a year, in milliseconds. A duration beyond it is no
// measurement (a file saying 1e308) and is refused by the readers, never printed as a
// 300-digit headline. durationProblem() says what is wrong with one, "" when nothing.
inline constexpr double kMaxDurationMs = 365.0 * 24 * 3600 * 1000;
std::string durationProblem(double ms);

// Statistics over iterations, in milliseconds.
struct Stats {
  double median = 0, p10 = 0, p90 = 0, mean = 0, min = 0, max = 0;
  int count = 0;
  static Stats of(std::vector<double> samples);  // percentiles by linear interpolation
  // The same over `samples` and `zeros` more samples of 0, without writing them out: an entry
  // seen in a few of many steps costs what it was seen in, not steps × entries.
  static Stats withZeros(std::vector<double> samples, size_t zeros);
};

// The mean of the middle half of the samples: as robust to outliers as the median, but not
// stuck on one sample's value when the samples are rounded (ONNX Runtime's profiler times whole
// microseconds, so a median of tiny ops jumps 3 -> 4 -> 5 µs between runs).
double interquartileMean(std::vector<double> samples);

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
  // Device kernels of an imported profile (additive). `calls`: how many times the entry ran in
  // one iteration (median); its time is their sum. `opState`: Ascend OP State ("dynamic",
  // "static", "" unknown). `origin`: where the kernel comes from when the profile says it.
  double calls = 1;
  std::string opState;
  struct Origin {
    std::string frameworkOp;  // the framework operator that launched it: "aten::conv2d"
    std::string launchOp;     // the innermost operator around the launch: "aclnnConvolution"
    std::string module;       // the nn.Module around it: "nn.Module: Conv2d_0"
    std::string sourceLine;   // the user's Python line: "imagenet_script/main.py(345): train"
    std::string from;         // how it was found: "flow" (trace_view flow events), "name" (aclnn prefix)
  } origin;
};

// What an imported profile can tell, by its importer (not guessed from the runtime string).
struct ProfileCapabilities {
  bool deviceTasks = false;   // entries are device tasks/kernels with a task type (AI_CORE, HCCL…)
  bool ascend = false;        // Ascend task types, CANN op types and formats (msprof, torch_npu, ACL)
  bool shapes = false;        // per-entry input/output shapes
  bool pmuMetrics = false;    // per-kernel PMU columns (pipe ratios, bandwidths, cycles)
  bool timeline = false;      // start times: gaps and overlap can be told
  bool runtimeGraph = false;  // entries are what the runtime ran after its own graph optimization
};

struct ProfileData {
  std::string device;        // "cpu", "Ascend310P3"…
  std::string runtime;       // "onnxruntime 1.21.1", "msprof"…
  std::string source;        // "measured" or "imported:<file name>"
  std::string optimization;  // runtime graph optimization: "disabled", "all", or "" when unknown
  int threads = 0, iterations = 0, warmup = 0;
  std::map<std::string, std::string> inputShapes;  // input name -> "[1,3,224,224]"
  Stats latencyMs;                                  // end to end, per iteration
  // Where latencyMs comes from when the source recorded its own steps: "step_trace" (torch_npu
  // step_trace_time.csv, an msprof step trace's iterations); "" when it spans the tasks or runs.
  // "excerpt": the rows are a few of a longer run's (their gaps are not the device's idle time),
  // latencyMs is the sum of their times and rowsSpanMs the span they were taken from.
  std::string stepSource;
  double rowsSpanMs = 0;
  // Steps at the start far slower than the rest (compilation, allocator growth) left out of
  // latencyMs, and whether the task rows are from such a warm-up step only (the profiler kept
  // one iteration's tasks and it was the first).
  int warmupSteps = 0;
  bool rowsFromWarmup = false;
  Measurement measurement;                          // how latencyMs was timed (measured here only)
  std::vector<NodeProfile> nodes;
  std::vector<std::string> unmatched;  // runtime entries matching no IR node by name (not dropped)
  std::map<std::string, double> deviceInfo;  // device facts the source gave (Ascend info.json: ai_core_num…)
  // Added by the ORT backend (additive): IR nodes no runtime node covers — folded into constants
  // or removed by the runtime's optimizer, Constant nodes, or subgraph branches not taken.
  std::vector<std::string> irNodesNotRun;
  // Added by the importer registry (additive): which importer read it ("msprof", "torch_npu",
  // "onnxruntime", "tensorrt", "kineto", …), what it can tell, what was read as far as it was
  // unambiguous ("kernel_details.csv: line 17: 31 fields, the header has 32: …"), the files read,
  // the ranks found (the profile is one of them), and the --aic-metrics mode(s) of an Ascend run.
  std::string importer;
  ProfileCapabilities caps;
  std::vector<std::string> warnings;
  std::vector<std::string> files;
  int ranks = 1;
  std::string rank;  // the analysed rank's folder or device ("rank0_ascend_pt", "device_0"), "" when one
  std::vector<std::string> metricSets;
  std::string chipBasis;
  int tasks = 0;  // rows or events read (device tasks of an Ascend run, kernels of a trace), 0 unknown
  // Device profiles without a model (additive): the entry of each task of the first iteration
  // in execution order (indices into `nodes`), and the step's own breakdown when the profiler
  // wrote one (torch_npu step_trace_time.csv, medians over steps, ms: "computing",
  // "communication", "communication_not_overlapped", "overlapped", "free").
  std::vector<int> taskOrder;
  std::map<std::string, double> stepBreakdownMs;  // Ascend: how the chip was told ("Ascend910B2 (kernels: block dims up to 24 …)")

  double sumNodeMedians() const;  // top-level entries only: a subgraph's nodes are inside their parent's time
  const NodeProfile* find(std::string_view runtimeName) const;
  // Measured time per IR node name (ms, medians). A fused entry's time is split among its
  // members by `weights` (e.g. their roofline estimates), evenly when none are given.
  std::map<std::string, double> timePerIrNode(const std::map<std::string, double>& weights = {}) const;
};

// The JSON of `msadvisor-cli profile --json` (keys per DESIGN.md; extra keys allowed).
nlohmann::json toJson(const ProfileData& p);
// The contract's `measurement` object: null when nothing was measured here.
nlohmann::json toJson(const Measurement& m);
Result<ProfileData> profileFromJson(const nlohmann::json& j, const std::string& label = "profile");

}  // namespace msa
