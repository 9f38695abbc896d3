#pragma once
// Helpers shared by the rule families: group legality, value sizes, and the price of a group
// once fused or removed.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cost/op_cost.h"
#include "rules/finding.h"
#include "rules/rule.h"
#include "util/units.h"  // formatSignificant, formatPercent: the numbers of the text templates

namespace msa {

// Bytes of a value from its inferred type; -1 when the shape or dtype is unknown.
double valueBytes(const AnalysisContext& ctx, std::string_view value);

// Single consumer of `value` that has op type `op` (default domain), or -1.
long soleConsumer(const AnalysisContext& ctx, std::string_view value, std::string_view op = {});

// Why a group of nodes (indices) cannot be merged into one: every value produced inside the
// group and read by anything outside it (or a graph output), except the values the group is
// meant to produce (`outputs`), blocks it. Keys as in the text catalog's _blockers.
std::vector<std::string> groupBlockers(const AnalysisContext& ctx, std::span<const size_t> members,
                                       std::span<const std::string> outputs);

// Values read by the group from outside, and produced inside and used outside (or graph outputs).
std::vector<std::string> groupInputs(const AnalysisContext& ctx, std::span<const size_t> members);
std::vector<std::string> groupOutputs(const AnalysisContext& ctx, std::span<const size_t> members);

// Time of the group now: measured where measured, estimated elsewhere.
double groupTimeMs(const AnalysisContext& ctx, std::span<const size_t> members);
bool groupMeasured(const AnalysisContext& ctx, std::span<const size_t> members);

// The cost of the group run as one node: members' FLOPs and MACs, the bytes of the values it
// reads from outside and of those used outside (or graph outputs), unit and compute type of the
// member with the most FLOPs. `known` only when every member's cost is known.
OpCost groupCost(const AnalysisContext& ctx, std::span<const size_t> members);

// Impact of running the group as one fused node: its roofline (members' FLOPs, external inputs,
// weights and outputs moved once, one launch), at the efficiency the heaviest member achieves
// when it was measured. Fills currentMs, fixedMs, ms, rawMs, source and method.
Impact fusionImpact(const AnalysisContext& ctx, std::span<const size_t> members);
// Impact of removing the nodes entirely (their whole time is saved).
Impact removalImpact(const AnalysisContext& ctx, std::span<const size_t> members);

// A finding with the common fields set from a group of node indices.
Finding makeFinding(const AnalysisContext& ctx, std::string rule, Category cat, std::span<const size_t> members);
// A Transpose between a Reshape that splits an axis and a Reshape that merges axes (channel
// shuffle, pixel shuffle, space-to-depth): a real permutation of the data, never a wasted
// layout conversion.
bool isShuffleTranspose(const AnalysisContext& ctx, size_t transpose);

// Connected runs of nodes for which `member` is true (edges producer → consumer): per node, the
// id of its run (a member node's index; non-members are their own run).
std::vector<size_t> connectedRuns(const AnalysisContext& ctx, const std::vector<bool>& member);
// The same for a finding that gathers many unrelated nodes (every small op, every foldable
// node): no "pattern" parameter, which would be a chain of thousands of op types.
Finding makeAggregateFinding(const AnalysisContext& ctx, std::string rule, Category cat, std::span<const size_t> members);
// The same with the members listed dearest first: named by the member first in the graph, since
// the dearest one changes with the measurement's noise and a finding's id must not.
Finding makeAggregateFindingDearestFirst(const AnalysisContext& ctx, std::string rule, Category cat,
                                         std::span<const size_t> members);
// True when the device never runs the node: a Constant, a foldable node on a device that folds
// constants, a metadata-only op the device elides (its roofline estimate is 0).
bool notRunOnDevice(const AnalysisContext& ctx, size_t node);

// On a graph a fusing compiler compiles (Ascend's graph engine, rules/ge_fusion.h): whether node i
// launches a kernel (false for a member of another node's kernel), and the measured-or-estimated
// and the estimated time of the kernel it launches (its own when it runs alone).
bool launchesKernel(const AnalysisContext& ctx, size_t i);
double kernelTimeMs(const AnalysisContext& ctx, size_t i);
double kernelEstimateMs(const AnalysisContext& ctx, size_t i);

// "Conv→BatchNormalization→Relu"
std::string opChain(const AnalysisContext& ctx, std::span<const size_t> members);

}  // namespace msa
