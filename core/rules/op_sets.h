#pragma once
// Operator classes the rules reason about.
#include <string_view>

#include "model/graph.h"

namespace msa {

// One output element from the matching input elements (with broadcasting); no reduction.
bool isElementwise(const Node& n);
// Activation functions a compute op can absorb (ORT FusedConv/FusedGemm, Ascend UB fusion).
bool isActivation(const Node& n);
// Ops that only rewrite shape metadata.
bool isReshapeLike(const Node& n);
// Matrix-engine ops.
bool isCompute(const Node& n);

}  // namespace msa
