// KernelAdvisor: kernels that run far below what their peers reach. Efficiency = roofline time /
// measured time; a kernel is an outlier when it sits far below the kernels of the same op type,
// element type and arithmetic intensity (median/MAD of log efficiency, so one slow kernel does
// not hide another). The comparison uses each kernel's fastest iteration: on a loaded machine
// medians swing by 30-100% (a node can take 2 ms or 45 ms from one run to the next), the fastest
// run much less. A kernel whose twin (same op, shapes and attributes: the same code path) runs at
// the peers' efficiency is not flagged either: what separates twins is noise, not the kernel.
// On Ascend profiles, kernel_ascend.cpp adds the checks that read the PMU columns.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "cost/device_profile.h"
#include "rules/ascend_tables.h"
#include "rules/kernel_units.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

// Thresholds (docs/rules.md, kernel.outlier).
constexpr size_t kMinPeers = 5;        // kernels in the comparison, the candidate included
constexpr double kRobustZ = 3.0;       // median - log eff >= 3 robust sigmas
constexpr double kMinSigma = 0.223;    // ln 1.25: peers never look tighter than 25% spread
constexpr double kMinGap = 1.5;        // at least 1.5x below the peers' median
constexpr double kMinShare = 0.005;    // impact >= 0.5% of the end-to-end latency
constexpr double kBucketWidth = 1.0;   // log2 of intensity: peers within a factor of 2

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + static_cast<long>(mid))) / 2;
  return m;
}

