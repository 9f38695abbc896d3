#include "edit/reanalysis.h"

#include <algorithm>
#include <unordered_set>

#include "advisor/run_analysis.h"

namespace msa::ui {

ProfileData remapProfile(const ProfileData& p, const Graph& g) {
  std::unordered_set<std::string> alive;
  alive.reserve(g.nodes.size());
  for (const Node& n : g.nodes) alive.insert(n.name);
  ProfileData out = p;
  out.nodes.clear();
  double savedMs = 0;
  for (const NodeProfile& e : p.nodes) {
    if (e.inserted || e.irNodes.empty()) {
      out.nodes.push_back(e);
      continue;
    }
    NodeProfile kept = e;
    std::erase_if(kept.irNodes, [&](const std::string& n) { return !alive.count(n); });
    if (kept.irNodes.empty()) {
      if (e.parent.empty()) savedMs += e.timeMs.median;  // a subgraph node's time is inside its parent's
      continue;
    }
    out.nodes.push_back(std::move(kept));
  }
  std::erase_if(out.irNodesNotRun, [&](const std::string& n) { return !alive.count(n); });
  const double before = p.sumNodeMedians();
  if (savedMs > 0 && before > 0) {
    // The end-to-end figures lose the removed nodes' share of the node time: per-node timings
    // (profiling on) and the end-to-end run (profiling off) differ in scale, shares do not.
    const double keep = std::max(0.0, 1.0 - savedMs / before);
    for (double* v : {&out.latencyMs.median, &out.latencyMs.p10, &out.latencyMs.p90, &out.latencyMs.mean,
                      &out.latencyMs.min, &out.latencyMs.max})
      *v *= keep;
  }
  if (savedMs > 0) out.source = p.source + " (mapped onto the edited model)";
  return out;
}

Result<Report> reanalyze(std::shared_ptr<const Model> model, const Report& previous, const Progress& progress) {
  AnalysisRequest request;
  request.device = previous.device;
  request.calibration = previous.deviceCalibrated ? CalibrationPolicy::Cached : CalibrationPolicy::Off;
  request.inferShapes = false;
  request.options.goal = previous.goal;
  request.options.scenario = previous.scenario;
  request.options.topN = std::max<int>(request.options.topN, static_cast<int>(previous.bottlenecks.size()));
  if (previous.profile || previous.runtimeProfile) {
    MeasuredProfiles p;
    if (previous.profile) p.disabled = remapProfile(*previous.profile, model->graph);
    if (previous.runtimeProfile) p.runtime = remapProfile(*previous.runtimeProfile, model->graph);
    request.profiles = std::move(p);
  }
  auto outcome = runAnalysis(std::move(model), request, progress);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

Result<Report> analyzeEstimate(std::shared_ptr<const Model> model, const std::string& deviceId, const AnalyzeOptions& options,
                               const Progress& progress) {
  AnalysisRequest request;
  request.device = deviceId;
  request.calibration = CalibrationPolicy::Cached;
  request.inferShapes = false;
  request.options = options;
  auto outcome = runAnalysis(std::move(model), request, progress);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

}  // namespace msa::ui
