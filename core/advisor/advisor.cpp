// ModelAdvisor: rules -> overlap accounting -> weighted ranking, priorities, TOP-N -> optimum and
// tables. The policy is documented in docs/advisor.md; keep the two in step.
#include "advisor/advisor.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "advisor/analysis_state.h"
#include "advisor/optimum.h"
#include "cost/device_profile.h"
#include "rules/family_registry.h"

namespace msa {

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

Priority prioritise(const Finding& f, Assessment& a, double share, double ruleScore, bool runMeasured, const PriorityPolicy& p) {
  if (share < p.minShare) {
    a.priorityReason = "zero_impact";
    return Priority::P2;
  }
  if (!f.legal) {
    a.priorityReason = "illegal";
    return Priority::P2;
  }
  const bool byRule = a.score >= p.p1Score && ruleScore >= p.p0RuleScore;
  if (a.score >= p.p0Score || byRule) {
    if (runMeasured && f.impact.source == ImpactSource::Estimated) {
      a.priorityReason = "estimated_cap";
      return Priority::P1;
    }
    a.priorityReason = a.score >= p.p0Score ? "share" : "rule_share";
    return Priority::P0;
  }
  a.priorityReason = a.score >= p.p1Score ? "share" : "below_threshold";
  return a.score >= p.p1Score ? Priority::P1 : Priority::P2;
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
  r.latencyMs = ctx.latencyMs;
  r.latencySource = ctx.measured ? "measured" : "estimated";
  r.estimatedLatencyMs = state->roofline().seconds * 1e3;
  if (ctx.profile) r.measuredNodeSumMs = ctx.profile->sumNodeMedians();
  if (ctx.runtimeProfile && ctx.runtimeProfile != ctx.profile)
    r.runtimeLatencyMs = ctx.runtimeProfile->latencyMs.median > 0 ? ctx.runtimeProfile->latencyMs.median
                                                                  : ctx.runtimeProfile->sumNodeMedians();
  if (inputs.profile) r.profile = *inputs.profile;
  if (inputs.runtimeProfile) r.runtimeProfile = *inputs.runtimeProfile;

  std::vector<Finding> findings = runRules(ctx, options.families);
  if (progress.cancelled()) return Error::cancelled();
  progress.report("ranking", 0.9);

  // Overlap accounting over per-node budgets, scaled so the node times add up to at most the
  // end-to-end latency (a profiled run's node sum includes the profiler's own overhead).
  OverlapBudget budget;
  budget.nodeMs.resize(g.nodes.size());
  double nodeSum = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) nodeSum += budget.nodeMs[i] = ctx.timeMs(i);
  budget.scale = nodeSum > r.latencyMs && nodeSum > 0 ? r.latencyMs / nodeSum : 1.0;
  budget.latencyMs = r.latencyMs;
  if (ctx.runtimeProfile)
    for (const NodeProfile& n : ctx.runtimeProfile->nodes)
      if (n.inserted && n.parent.empty()) budget.runtimeMs[n.name] += n.timeMs.median;
  const auto allOrder = claimOrder(findings, [](const Finding&) { return true; });
  const auto impacts = accountOverlaps(findings, allOrder, *ctx.index, budget);
  const auto safeOrder = claimOrder(findings, [](const Finding& f) { return f.hasFix() && f.safeFix; });
  const auto safeImpacts = accountOverlaps(findings, safeOrder, *ctx.index, budget);
  r.safeFixSavingMs = std::accumulate(safeImpacts.begin(), safeImpacts.end(), 0.0);
  r.estimatedOptimizedMs = std::max(0.0, r.latencyMs - r.safeFixSavingMs);