std::string joinShapes(const std::vector<std::string>& shapes) {
  std::string s;
  for (const auto& x : shapes) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The input shapes as the runtime reported them, else from the IR.
std::string shapeText(const AnalysisContext& ctx, const KernelUnit& u) {
  if (u.entry && !u.entry->inputShapes.empty()) return joinShapes(u.entry->inputShapes);
  std::vector<std::string> shapes;
  for (const auto& in : ctx.node(u.members.front()).inputs)
    if (const Shape* s = ctx.index->shape(in); s && !in.empty()) shapes.push_back(s->str());
  return joinShapes(shapes);
}

struct PeerStats {
  double medianLog = 0, sigma = 0;
  size_t count = 0;
};

class KernelAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "kernel"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    // Per-IR-node times when there are some; otherwise the runtime's own kernels (an imported
    // msprof profile, ORT with its optimizations).
    // The Ascend checks run first: a kernel they explain (memory bound, no bound, idle cores,
    // its MatMul path) is not reported again as an outlier.
    std::vector<Finding> ascend;
    for (const ProfileData* p : {ctx.runtimeProfile, ctx.profile})
      if (p && isAscendProfile(*p)) {
        ascendKernelChecks(ctx, *p, ascend);
        break;
      }
    std::set<std::string> explained;
    for (const Finding& f : ascend) explained.insert(f.runtimeNodes.begin(), f.runtimeNodes.end());
    const ProfileData* timing = ctx.profile ? ctx.profile : ctx.runtimeProfile;
    if (timing) outliers(ctx, *timing, explained, out);
    for (Finding& f : ascend) out.push_back(std::move(f));
  }

 private:
  static void outliers(const AnalysisContext& ctx, const ProfileData& profile, const std::set<std::string>& explained,
                       std::vector<Finding>& out) {
    std::vector<KernelUnit> units = kernelUnits(ctx, profile);
    const double overheadMs = ctx.device->launchOverhead.value * 1e3;
    const double latency = profileLatencyMs(profile);

    // Candidates: kernels with real work (the roofline's work is at least one launch overhead;
    // below that the time is dispatch, which the small-ops family reports).
    struct Sample {
      size_t unit;
      double logEff;
      long bucket;
    };
    std::map<std::string, std::vector<Sample>> groups;
    std::multimap<std::string, size_t> twins;  // signature -> unit
    std::vector<std::string> sigs(units.size());
    for (size_t i = 0; i < units.size(); ++i) {
      const KernelUnit& u = units[i];
      if (u.rooflineMs - overheadMs < overheadMs || u.intensity <= 0) continue;
      if (explained.count(u.entry->name)) continue;
      const long bucket = static_cast<long>(std::floor(std::log2(u.intensity) / kBucketWidth));
      groups[u.opType + "|" + std::string(dtypeName(u.cost.computeType))].push_back({i, std::log(u.rooflineMs / u.bestMs), bucket});
      sigs[i] = signature(ctx, u);
      twins.emplace(sigs[i], i);
    }

    for (auto& [key, samples] : groups) {
      if (samples.size() < kMinPeers) continue;
      std::map<long, std::vector<double>> byBucket;
      for (const Sample& s : samples) byBucket[s.bucket].push_back(s.logEff);
      std::map<long, PeerStats> cache;
      auto statsFor = [&](long b) {
        if (auto it = cache.find(b); it != cache.end()) return it->second;
        std::vector<double> peers = byBucket[b];
        if (peers.size() < kMinPeers)  // too few at this intensity: widen to the neighbours
          for (long nb : {b - 1, b + 1})
            if (auto it = byBucket.find(nb); it != byBucket.end()) peers.insert(peers.end(), it->second.begin(), it->second.end());
        PeerStats st;
        st.count = peers.size();
        if (st.count >= kMinPeers) {
          st.medianLog = median(peers);
          std::vector<double> dev;
          for (double x : peers) dev.push_back(std::fabs(x - st.medianLog));
          st.sigma = std::max(1.4826 * median(dev), kMinSigma);
        }
        return cache[b] = st;
      };
      for (const Sample& s : samples) {
        if (ctx.progress && ctx.progress->cancelled()) return;
        const PeerStats st = statsFor(s.bucket);
        if (st.count < kMinPeers) continue;
        const KernelUnit& u = units[s.unit];
        const double z = (st.medianLog - s.logEff) / st.sigma;
        const double peerEff = std::exp(st.medianLog);  // at the peers' best iterations
        const double bestEff = std::exp(s.logEff);
        if (z < kRobustZ || bestEff * kMinGap > peerEff) continue;
        if (fastTwin(units, twins, sigs[s.unit], s.unit, peerEff)) continue;
        // What the slow kernel costs: its fastest time less that time at the peers' efficiency
        // (the rest of its median is the machine's noise, which a faster kernel would not remove).
        const double saved = u.bestMs * (1 - bestEff / peerEff);
        if (saved < kMinShare * latency) continue;
        out.push_back(outlierFinding(ctx, u, u.measuredMs - saved, peerEff, st.count));
      }
    }
  }

  // Kernels doing the same work the same way: op types, input shapes and attributes of the members.
  static std::string signature(const AnalysisContext& ctx, const KernelUnit& u) {
    std::string sig = u.opType;
    for (size_t m : u.members) {
      const Node& n = ctx.node(m);
      sig += "|" + n.opType + "(";
      for (const auto& in : n.inputs)
        if (const Shape* sh = ctx.index->shape(in); sh && !in.empty()) sig += sh->str() + std::string(dtypeName(ctx.index->dtype(in))) + ",";
      for (const Attribute& a : n.attributes) {
        sig += a.name + "=" + std::to_string(a.i) + "/" + std::to_string(a.f) + "/" + a.s;
        for (int64_t v : a.ints) sig += ":" + std::to_string(v);
        for (float v : a.floats) sig += ":" + std::to_string(v);
      }
      sig += ")";
    }
    return sig;
  }

  static bool fastTwin(const std::vector<KernelUnit>& units, const std::multimap<std::string, size_t>& twins,
                       const std::string& sig, size_t unit, double peerEff) {
    for (auto [it, end] = twins.equal_range(sig); it != end; ++it)
      if (it->second != unit && units[it->second].rooflineMs / units[it->second].bestMs * kMinGap > peerEff) return true;
    return false;
  }

  static Finding outlierFinding(const AnalysisContext& ctx, const KernelUnit& u, double fixed, double peerEff,
                                size_t peers) {
    Finding f = makeFinding(ctx, "kernel.outlier", Category::Kernel, u.members);
    if (u.entry && (u.members.size() > 1 || u.entry->name != ctx.node(u.members.front()).name))
      f.runtimeNodes.push_back(u.entry->name);
    f.impact.currentMs = u.measuredMs;
    f.impact.fixedMs = fixed;
    f.impact.ms = f.impact.rawMs = u.measuredMs - fixed;
    f.impact.source = ImpactSource::Both;
    f.impact.method = phrase("method.kernel.outlier", {{"peers", std::to_string(peers)}});
    f.legal = true;
    f.params["op"] = u.opType;
    f.params["efficiency"] = formatPercent(std::min(1.0, u.efficiency()));
    f.params["efficiency_ratio"] = std::to_string(std::min(1.0, u.efficiency()));
    f.params["best_efficiency"] = formatPercent(std::min(1.0, u.rooflineMs / u.bestMs));
    f.params["peer_efficiency"] = formatPercent(std::min(1.0, peerEff));
    f.params["peers"] = std::to_string(peers);
    f.params["slowdown"] = formatSignificant(peerEff / (u.rooflineMs / u.bestMs));
    f.params["shape"] = shapeText(ctx, u);
    f.params["kernel"] = u.entry && !u.entry->kernel.empty() ? u.entry->kernel : phrase("value.unknown");
    f.params["intensity"] = formatSignificant(u.intensity);
    f.params["best_ms"] = formatSignificant(u.bestMs);
    f.params["p90_ms"] = formatSignificant(u.entry ? u.entry->timeMs.p90 : u.measuredMs);
    return f;
  }
};

}  // namespace

