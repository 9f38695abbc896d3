#pragma once
// Helpers shared by the rule families: group legality, value sizes, and the price of a group
// once fused or removed.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.h"
#include "rules/rule.h"

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

// Impact of running the group as one fused node: its roofline (members' FLOPs, external inputs,
// weights and outputs moved once, one launch), at the efficiency the heaviest member achieves
// when it was measured. Fills currentMs, fixedMs, ms, rawMs, source and method.
Impact fusionImpact(const AnalysisContext& ctx, std::span<const size_t> members);
// Impact of removing the nodes entirely (their whole time is saved).
Impact removalImpact(const AnalysisContext& ctx, std::span<const size_t> members);

// A finding with the common fields set from a group of node indices.
Finding makeFinding(const AnalysisContext& ctx, std::string rule, Category cat, std::span<const size_t> members);
// "Conv→BatchNormalization→Relu"
std::string opChain(const AnalysisContext& ctx, std::span<const size_t> members);

}  // namespace msa
