#pragma once
// What ATC's graph engine fuses by itself when it compiles a model for an Ascend AI Core: the
// graph fusions (BatchNormalization folded into the convolution, bias Add into the MatMul,
// decomposed LayerNorm/GELU into one operator, attention into FlashAttention) and then the UB
// fusions (a convolution or MatMul with its elementwise epilogue, connected elementwise operators)
// of resources/ascend/ge_fusion.json, each with its conditions. An Ascend estimate prices the
// kernels this yields (cost/roofline.h applyKernelGroups); findings whose fix the graph engine
// applies are labelled, and the near-misses say what keeps the graph engine from fusing.
// fusion_result.json (profile/ge_fusion_result.h), when given, says which passes really fired.
#include <string>
#include <vector>

#include "cost/roofline.h"
#include "rules/rule.h"

namespace msa {

struct GeFusionResult;

enum class GeFusionKind { Graph, Ub };

// One kernel of the compiled graph that runs several IR nodes.
struct GeKernel {
  std::vector<size_t> members;        // the first launches the kernel (the conv, the MatMul, …)
  std::vector<bool> folded;           // per member: compiled away (a BatchNormalization, a bias Add)
  std::vector<std::string> passes;    // the passes that built it, in the order they ran
  double writtenMs = 0;               // the members' estimate as written (one launch each)
  double compiledMs = 0;              // the kernel's estimate
};

// A fusion the graph engine would apply but for the conditions in `blockers` (catalog keys of
// the _blockers texts: "ge_dynamic_shape:<value>", "multi_consumer:<value>", …).
struct GeNearMiss {
  std::string pass;
  std::vector<size_t> members;
  std::vector<std::string> blockers;
};

// A pass of the catalogue (resources/ascend/ge_fusion.json) with its source's citation.
struct GePassInfo {
  std::string name, source;
  GeFusionKind kind = GeFusionKind::Graph;
};
const std::vector<GePassInfo>& gePasses();

struct GePassSummary {
  std::string name;
  GeFusionKind kind = GeFusionKind::Graph;
  int simulated = 0;      // fusions the simulation applied
  int notFired = 0;       // matched by the simulation, but fusion_result.json says the pass did not fire
  long matchTimes = -1;   // fusion_result.json's counts; -1 without one or when it does not list the pass
  long effectTimes = -1;
  bool modelled = true;   // false: a pass fusion_result.json lists that the simulation does not model
};

struct GeFusion {
  bool ran = false;                 // an Ascend device: the graph engine's fusions were simulated
  std::string fusionResultPath;     // the fusion_result.json that filtered the passes, if any
  std::vector<GeKernel> kernels;
  std::vector<long> kernelOf;       // per node: index into kernels, -1 when it runs alone
  std::vector<GeNearMiss> nearMisses;
  std::vector<GePassSummary> passes;
  std::vector<double> writtenMs;    // per node: its estimate as written (before the fusions)
  int launchesWritten = 0;          // nodes that launch a kernel as the graph is written
  int launchesCompiled = 0;         // kernels after fusion

  bool fused(size_t node) const { return node < kernelOf.size() && kernelOf[node] >= 0; }
  // The kernel groups for the roofline (cost/roofline.h).
  std::vector<KernelGroup> kernelGroups(const AnalysisContext& ctx) const;
};

// Simulates the fusions on `ctx` (whose estimates are still per node, as written) when its device
// is an Ascend NPU (ascend_tables.h isAscendDevice); `ran` is false otherwise. `result` (optional)
// switches off every pass it does not list as having taken effect.
GeFusion simulateGeFusion(const AnalysisContext& ctx, const GeFusionResult* result);

// The roofline of the graph the device's compiler runs: on an Ascend device the graph engine's
// fusions priced as kernels (`fusion`, when given, receives the simulation with its writtenMs),
// elsewhere the graph as written. `estimate` verb and AnalysisState alike.
RooflineEstimate compiledRoofline(const Model& model, const GraphIndex& index, const GraphCost& cost,
                                  const DeviceProfile& device, const RooflineOptions& options,
                                  const GeFusionResult* result, GeFusion* fusion);

// After the rules ran: findings whose group the graph engine fuses into one kernel are applied
// by "ascend-ge" (their impact is what the graph engine saves against the graph as written);
// findings the graph engine would fuse but for a condition get the near-miss's blockers.
void labelGeFindings(const AnalysisContext& ctx, std::vector<Finding>& findings);

}  // namespace msa
