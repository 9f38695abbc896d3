// The graph engine's fusions, simulated in the order ATC runs them: graph fusion first (it
// rewrites the graph), then the built-in UB fusion passes, then AutomaticUbFusion over what is
// left (rules/ge_fusion_sim.h: the state; ge_graph_fusion.cpp and ge_ub_fusion.cpp: the passes).
// Patterns, conditions and limits: resources/ascend/ge_fusion.json and docs/ascend-fusion.md.
#include "rules/ge_fusion.h"

#include <algorithm>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "rules/ge_fusion_sim.h"
#include "util/embedded.h"

namespace msa {
namespace gesim {

const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog cat;
    try {
      const auto j = nlohmann::json::parse(embedded::find("ascend/ge_fusion.json"));
      const auto& sources = j.at("sources");
      for (const auto& p : j.at("passes")) {
        GePassInfo info;
        info.name = p.at("name").get<std::string>();
        info.kind = p.at("kind").get<std::string>() == "ub" ? GeFusionKind::Ub : GeFusionKind::Graph;
        info.source = sources.at(p.at("source").get<std::string>()).get<std::string>();
        cat.passes.push_back(std::move(info));
      }
      const auto& l = j.at("limits");
      cat.commonMax = l.at("common_rules0_max_elementwise").get<size_t>();
      cat.anyTypeUpTo = l.at("common_rules0_any_type_up_to").get<size_t>();
      cat.commonMaxInputs = l.at("common_rules0_max_inputs").get<size_t>();
      for (const auto& op : l.at("common_rules0_white_list")) cat.commonWhite.insert(op.get<std::string>());
      for (const auto& op : l.at("matmul_white_list")) cat.matmulWhite.insert(op.get<std::string>());
      for (const auto& op : l.at("batch_matmul_white_list")) cat.batchMatmulWhite.insert(op.get<std::string>());
      cat.autoMaxNodes = l.at("automatic_max_nodes").get<size_t>();
      cat.autoMaxUsers = l.at("automatic_max_users").get<size_t>();
      cat.addnMaxInputs = l.at("addn_max_inputs").get<size_t>();
      for (const auto& t : l.at("ub_dtypes"))
        if (auto d = dtypeFromName(t.get<std::string>())) cat.ubTypes.insert(*d);
    } catch (const nlohmann::json::exception& e) {
      embedded::recordTableError("ascend/ge_fusion.json", e.what());
    }
    return cat;
  }();
  return c;
}

}  // namespace gesim

namespace {

// The kernels of two or more members, in topological order, and what each pass did.
GeFusion finish(gesim::State& s) {
  GeFusion g;
  g.ran = true;
  if (s.result) g.fusionResultPath = s.result->path.string();
  g.kernelOf.assign(s.kernelOf.size(), -1);
  for (const gesim::Kernel& k : s.kernels) {
    if (k.members.size() < 2) continue;
    GeKernel out;
    std::vector<size_t> idx(k.members.size());
    std::iota(idx.begin(), idx.end(), size_t(0));
    std::sort(idx.begin(), idx.end(),
              [&](size_t x, size_t y) { return s.position[k.members[x]] < s.position[k.members[y]]; });
    for (size_t j : idx) {
      out.members.push_back(k.members[j]);
      out.folded.push_back(k.folded[j]);
      g.kernelOf[k.members[j]] = static_cast<long>(g.kernels.size());
    }
    out.passes = k.passes;
    g.kernels.push_back(std::move(out));
  }
  g.nearMisses = std::move(s.nearMisses);
  for (const GePassInfo& p : s.cat.passes) {
    GePassSummary summary{p.name, p.kind, s.counts[p.name].first, s.counts[p.name].second, -1, -1, true};
    if (s.result)
      if (const auto* r = s.result->find(p.name)) {
        summary.matchTimes = r->matchTimes;
        summary.effectTimes = r->effectTimes;
      }
    g.passes.push_back(std::move(summary));
  }
  if (s.result)
    for (const auto& r : s.result->passes)
      if (std::none_of(s.cat.passes.begin(), s.cat.passes.end(),
                       [&](const GePassInfo& p) { return p.name == r.name; }))
        g.passes.push_back(
            {r.name, r.ub ? GeFusionKind::Ub : GeFusionKind::Graph, 0, 0, r.matchTimes, r.effectTimes, false});
  for (size_t i = 0; i < s.kernelOf.size(); ++i) {
    if (notRunOnDevice(s.ctx, i)) continue;
    ++g.launchesWritten;
    if (g.kernelOf[i] < 0 || g.kernels[static_cast<size_t>(g.kernelOf[i])].members.front() == i) ++g.launchesCompiled;
  }
  return g;
}

}  // namespace

