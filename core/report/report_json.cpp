#include "report/report_json.h"

#include <cmath>

#include "advisor/profile_only.h"
#include "report/report_format.h"

namespace msa {
namespace {

using json = nlohmann::json;

// JSON has no infinity: an unbounded or missing figure is null.
json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json orNull(double v, bool present) { return present && std::isfinite(v) ? json(v) : json(nullptr); }

json profileJson(const ProfileData& p) {
  return {{"device", p.device},
          {"runtime", p.runtime},
          {"source", p.source},
          {"optimization", p.optimization},
          {"iterations", p.iterations},
          {"threads", p.threads},
          {"latency_ms", {{"median", p.latencyMs.median}, {"p10", p.latencyMs.p10}, {"p90", p.latencyMs.p90}}},
          {"sum_node_median_ms", p.sumNodeMedians()},
          {"nodes", p.nodes.size()},
          {"unmatched", p.unmatched.size()},
          {"importer", p.importer},
          {"tasks", p.tasks},
          {"ranks", p.ranks},
          {"chip", p.chipBasis},
          {"metric_sets", p.metricSets},
          {"warnings", p.warnings}};
}

json compiledJson(const CompiledGraph& c) {
  json passes = json::array();
  for (const auto& p : c.passes)
    passes.push_back({{"name", p.name},
                      {"kind", p.kind},
                      {"simulated", p.simulated},
                      {"not_fired", p.notFired},
                      {"match_times", p.matchTimes >= 0 ? json(p.matchTimes) : json(nullptr)},
                      {"effect_times", p.effectTimes >= 0 ? json(p.effectTimes) : json(nullptr)},
                      {"modelled", p.modelled}});
  return {{"compiler", c.compiler},
          {"source", c.source},
          {"fusion_result", c.fusionResultPath.empty() ? json(nullptr) : json(c.fusionResultPath)},
          {"launches_written", c.launchesWritten},
          {"launches", c.launchesCompiled},
          {"fused_kernels", c.fusedKernels},
          {"near_misses", c.nearMisses},
          {"written_ms", c.writtenMs},
          {"compiled_ms", c.compiledMs},
          {"passes", passes}};
}

json findingJson(const Finding& f, const Assessment& a, const ReportOptions& o) {
  const FindingText t = renderFinding(f, o.lang);
  json blockers = json::array();
  for (const auto& b : f.blockers) blockers.push_back({{"key", b}, {"text", renderBlocker(b, o.lang)}});
  json params = json::object();
  for (const auto& [k, v] : f.params) params[k] = renderValue(v, o.lang);  // phrases in the report's language
  json j = {
      {"id", f.id},
      {"rule", f.rule},
      {"category", categoryName(f.category)},
      {"priority", priorityName(f.priority)},
      {"impact_ms", f.impact.ms},
      {"speedup_local", num(f.speedupLocal)},
      {"speedup_global", f.speedupGlobal},
      {"nodes", f.nodes},
      {"runtime_nodes", f.runtimeNodes},
      {"legal", f.legal},
      {"blockers", blockers},
      {"fix", f.hasFix() ? json(f.fixPass) : json(nullptr)},
      {"fix_pass", f.fixPass.empty() ? json(nullptr) : json(f.fixPass)},
      {"safe_fix", f.hasFix() && f.safeFix},
      {"applied_by", f.appliedBy.empty() ? json(nullptr) : json(f.appliedBy)},
      {"not_applied_by", f.notAppliedBy.empty() ? json(nullptr) : json(f.notAppliedBy)},
      {"applied_label", report::appliedLabel(f, o.lang)},
      {"fix_done_by", f.fixDoneBy.empty() ? json(nullptr) : json(f.fixDoneBy)},
      {"title", t.title},
      {"suggestion", t.suggestion},
      {"hazard", t.hazard},
      {"mitigation", t.mitigation},
      {"help", t.help},
      {"impact",
       {{"ms", f.impact.ms},
        {"raw_ms", f.impact.rawMs},
        {"current_ms", f.impact.currentMs},
        {"fixed_ms", f.impact.fixedMs},
        {"overlap_ms", a.overlapMs},
        {"p10_ms", a.impactP10Ms},
        {"p90_ms", a.impactP90Ms},
        {"source", impactSourceName(f.impact.source)},
        {"method", renderValue(f.impact.method, o.lang)}}},
      {"rank", a.rank},
      {"bottleneck", a.bottleneck},
      {"score", a.score},
      {"score_low", a.scoreLow},
      {"score_high", a.scoreHigh},
      {"score_median_low", a.scoreMedianLow},
      {"score_median_high", a.scoreMedianHigh},
      {"weight", a.weight},
      {"confidence", a.confidence},
      {"priority_reason", a.priorityReason},
      {"priority_borderline", a.priorityBorderline},
      {"frees",
       {{"overhead", a.overheadFraction},
        {"memory", a.memoryFraction},
        {"compute", a.computeFraction},
        {"launches", a.launchesSaved}}},
      {"params", params},
  };
  // Where its saving was drawn from (advisor/ranking.h), for findings that name their budgets.
  if (!f.budgets.empty()) j["budgets"] = f.budgets;
  // The same problem elsewhere, which takes no TOP-N slot of its own (Assessment::alike).
  if (!a.alike.empty()) {
    j["alike"] = a.alike;
    j["alike_ms"] = a.alikeMs;
  }
  return j;
}

}  // namespace

nlohmann::json rankStepJson(const training::RankStep& k) {
  return {{"rank", k.rank},
          {"path", k.path},
          {"step_ms", k.stepMs},
          {"busy_ms", k.busyMs},
          {"compute_ms", k.computeMs},
          {"idle_ms", k.idleMs},
          {"data_loading_ms", k.dataLoadingMs},
          {"collective_exposed_ms", k.collectiveExposedMs},
          {"p2p_exposed_ms", k.p2pExposedMs},
          {"step_record", k.stepRecord},
          {"not_overlapped_ms", k.notOverlappedMs},
          {"overlapped_ms", k.overlappedMs},
          {"stage", k.stage >= 0 ? json(k.stage) : json(nullptr)}};
}

nlohmann::json jobJson(const training::ClusterView& c) {
  json ranks = json::array(), links = json::array(), stages = json::array();
  for (const training::RankStep& k : c.ranks) ranks.push_back(rankStepJson(k));
  for (const training::StageCompute& s : c.stages) stages.push_back({{"stage", s.stage}, {"compute_ms", s.computeMs}, {"ranks", s.ranks}});
  for (const training::LinkTraffic& l : c.links)
    links.push_back({{"link", l.link}, {"transport", l.transport}, {"mb_per_step", l.megabytes}, {"ms_per_step", l.ms}, {"gbps", l.gbps()}});
  return {{"ranks", ranks},
          {"slow_rank", c.ranks.empty() ? json(nullptr) : json(c.ranks[static_cast<size_t>(c.slowRank)].rank)},
          {"slow_cause", c.slowCause},
          {"median_compute_ms", c.medianComputeMs},
          {"median_idle_ms", c.medianIdleMs},
          {"stages", stages},
          {"links", links}};
}

nlohmann::json reportToJson(const Report& r, const ReportOptions& o) {
  json j;
  j["schema_version"] = Report::kSchemaVersion;
  j["generator"] = o.generator;
  j["lang"] = o.lang == Lang::Zh ? "zh" : "en";
  j["model"] = r.model;
  if (!r.profilePath.empty()) j["profile_path"] = r.profilePath;
  j["device"] = r.device;
  j["device_name"] = r.deviceName;
  j["device_calibrated"] = r.deviceCalibrated;
  j["device_roofs"] = json::array();
  for (const auto& roof : r.roofs) j["device_roofs"].push_back({{"label", roof.label}, {"flops_per_second", roof.flopsPerSecond}});
  j["memory_bandwidth_bytes_per_second"] = r.bandwidthBytesPerSecond;
  j["launch_overhead_ms"] = r.launchOverheadMs;
  j["inputs"] = json::array();
  for (const auto& [name, shape] : r.inputs) j["inputs"].push_back({{"name", name}, {"shape", shape}});
  j["nodes_total"] = r.nodeCount;
  j["goal"] = goalName(r.goal);
  j["scenario"] = scenarioName(r.scenario);

  j["headline"] = report::headlineText(r, o.lang);
  j["latency_ms"] = r.latencyMs;  // the deployed run when there is one (latency_run)
  j["latency_source"] = r.latencySource;
  j["latency_run"] = r.latencyRun;
  j["latency_p10_ms"] = r.latencyP10Ms;
  j["latency_p90_ms"] = r.latencyP90Ms;
  j["latency_samples"] = r.latencySamples;
  // How the headline was timed (DESIGN.md: threads, contended, cpu_share, load); null when nothing was measured here.
  j["measurement"] = nullptr;
  if (const Measurement* m = report::headlineMeasurement(r)) j["measurement"] = toJson(*m);
  j["deployed_by"] = r.deployedBy.empty() ? json(nullptr) : json(r.deployedBy);
  j["unoptimized_latency_ms"] = orNull(r.unoptimizedLatencyMs, r.unoptimizedLatencyMs > 0);
  j["unoptimized_latency_p10_ms"] = orNull(r.unoptimizedP10Ms, r.unoptimizedLatencyMs > 0);
  j["unoptimized_latency_p90_ms"] = orNull(r.unoptimizedP90Ms, r.unoptimizedLatencyMs > 0);
  j["estimated_latency_ms"] = r.estimatedLatencyMs;
  j["measured_node_sum_ms"] = orNull(r.measuredNodeSumMs, r.profile.has_value());
  j["deployed_node_sum_ms"] = orNull(r.deployedNodeSumMs, r.deployedNodeSumMs > 0);
  j["between_operators_ms"] = orNull(r.betweenOperatorsMs, r.latencySource == "measured");
  j["runtime_latency_ms"] = orNull(r.runtimeLatencyMs, r.runtimeLatencyMs > 0);
  j["optimum_ms"] = r.optimumMs;
  j["optimum"] = {{"ms", r.optimum.ms},
                  {"compute_ms", r.optimum.computeMs},
                  {"memory_ms", r.optimum.memoryMs},
                  {"absorbed_bytes", r.optimum.absorbedBytes},
                  {"kernels", r.optimum.groups},
                  {"absorbed_nodes", r.optimum.absorbedNodes},
                  {"free_nodes", r.optimum.freeNodes},
                  {"unknown_nodes", r.optimum.unknownNodes},
                  {"known_time_share", r.optimum.knownTimeShare},
                  {"definition", uiText("report.definition_optimum", o.lang)}};
  j["gap_ratio"] = r.gapRatio;
  j["percent_of_optimum"] = r.percentOfOptimum;
  j["estimated_optimized_ms"] = r.estimatedOptimizedMs;
  j["safe_fix_saving_ms"] = r.safeFixSavingMs;
  j["total_impact_ms"] = r.totalImpactMs;
  j["optimum_above_latency"] = r.optimumAboveLatency;
  j["recalibrated"] = r.recalibrated;
  j["rates_from_run"] = nlohmann::json::array();
  for (const RateFromRun& x : r.ratesFromRun)
    j["rates_from_run"].push_back({{"type", std::string(dtypeName(x.type))},
                                   {"gflops", x.flopsPerSecond / 1e9},
                                   {"figure_gflops", x.peakFlopsPerSecond / 1e9},
                                   {"kernel", x.kernel},
                                   {"node", x.node},
                                   {"op_type", x.opType}});
  j["applied_by_runtime"] = r.appliedByRuntime;
  j["findings_left_above_p2"] = report::findingsLeftAboveP2(r);

  const ResourceWeights w = resourceWeights(r.goal, r.scenario);
  j["weights"] = {{"overhead", w.overhead}, {"memory", w.memory}, {"compute", w.compute}};

  j["findings"] = json::array();
  for (size_t k = 0; k < r.findings.size(); ++k)
    j["findings"].push_back(findingJson(r.findings[k], k < r.assessments.size() ? r.assessments[k] : Assessment{}, o));
  j["bottlenecks"] = r.bottlenecks;

  j["categories"] = json::array();
  for (const CategorySummary& c : r.categories)
    j["categories"].push_back({{"category", categoryName(c.category)},
                               {"label", report::categoryLabel(c.category, o.lang)},
                               {"findings", c.findings},
                               {"legal", c.legal},
                               {"with_fix", c.withFix},
                               {"p0", c.byPriority[0]},
                               {"p1", c.byPriority[1]},
                               {"p2", c.byPriority[2]},
                               {"impact_ms", c.impactMs},
                               {"share", c.share},
                               {"top", c.top}});

  j["rules"] = json::array();
  for (const RuleSummary& s : r.rules)
    j["rules"].push_back({{"rule", s.rule},
                          {"category", categoryName(s.category)},
                          {"findings", s.findings},
                          {"impact_ms", s.impactMs},
                          {"share", s.share},
                          {"best_priority", priorityName(s.best)},
                          {"top", s.top}});

  j["nodes"] = json::array();
  for (const NodeReport& n : r.nodes)
    j["nodes"].push_back({{"name", n.name},
                          {"op_type", n.opType},
                          {"estimated_ms", n.estimatedMs},
                          {"measured_ms", orNull(n.measuredMs, n.measuredMs >= 0)},
                          {"deployed_ms", orNull(n.deployedMs, n.deployedMs >= 0)},
                          {"optimum_ms", n.optimumMs},
                          {"flops", n.flops},
                          {"bytes", n.bytes},
                          {"intensity", n.intensity},
                          {"efficiency", orNull(n.efficiency, n.efficiency >= 0)},
                          {"bound", n.bound},
                          {"share", n.share},
                          {"findings", n.findings}});
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    if (!r.nodes[k].kernel.empty()) j["nodes"][k]["kernel"] = r.nodes[k].kernel;
    if (r.nodes[k].predictedMs > 0) j["nodes"][k]["predicted_ms"] = r.nodes[k].predictedMs;
  }
  if (r.compiled) j["compiled_graph"] = compiledJson(*r.compiled);
  j["time_by_op_type"] = json::array();
  for (const OpTypeTime& t : r.timeByOpType)
    j["time_by_op_type"].push_back({{"op_type", t.opType}, {"count", t.count}, {"ms", t.ms}, {"share", t.share}});

  j["profile"] = r.profile ? profileJson(*r.profile) : json(nullptr);
  j["runtime_profile"] = r.runtimeProfile ? profileJson(*r.runtimeProfile) : json(nullptr);
  if (r.profileOnly && r.profile) j["profile_only"] = profileOnlyJson(*r.profileOnly, *r.profile);
  if (r.job) j["job"] = jobJson(*r.job);
  if (r.step) j["step"] = rankStepJson(*r.step);
  j["notes"] = json::array();
  for (const auto& key : r.notes) j["notes"].push_back({{"key", key}, {"text", report::noteText(r, key, o.lang)}});
  return j;
}

}  // namespace msa
