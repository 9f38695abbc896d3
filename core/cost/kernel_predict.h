#pragma once
// A kernel's predicted time: its roofline terms scaled by an efficiency model fitted on real
// kernels (resources/ascend/kernel_efficiency.json; docs/cost-model.md, "Predicted kernel
// time"). The roofline is what the hardware allows; the prediction is what such a kernel takes
// on the device, from its formula alone (no measurement of it):
//
//   predicted = max(roofline, start + max(compute_factor x compute, memory_factor x memory))
//
// where compute = FLOPs / peak (unit, type), memory = bytes / device-memory bandwidth and start
// the fixed cost of a task, with (start, compute_factor, memory_factor) per kernel class: the op
// family, the element type's width, a shape variant (a skinny MatMul, a channel-padded
// convolution, an attention gradient, …) and whether the kernel ran as a MIX kernel. A class
// the model has no fit for falls back to its parent ("matmul/16-bit/full/mix" →
// "matmul/16-bit/full" → "matmul/16-bit" → "matmul" → "all").
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cost/kernel_cost.h"
#include "cost/roofline.h"
#include "model/graph.h"
#include "util/error.h"

namespace msa {

class GraphIndex;
struct GraphCost;

// The classes of a kernel, most specific first, ending with "all".
std::vector<std::string> kernelClasses(const KernelCost& k, bool mixCore);

struct EfficiencyFit {
  double startSeconds = 0, computeFactor = 1, memoryFactor = 1;
  // What it was fitted on: kernels (calls over the profiled steps), distinct entries and the
  // files (run folders) they came from; the share of them the fit puts within ±25 %.
  double kernels = 0;
  int entries = 0;
  std::vector<std::string> files;
  double within25 = 0;
};

struct EfficiencyModel {
  std::map<std::string, EfficiencyFit> classes;
  std::vector<std::string> socs;  // the chips it was fitted on ("Ascend910B2", …)
  std::map<std::string, std::string> sources;  // file (run folder) -> where it comes from
  bool empty() const { return classes.empty(); }
  // The fit of the most specific class it has, with its key; nullptr when none applies.
  const EfficiencyFit* find(const std::vector<std::string>& classes, std::string* key = nullptr) const;
  bool covers(const DeviceProfile& device) const;  // fitted on this device's chip family
};

// The built-in model (resources/ascend/kernel_efficiency.json, compiled in). A file that fails
// to parse is recorded as a table error (util/embedded.h) and the model is empty.
const EfficiencyModel& builtinEfficiencyModel();
Result<EfficiencyModel> parseEfficiencyModel(std::string_view jsonText, const std::string& label);
nlohmann::json toJson(const EfficiencyModel& m);

struct KernelPrediction {
  double seconds = 0;    // 0: no prediction (no known cost, or the model does not cover the device)
  std::string classKey;  // the class whose fit was used
};
// `roofline` is kernelRoofline of `k.cost` on `device`.
KernelPrediction predictKernel(const KernelCost& k, const KernelRoofline& roofline, const DeviceProfile& device,
                               bool mixCore, const EfficiencyModel& model = builtinEfficiencyModel());

// ---- fitting (tests/bench/bench_ascend_kernels) ----

struct EfficiencySample {
  KernelCost cost;           // the formula's
  KernelRoofline roofline;   // of `cost`, on the device the kernel ran on
  bool mix = false;
  double measuredSeconds = 0;  // per call
  double weight = 1;           // kernels the entry stands for (calls x steps)
  std::string file;            // run folder
};
// Per class with at least `minEntries` distinct entries from at least `minFiles` files (a class
// seen in one file alone cannot be told from that file's own conditions; "all" is always
// fitted): the (start, compute, memory) on a grid that puts the most kernels within ±25 % of
// their measured time, ties broken by the smallest mean |log error| (or that mean alone).
struct EfficiencyFitOptions {
  int minEntries = 3;
  int minFiles = 2;
  bool logError = false;  // minimise the mean |log error| instead of maximising the share within ±25 %
};
EfficiencyModel fitEfficiencyModel(const std::vector<EfficiencySample>& samples, const EfficiencyFitOptions& options = {});

// ---- the graph estimate ----

// The kernel an ONNX node runs as on an Ascend device, priced like a profile row (the cube's
// work on padded tiles, C0-padded channels): Conv as Conv2D, MatMul/Gemm as MatMulV2 or
// BatchMatMulV2; other nodes keep their graph cost under the family of their op type. `type`
// is the element type the device computes the node in.
KernelCost kernelCostOfNode(const Node& node, const GraphIndex& index, const OpCost& cost, DType type);

// Predicted seconds per node of an estimate (estimateRoofline / compiledRoofline on `device`):
// a node that launches a kernel gets that kernel's prediction, the other members of a fused
// kernel and elided nodes 0. Empty when the model does not cover the device.
std::vector<double> predictGraphKernels(const Graph& graph, const GraphIndex& index, const GraphCost& cost,
                                        const RooflineEstimate& estimate, const DeviceProfile& device,
                                        const EfficiencyModel& model = builtinEfficiencyModel());

}  // namespace msa
