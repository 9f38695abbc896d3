#include "training/training_report.h"

#include <cmath>

namespace msa::training {

namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json signaturesJson(const std::vector<Signature>& v) {
  json a = json::array();
  for (const Signature& s : v) a.push_back({{"dims", s.dims}, {"types", s.types}, {"calls", s.calls}, {"ms", s.ms}});
  return a;
}

json opJson(const OpTime& o) {
  return {{"name", o.name},     {"calls_per_step", o.calls}, {"self_ms", o.selfMs}, {"total_ms", o.totalMs},
          {"device_ms", o.deviceMs}, {"share", o.share},     {"signatures", signaturesJson(o.signatures)}};
}

json stepJson(const StepBreakdown& b) {
  return {{"step", b.number},           {"ms", b.ms},
          {"busy_ms", b.busyMs},        {"memory_ms", b.memoryMs},
          {"data_loading_ms", b.dataLoadingMs}, {"idle_ms", b.idleMs},
          {"forward_ms", b.forwardMs},  {"backward_ms", b.backwardMs},
          {"optimizer_ms", b.optimizerMs}, {"items", b.items},
          {"short_items", b.shortItems}, {"short_ms", b.shortMs},
          {"short_gap_ms", b.shortGapMs}};
}

std::string deviceName(const std::string& d, Lang lang) {
  const bool zh = lang == Lang::Zh;
  if (d == "npu") return zh ? "昇腾 NPU（torch_npu 采集）" : "Ascend NPU (torch_npu profiler)";
  if (d == "cuda") return zh ? "CUDA GPU（Kineto 采集）" : "CUDA GPU (Kineto)";
  return zh ? "CPU（仅主机侧算子）" : "CPU (host operators only)";
}

}  // namespace

std::string trainingNoteText(std::string_view key, Lang lang) {
  const bool zh = lang == Lang::Zh;
  if (key == "optimum_unknown")
    return zh ? "训练 trace 不含算子的 FLOPs 与访存量，无法给出理论最优值：optimum_ms 为 null。"
              : "A training trace carries no FLOPs or bytes per operator: the theoretical optimum is unknowable, optimum_ms is null.";
  if (key == "no_steps")
    return zh ? "trace 中没有 ProfilerStep#N 区间，也没有 Step Id：整个 trace 视为一个 step。请使用 torch.profiler 的 schedule 并在每个 step 末尾调用 prof.step()。"
              : "No ProfilerStep#N ranges and no Step Id: the whole trace counts as one step. Profile with a torch.profiler schedule and call prof.step() at the end of each step.";
  if (key == "no_shapes")
    return zh ? "算子没有输入形状与数据类型（record_shapes 未开启，或旧版导出格式不写入）：混合精度与动态形状规则无法判断。"
              : "Operators carry no input shapes or dtypes (record_shapes off, or an exporter that drops them): the AMP and dynamic-shape rules cannot decide.";
  if (key == "host_timeline")
    return zh ? "trace 中没有设备侧事件：忙碌/空闲按主机上的顶层算子计算，其中包含 profiler 自身对每个算子的开销。"
              : "The trace has no device events: busy and idle are measured on the host's top-level operators, which include the profiler's own per-operator overhead.";
  if (key == "single_step")
    return zh ? "只有一个 step：中位数即该 step，无法看出 step 间的波动。"
              : "Only one step: the median is that step, step-to-step variation is unknown.";
  return std::string(key);
}

TrainingReport buildTrainingReport(const TrainingTrace& trace, const TrainingOptions& options, const Progress& progress) {
  TrainingReport r;
  r.path = trace.path;
  r.format = trace.format;
  r.device = trace.device;
  r.stepSource = trace.stepSource;
  r.files = trace.files;
  r.stepTrace = trace.stepTrace;
  for (const TraceEvent& e : trace.events) ++r.eventCounts[std::string(eventKindName(e.kind))];
  progress.report("analysing steps", 0.6);
  r.profile = analyzeTrace(trace, options.analysis, progress);
  r.latencyMs = r.profile.stepMs;
  progress.report("training rules", 0.8);
  auto findings = runTrainingRules(trace, r.profile, options.rules);
  r.ranking = rankFindings(std::move(findings), trainingBudgets(trace, r.profile), r.latencyMs, options.topN, options.policy);
  r.notes.push_back("optimum_unknown");
  for (const auto& n : trace.notes) r.notes.push_back(n);
  if (r.profile.timeline == "host") r.notes.push_back("host_timeline");
  if (r.profile.steps.size() == 1 && trace.stepSource != "whole_trace") r.notes.push_back("single_step");
  progress.report("training rules", 1);
  return r;
}

Result<TrainingReport> analyzeTraining(const std::filesystem::path& path, const TrainingOptions& options, const Progress& progress) {
  auto trace = loadTrainingTrace(path, progress);
  if (!trace) return trace.error();
  if (progress.cancelled()) return Error::cancelled();
  return buildTrainingReport(*trace, options, progress);
}

