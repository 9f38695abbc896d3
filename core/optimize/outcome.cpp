#include "optimize/outcome.h"

#include <algorithm>
#include <unordered_set>
#include <cmath>
#include <limits>
#include <map>

#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/shape_inference.h"
#include "profile/ort_session.h"
#include "profile/latency.h"

namespace msa {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Roofline seconds per top-level node name, after inferring shapes on a copy.
std::map<std::string, std::pair<std::string, double>> rooflineByName(const Model& m, const DeviceProfile& device) {
  Model copy = m;
  (void)inferShapes(copy);
  GraphCost cost = computeCosts(copy.graph);
  RooflineEstimate est = estimateRoofline(copy.graph, cost, device);
  std::map<std::string, std::pair<std::string, double>> out;
  for (size_t i = 0; i < copy.graph.nodes.size(); ++i) {
    const Node& n = copy.graph.nodes[i];
    std::string op = n.isDefaultDomain() ? n.opType : n.domain + ":" + n.opType;
    out[n.name] = {op, est.nodes[i].seconds * 1e3};
  }
  return out;
}

// Per IR node, the 10th percentile of its runtime node's time (shared evenly when the runtime
// fused several). Not the median: on a loaded machine the other processes preempt most runs of a
// node and inflate its median by an amount that differs between two profiles taken apart in time
// (densenet121 here: node medians summed to 116 ms with the runtime's optimizer disabled where its
// runs took 74 ms of CPU time; the 10th percentiles summed to 73 ms).
std::map<std::string, double> p10PerIrNode(const ProfileData& p) {
  std::map<std::string, double> out;
  for (const NodeProfile& n : p.nodes) {
    if (n.irNodes.empty() || !n.parent.empty()) continue;
    for (const auto& ir : n.irNodes) out[ir] += n.timeMs.p10 / static_cast<double>(n.irNodes.size());
  }
  return out;
}

}  // namespace

Result<LatencyComparison> compareLatency(const Model& original, const Model& optimized,
                                         std::span<const DataValue> inputs, const LatencyOptions& o,
                                         const Progress& progress) {
  auto settings = [&](GraphOptimization level) {
    SessionSettings s;
    s.optimization = level;
    s.threads = o.threads;
    s.spinning = o.spinning;
    return s;
  };
  const TimedConfig configs[4] = {{&original, inputs, settings(GraphOptimization::Disabled)},
                                  {&optimized, inputs, settings(GraphOptimization::Disabled)},
                                  {&original, inputs, settings(GraphOptimization::All)},
                                  {&optimized, inputs, settings(GraphOptimization::All)}};
  SamplingPolicy policy;
  policy.warmup = o.warmup;
  policy.minRuns = o.iterations;
  policy.target = o.target;
  policy.budgetSeconds = o.budgetSeconds;
  auto timed = timeConfigs(configs, policy, progress);
  if (!timed) return timed.error();
  const auto& t = *timed;
  LatencyComparison c;
  c.originalDisabled = t[0].stats;
  c.optimizedDisabled = t[1].stats;
  c.originalAll = t[2].stats;
  c.optimizedAll = t[3].stats;
  c.iterations = std::min({t[0].stats.count, t[1].stats.count, t[2].stats.count, t[3].stats.count});
  c.threads = t[2].measurement.threads;
  c.measurement = t[2].measurement;
  for (const TimedLatency& x : t) {
    c.measurement.contended = c.measurement.contended || x.measurement.contended;
    c.measurement.cpuShare = std::min(c.measurement.cpuShare, x.measurement.cpuShare);
  }
  c.speedupDisabledNoise = ratioUncertainty(t[0], t[1]);
  c.speedupAllNoise = ratioUncertainty(t[2], t[3]);
  return c;
}

