#include "optimize/outcome.h"

#include <algorithm>
#include <unordered_set>
#include <limits>
#include <map>

#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/shape_inference.h"
#include "profile/ort_session.h"
#include "profile/run_timing.h"

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

int64_t weightBytes(const Model& m) {
  int64_t bytes = 0;
  m.graph.forEachGraph([&](const Graph& g, int) {
    for (const Tensor& t : g.initializers) bytes += std::max<int64_t>(0, t.byteSize());
  });
  return bytes;
}

}  // namespace

Result<LatencyComparison> compareLatency(const Model& original, const Model& optimized,
                                         std::span<const DataValue> inputs, const LatencyOptions& o,
                                         const Progress& progress) {
  struct Config {
    const Model* model;
    GraphOptimization level;
  };
  const Config configs[4] = {{&original, GraphOptimization::Disabled},
                             {&optimized, GraphOptimization::Disabled},
                             {&original, GraphOptimization::All},
                             {&optimized, GraphOptimization::All}};
  // Several sessions per configuration, used in turn: one session's timing depends on where the
  // runtime's allocations landed (two sessions of the same small Conv model differed 4x here),
  // so each configuration is the median over instances, not one instance's luck.
  int instances = std::max(1, o.sessionsPerConfig);
  if (std::max(weightBytes(original), weightBytes(optimized)) > (int64_t(256) << 20)) instances = 1;
  std::vector<OrtSession> sessions[4];
  for (int i = 0; i < instances; ++i)
    for (int c = 0; c < 4; ++c) {
      if (progress.cancelled()) return Error::cancelled();
      RuntimeOptions ro;
      ro.optimization = configs[c].level;
      ro.intraOpThreads = o.threads;
      ro.spinning = o.spinning;
      ro.spinAfterRun = false;  // the configurations run in turn
      // Weights inline, as ONNX Runtime loads a file: it owns (and aligns) every buffer, for both
      // models alike. Only models beyond protobuf's limit keep theirs handed over from memory.
      if (weightBytes(*configs[c].model) < (int64_t(1800) << 20)) ro.detachAbove = std::numeric_limits<int64_t>::max();
      auto s = OrtSession::create(*configs[c].model, ro);
      if (!s) return s.error();
      for (int w = 0; w < o.warmup; ++w)
        if (auto r = s->runDiscarding(inputs); !r) return r.error();
      sessions[c].push_back(std::move(*s));
    }
  std::vector<double> samples[4];
  // One intra-op thread: the runtime computes on this thread, so its CPU time is the run's
  // latency without the time other processes held the core (on a shared machine most of the
  // difference between runs). Otherwise wall time.
  const bool cpuClock = o.threads == 1 && o.clock != LatencyOptions::Clock::Wall;
  // The configurations take turns by blocks (run_timing.h), each block on the configuration's
  // next session: six turns at least, a block a sixth of the runs asked, at least 20 ms of them
  // (a 0.2 ms model's median of 7 runs caught a busy moment: 0.26 ms against 0.19 ms for the
  // same graph) and at most a quarter of a second.
  constexpr int kTurns = 6;
  RunBlock block;
  block.maxTimed = (o.iterations + kTurns - 1) / kTurns;
  block.minSeconds = 0.02;
  block.seconds = 0.25;
  block.threadCpuClock = cpuClock;
  auto left = [&](int c) { return o.iterations - static_cast<int>(samples[c].size()); };
  auto mostLeft = [&] { return std::max({left(0), left(1), left(2), left(3)}); };
  for (int round = 0; round < kTurns || mostLeft() > 0; ++round) {
    for (int j = 0; j < 4; ++j) {
      const int c = (round + j) % 4;  // each round starts with a different configuration
      if (round >= kTurns && left(c) <= 0) continue;
      const OrtSession& s = sessions[c][static_cast<size_t>(round % instances)];
      if (auto st = timeRunBlock(s, inputs, block, samples[c], progress); !st) return st.error();
    }
    const double turnsDone = std::min(1.0, (round + 1.0) / kTurns);
    const double runsDone = 1.0 - std::max(0, mostLeft()) / static_cast<double>(o.iterations);
    progress.report("timing", turnsDone * runsDone);
  }
  LatencyComparison c;
  c.originalDisabled = Stats::of(samples[0]);
  c.optimizedDisabled = Stats::of(samples[1]);
  c.originalAll = Stats::of(samples[2]);
  c.optimizedAll = Stats::of(samples[3]);
  c.iterations = static_cast<int>(std::min({samples[0].size(), samples[1].size(), samples[2].size(), samples[3].size()}));
  c.threads = o.threads;
  c.clock = cpuClock ? "thread CPU time" : "wall time";
  c.sessionsPerConfig = instances;
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
