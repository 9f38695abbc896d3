#include "rules/rule_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "cost/op_cost.h"
#include "model/graph_patterns.h"
#include "rules/texts.h"

namespace msa {

double valueBytes(const AnalysisContext& ctx, std::string_view value) {
  const TypeInfo* t = ctx.index->type(value);
  if (!t || !t->shape) return -1;
  int64_t n = t->shape->numElements();
  int sz = dtypeSize(t->elem);
  if (n < 0 || sz == 0) return -1;
  return static_cast<double>(n) * sz;
}

long soleConsumer(const AnalysisContext& ctx, std::string_view value, std::string_view op) {
  return soleConsumer(*ctx.index, value, op);
}

namespace {
bool inGroup(std::span<const size_t> members, size_t i) {
  return std::find(members.begin(), members.end(), i) != members.end();
}
}  // namespace

std::vector<std::string> groupBlockers(const AnalysisContext& ctx, std::span<const size_t> members,
                                       std::span<const std::string> outputs) {
  return groupBlockers(*ctx.index, members, outputs);
}

std::vector<std::string> groupInputs(const AnalysisContext& ctx, std::span<const size_t> members) {
  std::vector<std::string> out;
  std::set<std::string> produced;
  for (size_t m : members)
    for (const auto& o : ctx.node(m).outputs) produced.insert(o);
  for (size_t m : members)
    for (const auto& in : ctx.node(m).inputs)
      if (!in.empty() && !produced.count(in) && std::find(out.begin(), out.end(), in) == out.end()) out.push_back(in);
  return out;
}

std::vector<std::string> groupOutputs(const AnalysisContext& ctx, std::span<const size_t> members) {
  std::vector<std::string> out;
  for (size_t m : members)
    for (const auto& o : ctx.node(m).outputs) {
      if (o.empty()) continue;
      bool external = ctx.index->isGraphOutput(o);
      for (const Use& u : ctx.index->consumers(o)) external |= !inGroup(members, u.node);
      if (external) out.push_back(o);
    }
  return out;
}

double groupTimeMs(const AnalysisContext& ctx, std::span<const size_t> members) {
  double t = 0;
  for (size_t m : members) t += ctx.timeMs(m);
  return t;
}

bool groupMeasured(const AnalysisContext& ctx, std::span<const size_t> members) {
  return !members.empty() &&
         std::all_of(members.begin(), members.end(), [&](size_t m) { return ctx.isMeasured(m); });
}

OpCost groupCost(const AnalysisContext& ctx, std::span<const size_t> members) {
  OpCost fused;
  fused.known = true;
  double heaviestFlops = -1;
  for (size_t m : members) {
    const OpCost& c = ctx.cost->nodes[m];
    fused.flops += c.flops;
    fused.macs += c.macs;
    fused.known = fused.known && c.known;
    if (c.flops > heaviestFlops) {
      heaviestFlops = c.flops;
      fused.unit = c.unit;
      fused.computeType = c.computeType;
    }
  }
  for (const auto& v : groupInputs(ctx, members)) {
    double b = valueBytes(ctx, v);
    if (b > 0) fused.bytesRead += b;
    if (b > 0 && ctx.index->constant(v)) fused.paramBytes += b;
  }
  for (const auto& v : groupOutputs(ctx, members)) {
    double b = valueBytes(ctx, v);
    if (b > 0) fused.bytesWritten += b;
  }
  return fused;
}

Impact fusionImpact(const AnalysisContext& ctx, std::span<const size_t> members) {
  Impact im;
  im.currentMs = groupTimeMs(ctx, members);
  const OpCost fused = groupCost(ctx, members);
  double heaviestFlops = 0;
  for (size_t m : members) heaviestFlops = std::max(heaviestFlops, ctx.cost->nodes[m].flops);
  double roofline = ctx.rooflineMs ? ctx.rooflineMs(fused) : 0.0;
  // Price the fused kernel at the efficiency its main ops achieve today: a slow runtime does
  // not turn an optimistic roofline into an inflated saving, and device figures below what the
  // hardware does (an uncalibrated or badly calibrated host) do not hide a real saving. With
  // several main ops (attention's two matrix multiplications) the best of them: a stall only
  // adds time, and one stalled op priced the kernel above what the whole group takes now.
  double scale = std::numeric_limits<double>::infinity();
  for (size_t m : members)
    if (ctx.cost->nodes[m].flops >= 0.5 * heaviestFlops && ctx.isMeasured(m) && ctx.measuredMs[m] > 0 &&
        ctx.estimatedMs[m] > 0)
      scale = std::min(scale, ctx.measuredMs[m] / ctx.estimatedMs[m]);
  if (!std::isfinite(scale)) scale = 1.0;
  im.fixedMs = std::min(im.currentMs, roofline * scale);
  im.rawMs = im.ms = std::max(0.0, im.currentMs - im.fixedMs);
  bool measured = groupMeasured(ctx, members);
  im.source = measured ? ImpactSource::Both : ImpactSource::Estimated;
  im.method = phrase(measured ? "method.fusion.measured" : "method.fusion.estimated");
  return im;
}

Impact removalImpact(const AnalysisContext& ctx, std::span<const size_t> members) {
  Impact im;
  im.currentMs = groupTimeMs(ctx, members);
  im.fixedMs = 0;
  im.rawMs = im.ms = im.currentMs;
  im.source = groupMeasured(ctx, members) ? ImpactSource::Measured : ImpactSource::Estimated;
  im.method = phrase(im.source == ImpactSource::Measured ? "method.removal.measured" : "method.removal.estimated");
  return im;
}

bool isShuffleTranspose(const AnalysisContext& ctx, size_t t) {
  const Node& n = ctx.node(t);
  if (!n.is("Transpose") || n.outputs.empty()) return false;
  auto rank = [&](std::string_view v) -> long {
    const Shape* s = ctx.index->shape(v);
    return s ? static_cast<long>(s->rank()) : -1;
  };
  const Node* split = ctx.index->producerNode(n.input(0));
  if (!split || !split->is("Reshape") || rank(split->input(0)) < 0 || rank(split->input(0)) >= rank(n.input(0))) return false;
  for (const Use& u : ctx.index->consumers(n.outputs[0])) {
    const Node& merge = ctx.node(u.node);
    if (merge.is("Reshape") && rank(merge.output(0)) >= 0 && rank(merge.output(0)) < rank(n.outputs[0])) return true;
  }
  return false;
}

std::vector<size_t> connectedRuns(const AnalysisContext& ctx, const std::vector<bool>& member) {
  const size_t n = member.size();
  std::vector<size_t> parent(n);
  for (size_t i = 0; i < n; ++i) parent[i] = i;
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!member[i]) continue;
    for (size_t s : ctx.index->successors(i))
      if (s < n && member[s]) {
        size_t a = find(i), b = find(s);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the earliest node names the run
      }
  }
  for (size_t i = 0; i < n; ++i) parent[i] = find(i);
  return parent;
}