Result<SpeedupEstimate> estimateSpeedup(const Model& original, const Model& optimized,
                                        std::span<const Rewrite> applied, const ProfileData& disabledProfile,
                                        const ProfileData* runtimeProfile, const DeviceProfile& device) {
  SpeedupEstimate e;
  const auto measured = p10PerIrNode(disabledProfile);
  double originalSum = 0;
  for (const Node& n : original.graph.nodes)
    if (auto it = measured.find(n.name); it != measured.end()) originalSum += it->second;
  if (!(originalSum > 0)) return Error::usage("the original's profile times none of its nodes");
  e.originalMs = originalSum;

  const bool runtimeGraph = std::any_of(applied.begin(), applied.end(),
                                        [](const Rewrite& r) { return r.pass == "ort_offline_optimize"; });
  if (runtimeGraph) {
    if (!runtimeProfile) return Error::usage("estimating the runtime's own graph needs the original's ORT_ENABLE_ALL profile");
    e.measuredNodes = static_cast<int>(runtimeProfile->nodes.size());
    // Per-node 10th percentiles, as for the other estimates. The two profiles' end-to-end
    // latencies, measured apart in time, gave 0.80 for bert_like_encoder where the interleaved runs
    // measured 1.53.
    for (const NodeProfile& n : runtimeProfile->nodes)
      if (n.parent.empty()) e.optimizedMs += n.timeMs.p10;
    e.method = "ONNX Runtime's own graph: the original's per-node profile at ORT_ENABLE_ALL (node 10th percentiles "
               "summed, inserted reorders included) over its per-node profile with the runtime's optimizer disabled";
  } else {
    // How close to its roofline each op type ran in the original: new nodes are assumed to do as well.
    const auto rooflineOriginal = rooflineByName(original, device);
    std::map<std::string, std::vector<double>> ratios;
    std::vector<double> all;
    for (const auto& [name, opAndMs] : rooflineOriginal) {
      auto it = measured.find(name);
      if (it == measured.end() || !(opAndMs.second > 0) || !(it->second > 0)) continue;
      ratios[opAndMs.first].push_back(it->second / opAndMs.second);
      all.push_back(it->second / opAndMs.second);
    }
    const double overall = all.empty() ? 1.0 : median(all);
    const auto rooflineOptimized = rooflineByName(optimized, device);
    for (const Node& n : optimized.graph.nodes) {
      if (auto it = measured.find(n.name); it != measured.end()) {
        e.optimizedMs += it->second;
        ++e.measuredNodes;
        continue;
      }
      auto r = rooflineOptimized.find(n.name);
      if (r == rooflineOptimized.end()) continue;
      auto rt = ratios.find(r->second.first);
      e.optimizedMs += r->second.second * (rt != ratios.end() ? median(rt->second) : overall);
      ++e.estimatedNodes;
    }
    e.method = "per-node: kept nodes (fused nodes keep their anchor's name) at their measured time (10th percentile) with the "
               "runtime's optimizer disabled, removed nodes at 0, new nodes at their roofline on " + device.id +
               " times the measured efficiency of their op type";
  }
  if (!(e.optimizedMs > 0)) return Error::usage("the optimized model's estimate is empty");
  e.speedup = e.originalMs / e.optimizedMs;
  if (runtimeProfile) {
    std::unordered_set<std::string> alive;
    for (const Node& n : optimized.graph.nodes) alive.insert(n.name);
    for (const NodeProfile& n : runtimeProfile->nodes) {
      if (!n.parent.empty()) continue;  // inside its parent's time
      e.deployedOriginalMs += n.timeMs.p10;
      // The runtime's own graph written as the model runs the same kernels.
      const bool runs = runtimeGraph || n.irNodes.empty() ||
                        std::any_of(n.irNodes.begin(), n.irNodes.end(), [&](const std::string& ir) { return alive.count(ir) > 0; });
      if (runs) e.deployedOptimizedMs += n.timeMs.p10;
    }
    if (e.deployedOptimizedMs > 0) e.deployedSpeedup = e.deployedOriginalMs / e.deployedOptimizedMs;
  }
  // Per-node sums in the profile's end-to-end terms (the runtime's per-node times add up to a bit
  // more or less than a run): same ratio, milliseconds a user recognises.
  if (disabledProfile.latencyMs.p10 > 0) {
    e.originalMs = disabledProfile.latencyMs.p10;
    e.optimizedMs = e.originalMs / e.speedup;
  }
  return e;
}

}  // namespace msa
