#include "advisor/analysis_state.h"

#include <algorithm>

namespace msa {
namespace {

// A control-flow node's profiled span also holds the profiler's own cost for every event of its
// body (Silero VAD v6's If runs 684 nodes: 1.02 ms profiled against a 0.19 ms run), which the
// unprofiled latency does not. Control-flow nodes together get at most what the run leaves them,
// the latency minus the other nodes' time, shared in proportion to their spans.
void capControlFlowTime(const Graph& g, double latencyMs, std::vector<double>& measured) {
  double others = 0, control = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (measured[i] < 0) continue;
    (g.nodes[i].hasSubgraphs() ? control : others) += measured[i];
  }
  const double room = std::max(0.0, latencyMs - others);
  if (latencyMs <= 0 || control <= room) return;
  const double scale = room / control;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (measured[i] >= 0 && g.nodes[i].hasSubgraphs()) measured[i] *= scale;
}

}  // namespace

std::unique_ptr<AnalysisState> AnalysisState::create(const Model& model, const DeviceProfile& device,
                                                     const AnalysisInputs& inputs, Goal goal, Scenario scenario) {
  std::unique_ptr<AnalysisState> s(new AnalysisState);
  s->m_model = model;
  return build(std::move(s), device, inputs, goal, scenario);
}

std::unique_ptr<AnalysisState> AnalysisState::borrow(const Model& model, const DeviceProfile& device,
                                                     const AnalysisInputs& inputs, Goal goal, Scenario scenario) {
  std::unique_ptr<AnalysisState> s(new AnalysisState);
  s->m_modelRef = &model;
  return build(std::move(s), device, inputs, goal, scenario);
}

std::unique_ptr<AnalysisState> AnalysisState::build(std::unique_ptr<AnalysisState> s, const DeviceProfile& device,
                                                    const AnalysisInputs& inputs, Goal goal, Scenario scenario) {
  s->m_device = device;
  const Graph& g = s->m_modelRef->graph;
  s->m_index = std::make_unique<GraphIndex>(g);
  s->m_cost = computeCosts(*s->m_index);
  // On Ascend the estimate is of the graph ATC compiles: the graph engine's fusions first.
  s->m_roofline =
      compiledRoofline(*s->m_modelRef, *s->m_index, s->m_cost, s->m_device, {}, inputs.fusionResult, &s->m_geFusion);
  if (inputs.profile) s->m_profile = *inputs.profile;
  if (inputs.runtimeProfile) s->m_runtimeProfile = *inputs.runtimeProfile;

  AnalysisContext& c = s->m_ctx;
  c.model = s->m_modelRef;
  c.graph = &g;
  c.index = s->m_index.get();
  c.cost = &s->m_cost;
  c.device = &s->m_device;
  c.profile = s->m_profile ? &*s->m_profile : nullptr;
  c.runtimeProfile = s->m_runtimeProfile ? &*s->m_runtimeProfile : nullptr;
  c.goal = goal;
  c.scenario = scenario;
  c.estimatedMs.reserve(g.nodes.size());
  for (const auto& e : s->m_roofline.nodes) c.estimatedMs.push_back(e.seconds * 1e3);
  const DeviceProfile* dev = &s->m_device;
  c.rooflineMs = [dev](const OpCost& cost) { return estimateNode(cost, "", *dev).seconds * 1e3; };

  if (s->m_geFusion.ran) c.geFusion = &s->m_geFusion;
  double estimatedTotal = 0;
  for (double ms : c.estimatedMs) estimatedTotal += ms;

  if (c.profile) {
    // A fused runtime entry's time is split among its members in proportion to their estimates.
    std::map<std::string, double> weights;
    for (size_t i = 0; i < g.nodes.size(); ++i) weights[g.nodes[i].name] = c.estimatedMs[i];
    auto measured = c.profile->timePerIrNode(weights);
    c.measuredMs.assign(g.nodes.size(), -1.0);
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (auto it = measured.find(g.nodes[i].name); it != measured.end()) c.measuredMs[i] = it->second;
    c.measured = true;
    c.latencyMs = c.profile->latencyMs.median > 0 ? c.profile->latencyMs.median : c.profile->sumNodeMedians();
    capControlFlowTime(g, c.latencyMs, c.measuredMs);
  } else {
    c.latencyMs = estimatedTotal;
  }
  return s;
}

}  // namespace msa
