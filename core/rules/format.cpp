// FormatAdvisor: layout conversions that cost time without computing anything.
// - Graph level (any device): inverse Transpose pairs, and Transpose → layout-agnostic ops →
//   inverse Transpose round trips that cancel once the first Transpose is pushed through.
// - CPU (ONNX Runtime `all` profile): the NCHWc reorders the runtime inserts (format_nchwc.cpp).
// - Ascend: the TransData the graph forces, simulated or measured (format_ascend.cpp).
// A channel or pixel shuffle (Reshape→Transpose→Reshape) is a real permutation: none of these
// rules matches it, because neither of its Transposes meets an inverse one.
#include <algorithm>
#include <optional>

#include "rules/format_ascend.h"
#include "rules/fusion_patterns.h"
#include "rules/op_sets.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {

void nchwcReorderFindings(const AnalysisContext& ctx, std::vector<Finding>& out);  // format_nchwc.cpp

namespace {

// p then q (Transpose(q) of Transpose(p)) is the identity.
bool cancels(const std::vector<int64_t>& p, const std::vector<int64_t>& q) {
  if (p.empty() || p.size() != q.size()) return false;
  for (size_t k = 0; k < q.size(); ++k) {
    if (q[k] < 0 || static_cast<size_t>(q[k]) >= p.size()) return false;
    if (p[static_cast<size_t>(q[k])] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

std::string permText(const std::vector<int64_t>& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + std::to_string(p[i]);
  return s + "]";
}

bool unaryLayoutAgnostic(const Node& n) {
  return n.is("Identity") || n.is("Dropout") || (isElementwise(n) && n.inputs.size() == 1);
}

class FormatAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "format"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    const size_t n = ctx.graph->nodes.size();
    for (size_t i = 0; i < n; ++i) {
      if (ctx.progress && (i & 1023) == 0 && ctx.progress->cancelled()) return;
      if (!ctx.node(i).is("Transpose")) continue;
      if (auto f = inversePair(ctx, i)) out.push_back(std::move(*f));
      if (auto f = roundTrip(ctx, i)) out.push_back(std::move(*f));
    }
    nchwcReorderFindings(ctx, out);
    ascendFormatFindings(ctx, out);
  }

 private:
  // Transpose(p) → Transpose(p⁻¹): both go when the first feeds only the second; otherwise only
  // the second goes and its consumers read the first one's input.
  static std::optional<Finding> inversePair(const AnalysisContext& ctx, size_t i2) {
    const Node& t2 = ctx.node(i2);
    long i1 = ctx.index->producer(t2.input(0));
    if (i1 < 0 || !ctx.node(static_cast<size_t>(i1)).is("Transpose")) return std::nullopt;
    const Node& t1 = ctx.node(static_cast<size_t>(i1));
    auto p1 = permutationOf(ctx, t1), p2 = permutationOf(ctx, t2);
    if (!cancels(p1, p2)) return std::nullopt;
    const std::string& mid = t1.outputs[0];
    const bool shared = ctx.index->consumerCount(mid) > 1 || ctx.index->isGraphOutput(mid);
    std::vector<size_t> removed = shared ? std::vector<size_t>{i2} : std::vector<size_t>{static_cast<size_t>(i1), i2};
    std::vector<size_t> members =
        shared ? std::vector<size_t>{i2, static_cast<size_t>(i1)} : std::vector<size_t>{static_cast<size_t>(i1), i2};
    Finding f = makeFinding(ctx, "format.inverse_transpose", Category::Format, members);
    f.params["perm"] = permText(p1);
    f.params["inverse"] = permText(p2);
    f.params["variant"] = shared ? "second_only" : "pair";
    f.params["kept"] = shared ? t1.name : std::string();
    f.params["removed"] = std::to_string(removed.size());
    f.params["note"] = shared ? phrase("transpose.note.kept",
                                       {{"kept", t1.name}, {"removed", t2.name}, {"input", std::string(t1.input(0))}})
                              : phrase("transpose.note.both");
    // The second Transpose's output is what its consumers read: as a graph output its name must
    // survive, so the pair cannot simply disappear.
    if (ctx.index->isGraphOutput(t2.outputs[0])) f.blockers.push_back("graph_output:" + t2.outputs[0]);
    f.legal = f.blockers.empty();
    f.impact = removalImpact(ctx, removed);
    f.fixPass = "cancel_transposes";
    f.safeFix = f.legal;
    return f;
  }

  // Transpose(p) → layout-agnostic ops → Transpose(p⁻¹): push the first Transpose down through
  // the run and the pair cancels. Legal when every intermediate stays inside, and every other
  // operand is a constant (it is permuted once, at build time) or a single element, and no
  // operand broadcasts the data to a bigger shape.
  static std::optional<Finding> roundTrip(const AnalysisContext& ctx, size_t i1) {
    const Node& t1 = ctx.node(i1);
    auto p = permutationOf(ctx, t1);
    if (p.empty() || t1.outputs.empty()) return std::nullopt;
    std::vector<size_t> members{i1};
    std::vector<std::string> blockers;
    const Shape* dataShape = ctx.index->shape(t1.outputs[0]);
    std::string v = t1.outputs[0];
    for (int step = 0; step < 64; ++step) {
      if (ctx.index->isGraphOutput(v)) blockers.push_back("graph_output:" + v);
      auto uses = ctx.index->consumers(v);
      long next = -1;
      for (const Use& u : uses) {
        const Node& c = ctx.node(u.node);
        if (!c.is("Transpose") && !isElementwise(c) && !unaryLayoutAgnostic(c)) continue;
        if (next >= 0) return std::nullopt;  // the run forks: not one round trip
        next = static_cast<long>(u.node);
      }
      if (next < 0) return std::nullopt;
      if (uses.size() > 1) blockers.push_back("multi_consumer:" + v);
      const size_t c = static_cast<size_t>(next);
      const Node& cn = ctx.node(c);
      members.push_back(c);
      if (cn.is("Transpose")) {
        if (members.size() < 3 || !cancels(p, permutationOf(ctx, cn))) return std::nullopt;
        return roundTripFinding(ctx, members, p, blockers);
      }
      checkOperands(ctx, cn, v, dataShape, blockers);
      v = cn.outputs.empty() ? std::string() : cn.outputs[0];
      if (v.empty()) return std::nullopt;
    }
    return std::nullopt;
  }

  // The operands beside the data path must be movable across the permutation.
  static void checkOperands(const AnalysisContext& ctx, const Node& n, const std::string& data, const Shape* dataShape,
                            std::vector<std::string>& blockers) {
    const Shape* outShape = ctx.index->shape(n.output(0));
    if (!dataShape || !outShape || !dataShape->fullyKnown() || !outShape->fullyKnown()) {
      blockers.push_back("unknown_shape:" + std::string(n.output(0)));
      return;
    }
    if (!(*outShape == *dataShape)) blockers.push_back("broadcast:" + std::string(n.output(0)));
    for (const auto& in : n.inputs) {
      if (in.empty() || in == data) continue;
      if (ctx.index->constant(in)) {
        const Shape* s = ctx.index->shape(in);
        if (s && s->rank() > dataShape->rank()) blockers.push_back("broadcast:" + in);
        continue;
      }
      const Shape* s = ctx.index->shape(in);
      if (s && s->fullyKnown() && s->numElements() == 1)
        continue;  // a single element broadcasts the same in any layout
      blockers.push_back("non_permutable:" + in);
    }
  }

  static Finding roundTripFinding(const AnalysisContext& ctx, const std::vector<size_t>& members,
                                  const std::vector<int64_t>& p, std::vector<std::string> blockers) {
    Finding f = makeFinding(ctx, "format.layout_roundtrip", Category::Format, members);
    std::sort(blockers.begin(), blockers.end());
    blockers.erase(std::unique(blockers.begin(), blockers.end()), blockers.end());
    f.blockers = std::move(blockers);
    f.legal = f.blockers.empty();
    f.params["perm"] = permText(p);
    f.params["between"] = std::to_string(members.size() - 2);
    std::vector<size_t> ends{members.front(), members.back()};
    f.impact = removalImpact(ctx, ends);
    f.impact.method += " (both Transposes; the operators between them keep their cost)";
    f.fixPass = "push_transpose_through_elementwise";
    f.safeFix = f.legal;
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> makeFormatRules() { return std::make_unique<FormatAdvisor>(); }

}  // namespace msa
