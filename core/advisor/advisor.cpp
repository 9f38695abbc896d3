// ModelAdvisor: rules -> overlap accounting -> weighted ranking, priorities, TOP-N -> optimum and
// tables. The policy is documented in docs/advisor.md; keep the two in step.
#include "advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

#include "advisor/analysis_state.h"
#include "advisor/optimum.h"
#include "cost/device_profile.h"
#include "profile/host_calibration.h"
#include "rules/family_registry.h"

namespace msa {

double medianBound(double score, double end, int samples) {
  if (samples <= 1) return end;
  constexpr double kMedianStandardError = 1.2533141373155;  // √(π/2): the median's SE in σ/√n
  return score + (end - score) * std::min(1.0, kMedianStandardError / std::sqrt(static_cast<double>(samples)));
}

std::string_view goalName(Goal g) { return g == Goal::Throughput ? "throughput" : "latency"; }
std::string_view scenarioName(Scenario s) { return s == Scenario::Datacenter ? "datacenter" : "edge"; }

bool parseGoal(std::string_view s, Goal& out) {
  if (s == "latency") out = Goal::Latency;
  else if (s == "throughput") out = Goal::Throughput;
  else return false;
  return true;
}

bool parseScenario(std::string_view s, Scenario& out) {
  if (s == "edge") out = Scenario::Edge;
  else if (s == "datacenter") out = Scenario::Datacenter;
  else return false;
  return true;
}

ResourceWeights resourceWeights(Goal goal, Scenario scenario) {
  // Latency: one request at batch 1, nothing hides a launch; on an edge host dispatch runs on a
  // small core. Throughput: requests are batched and pipelined, a launch is paid once per batch
  // (≈ 1/batch per sample) while memory and compute grow with the batch; many streams share a
  // datacenter device's memory bandwidth, and its matrix units are what it is bought for.
  if (goal == Goal::Latency)
    return scenario == Scenario::Edge ? ResourceWeights{1.5, 1.0, 1.0} : ResourceWeights{1.25, 1.25, 1.0};
  return scenario == Scenario::Edge ? ResourceWeights{0.5, 1.25, 1.0} : ResourceWeights{0.25, 1.5, 1.25};
}

const Finding* Report::finding(std::string_view id) const {
  for (const Finding& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

const Assessment* Report::assessment(std::string_view id) const {
  for (size_t i = 0; i < findings.size() && i < assessments.size(); ++i)
    if (findings[i].id == id) return &assessments[i];
  return nullptr;
}

namespace {

constexpr double kRemoved = std::numeric_limits<double>::infinity();

std::vector<size_t> resolve(const GraphIndex& index, const Finding& f) {
  std::vector<size_t> out;
  for (const auto& name : f.nodes) {
    long i = index.indexOfName(name);
    if (i >= 0 && std::find(out.begin(), out.end(), static_cast<size_t>(i)) == out.end()) out.push_back(static_cast<size_t>(i));
  }
  return out;
}

// What a finding's saving frees: launches (ops removed), then memory vs compute in the
// proportion of its nodes' roofline terms.
void decompose(const AnalysisContext& ctx, const RooflineEstimate& est, const Finding& f,
               const std::vector<size_t>& members, Assessment& a) {
  const bool removal = f.impact.fixedMs <= 0 && f.impact.currentMs > 0;
  int launching = 0;
  double computeS = 0, memoryS = 0;
  for (size_t m : members) {
    if (m >= est.nodes.size()) continue;
    launching += est.nodes[m].overheadSeconds > 0;
    computeS += est.nodes[m].computeSeconds;
    memoryS += est.nodes[m].memorySeconds;
  }
  if (removal) a.launchesSaved = launching + static_cast<int>(f.runtimeNodes.size());
  else if (f.category == Category::Fusion || f.category == Category::SmallOps) a.launchesSaved = std::max(0, launching - 1);
  const double raw = f.impact.rawMs;
  if (raw <= 0) return;
  const double overhead = std::min(raw, a.launchesSaved * ctx.device->launchOverhead.value * 1e3);
  const double rest = raw - overhead;
  a.overheadFraction = overhead / raw;
  if (computeS + memoryS > 0) {
    a.memoryFraction = rest / raw * memoryS / (computeS + memoryS);
    a.computeFraction = rest / raw * computeS / (computeS + memoryS);
  } else {
    a.memoryFraction = rest / raw;  // data movement the roofline could not price
  }
}

// A score as its median's confidence interval, and the cost model's value of it.
struct ScoreBounds {
  double low = 0, high = 0, estimated = 0;
};

// Whether a score clears a threshold: yes when the low end of its median's interval does, no when
// the high end does not, both widened by the drift between analyses. When the interval straddles
// it the measurement cannot say, and the cost model decides: the same in every analysis, where
// the measured ends would carry a finding across the boundary in one analysis and back in the next.
bool clears(const ScoreBounds& s, double threshold, double drift) {
  if (s.low * (1 - drift) >= threshold) return true;
  if (s.high * (1 + drift) < threshold) return false;
  return s.estimated >= threshold;
}

Priority prioritise(const Finding& f, Assessment& a, bool measurable, const ScoreBounds& score, const ScoreBounds& rule,
                    bool runMeasured, const PriorityPolicy& p) {
  if (!measurable) {
    a.priorityReason = "zero_impact";
    return Priority::P2;
  }
  if (!f.legal) {
    a.priorityReason = "illegal";
    return Priority::P2;
  }
  // A boundary is crossed only when the score's confidence interval clears it (or, straddling it,
  // the cost model does), so that run-to-run noise cannot move a finding across it.
  const bool p0 = clears(score, p.p0Score, p.drift), p1 = clears(score, p.p1Score, p.drift);
  const bool byRule = p1 && clears(rule, p.p0RuleScore, p.drift);
  if (p0 || byRule) {
    if (runMeasured && f.impact.source == ImpactSource::Estimated) {
      a.priorityReason = "estimated_cap";
      return Priority::P1;
    }
    a.priorityReason = p0 ? "share" : "rule_share";
    return Priority::P0;
  }
  a.priorityReason = p1 ? "share" : "below_threshold";
  return p1 ? Priority::P1 : Priority::P2;
}

// The same pattern in identical places (a rule firing on the same op types with the same FLOPs
// and bytes, as in the repeated layers of a transformer) costs the same: each instance is a
// measurement of one thing. Their scores and spreads are pooled (medians over the instances) so
// that one noisy instance neither leads the ranking nor changes the group's priority, and the
// instances rank among themselves in graph order. The impacts shown stay each instance's own.
void poolRepeatedPatterns(const std::vector<Finding>& findings, std::vector<Assessment>& a, std::vector<double>& estimatedMs,
                          const GraphIndex& index, const RooflineEstimate& est) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t k = 0; k < findings.size(); ++k) {
    const Finding& f = findings[k];
    if (!f.appliedBy.empty() || f.nodes.empty()) continue;
    std::string key = f.rule + (f.legal ? "|legal" : "|illegal");
    bool known = true;
    for (const auto& name : f.nodes) {
      const long i = index.indexOfName(name);
      if (i < 0 || static_cast<size_t>(i) >= est.nodes.size()) {
        known = false;
        break;
      }
      const NodeEstimate& e = est.nodes[static_cast<size_t>(i)];
      key += "|" + index.graph().nodes[static_cast<size_t>(i)].opType + ":" + std::to_string(std::llround(e.flops)) + ":" +
             std::to_string(std::llround(e.bytes));
    }
    if (known) groups[key].push_back(k);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::vector<double> score, low, high, saving;
    for (size_t k : members) {
      score.push_back(a[k].score);
      low.push_back(a[k].scoreLow);
      high.push_back(a[k].scoreHigh);
      saving.push_back(estimatedMs[k]);
    }
    const double s = median(score), l = std::min(s, median(low)), h = std::max(s, median(high));
    const double e = median(saving);
    for (size_t k : members) {
      a[k].score = s;
      a[k].scoreLow = l;
      a[k].scoreHigh = h;
      estimatedMs[k] = e;
    }
  }
}

Priority applied(Assessment& a) {
  a.priorityReason = "applied";
  a.score = a.scoreLow = a.scoreHigh = a.scoreMedianLow = a.scoreMedianHigh = 0;
  return Priority::P2;
}

// The run the headline describes when the runtime's optimized run was measured beside the
// unoptimized one; null otherwise (the headline is then the only run there is).
const ProfileData* deployedRun(const AnalysisContext& ctx) {
  const ProfileData* rt = ctx.runtimeProfile;
  if (!ctx.profile || !rt || rt == ctx.profile || ctx.profile->optimization != "disabled") return nullptr;
  if (rt->optimization == "disabled" || !(rt->latencyMs.median > 0 || rt->sumNodeMedians() > 0)) return nullptr;
  return rt;
}

void setSpread(const Stats& s, double value, double& p10, double& p90, int& count) {
  count = s.count;
  if (s.count > 0 && s.median > 0) {
    // The spread of the run around the value shown (they are the same run's median unless the
    // value came from elsewhere).
    p10 = value * s.p10 / s.median;
    p90 = value * s.p90 / s.median;
  } else {
    p10 = p90 = value;
  }
}

// Time per IR node in one run (median, p10, p90), a fused kernel's time split over its members
// by their roofline estimates; the runtime-only nodes (layout reorders) apart.
struct NodeTimes {
  std::vector<double> median, p10, p90;
  // The deployed run as the heatmap shows it: a kernel named after one of the IR nodes it ran is
  // that node's, the others folded into it at 0 (a BatchNormalization folded into its Conv costs
  // nothing of its own; split by estimates it read hotter than the Conv); other kernels as
  // `median`. The budgets keep `median`: a finding sums its nodes either way.
  std::vector<double> attributed;
  std::map<std::string, double> runtimeOnly;
  double runtimeOnlyMs = 0;
  double latencyLow = 1, latencyHigh = 1;  // the run's p10 / p90 over its median
  int samples = 0;                         // runs behind the node medians (the fewest of any node)
};

void countSamples(NodeTimes& t, const Stats& s) {
  if (s.count > 0) t.samples = t.samples > 0 ? std::min(t.samples, s.count) : s.count;
}

NodeTimes nodeTimes(const AnalysisContext& ctx, const ProfileData* deployed) {
  const size_t n = ctx.graph->nodes.size();
  NodeTimes t;
  t.median.assign(n, 0.0);
  t.p10.assign(n, 0.0);
  t.p90.assign(n, 0.0);
  const ProfileData* run = deployed ? deployed : ctx.profile;
  if (run && run->latencyMs.median > 0 && run->latencyMs.count > 1) {
    t.latencyLow = run->latencyMs.p10 / run->latencyMs.median;
    t.latencyHigh = run->latencyMs.p90 / run->latencyMs.median;
  }
  if (!deployed) {
    // The per-IR-node run (or the estimate): its own node stats where it has them.
    std::map<std::string, const NodeProfile*, std::less<>> entry;
    if (ctx.profile)
      for (const NodeProfile& e : ctx.profile->nodes)
        if (e.irNodes.size() == 1 && e.parent.empty()) entry.emplace(e.irNodes.front(), &e);
    for (size_t i = 0; i < n; ++i) {
      t.median[i] = t.p10[i] = t.p90[i] = ctx.timeMs(i);
      auto it = entry.find(ctx.node(i).name);
      if (ctx.isMeasured(i) && it != entry.end() && it->second->timeMs.median > 0) {
        countSamples(t, it->second->timeMs);
        t.p10[i] = t.median[i] * it->second->timeMs.p10 / it->second->timeMs.median;
        t.p90[i] = t.median[i] * it->second->timeMs.p90 / it->second->timeMs.median;
      }
    }
    if (ctx.runtimeProfile)
      for (const NodeProfile& e : ctx.runtimeProfile->nodes)
        if (e.inserted && e.parent.empty()) t.runtimeOnly[e.name] += e.timeMs.median;
    return t;
  }
  t.attributed.assign(n, 0.0);
  for (const NodeProfile& e : deployed->nodes) {
    if (!e.parent.empty()) continue;  // inside its parent's time
    if (e.irNodes.empty()) {
      t.runtimeOnly[e.name] += e.timeMs.median;
      t.runtimeOnlyMs += e.timeMs.median;
      continue;
    }
    countSamples(t, e.timeMs);
    double total = 0;
    std::vector<long> members;
    for (const auto& ir : e.irNodes) {
      const long i = ctx.index->indexOfName(ir);
      members.push_back(i);
      if (i >= 0) total += ctx.estimatedMs[static_cast<size_t>(i)];
    }
    const long own = ctx.index->indexOfName(e.name);
    const bool named = own >= 0 && std::find(members.begin(), members.end(), own) != members.end();
    for (long i : members) {
      if (i < 0) continue;
      const auto u = static_cast<size_t>(i);
      const double share = total > 0 ? ctx.estimatedMs[u] / total : 1.0 / static_cast<double>(members.size());
      t.median[u] += e.timeMs.median * share;
      t.p10[u] += e.timeMs.p10 * share;
      t.p90[u] += e.timeMs.p90 * share;
      if (!named) t.attributed[u] += e.timeMs.median * share;
    }
    if (named) t.attributed[static_cast<size_t>(own)] += e.timeMs.median;
  }
  return t;
}

// The node times the report shows sum to the headline (docs/advisor.md, "Reconciled with the
// headline"): the deployed run's kernels (else the per-node run's nodes) scaled down when their
// profiled sum exceeds the timed run (profiler overhead, or load at another moment); what is left
// of the headline runs between operators (the framework); op-type totals come from the same
// times, so no chart holds more than the total.
void reconcileWithHeadline(const AnalysisContext& ctx, const NodeTimes& times, const ProfileData* deployed, Report& r) {
  if (!ctx.measured || !(r.latencyMs > 0)) return;
  const size_t n = r.nodes.size();
  std::vector<double> per(n);
  std::map<std::string, std::pair<int, double>> runtimeOnly;  // op type -> (kernels, ms)
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += per[i] = deployed ? (i < times.attributed.size() ? times.attributed[i] : 0.0) : ctx.timeMs(i);
  if (deployed)
    for (const NodeProfile& e : deployed->nodes)
      if (e.parent.empty() && e.irNodes.empty()) {
        auto& [count, ms] = runtimeOnly[e.opType.empty() ? e.name : e.opType];
        ++count;
        ms += e.timeMs.median;
        sum += e.timeMs.median;
      }
  const double scale = sum > r.latencyMs ? r.latencyMs / sum : 1.0;
  if (deployed) {
    for (size_t i = 0; i < n; ++i) r.nodes[i].deployedMs = per[i] * scale;
    r.deployedNodeSumMs = sum * scale;
  }
  r.betweenOperatorsMs = std::max(0.0, r.latencyMs - sum * scale);
  std::map<std::string, size_t> index;
  r.timeByOpType.clear();
  auto add = [&](const std::string& op, int count, double ms) {
    auto [it, added] = index.emplace(op, r.timeByOpType.size());
    if (added) r.timeByOpType.push_back({op, 0, 0, 0});
    r.timeByOpType[it->second].count += count;
    r.timeByOpType[it->second].ms += ms * scale;
  };
  for (size_t i = 0; i < n; ++i) add(r.nodes[i].opType, 1, per[i]);
  for (const auto& [op, entry] : runtimeOnly) add(op, entry.first, entry.second);
  for (OpTypeTime& t : r.timeByOpType) t.share = t.ms / r.latencyMs;
  std::stable_sort(r.timeByOpType.begin(), r.timeByOpType.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
}

// A finding's impact spread as factors of its median: its nodes' p10 and p90 over their median
// in the headline's run; the run's own spread for a finding naming no node.
struct Spread {
  double low = 1, high = 1;  // p10 / median and p90 / median of the time a saving comes from
  int samples = 0;           // runs behind that median (0: not measured)
};

Spread spreadOf(const NodeTimes& t, const GraphIndex& index, const Finding& f, const Report& r) {
  double med = 0, lo = 0, hi = 0;
  for (const auto& name : f.nodes) {
    const long i = index.indexOfName(name);
    if (i < 0 || static_cast<size_t>(i) >= t.median.size()) continue;
    med += t.median[static_cast<size_t>(i)];
    lo += t.p10[static_cast<size_t>(i)];
    hi += t.p90[static_cast<size_t>(i)];
  }
  if (med > 0) return {std::min(1.0, lo / med), std::max(1.0, hi / med), t.samples};
  if (r.latencyMs > 0 && r.latencySamples > 1)
    return {std::min(1.0, r.latencyP10Ms / r.latencyMs), std::max(1.0, r.latencyP90Ms / r.latencyMs), r.latencySamples};
  return {};
}

std::vector<size_t> claimOrder(const std::vector<Finding>& findings, bool (*keep)(const Finding&)) {
  std::vector<size_t> order;
  for (size_t k = 0; k < findings.size(); ++k)
    if (keep(findings[k])) order.push_back(k);
  // Legal findings first (they are what the user can act on), then by raw impact.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Finding &x = findings[a], &y = findings[b];
    if (x.legal != y.legal) return x.legal;
    if (x.impact.rawMs != y.impact.rawMs) return x.impact.rawMs > y.impact.rawMs;
    return x.id < y.id;
  });
  return order;
}

void fillNodes(const AnalysisState& state, const std::vector<double>& optimumMs, Report& r) {
  const AnalysisContext& ctx = state.context();
  const Graph& g = *ctx.graph;
  double total = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) total += ctx.timeMs(i);
  std::map<std::string, size_t> opIndex;
  r.nodes.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const NodeEstimate& e = state.roofline().nodes[i];
    NodeReport& n = r.nodes[i];
    n.name = g.nodes[i].name;
    n.opType = g.nodes[i].domain.empty() || g.nodes[i].isDefaultDomain() ? g.nodes[i].opType
                                                                          : g.nodes[i].domain + ":" + g.nodes[i].opType;
    n.estimatedMs = ctx.estimatedMs[i];
    n.measuredMs = ctx.isMeasured(i) ? ctx.measuredMs[i] : -1.0;
    n.optimumMs = i < optimumMs.size() ? optimumMs[i] : 0.0;
    n.flops = e.flops;
    n.bytes = e.bytes;
    n.intensity = e.intensity;
    n.efficiency = n.measuredMs > 0 ? n.estimatedMs / n.measuredMs : -1.0;
    n.bound = boundName(e.bound);
    n.share = total > 0 ? ctx.timeMs(i) / total : 0.0;
    if (e.kernelAnchor >= 0) n.kernel = g.nodes[static_cast<size_t>(e.kernelAnchor)].name;
    auto [it, added] = opIndex.emplace(n.opType, r.timeByOpType.size());
    if (added) r.timeByOpType.push_back({n.opType, 0, 0, 0});
    OpTypeTime& t = r.timeByOpType[it->second];
    ++t.count;
    t.ms += ctx.timeMs(i);
  }
  for (OpTypeTime& t : r.timeByOpType) t.share = total > 0 ? t.ms / total : 0.0;
  std::stable_sort(r.timeByOpType.begin(), r.timeByOpType.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  for (const Finding& f : r.findings)
    for (const auto& name : f.nodes)
      if (long i = ctx.index->indexOfName(name); i >= 0) r.nodes[static_cast<size_t>(i)].findings.push_back(f.id);
}