bool notRunOnDevice(const AnalysisContext& ctx, size_t node) {
  if (ctx.node(node).is("Constant")) return true;
  return node < ctx.estimatedMs.size() && ctx.estimatedMs[node] <= 0;
}

std::string opChain(const AnalysisContext& ctx, std::span<const size_t> members) {
  std::string s;
  for (size_t i = 0; i < members.size(); ++i) s += (i ? "→" : "") + ctx.node(members[i]).opType;
  return s;
}

Finding makeFinding(const AnalysisContext& ctx, std::string rule, Category cat, std::span<const size_t> members) {
  Finding f;
  f.rule = std::move(rule);
  f.category = cat;
  for (size_t m : members) f.nodes.push_back(ctx.node(m).name);
  f.params["pattern"] = opChain(ctx, members);
  return f;
}

}  // namespace msa

namespace msa {

Finding makeAggregateFinding(const AnalysisContext& ctx, std::string rule, Category cat, std::span<const size_t> members) {
  Finding f;
  f.rule = std::move(rule);
  f.category = cat;
  f.nodes.reserve(members.size());
  for (size_t m : members) f.nodes.push_back(ctx.node(m).name);
  return f;
}

Finding makeAggregateFindingDearestFirst(const AnalysisContext& ctx, std::string rule, Category cat,
                                         std::span<const size_t> members) {
  Finding f = makeAggregateFinding(ctx, std::move(rule), cat, members);
  if (!members.empty()) f.id = f.rule + "@" + ctx.node(*std::min_element(members.begin(), members.end())).name;
  return f;
}

}  // namespace msa
