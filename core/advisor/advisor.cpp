// ModelAdvisor: rules -> overlap accounting -> weighted ranking, priorities, TOP-N -> optimum and
// tables. The policy is documented in docs/advisor.md; keep the two in step.
#include "advisor/advisor.h"

#include <algorithm>
#include <cmath>

#include "advisor/analysis_state.h"
#include "advisor/optimum.h"
#include "advisor/rates_from_run.h"
#include "cost/device_profile.h"
#include "profile/host_calibration.h"
#include "rules/family_registry.h"
#include "util/embedded.h"

namespace msa {

namespace {

// A finding's nodes as indices, each once, the first named first (its place in the graph). Sorted
// rather than searched: a whole-graph finding names tens of thousands of nodes.
std::vector<size_t> resolve(const GraphIndex& index, const Finding& f) {
  std::vector<size_t> out;
  out.reserve(f.nodes.size());
  for (const auto& name : f.nodes)
    if (const long i = index.indexOfName(name); i >= 0) out.push_back(static_cast<size_t>(i));
  if (out.size() < 2) return out;
  const size_t first = out.front();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  std::iter_swap(out.begin(), std::lower_bound(out.begin(), out.end(), first));
  return out;
}

// What a finding's saving frees: launches (ops removed), then memory vs compute in the
// proportion of its nodes' roofline terms.
void decompose(const AnalysisContext& ctx, const RooflineEstimate& est, const Finding& f,
               const std::vector<size_t>& members, RankingFacts& a) {
  a.decomposed = true;
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

// The same pattern in identical places (a rule firing on the same op types with the same FLOPs
// and bytes, as in the repeated layers of a transformer) costs the same: each instance is a
// measurement of one thing, pooled by the ranking (RankingFacts::poolKey). Empty: not pooled.
std::string poolKey(const Finding& f, const GraphIndex& index, const RooflineEstimate& est) {
  if (!f.appliedBy.empty() || f.nodes.empty()) return {};
  std::string key = f.rule + (f.legal ? "|legal" : "|illegal");
  for (const auto& name : f.nodes) {
    const long i = index.indexOfName(name);
    if (i < 0 || static_cast<size_t>(i) >= est.nodes.size()) return {};
    const NodeEstimate& e = est.nodes[static_cast<size_t>(i)];
    key += "|" + index.graph().nodes[static_cast<size_t>(i)].opType + ":" + std::to_string(std::llround(e.flops)) + ":" +
           std::to_string(std::llround(e.bytes));
  }
  return key;
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

// Stages of analyze(), in order.

// Which model on which device, for which goal.
void describeModel(Report& r, const Model& model, const Graph& g, const DeviceProfile& device, const AnalyzeOptions& options) {
  r.model = model.path.string();
  const DType precision = device.computeType(DType::Float);
  describeDevice(r, device, std::span<const DType>(&precision, 1));
  r.goal = options.goal;
  r.scenario = options.scenario;
  r.nodeCount = g.nodes.size();
  for (const ValueInfo& in : g.inputs)
    if (!g.findInitializer(in.name)) r.inputs[in.name] = in.type.shape ? in.type.shape->str() : "?";
}

// The headline is the run the runtime deploys: with its own graph optimizations on when that run
// was measured next to the unoptimized one (ORT `all` beside `disabled`).
void headline(Report& r, const AnalysisState& state, const ProfileData* deployed, const AnalysisInputs& inputs) {
  const AnalysisContext& ctx = state.context();
  r.latencySource = ctx.measured ? "measured" : "estimated";
  r.estimatedLatencyMs = state.roofline().seconds * 1e3;
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
}

// The theoretical optimum and the gap to it. A measured run faster than its optimum: the device
// figures do not describe this run (cache effects: the working set stays on chip). Stated as such,
// never as a gap below 1.
void optimumAndGap(Report& r, const AnalysisState& state, std::vector<double>& optimumPerNode) {
  r.optimum = computeOptimum(state, &optimumPerNode);
  r.optimumMs = r.optimum.ms;
  const double knownLatencyMs = r.latencyMs * r.optimum.knownTimeShare;
  r.optimumAboveLatency = state.context().measured && r.optimumMs > 0 && r.optimumMs > knownLatencyMs;
  if (r.optimumMs > 0 && r.optimum.knownTimeShare >= 0.5 && !r.optimumAboveLatency) {
    r.gapRatio = knownLatencyMs / r.optimumMs;
    r.percentOfOptimum = 100.0 * r.optimumMs / knownLatencyMs;
  }
}

// The ranking draws each finding's saving from per-node budgets in the headline's run, scaled so
// the node times add up to at most its end-to-end latency (a profiled run's node sum includes the
// profiler's own overhead); all findings together give at most latency − optimum.
RankingInputs graphBudgets(const Report& r, const Graph& g, const NodeTimes& times, bool measured,
                           const AnalyzeOptions& options, double& nodeSum) {
  RankingInputs in;
  nodeSum = times.runtimeOnlyMs;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    nodeSum += times.median[i];
    in.budgetMs[nodeBudget(g.nodes[i].name)] += times.median[i];
  }
  for (const auto& [name, ms] : times.runtimeOnly) in.budgetMs[runtimeBudget(name)] += ms;
  in.budgetScale = nodeSum > r.latencyMs && nodeSum > 0 ? r.latencyMs / nodeSum : 1.0;
  const bool optimumBounds = r.optimumMs > 0 && !r.optimumAboveLatency && r.optimumMs < r.latencyMs;
  in.latencyMs = r.latencyMs;
  in.limitMs = optimumBounds ? r.latencyMs - r.optimumMs : r.latencyMs;
  in.runMeasured = measured;
  in.drift = measured ? options.policy.drift : 0.0;  // an estimate does not drift between analyses
  in.weights = resourceWeights(options.goal, options.scenario);
  in.topN = options.topN;
  in.policy = options.policy;
  return in;
}

// What the ranking needs to know of each graph finding: what its saving frees, its saving on the
// cost model, its place in the graph, the spread of the time it is drawn from, its pattern.
std::vector<RankingFacts> graphFacts(const std::vector<Finding>& findings, const AnalysisState& state, const NodeTimes& times,
                                     const Report& r) {
  const AnalysisContext& ctx = state.context();
  std::vector<RankingFacts> facts(findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    const Finding& f = findings[k];
    RankingFacts& x = facts[k];
    const std::vector<size_t> members = resolve(*ctx.index, f);
    decompose(ctx, state.roofline(), f, members, x);
    // The saving on the cost model's time for the finding's nodes: the part of it the fix saves,
    // as the rule found it (one launch out of a long sequence of small ops saves a sliver of
    // their time; a fusion most of an epilogue's). What the runtime applies stays in graph order.
    double estimatedMs = 0;
    for (size_t m : members)
      if (m < state.roofline().nodes.size() && f.appliedBy.empty()) estimatedMs += state.roofline().nodes[m].seconds * 1e3;
    if (f.impact.currentMs > 0) estimatedMs *= std::clamp(f.impact.rawMs / f.impact.currentMs, 0.0, 1.0);
    x.costModelMs = estimatedMs;
    if (!members.empty()) x.position = static_cast<long>(members.front());
    const auto [lo, hi, runs] = spreadOf(times, *ctx.index, f, r);
    x.spreadLow = lo;
    x.spreadHigh = hi;
    x.samples = runs;
    x.poolKey = poolKey(f, *ctx.index, state.roofline());
  }
  return facts;
}

// Caveats the report states about its own figures.
void notes(Report& r, const AnalysisContext& ctx, const DeviceProfile& device, double budgetScale) {
  if (!ctx.measured) r.notes.push_back("estimated_only");
  if (device.kind == DeviceProfile::Kind::Cpu && !r.deviceCalibrated) r.notes.push_back("uncalibrated_host");
  if (budgetScale < 0.999) r.notes.push_back("node_sum_scaled");
  if (r.optimum.unknownNodes > 0) r.notes.push_back("unknown_cost");
  if (!r.ratesFromRun.empty()) r.notes.push_back("rate_from_run");
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
}

}  // namespace

Result<Report> analyze(const Model& model, const DeviceProfile& device, const AnalysisInputs& inputs,
                       const AnalyzeOptions& options, const Progress& progress) {
  progress.report("analysis", 0);
  auto state = AnalysisState::borrow(model, device, inputs, options.goal, options.scenario);
  // A host's figures below what its own measured run reached are raised to it first: the
  // optimum they price must bound the run (advisor/rates_from_run.h).
  std::vector<RateFromRun> raised;
  if (device.kind == DeviceProfile::Kind::Cpu && state->context().measured) {
    raised = ratesAbovePeaks(state->context(), state->roofline(), {inputs.profile, inputs.runtimeProfile});
    if (!raised.empty())
      state = AnalysisState::borrow(model, withRatesFromRun(device, raised), inputs, options.goal, options.scenario);
  }
  state->setProgress(&progress);
  const AnalysisContext& ctx = state->context();
  const ProfileData* deployed = deployedRun(ctx);
  Report r;
  describeModel(r, model, *ctx.graph, state->device(), options);
  r.ratesFromRun = std::move(raised);
  headline(r, *state, deployed, inputs);

  std::vector<Finding> findings = runRules(ctx, options.families);
  if (progress.cancelled()) return Error::cancelled();
  if (auto s = embedded::tableStatus(); !s) return s.error();  // a rule ran without its table
  progress.report("ranking", 0.9);
  // What the runtime already does at load is not left to gain (Finding::appliedBy).
  if (deployed && r.deployedBy == "onnxruntime") markAppliedByRuntime(findings, *deployed, *ctx.index);

  std::vector<double> optimumPerNode;
  optimumAndGap(r, *state, optimumPerNode);
  const NodeTimes times = nodeTimes(ctx, deployed);
  double nodeSum = 0;
  const RankingInputs in = graphBudgets(r, *ctx.graph, times, ctx.measured, options, nodeSum);
  std::vector<RankingFacts> facts = graphFacts(findings, *state, times, r);
  applyRanking(r, rank(std::move(findings), std::move(facts), in));
  r.estimatedOptimizedMs = std::max(0.0, r.latencyMs - r.safeFixSavingMs);

  fillNodes(*state, optimumPerNode, r);
  if (deployed) {  // where the headline's time goes, node by node (the heatmap's first view)
    for (size_t i = 0; i < r.nodes.size() && i < times.attributed.size(); ++i) r.nodes[i].deployedMs = times.attributed[i];
    r.deployedNodeSumMs = nodeSum;
  }
  reconcileWithHeadline(ctx, times, deployed, r);
  if (const GeFusion& ge = state->geFusion(); ge.ran) r.compiled = compiledGraph(*state);
  notes(r, ctx, state->device(), in.budgetScale);
  progress.report("ranking", 1);
  return r;
}

}  // namespace msa