json trainingReportToJson(const TrainingReport& r, const TrainingReportFormat& fmt) {
  const TrainingProfile& p = r.profile;
  json j;
  j["schema_version"] = 1;
  j["kind"] = "training";
  j["generator"] = fmt.generator;
  j["lang"] = fmt.lang == Lang::Zh ? "zh" : "en";
  j["model"] = r.path;
  j["device"] = r.device;
  j["device_name"] = deviceName(r.device, fmt.lang);
  j["latency_ms"] = r.latencyMs;
  j["latency_source"] = "measured";
  j["optimum_ms"] = nullptr;  // unknowable from a trace (note "optimum_unknown")
  j["gap_ratio"] = nullptr;
  j["estimated_optimized_ms"] = r.latencyMs;  // no automatic fix applies to a trace
  j["total_impact_ms"] = r.ranking.totalImpactMs;
  j["estimated_after_advice_ms"] = std::max(0.0, r.latencyMs - r.ranking.totalImpactMs);

  j["findings"] = json::array();
  for (size_t k = 0; k < r.ranking.findings.size(); ++k) {
    const Finding& f = r.ranking.findings[k];
    const Assessment& a = r.ranking.assessments[k];
    const FindingText t = renderFinding(f, fmt.lang);
    json params = json::object();
    for (const auto& [key, v] : f.params) params[key] = v;
    j["findings"].push_back({
        {"id", f.id},
        {"rule", f.rule},
        {"category", categoryName(f.category)},
        {"priority", priorityName(f.priority)},
        {"impact_ms", f.impact.ms},
        {"speedup_local", num(f.speedupLocal)},
        {"speedup_global", f.speedupGlobal},
        {"nodes", f.nodes},
        {"legal", f.legal},
        {"fix", nullptr},
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
          {"source", impactSourceName(f.impact.source)},
          {"method", f.impact.method}}},
        {"rank", a.rank},
        {"bottleneck", a.bottleneck},
        {"score", a.score},
        {"confidence", a.confidence},
        {"priority_reason", a.priorityReason},
        {"budgets", r.ranking.budgets[k]},
        {"params", params},
    });
  }
  j["bottlenecks"] = r.ranking.bottlenecks;
  j["notes"] = json::array();
  for (const auto& n : r.notes) j["notes"].push_back({{"key", n}, {"text", trainingNoteText(n, fmt.lang)}});

  json tr;
  tr["format"] = r.format;
  tr["files"] = r.files;
  tr["step_source"] = r.stepSource;
  tr["timeline"] = p.timeline;
  tr["events"] = r.eventCounts;
  tr["step_ms"] = {{"median", p.stepMs}, {"p10", p.stepP10Ms}, {"p90", p.stepP90Ms}, {"min", p.stepMinMs}, {"max", p.stepMaxMs}};
  tr["steps"] = json::array();
  for (const StepBreakdown& b : p.steps) tr["steps"].push_back(stepJson(b));
  const double step = p.stepMs > 0 ? p.stepMs : 1;
  tr["breakdown"] = {{"busy_ms", p.median.busyMs},
                     {"memory_ms", p.median.memoryMs},
                     {"data_loading_ms", p.median.dataLoadingMs},
                     {"idle_ms", p.median.idleMs},
                     {"busy_share", p.median.busyMs / step},
                     {"data_loading_share", p.median.dataLoadingMs / step},
                     {"idle_share", p.median.idleMs / step}};
  tr["phases"] = {{"forward_ms", p.median.forwardMs}, {"backward_ms", p.median.backwardMs}, {"optimizer_ms", p.median.optimizerMs}};
  tr["launch"] = {{"items", p.median.items},
                  {"short_items", p.median.shortItems},
                  {"short_ms", p.median.shortMs},
                  {"short_gap_ms", p.median.shortGapMs},
                  {"gap_ms", p.median.gapMs},
                  {"short_threshold_us", p.thresholds.shortItemUs}};
  tr["ops"] = json::array();
  for (const OpTime& o : p.ops) tr["ops"].push_back(opJson(o));
  tr["hotspots"] = json::array();
  for (size_t i = 0; i < p.ops.size() && static_cast<int>(i) < fmt.topN; ++i) tr["hotspots"].push_back(opJson(p.ops[i]));
  tr["kernels"] = json::array();
  for (const KernelTime& k : p.kernels)
    tr["kernels"].push_back({{"name", k.name},
                             {"op_type", k.opType},
                             {"task_type", k.taskType},
                             {"calls_per_step", k.calls},
                             {"ms", k.ms},
                             {"max_us", k.maxUs},
                             {"share", k.share},
                             {"signatures", signaturesJson(k.signatures)}});
  tr["data_loaders"] = p.dataLoaders;
  tr["step_trace"] = json::array();
  for (const StepTraceRow& s : r.stepTrace)
    tr["step_trace"].push_back({{"step", s.step},
                                {"computing_us", s.computingUs},
                                {"communication_not_overlapped_us", s.communicationNotOverlappedUs},
                                {"overlapped_us", s.overlappedUs},
                                {"communication_us", s.communicationUs},
                                {"free_us", s.freeUs},
                                {"total_us", s.totalUs()}});
  j["training"] = tr;
  return j;
}

}  // namespace msa::training