CompiledGraph compiledGraph(const AnalysisState& state) {
  const GeFusion& ge = state.geFusion();
  CompiledGraph c;
  c.compiler = "ascend-ge";
  c.source = ge.fusionResultPath.empty() ? "simulated" : "fusion_result";
  c.fusionResultPath = ge.fusionResultPath;
  c.launchesWritten = ge.launchesWritten;
  c.launchesCompiled = ge.launchesCompiled;
  c.fusedKernels = static_cast<int>(ge.kernels.size());
  c.nearMisses = static_cast<int>(ge.nearMisses.size());
  for (double ms : ge.writtenMs) c.writtenMs += ms;
  c.compiledMs = state.roofline().seconds * 1e3;
  for (const GePassSummary& p : ge.passes)
    c.passes.push_back({p.name, p.kind == GeFusionKind::Ub ? "ub" : "graph", p.simulated, p.notFired, p.matchTimes,
                        p.effectTimes, p.modelled});
  return c;
}

}  // namespace

void summarizeFindings(Report& r) {
  std::map<Category, CategorySummary> byCat;
  for (size_t k = 0; k < r.findings.size(); ++k) {
    const Finding& f = r.findings[k];
    CategorySummary& c = byCat[f.category];
    c.category = f.category;
    ++c.findings;
    c.legal += f.legal;
    c.withFix += f.hasFix();
    ++c.byPriority[static_cast<int>(f.priority)];
    c.impactMs += f.impact.ms;
    if (c.top.empty()) c.top = f.id;  // findings are ranked
  }
  for (auto& [cat, c] : byCat) {
    c.share = r.latencyMs > 0 ? c.impactMs / r.latencyMs : 0.0;
    r.categories.push_back(c);
  }
  // In the order the families give their categories (rules/family_registry.h).
  std::stable_sort(r.categories.begin(), r.categories.end(), [](const CategorySummary& a, const CategorySummary& b) {
    return categoryOrder(a.category) < categoryOrder(b.category);
  });
  std::map<std::string, size_t> byRule;
  for (const Finding& f : r.findings) {
    auto [it, added] = byRule.emplace(f.rule, r.rules.size());
    if (added) r.rules.push_back({f.rule, f.category, 0, 0, 0, f.priority, f.id});
    RuleSummary& s = r.rules[it->second];
    ++s.findings;
    s.impactMs += f.impact.ms;
    s.best = std::min(s.best, f.priority);
  }
  for (RuleSummary& s : r.rules) s.share = r.latencyMs > 0 ? s.impactMs / r.latencyMs : 0.0;
  std::stable_sort(r.rules.begin(), r.rules.end(), [](const RuleSummary& a, const RuleSummary& b) { return a.impactMs > b.impactMs; });
}