const std::vector<GePassInfo>& gePasses() { return gesim::catalog().passes; }

GeFusion simulateGeFusion(const AnalysisContext& ctx, const GeFusionResult* result) {
  if (!ctx.device || !isAscendDevice(*ctx.device)) return {};
  gesim::State s(ctx, result);
  gesim::graphFusion(s);
  gesim::ubFusion(s);
  return finish(s);
}

RooflineEstimate compiledRoofline(const Model& model, const GraphIndex& index, const GraphCost& cost,
                                  const DeviceProfile& device, const RooflineOptions& options,
                                  const GeFusionResult* result, GeFusion* fusion) {
  RooflineEstimate est = estimateRoofline(model.graph, cost, device, options);
  if (!isAscendDevice(device)) return est;
  AnalysisContext ctx;
  ctx.model = &model;
  ctx.graph = &model.graph;
  ctx.index = &index;
  ctx.cost = &cost;
  ctx.device = &device;
  for (const NodeEstimate& e : est.nodes) ctx.estimatedMs.push_back(e.seconds * 1e3);
  GeFusion ge = simulateGeFusion(ctx, result);
  applyKernelGroups(est, cost, device, ge.kernelGroups(ctx));
  ge.writtenMs = ctx.estimatedMs;
  for (GeKernel& k : ge.kernels)
    for (size_t m : k.members) {
      k.writtenMs += ge.writtenMs[m];
      k.compiledMs += est.nodes[m].seconds * 1e3;
    }
  if (fusion) *fusion = std::move(ge);
  return est;
}

std::vector<KernelGroup> GeFusion::kernelGroups(const AnalysisContext& ctx) const {
  std::vector<KernelGroup> groups;
  const GraphIndex& idx = *ctx.index;
  for (size_t k = 0; k < kernels.size(); ++k) {
    const GeKernel& kernel = kernels[k];
    auto inside = [&](size_t i) { return i < kernelOf.size() && kernelOf[i] == static_cast<long>(k); };
    // A value the kernel keeps on chip: written by a member, read only by members, not an output.
    auto internal = [&](std::string_view v) {
      const long p = idx.producer(v);
      if (p < 0 || !inside(static_cast<size_t>(p)) || idx.isGraphOutput(v)) return false;
      auto uses = idx.consumers(v);
      return !uses.empty() && std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return inside(u.node); });
    };
    KernelGroup g;
    g.members = kernel.members;
    g.folded = kernel.folded;
    for (size_t j = 0; j < kernel.members.size(); ++j) {
      const Node& n = ctx.node(kernel.members[j]);
      double bytes = ctx.cost->nodes[kernel.members[j]].bytes();
      std::set<std::string_view> seen;
      for (const auto& in : n.inputs) {
        if (in.empty() || !seen.insert(in).second) continue;
        const double b = valueBytes(ctx, in);
        // Folded away: a BatchNormalization's statistics and a bias join the weights at build time.
        if (b > 0 && (internal(in) || (kernel.folded[j] && idx.constant(in)))) bytes -= b;
      }
      for (const auto& o : n.outputs)
        if (!o.empty() && internal(o))
          if (const double b = valueBytes(ctx, o); b > 0) bytes -= b;
      g.memberBytes.push_back(std::max(0.0, bytes));
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

// rule_util.h's view of a node's kernel, on the graph the Ascend graph engine compiles: a fused
// kernel is launched by its first member and runs the others.
namespace {
const GeKernel* kernelLaunchedBy(const AnalysisContext& ctx, size_t i) {
  if (!ctx.geFusion || !ctx.geFusion->fused(i)) return nullptr;
  const GeKernel& k = ctx.geFusion->kernels[static_cast<size_t>(ctx.geFusion->kernelOf[i])];
  return k.members.front() == i ? &k : nullptr;
}
}  // namespace

bool launchesKernel(const AnalysisContext& ctx, size_t i) {
  return !ctx.geFusion || !ctx.geFusion->fused(i) || kernelLaunchedBy(ctx, i) != nullptr;
}

double kernelTimeMs(const AnalysisContext& ctx, size_t i) {
  const GeKernel* k = kernelLaunchedBy(ctx, i);
  return k ? groupTimeMs(ctx, k->members) : ctx.timeMs(i);
}

double kernelEstimateMs(const AnalysisContext& ctx, size_t i) {
  const GeKernel* k = kernelLaunchedBy(ctx, i);
  if (!k) return i < ctx.estimatedMs.size() ? ctx.estimatedMs[i] : 0.0;
  double t = 0;
  for (size_t m : k->members) t += ctx.estimatedMs[m];
  return t;
}

}  // namespace msa
