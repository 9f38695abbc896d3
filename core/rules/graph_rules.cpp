// GraphAdvisor: what the graph makes every runtime pay for. Constant subgraphs left unfolded
// (the exporter's Shape→Gather→Unsqueeze→Concat arithmetic over static shapes, Constant-only
// chains, transposed weights), dynamic dims, and ops Ascend runs on the AI CPU. Rules see the
// top-level graph only. Thresholds and formulas: docs/rules.md (graph).
#include <algorithm>
#include <map>

#include "cost/device_profile.h"
#include "profile/profile_data.h"
#include "rules/ascend_tables.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

std::string histogram(const AnalysisContext& ctx, const std::vector<size_t>& nodes, size_t top = 6) {
  std::map<std::string, int> byOp;
  for (size_t i : nodes) ++byOp[ctx.node(i).opType];
  std::vector<std::pair<int, std::string>> ops;
  for (auto& [op, c] : byOp) ops.push_back({c, op});
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::string s;
  for (size_t k = 0; k < ops.size() && k < top; ++k) s += (k ? ", " : "") + ops[k].second + " ×" + std::to_string(ops[k].first);
  if (ops.size() > top) s += ", …";
  return s;
}

bool dynamicDim(const Dim& d) { return !d.known(); }

class GraphAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "graph"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    unfolded(ctx, out);
    dynamicShapes(ctx, out);
    aicpuOps(ctx, out);
  }

 private:
  // Every foldable node but Constants (which are the folded form already).
  static void unfolded(const AnalysisContext& ctx, std::vector<Finding>& out) {
    std::vector<size_t> nodes;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i)
      if (ctx.cost->nodes[i].foldable && !ctx.node(i).is("Constant")) nodes.push_back(i);
    if (nodes.empty()) return;
    // What the nodes cost: measured where the runtime ran them; otherwise their roofline as if
    // the device ran them (launch + work), or nothing on a device that folds them itself.
    double current = 0;
    bool measured = true;
    for (size_t i : nodes) {
      if (ctx.isMeasured(i)) {
        current += ctx.measuredMs[i];
        continue;
      }
      measured = false;
      current += ctx.estimatedMs[i];  // 0 where the device folds constants
    }
    std::stable_sort(nodes.begin(), nodes.end(), [&](size_t a, size_t b) { return ctx.timeMs(a) > ctx.timeMs(b); });
    Finding f = makeAggregateFindingDearestFirst(ctx, "graph.unfolded_constants", Category::Graph, nodes);
    f.params["ops"] = histogram(ctx, nodes);
    f.params["folded_by_device"] = ctx.device->foldConstants ? "yes" : "no";
    f.impact.currentMs = current;
    f.impact.fixedMs = 0;
    f.impact.ms = f.impact.rawMs = current;
    f.impact.source = measured ? ImpactSource::Measured : ImpactSource::Estimated;
    f.impact.method = phrase(measured                   ? "method.graph.folded_measured"
                             : ctx.device->foldConstants ? "method.graph.folded_by_device"
                                                         : "method.graph.folded_estimated");
    f.fixPass = "fold_constants";
    f.safeFix = true;
    out.push_back(std::move(f));
  }

  // Graph inputs with symbolic or unknown dims, and the nodes whose output shapes stay unknown.
  static void dynamicShapes(const AnalysisContext& ctx, std::vector<Finding>& out) {
    std::string inputs;
    std::vector<size_t> nodes;  // the dynamic inputs' consumers, then the unpriced nodes
    std::vector<bool> listed(ctx.graph->nodes.size(), false);
    auto list = [&](size_t i) {
      if (!listed[i]) nodes.push_back(i);
      listed[i] = true;
    };
    for (const ValueInfo& in : ctx.graph->inputs) {
      if (ctx.index->initializer(in.name) || !in.type.isTensor()) continue;
      const auto& shape = in.type.shape;
      const bool dynamic = !shape || std::any_of(shape->dims.begin(), shape->dims.end(), dynamicDim);
      if (!dynamic) continue;
      inputs += (inputs.empty() ? "" : ", ") + in.name + (shape ? shape->str() : std::string("[rank unknown]"));
      for (const Use& u : ctx.index->consumers(in.name)) list(u.node);
    }
    // Nodes whose outputs are not fully known; the ones named are those the cost model cannot
    // price (unknown cost or rank), not every node downstream of a symbolic dim.
    size_t notStatic = 0, unpriced = 0;
    std::vector<size_t> unpricedNodes;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      const Node& n = ctx.node(i);
      if (n.is("Constant")) continue;
      bool unknownRank = false, partial = false;
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        const Shape* s = ctx.index->shape(o);
        unknownRank = unknownRank || !s;
        partial = partial || !s || !s->fullyKnown();
      }
      notStatic += partial;
      if (unknownRank || (partial && !ctx.cost->nodes[i].known)) {
        ++unpriced;
        unpricedNodes.push_back(i);
        list(i);
      }
    }
    if ((inputs.empty() && !unpriced) || nodes.empty()) return;
    Finding f = makeAggregateFinding(ctx, "graph.dynamic_dims", Category::Graph, nodes);
    f.params["inputs"] = inputs.empty() ? std::string("—") : inputs;
    f.params["dynamic_nodes"] = std::to_string(notStatic);
    f.params["unpriced_nodes"] = std::to_string(unpriced);
    f.params["ops"] = unpricedNodes.empty() ? std::string("—") : histogram(ctx, unpricedNodes);
    f.impact.method = phrase("method.graph.dynamic_dims");
    f.impact.source = ImpactSource::Estimated;
    out.push_back(std::move(f));
  }

  // Ops the Ascend op table sends to the AI CPU for their op type or non-64-bit element types
  // (64-bit compute is precision.aicpu_dtype: one model-wide conversion fixes it).
  static void aicpuOps(const AnalysisContext& ctx, std::vector<Finding>& out) {
    if (!isAscendDevice(*ctx.device)) return;
    const AscendTasks tasks(ctx);
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      auto v = aicpuVerdictFor(ctx, i);
      if (!v || wideTypesOnly(*v)) continue;
      auto im = aicpuImpact(ctx, tasks, i);
      if (!im) continue;  // the profile shows it on an AI Core
      std::vector<size_t> members{i};
      Finding f = makeFinding(ctx, "graph.aicpu_op", Category::Graph, members);
      if (const NodeProfile* e = tasks.entryFor(i); e && e->name != ctx.node(i).name) f.runtimeNodes.push_back(e->name);
      f.params["op"] = ctx.node(i).opType;
      f.params["dtypes"] = v->dtypes;
      f.params["cann"] = v->cann;
      f.params["source"] = v->source;
      f.impact.currentMs = im->currentMs;
      f.impact.fixedMs = im->fixedMs;
      f.impact.ms = f.impact.rawMs = im->currentMs - im->fixedMs;
      f.impact.source = im->measured ? ImpactSource::Both : ImpactSource::Estimated;
      f.impact.method = phrase(im->measured ? "method.aicpu.measured" : "method.aicpu.assumed");
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeGraphRules() { return std::make_unique<GraphAdvisor>(); }

}  // namespace msa
