#pragma once
// Pattern matchers over the IR, shared by the rules (which report a pattern) and the optimizer
// passes (which rewrite it): one matcher, so a finding's fix pass rewrites exactly what the
// finding names. They read a Graph through its GraphIndex only.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/graph_index.h"

namespace msa {

struct PatternMatch {
  std::vector<size_t> members;        // node indices in data-flow order, the anchor first
  std::vector<std::string> blockers;  // why the group may not be merged ("multi_consumer:<value>")
  std::string label;                  // variant, e.g. "GELU(erf)", "Softmax(stable)"
  std::string input;                  // the non-constant value the pattern reads (when one)
  std::string output;                 // the value the pattern produces
};

// Single consumer of `value` with op type `op` (any op when empty), or -1; -1 too when the
// value is a graph output.
long soleConsumer(const GraphIndex& idx, std::string_view value, std::string_view op = {});

// Why a group of nodes cannot be merged into one: every value produced inside the group and
// read outside it (or a graph output), except `outputs`, the values the group is meant to produce.
std::vector<std::string> groupBlockers(const GraphIndex& idx, std::span<const size_t> members,
                                       std::span<const std::string> outputs);

// The scalar value of a constant (one element), if it is one.
std::optional<double> constScalar(const GraphIndex& idx, std::string_view value);

// For a binary node reading `value`, the other operand (empty if `value` is not an operand).
std::string otherOperand(const Node& n, std::string_view value);

// Reduction axes of a Reduce* node: the attribute (opset < 13 for ReduceSum, < 18 for the
// others) or the constant second input. Empty with *known = true means "all axes" (or none with
// noop_with_empty_axes); *known = false when the axes input is not a constant.
std::vector<int64_t> reduceAxes(const Node& n, const GraphIndex& idx, bool* known = nullptr);

// ReduceMean → Sub → Pow|Mul → ReduceMean → Add(ε) → Sqrt → Div|Reciprocal·Mul (→ Mul(γ) → Add(β)).
std::optional<PatternMatch> matchLayerNorm(const GraphIndex& idx, size_t reduceMean);
// (ReduceMax → Sub →) Exp → ReduceSum → Div, anchored at Exp (or at the ReduceMax when present).
std::optional<PatternMatch> matchSoftmax(const GraphIndex& idx, size_t node);
// Decomposed GELU (erf or tanh form) whose first node is `node`.
std::optional<PatternMatch> matchGeluAt(const GraphIndex& idx, size_t node);
// Decomposed GELU applied to `value`: the usual exporter spellings, else any cone of elementwise
// ops reading only `value`, each other and scalar constants, with one Erf or Tanh, that
// geluFunction() proves to be a GELU (HF's FastGELU x·0.79788·(1 + 0.044715·x·x) form, x·x·x…).
std::optional<PatternMatch> matchGeluFrom(const GraphIndex& idx, const std::string& value);
// Which GELU a match computes, evaluated from its own constants at points across the range:
// "erf" (0.5x(1 + erf(x/√2))), "tanh" (0.5x(1 + tanh(√(2/π)(x + 0.044715x³)))) or "" (neither).
std::string geluFunction(const GraphIndex& idx, const PatternMatch& m);
// matchGeluAt for every node at once (indexed by node): each value's consumers are walked once,
// where calling matchGeluAt per node walks them once per consumer (quadratic in the fan-out of
// a value every layer reads, such as rotary tables or a mask).
std::vector<std::optional<PatternMatch>> matchGeluAll(const GraphIndex& idx);

// Named patterns a tuner recognises (issue 11.6). Each returns its members in data-flow order
// and the legality blockers, like the matchers above; `label` names the pattern.
// x·Sigmoid(x) — SiLU / Swish — anchored at the Sigmoid. Members: Sigmoid, Mul.
std::optional<PatternMatch> matchSilu(const GraphIndex& idx, size_t sigmoid);
// SiLU(x·Wg)·(x·Wu): SwiGLU, anchored at the Sigmoid; both operands are projections (MatMul or
// Gemm) of one value. Members: Sigmoid, Mul (SiLU), Mul (gate · up).
std::optional<PatternMatch> matchSwiGlu(const GraphIndex& idx, size_t sigmoid);
// x² (Pow(x, 2) or Mul(x, x)) → ReduceMean → Add(ε) → Sqrt → Div(1, ·)|Reciprocal → Mul(x), or
// Sqrt → Div(x, ·) (→ Mul(γ)): RMSNorm, anchored at the square. Not when x is x − mean(x) (that
// is LayerNorm's tail).
std::optional<PatternMatch> matchRmsNorm(const GraphIndex& idx, size_t square);
// x·cos + rotate_half(x)·sin with rotate_half(x) = Concat(−x₂, x₁), the halves two Slices (or a
// Split) of x: rotary position embedding, anchored at the Concat. Members: Mul (x·cos), the
// Slices/Split, Neg, Concat, Mul (·sin), Add.
std::optional<PatternMatch> matchRotary(const GraphIndex& idx, size_t concat);
// MatMul(Q, Kᵀ) (→ Mul|Div by a constant scale) (→ Add(mask) | Where(mask, ·)) → Softmax →
// MatMul(·, V): scaled dot-product attention, anchored at the Softmax (members from the first
// MatMul). The mask and the projections stay outside.
std::optional<PatternMatch> matchAttention(const GraphIndex& idx, size_t softmax);

// The residual Add producing `value` (float; both operands of its static shape, rank 2 or 3), and
// a bias Add of a constant [hidden] on one operand read only there: what ONNX Runtime's
// Skip(Simplified)LayerNormalization adds before normalizing (input + skip + bias).
struct ResidualAdd {
  size_t add = 0;
  long biasAdd = -1;
  std::string input, skip, bias;  // bias empty: none
};
std::optional<ResidualAdd> matchResidualAdd(const GraphIndex& idx, const std::string& value);

// A residual Add (+ bias) normalized over the last axis, with node `node` the normalization's
// first node: LayerNormalization (γ, β vectors; its mean/inv-std outputs unread),
// SimplifiedLayerNormalization, or a decomposed RMSNorm (matchRmsNorm) squaring exactly (Pow 2 or
// x·x), averaging the last axis kept, with a constant ε and an optional γ vector. What ONNX
// Runtime's Skip(Simplified)LayerNormalization computes: members are the bias Add, the residual
// Add and the normalization's nodes, in graph order; `sumRead` when the sum is read elsewhere too
// (the kernel's input_skip_bias_sum output stands for it).
struct SkipNormMatch {
  PatternMatch match;
  ResidualAdd residual;
  bool rms = false;
  std::string gamma, beta;  // gamma empty: an RMSNorm without one
  float epsilon = 1e-5f;
  int64_t hidden = 0;
  bool sumRead = false;
};
std::optional<SkipNormMatch> matchSkipNorm(const GraphIndex& idx, size_t node);

// A rotary match (matchRotary) exactly in com.microsoft RotaryEmbedding's rotate-half semantics:
// x is a static float [batch, heads, sequence, head], the halves are [0, head/2) and
// [head/2, head) of the last axis, and cos, sin are constants over [.., sequence, head] whose two
// halves are equal (the kernel reads half-width caches), positions 0…sequence−1.
struct RotaryForm {
  std::string x, cos, sin;
  int64_t sequence = 0, head = 0;
};
std::optional<RotaryForm> rotaryForm(const GraphIndex& idx, const PatternMatch& m);

// The named patterns anchored at `node` with the rule id that reports each ("fusion.attention",
// "fusion.rotary", "fusion.swiglu", "fusion.rmsnorm", "fusion.silu"); SwiGLU before the SiLU in it.
std::vector<std::pair<const char*, PatternMatch>> namedPatternsAt(const GraphIndex& idx, size_t node);

// Evaluates the members of a match as a scalar function of its input at `x` (members may only
// read the input, each other and one-element constants); nothing when they read anything else
// or use an op it does not know. Lets a rewrite prove that a matched chain computes the formula
// it stands for, whatever the order of its operands.
std::optional<double> evaluateScalarChain(const GraphIndex& idx, std::span<const size_t> members,
                                          const std::string& input, const std::string& output, double x);

// The value a Concat rebuilds exactly, in order, from the outputs of one Split, or from Slices of
// one value that cover its concat axis contiguously with step 1; nothing otherwise.
std::optional<std::string> concatRebuiltSource(const GraphIndex& idx, const Node& concat);
// Does the Concat (last member) rebuild the split/sliced source exactly, in order?
bool isIdentitySplitConcat(const GraphIndex& idx, const Node& concat, const std::vector<size_t>& members);
// Transpose permutation (default reversed when absent and the rank is known); empty if unknown.
std::vector<int64_t> permutationOf(const GraphIndex& idx, const Node& transpose);

}  // namespace msa
