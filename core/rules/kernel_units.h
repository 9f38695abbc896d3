#pragma once
// What the kernel family examines: one entry per kernel the runtime ran (a profile entry), with
// the IR nodes whose work it did, its measured time and its roofline on the device.
#include <string>
#include <vector>

#include "cost/op_cost.h"
#include "profile/profile_data.h"
#include "rules/rule.h"

namespace msa {

struct KernelUnit {
  const NodeProfile* entry = nullptr;
  std::vector<size_t> members;  // IR node indices, data-flow order of the profile entry
  OpCost cost;                  // of the members as one node (rule_util groupCost)
  double measuredMs = 0;        // median over iterations
  double bestMs = 0;            // the fastest iteration (min; else p10; else the median)
  double rooflineMs = 0;        // members' roofline on the device (as one node when fused)
  double intensity = 0;         // FLOP per byte of the members as one node
  std::string opType;           // the runtime's op type ("Conv", "FusedConv", "Conv2D")

  double efficiency() const { return measuredMs > 0 ? rooflineMs / measuredMs : 0; }
};

// Kernels of `profile` that did the work of IR nodes (not inserted conversions, not nodes inside
// a subgraph), measured (> 0), with every member's cost known and a roofline > 0.
std::vector<KernelUnit> kernelUnits(const AnalysisContext& ctx, const ProfileData& profile);

// The end-to-end time of a profile for share-of-latency floors: its p10 latency (robust to a
// loaded machine), else the median, else the sum of its entries.
double profileLatencyMs(const ProfileData& profile);

// Ascend profile checks (kernel_ascend.cpp): memory-bound cube kernels, kernels no pipeline
// bounds (AOE), block dims that leave cores idle, AI CPU tasks, MatMul tile paths.
void ascendKernelChecks(const AnalysisContext& ctx, const ProfileData& profile, std::vector<Finding>& out);

}  // namespace msa
