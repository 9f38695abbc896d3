#include "edit/reanalysis.h"

#include <unordered_set>

#include "cost/device_profile.h"
#include "profile/host_calibration.h"

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

namespace {

Result<DeviceProfile> deviceFor(const std::string& id, bool calibrated) {
  auto device = loadDevice(id);
  if (!device) return device.error();
  if (calibrated && device->kind == DeviceProfile::Kind::Cpu)
    if (auto cal = cachedHostCalibration()) return withHostCalibration(*device, *cal);
  return device;
}

}  // namespace

Result<Report> reanalyze(const Model& model, const Report& previous, const Progress& progress) {
  auto device = deviceFor(previous.device, previous.deviceCalibrated);
  if (!device) return device.error();
  AnalyzeOptions options;
  options.goal = previous.goal;
  options.scenario = previous.scenario;
  options.topN = std::max<int>(options.topN, static_cast<int>(previous.bottlenecks.size()));
  std::optional<ProfileData> disabled, runtime;
  if (previous.profile) disabled = remapProfile(*previous.profile, model.graph);
  if (previous.runtimeProfile) runtime = remapProfile(*previous.runtimeProfile, model.graph);
  AnalysisInputs inputs;
  inputs.profile = disabled ? &*disabled : nullptr;
  inputs.runtimeProfile = runtime ? &*runtime : nullptr;
  return analyze(model, *device, inputs, options, progress);
}

Result<Report> analyzeEstimate(const Model& model, const std::string& deviceId, const AnalyzeOptions& options,
                               const Progress& progress) {
  auto device = deviceFor(deviceId, true);
  if (!device) return device.error();
  return analyze(model, *device, AnalysisInputs{}, options, progress);
}

}  // namespace msa::ui