std::vector<size_t> rankFindings(const std::vector<Finding>& findings, const std::vector<Assessment>& a,
                                 const std::vector<double>& estimatedMs, const std::vector<long>& position, double drift) {
  const size_t n = findings.size();
  auto low = [&](size_t k) { return a[k].scoreMedianLow * (1 - drift); };
  auto high = [&](size_t k) { return a[k].scoreMedianHigh * (1 + drift); };
  // Whether x goes before y among findings the measurement cannot order.
  auto fixedBefore = [&](size_t x, size_t y) {
    if (findings[x].priority != findings[y].priority) return findings[x].priority < findings[y].priority;
    if (estimatedMs[x] != estimatedMs[y]) return estimatedMs[x] > estimatedMs[y];
    if (position[x] != position[y]) return position[x] < position[y];
    return findings[x].id < findings[y].id;
  };
  // A topological order of "x's low end above y's high end" (an interval order, so acyclic),
  // taking the fixedBefore-first finding among those whose predecessors are placed. y's
  // predecessors are a prefix of the findings sorted by low end; y is ready once that prefix is.
  std::vector<size_t> byLow(n);
  std::iota(byLow.begin(), byLow.end(), size_t(0));
  std::stable_sort(byLow.begin(), byLow.end(), [&](size_t x, size_t y) { return low(x) > low(y); });
  std::vector<size_t> need(n);
  for (size_t k = 0; k < n; ++k)
    need[k] = static_cast<size_t>(
        std::partition_point(byLow.begin(), byLow.end(), [&](size_t x) { return low(x) > high(k); }) - byLow.begin());
  std::vector<size_t> byNeed(n);
  std::iota(byNeed.begin(), byNeed.end(), size_t(0));
  std::stable_sort(byNeed.begin(), byNeed.end(), [&](size_t x, size_t y) { return need[x] < need[y]; });
  auto later = [&](size_t x, size_t y) { return fixedBefore(y, x); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
  std::vector<bool> placed(n, false);
  std::vector<size_t> rank;
  rank.reserve(n);
  size_t prefix = 0, queued = 0;
  while (rank.size() < n) {
    while (queued < n && need[byNeed[queued]] <= prefix) ready.push(byNeed[queued++]);
    const size_t k = ready.top();
    ready.pop();
    placed[k] = true;
    rank.push_back(k);
    while (prefix < n && placed[byLow[prefix]]) ++prefix;
  }
  return rank;
}

Result<Report> analyze(const Model& model, const DeviceProfile& device, const AnalysisInputs& inputs,
                       const AnalyzeOptions& options, const Progress& progress) {
  progress.report("analysis", 0);
  auto state = AnalysisState::borrow(model, device, inputs, options.goal, options.scenario);
  state->setProgress(&progress);
  const AnalysisContext& ctx = state->context();
  const Graph& g = *ctx.graph;

  Report r;
  r.model = model.path.string();
  r.device = device.id;
  r.deviceName = device.displayName;
  r.deviceNameZh = device.displayNameZh;
  r.deviceCalibrated = device.memoryBandwidth.origin == FigureOrigin::Calibrated;
  r.bandwidthBytesPerSecond = device.memoryBandwidth.value;
  r.launchOverheadMs = device.launchOverhead.value * 1e3;
  {
    const DType t = device.computeType(DType::Float);
    for (ComputeUnit u : {ComputeUnit::Cube, ComputeUnit::Vector})
      if (auto p = device.peak(u, t)) {
        std::string label = device.kind == DeviceProfile::Kind::Cpu ? "all" : std::string(unitName(u));
        if (std::none_of(r.roofs.begin(), r.roofs.end(), [&](const Report::Roof& x) { return x.flopsPerSecond == *p; }))
          r.roofs.push_back({label + " " + std::string(dtypeName(t)), *p});
      }
  }
  r.goal = options.goal;
  r.scenario = options.scenario;
  r.nodeCount = g.nodes.size();
  for (const ValueInfo& in : g.inputs)
    if (!g.findInitializer(in.name)) r.inputs[in.name] = in.type.shape ? in.type.shape->str() : "?";
  // The headline is the run the runtime deploys: with its own graph optimizations on when that
  // run was measured next to the unoptimized one (ORT `all` beside `disabled`).
  const ProfileData* deployed = deployedRun(ctx);
  r.latencySource = ctx.measured ? "measured" : "estimated";
  r.estimatedLatencyMs = state->roofline().seconds * 1e3;
  if (ctx.profile) r.measuredNodeSumMs = ctx.profile->sumNodeMedians();
  if (ctx.runtimeProfile && ctx.runtimeProfile != ctx.profile)
    r.runtimeLatencyMs = ctx.runtimeProfile->latencyMs.median > 0 ? ctx.runtimeProfile->latencyMs.median
                                                                  : ctx.runtimeProfile->sumNodeMedians();
  if (deployed) {
    r.latencyRun = "deployed";
    r.latencyMs = r.runtimeLatencyMs;
    setSpread(deployed->latencyMs, r.latencyMs, r.latencyP10Ms, r.latencyP90Ms, r.latencySamples);
    r.unoptimizedLatencyMs = ctx.latencyMs;
    int n = 0;
    setSpread(ctx.profile->latencyMs, r.unoptimizedLatencyMs, r.unoptimizedP10Ms, r.unoptimizedP90Ms, n);
    if (describesOrtOptimizedGraph(*deployed)) r.deployedBy = "onnxruntime";
  } else {
    r.latencyMs = ctx.latencyMs;
    r.latencyRun = !ctx.measured ? "estimated" : ctx.profile->optimization == "disabled" ? "unoptimized" : "deployed";
    if (ctx.profile) setSpread(ctx.profile->latencyMs, r.latencyMs, r.latencyP10Ms, r.latencyP90Ms, r.latencySamples);
    else r.latencyP10Ms = r.latencyP90Ms = r.latencyMs;
    if (r.latencyRun == "unoptimized") r.unoptimizedLatencyMs = r.latencyMs;
  }
  if (inputs.profile) r.profile = *inputs.profile;
  if (inputs.runtimeProfile) r.runtimeProfile = *inputs.runtimeProfile;

  std::vector<Finding> findings = runRules(ctx, options.families);
  if (progress.cancelled()) return Error::cancelled();
  progress.report("ranking", 0.9);
  // What the runtime already does at load is not left to gain (Finding::appliedBy).
  if (deployed && r.deployedBy == "onnxruntime") markAppliedByRuntime(findings, *deployed, *ctx.index);

  std::vector<double> optimumPerNode;
  r.optimum = computeOptimum(*state, &optimumPerNode);
  r.optimumMs = r.optimum.ms;
  const double knownLatencyMs = r.latencyMs * r.optimum.knownTimeShare;
  // A measured run faster than its optimum: the device figures do not describe this run (cache
  // effects: the working set stays on chip). Stated as such, never as a gap below 1.
  r.optimumAboveLatency = ctx.measured && r.optimumMs > 0 && r.optimumMs > knownLatencyMs;
  if (r.optimumMs > 0 && r.optimum.knownTimeShare >= 0.5 && !r.optimumAboveLatency) {
    r.gapRatio = knownLatencyMs / r.optimumMs;
    r.percentOfOptimum = 100.0 * r.optimumMs / knownLatencyMs;
  }

  // Overlap accounting over per-node budgets in the headline's run, scaled so the node times add
  // up to at most its end-to-end latency (a profiled run's node sum includes the profiler's own
  // overhead); all findings together give at most latency − optimum.
  const NodeTimes times = nodeTimes(ctx, deployed);
  OverlapBudget budget;
  budget.nodeMs.resize(g.nodes.size());
  double nodeSum = times.runtimeOnlyMs;
  for (size_t i = 0; i < g.nodes.size(); ++i) nodeSum += times.median[i];
  budget.scale = nodeSum > r.latencyMs && nodeSum > 0 ? r.latencyMs / nodeSum : 1.0;
  const bool optimumBounds = r.optimumMs > 0 && !r.optimumAboveLatency && r.optimumMs < r.latencyMs;
  for (size_t i = 0; i < g.nodes.size(); ++i) budget.nodeMs[i] = times.median[i];
  budget.latencyMs = optimumBounds ? r.latencyMs - r.optimumMs : r.latencyMs;
  budget.runtimeMs = times.runtimeOnly;
  auto notApplied = [](const Finding& f) { return f.appliedBy.empty(); };
  const auto allOrder = claimOrder(findings, notApplied);
  const auto impacts = accountOverlaps(findings, allOrder, *ctx.index, budget);
  // A safe fix the runtime already does at load saves nothing in the deployed run.
  const auto safeOrder = claimOrder(
      findings, [](const Finding& f) { return f.appliedBy.empty() && f.fixDoneBy.empty() && f.hasFix() && f.safeFix; });
  const auto safeImpacts = accountOverlaps(findings, safeOrder, *ctx.index, budget);
  r.safeFixSavingMs = std::accumulate(safeImpacts.begin(), safeImpacts.end(), 0.0);
  r.estimatedOptimizedMs = std::max(0.0, r.latencyMs - r.safeFixSavingMs);

  const ResourceWeights w = resourceWeights(options.goal, options.scenario);
  std::vector<Assessment> assessments(findings.size());
  std::vector<int> samples(findings.size());  // runs behind each finding's median
  // For the ranking's fixed order (rankFindings): the saving on the cost model's time, graph order.
  std::vector<double> estimatedMs(findings.size());
  std::vector<long> position(findings.size(), std::numeric_limits<long>::max());
  for (size_t k = 0; k < findings.size(); ++k) {
    Finding& f = findings[k];
    Assessment& a = assessments[k];
    const bool applied = !f.appliedBy.empty();
    f.impact.ms = impacts[k];
    a.overlapMs = applied ? 0.0 : std::max(0.0, f.impact.rawMs * budget.scale - f.impact.ms);
    f.speedupLocal = f.impact.fixedMs > 0 ? f.impact.currentMs / f.impact.fixedMs
                     : f.impact.currentMs > 0 ? kRemoved : 1.0;
    f.speedupGlobal = r.latencyMs > 0 ? f.impact.ms / r.latencyMs : 0.0;
    r.totalImpactMs += f.impact.ms;
    r.appliedByRuntime += applied;
    const std::vector<size_t> members = resolve(*ctx.index, f);
    decompose(ctx, state->roofline(), f, members, a);
    for (size_t m : members)  // none for what the runtime applies: those stay in graph order
      if (m < state->roofline().nodes.size() && !applied) estimatedMs[k] += state->roofline().nodes[m].seconds * 1e3;
    // The part of it the fix saves, as the rule found it (one launch out of a long sequence of
    // small ops saves a sliver of their time; a fusion most of an epilogue's).
    if (f.impact.currentMs > 0) estimatedMs[k] *= std::clamp(f.impact.rawMs / f.impact.currentMs, 0.0, 1.0);
    if (!members.empty()) position[k] = static_cast<long>(members.front());
    a.weight = f.impact.rawMs > 0 ? w.overhead * a.overheadFraction + w.memory * a.memoryFraction + w.compute * a.computeFraction
                                  : 1.0;
    a.confidence = 1.0;
    if (ctx.measured && f.impact.source == ImpactSource::Estimated) a.confidence *= options.policy.estimatedConfidence;
    if (!f.legal) a.confidence *= options.policy.illegalConfidence;
    a.score = f.speedupGlobal * a.weight * a.confidence;
    // The spread of a saving is the spread of the time it is taken from: a saving of 0.5 ms out of
    // a part that takes 10 ms ± 2 ms is not known to be above zero.
    const auto [lo, hi, runs] = spreadOf(times, *ctx.index, f, r);
    samples[k] = runs;
    if (f.impact.currentMs > 0 && f.impact.ms > 0) {
      a.impactP10Ms = std::max(0.0, f.impact.ms - f.impact.currentMs * (1 - lo));
      a.impactP90Ms = f.impact.ms + f.impact.currentMs * (hi - 1);
    } else {
      a.impactP10Ms = f.impact.ms * lo;
      a.impactP90Ms = f.impact.ms * hi;
    }
    a.scoreLow = f.impact.ms > 0 ? a.score * a.impactP10Ms / f.impact.ms : 0.0;
    a.scoreHigh = f.impact.ms > 0 ? a.score * a.impactP90Ms / f.impact.ms : 0.0;
  }
  poolRepeatedPatterns(findings, assessments, estimatedMs, *ctx.index, state->roofline());
  // An estimate does not drift between analyses: its scores decide alone.
  PriorityPolicy policy = options.policy;
  if (!ctx.measured) policy.drift = 0;
  std::vector<ScoreBounds> bounds(findings.size());
  std::map<std::string, ScoreBounds> ruleBounds;  // a rule's findings together
  // Whether it saves anything measurable (a saving only one noisy run shows is not a
  // bottleneck): its share of the run, the score unweighted, against the same drift and cost
  // model as the priorities, so that this boundary does not flip between analyses either.
  std::vector<bool> measurable(findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    Assessment& a = assessments[k];  // the median's interval, of the pooled score where pooled
    a.scoreMedianLow = medianBound(a.score, a.scoreLow, samples[k]);
    a.scoreMedianHigh = medianBound(a.score, a.scoreHigh, samples[k]);
    const double w = a.weight * a.confidence;
    // The cost model's score: its saving as a share of its whole estimate, weighted alike.
    const double estimated = r.estimatedLatencyMs > 0 ? estimatedMs[k] / r.estimatedLatencyMs * w : a.score;
    bounds[k] = {a.scoreMedianLow, a.scoreMedianHigh, estimated};
    measurable[k] = w > 0 && clears({bounds[k].low / w, bounds[k].high / w, bounds[k].estimated / w}, policy.minShare, policy.drift);
    if (!findings[k].legal) continue;
    ScoreBounds& rule = ruleBounds[findings[k].rule];
    rule.low += bounds[k].low;
    rule.high += bounds[k].high;
    rule.estimated += bounds[k].estimated;
  }
  for (size_t k = 0; k < findings.size(); ++k)
    findings[k].priority = findings[k].appliedBy.empty()
                               ? prioritise(findings[k], assessments[k], measurable[k], bounds[k],
                                            ruleBounds[findings[k].rule], ctx.measured, policy)
                               : applied(assessments[k]);

  const std::vector<size_t> rank = rankFindings(findings, assessments, estimatedMs, position, policy.drift);
  for (size_t pos = 0; pos < rank.size(); ++pos) {
    r.findings.push_back(std::move(findings[rank[pos]]));
    r.assessments.push_back(assessments[rank[pos]]);
    Assessment& a = r.assessments.back();
    a.rank = static_cast<int>(pos) + 1;
    const Finding& f = r.findings.back();
    if (static_cast<int>(r.bottlenecks.size()) < options.topN && f.appliedBy.empty() && measurable[rank[pos]] &&
        f.speedupGlobal >= options.policy.minShare) {
      a.bottleneck = true;
      r.bottlenecks.push_back(f.id);
    }
  }

  fillNodes(*state, optimumPerNode, r);
  if (deployed) {  // where the headline's time goes, node by node (the heatmap's first view)
    for (size_t i = 0; i < r.nodes.size() && i < times.attributed.size(); ++i) r.nodes[i].deployedMs = times.attributed[i];
    r.deployedNodeSumMs = nodeSum;
  }
  reconcileWithHeadline(ctx, times, deployed, r);
  if (const GeFusion& ge = state->geFusion(); ge.ran) r.compiled = compiledGraph(*state);
  summarizeFindings(r);

  if (!ctx.measured) r.notes.push_back("estimated_only");
  if (device.kind == DeviceProfile::Kind::Cpu && !r.deviceCalibrated) r.notes.push_back("uncalibrated_host");
  if (budget.scale < 0.999) r.notes.push_back("node_sum_scaled");
  if (r.optimum.unknownNodes > 0) r.notes.push_back("unknown_cost");
  if (r.optimumAboveLatency) r.notes.push_back("optimum_above_latency");
  if (r.appliedByRuntime > 0) r.notes.push_back("applied_by_runtime");
  // On this host's calibrated CPU, a memory-bound node whose data fits in a cache smaller than the
  // calibration's working set ran from that cache: faster than the bandwidth, the figures right.
  if (device.kind == DeviceProfile::Kind::Cpu && r.deviceCalibrated && ctx.measured)
    r.cacheBytes = cacheBelow(calibrationWorkingSetBytes());
  for (const NodeReport& n : r.nodes) {
    if (!(n.efficiency > 1.2 && n.share >= 0.001)) continue;
    if (n.bound == "memory" && n.bytes <= r.cacheBytes) ++r.fasterFromCache;
    else ++r.fasterThanRoofline;
  }
  if (r.fasterThanRoofline > 0) r.notes.push_back("faster_than_roofline");
  if (r.fasterFromCache > 0) r.notes.push_back("ran_from_cache");
  if (r.unoptimizedLatencyMs > 0 && r.runtimeLatencyMs > 0 && r.runtimeLatencyMs < r.unoptimizedLatencyMs)
    r.notes.push_back("runtime_optimizes");
  progress.report("ranking", 1);
  return r;
}

}  // namespace msa
