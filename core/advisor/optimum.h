#pragma once
// The theoretical optimum of a model on a device (docs/advisor.md, "Theoretical optimum"):
//   - every op runs at its roofline, max(FLOPs / peak, bytes / bandwidth), at the device's
//     default precision;
//   - ideal fusion: an elementwise or normalisation op is absorbed into the producer of its
//     main input when that intermediate has no other reader and is not a graph output, so
//     the intermediate is neither written nor read back; a fused group costs
//     max(sum of its compute times, sum of its remaining memory times);
//   - no launch overhead; metadata-only, Constant and constant-foldable ops cost nothing;
//     ops of unknown cost count as 0 (the optimum stays a lower bound).
#include <vector>

#include "advisor/advisor.h"

namespace msa {

class AnalysisState;

// `perNodeMs` (optional) receives each node's part of its group's time, aligned with the graph.
Optimum computeOptimum(const AnalysisState& state, std::vector<double>* perNodeMs = nullptr);

// Ops that ideal fusion folds into their producer as an epilogue.
bool isEpilogueOp(const Node& n);

}  // namespace msa
