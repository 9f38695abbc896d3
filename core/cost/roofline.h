#pragma once
// Roofline estimate per node: time = max(FLOPs / peak(unit, type), bytes / bandwidth) + launch
// overhead, on a DeviceProfile. The theoretical optimum of a model is the sum over its nodes.
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "cost/op_cost.h"

namespace msa {

enum class Bound { Compute, Memory, Overhead, Unknown };
std::string_view boundName(Bound b);  // "compute", "memory", "overhead", "unknown"

struct RooflineOptions {
  enum class Precision {
    Device,  // the device's default (float32 -> float16 on Ascend)
    Model,   // the model's element types
    Fp16,    // every float32 op in float16
  };
  Precision precision = Precision::Device;
};

struct NodeEstimate {
  double computeSeconds = 0;   // flops / peak
  double memorySeconds = 0;    // bytes / bandwidth
  double overheadSeconds = 0;  // launch overhead (0 when the device elides the op)
  double seconds = 0;          // max(compute, memory) + overhead; subgraph sums for If/Loop/Scan
  double flops = 0;
  double bytes = 0;            // at the compute type (float32 tensors halve under float16)
  double intensity = 0;        // flops / bytes
  double peak = 0;             // FLOP/s used (0 for data movement)
  DType computeType = DType::Undefined;
  ComputeUnit unit = ComputeUnit::None;
  Bound bound = Bound::Unknown;
  bool known = false;
  bool elided = false;  // metadata-only or constant-foldable op the device removes
  // Set by applyKernelGroups: -1 when the node runs as its own kernel, else the node that
  // launches the fused kernel it runs in (that node itself included).
  long kernelAnchor = -1;
};

struct RooflineEstimate {
  std::vector<NodeEstimate> nodes;  // aligned with graph.nodes
  double seconds = 0;               // sum over nodes
  double boundSeconds[4] = {0, 0, 0, 0};  // time of the nodes bound by each Bound, by index
  size_t boundCount[4] = {0, 0, 0, 0};
  size_t unknownNodes = 0;
};

// Nodes a compiler runs as one kernel (Ascend's graph engine: a BatchNormalization folded into
// the convolution's weights, UB fusion keeping an activation in the on-chip buffer).
struct KernelGroup {
  std::vector<size_t> members;      // graph node indices; the first launches the kernel
  std::vector<double> memberBytes;  // per member: model-typed bytes it still moves through device
                                    // memory (values kept on chip and weights folded away excluded)
  std::vector<bool> folded;         // per member: compiled away, no arithmetic left of its own
};

// The bytes an op moves when it computes in `type`: its float32 tensors shrink to 2 bytes per
// element when it computes in float16 (an op whose float32 share was not filled in, a rule's
// hypothetical fused node, is taken to move float32 data only).
double bytesAtType(const OpCost& cost, DType type);

// One node's estimate from its cost. Metadata-only ops cost the launch overhead, or nothing when
// the device elides them; foldable nodes cost nothing on a device that folds constants;
// Constant nodes cost nothing. An unknown cost gives Bound::Unknown with
// the launch overhead only (a lower bound).
NodeEstimate estimateNode(const OpCost& cost, std::string_view opType, const DeviceProfile& device,
                          const RooflineOptions& options = {});

// Every node of the graph; a node with subgraphs gets the sum of the estimates of the subgraph
// its cost counts (the branch taken, the loop body times its trip count).
RooflineEstimate estimateRoofline(const Graph& graph, const GraphCost& cost, const DeviceProfile& device,
                                  const RooflineOptions& options = {});

// Re-prices `estimate` (estimateRoofline's, same device and options) with each group run as one
// kernel: max(its members' compute, the bytes that still cross device memory / bandwidth) plus one
// launch. Each member keeps its own compute and memory terms (so the optimum can regroup them)
// and a share of the kernel's time in proportion to its own work; the totals are recomputed.
void applyKernelGroups(RooflineEstimate& estimate, const GraphCost& cost, const DeviceProfile& device,
                       const std::vector<KernelGroup>& groups);

}  // namespace msa