  const ResourceWeights w = resourceWeights(options.goal, options.scenario);
  std::vector<Assessment> assessments(findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    Finding& f = findings[k];
    Assessment& a = assessments[k];
    f.impact.ms = impacts[k];
    a.overlapMs = std::max(0.0, f.impact.rawMs * budget.scale - f.impact.ms);
    f.speedupLocal = f.impact.fixedMs > 0 ? f.impact.currentMs / f.impact.fixedMs
                     : f.impact.currentMs > 0 ? kRemoved : 1.0;
    f.speedupGlobal = r.latencyMs > 0 ? f.impact.ms / r.latencyMs : 0.0;
    r.totalImpactMs += f.impact.ms;
    decompose(ctx, state->roofline(), f, resolve(*ctx.index, f), a);
    a.weight = f.impact.rawMs > 0 ? w.overhead * a.overheadFraction + w.memory * a.memoryFraction + w.compute * a.computeFraction
                                  : 1.0;
    a.confidence = 1.0;
    if (ctx.measured && f.impact.source == ImpactSource::Estimated) a.confidence *= options.policy.estimatedConfidence;
    if (!f.legal) a.confidence *= options.policy.illegalConfidence;
    a.score = f.speedupGlobal * a.weight * a.confidence;
  }
  std::map<std::string, double> ruleScore;
  for (size_t k = 0; k < findings.size(); ++k)
    if (findings[k].legal) ruleScore[findings[k].rule] += assessments[k].score;
  for (size_t k = 0; k < findings.size(); ++k)
    findings[k].priority = prioritise(findings[k], assessments[k], findings[k].speedupGlobal, ruleScore[findings[k].rule],
                                      ctx.measured, options.policy);

  std::vector<size_t> rank(findings.size());
  std::iota(rank.begin(), rank.end(), size_t(0));
  std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) {
    if (assessments[a].score != assessments[b].score) return assessments[a].score > assessments[b].score;
    if (findings[a].impact.ms != findings[b].impact.ms) return findings[a].impact.ms > findings[b].impact.ms;
    return findings[a].id < findings[b].id;
  });
  for (size_t pos = 0; pos < rank.size(); ++pos) {
    r.findings.push_back(std::move(findings[rank[pos]]));
    r.assessments.push_back(assessments[rank[pos]]);
    Assessment& a = r.assessments.back();
    a.rank = static_cast<int>(pos) + 1;
    const Finding& f = r.findings.back();
    if (static_cast<int>(r.bottlenecks.size()) < options.topN && f.speedupGlobal >= options.policy.minShare) {
      a.bottleneck = true;
      r.bottlenecks.push_back(f.id);
    }
  }

  std::vector<double> optimumPerNode;
  r.optimum = computeOptimum(*state, &optimumPerNode);
  r.optimumMs = r.optimum.ms;
  const double knownLatencyMs = r.latencyMs * r.optimum.knownTimeShare;
  if (r.optimumMs > 0 && r.optimum.knownTimeShare >= 0.5) {
    r.gapRatio = knownLatencyMs / r.optimumMs;
    r.percentOfOptimum = 100.0 * r.optimumMs / knownLatencyMs;
  }
  fillNodes(*state, optimumPerNode, r);
  if (const GeFusion& ge = state->geFusion(); ge.ran) r.compiled = compiledGraph(*state);
  summarizeFindings(r);

  if (!ctx.measured) r.notes.push_back("estimated_only");
  if (device.kind == DeviceProfile::Kind::Cpu && !r.deviceCalibrated) r.notes.push_back("uncalibrated_host");
  if (budget.scale < 0.999) r.notes.push_back("node_sum_scaled");
  if (r.optimum.unknownNodes > 0) r.notes.push_back("unknown_cost");
  if (r.gapRatio > 0 && r.gapRatio < 1) r.notes.push_back("gap_below_one");
  for (const NodeReport& n : r.nodes) r.fasterThanRoofline += n.efficiency > 1.2 && n.share >= 0.001;
  if (r.fasterThanRoofline > 0) r.notes.push_back("faster_than_roofline");
  if (r.runtimeLatencyMs > 0 && r.runtimeLatencyMs < r.latencyMs) r.notes.push_back("runtime_optimizes");
  progress.report("ranking", 1);
  return r;
}

}  // namespace msa