double profileLatencyMs(const ProfileData& profile) {
  // The p10: on a loaded machine the median end-to-end time swells several times over, which
  // would raise every "share of the latency" floor with it.
  if (profile.latencyMs.p10 > 0) return profile.latencyMs.p10;
  return profile.latencyMs.median > 0 ? profile.latencyMs.median : profile.sumNodeMedians();
}

std::vector<KernelUnit> kernelUnits(const AnalysisContext& ctx, const ProfileData& profile) {
  std::vector<KernelUnit> units;
  for (const NodeProfile& np : profile.nodes) {
    if (np.inserted || np.irNodes.empty() || !np.parent.empty() || !(np.timeMs.median > 0)) continue;
    KernelUnit u;
    u.entry = &np;
    bool ok = true;
    for (const auto& name : np.irNodes) {
      long i = ctx.index->indexOfName(name);
      if (i < 0 || !ctx.cost->nodes[static_cast<size_t>(i)].known) {
        ok = false;
        break;
      }
      u.members.push_back(static_cast<size_t>(i));
    }
    if (!ok) continue;
    u.cost = u.members.size() == 1 ? ctx.cost->nodes[u.members[0]] : groupCost(ctx, u.members);
    u.rooflineMs = u.members.size() == 1 ? ctx.estimatedMs[u.members[0]]
                                         : (ctx.rooflineMs ? ctx.rooflineMs(u.cost) : 0.0);
    if (!(u.rooflineMs > 0)) continue;
    u.measuredMs = np.timeMs.median;
    // The fastest iteration: the kernel's own speed with the least of the machine's noise.
    u.bestMs = np.timeMs.min > 0 ? np.timeMs.min : np.timeMs.p10 > 0 ? np.timeMs.p10 : u.measuredMs;
    u.bestMs = std::min(u.bestMs, u.measuredMs);
    u.intensity = u.cost.intensity();
    u.opType = np.opType.empty() ? ctx.node(u.members.front()).opType : np.opType;
    units.push_back(std::move(u));
  }
  return units;
}

std::unique_ptr<Rule> makeKernelRules() { return std::make_unique<KernelAdvisor>(); }

}  // namespace msa
