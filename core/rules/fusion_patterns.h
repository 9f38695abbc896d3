#pragma once
// Pattern matchers of the fusion family. Each returns the member node indices in data-flow
// order (the anchor first) and the legality blockers; nothing when the pattern is absent. The
// decomposed-op matchers live in model/graph_patterns.h, shared with the optimizer's passes.
#include <optional>
#include <string>
#include <vector>

#include "model/graph_patterns.h"
#include "rules/rule.h"

namespace msa {

// Conv/ConvTranspose → BatchNormalization? → activation? (Relu, Clip, LeakyRelu, HardSwish,
// Sigmoid, SiLU as Sigmoid·Mul, hard-swish as HardSigmoid·Mul). Needs a BN or an activation.
std::optional<PatternMatch> matchConvBnAct(const AnalysisContext& ctx, size_t conv);
// MatMul/Gemm → Add(constant bias) → activation? (incl. decomposed GELU); Gemm with C → activation.
std::optional<PatternMatch> matchMatMulAddAct(const AnalysisContext& ctx, size_t matmul);
// ReduceMean → Sub → Pow|Mul → ReduceMean → Add(ε) → Sqrt → Div|Reciprocal·Mul (→ Mul(γ) → Add(β)).
std::optional<PatternMatch> matchLayerNorm(const AnalysisContext& ctx, size_t reduceMean);
// (ReduceMax → Sub →) Exp → ReduceSum → Div, anchored at Exp (or at the ReduceMax when present).
std::optional<PatternMatch> matchSoftmax(const AnalysisContext& ctx, size_t node);
// Decomposed GELU (erf or tanh form) whose first node is `node`.
std::optional<PatternMatch> matchGeluAt(const AnalysisContext& ctx, size_t node);
std::vector<std::optional<PatternMatch>> matchGeluAll(const AnalysisContext& ctx);
// Decomposed GELU applied to `value`.
std::optional<PatternMatch> matchGeluFrom(const AnalysisContext& ctx, const std::string& value);

// Does the Concat (last member) rebuild the sliced/split source exactly, in order?
bool isIdentitySplitConcat(const AnalysisContext& ctx, const Node& concat, const std::vector<size_t>& members);
// Transpose permutation (default reversed when absent and the rank is known); empty if unknown.
std::vector<int64_t> permutationOf(const AnalysisContext& ctx, const Node& transpose);

}  // namespace msa
