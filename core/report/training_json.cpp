#include "report/training_report.h"

#include <algorithm>
#include <cmath>

#include "report/report_json.h"

namespace msa::training {

namespace {

using nlohmann::json;

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
          {"short_gap_ms", b.shortGapMs}, {"comm_ms", b.commMs},
          {"comm_exposed_ms", b.commExposedMs}, {"p2p_ms", b.p2pMs},
          {"p2p_exposed_ms", b.p2pExposedMs}, {"collective_ms", b.collectiveMs},
          {"collective_exposed_ms", b.collectiveExposedMs}, {"h2d_ms", b.h2dMs},
          {"d2h_ms", b.d2hMs},          {"copies", b.copies}};
}


}  // namespace

json trainingReportToJson(const TrainingReport& r, const TrainingReportFormat& fmt) {
  ReportOptions ro;
  ro.lang = fmt.lang;
  ro.generator = fmt.generator;
  ro.topN = fmt.topN;
  json j = reportToJson(r.report, ro);
  j["kind"] = "training";
  if (r.report.device == r.device && (r.device == "cuda" || r.device == "npu" || r.device == "cpu"))
    j["device_name"] = trainingDeviceName(r.device, fmt.lang);
  j["training"] = trainingBlockJson(r, fmt.topN);
  return j;
}

json trainingBlockJson(const TrainingReport& r, int topN) {
  const TrainingProfile& p = r.profile;
  json tr;
  tr["trace"] = r.path;
  tr["format"] = r.format;
  tr["device"] = r.device;
  tr["files"] = r.files;
  tr["step_source"] = r.stepSource;
  tr["timeline"] = p.timeline;
  tr["events"] = r.eventCounts;
  tr["step_ms"] = {{"median", p.stepMs}, {"p10", p.stepP10Ms}, {"p90", p.stepP90Ms}, {"min", p.stepMinMs}, {"max", p.stepMaxMs}};
  tr["steps"] = json::array();
  for (const StepBreakdown& b : p.steps) tr["steps"].push_back(stepJson(b));
  const double step = p.stepMs > 0 ? p.stepMs : 1;
  tr["breakdown"] = {{"busy_ms", p.median.busyMs},
                     {"compute_ms", p.median.computeMs},
                     {"memory_ms", p.median.memoryMs},
                     {"data_loading_ms", p.median.dataLoadingMs},
                     {"idle_ms", p.median.idleMs},
                     {"busy_share", p.median.busyMs / step},
                     {"data_loading_share", p.median.dataLoadingMs / step},
                     {"idle_share", p.median.idleMs / step}};
  tr["communication"] = {{"ms", p.median.commMs},
                         {"exposed_ms", p.median.commExposedMs},
                         {"share", p.median.commMs / step},
                         {"exposed_share", p.median.commExposedMs / step},
                         {"p2p_ms", p.median.p2pMs},
                         {"p2p_exposed_ms", p.median.p2pExposedMs},
                         {"collective_ms", p.median.collectiveMs},
                         {"collective_exposed_ms", p.median.collectiveExposedMs}};
  tr["copies"] = {{"count", p.median.copies},
                  {"h2d_ms", p.median.h2dMs},
                  {"d2h_ms", p.median.d2hMs},
                  {"exposed_ms", p.median.copyExposedMs}};
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
  for (size_t i = 0; i < p.ops.size() && static_cast<int>(i) < topN; ++i) tr["hotspots"].push_back(opJson(p.ops[i]));
  tr["kernels"] = json::array();
  for (const KernelTime& k : p.kernels)
    tr["kernels"].push_back({{"name", k.name},
                             {"short_name", k.shortName},
                             {"op_type", k.opType},
                             {"task_type", k.taskType},
                             {"calls_per_step", k.calls},
                             {"ms", k.ms},
                             {"max_us", k.maxUs},
                             {"share", k.share},
                             {"signatures", signaturesJson(k.signatures)}});
  tr["data_loaders"] = p.dataLoaders;
  if (r.pricing) {
    const TrainingPricing& pr = *r.pricing;
    json unpriced = json::array(), types = json::array();
    for (const UnpricedType& u : pr.unpriced)
      unpriced.push_back({{"op_type", u.opType}, {"kernels", u.kernels}, {"ms", u.ms}, {"share", u.share}, {"reason", u.reason}});
    for (size_t i = 0; i < pr.byType.size() && static_cast<int>(i) < topN; ++i) {
      const auto& t = pr.byType[i];
      types.push_back({{"op_type", t.opType}, {"calls_per_step", t.calls}, {"ms", t.measuredMs}, {"roofline_ms", t.rooflineMs}});
    }
    tr["pricing"] = {{"device", pr.device},
                     {"compute_ms", pr.computeMs},
                     {"priced_ms", pr.pricedMs},
                     {"roofline_ms", pr.rooflineMs},
                     {"known_time_share", pr.knownTimeShare()},
                     {"priced_kernels", pr.pricedKernels},
                     {"compute_kernels", pr.computeKernels},
                     {"op_types", types},
                     {"unpriced", unpriced}};
  }
  if (r.report.job) tr["cluster"] = jobJson(*r.report.job);
  const ActivationMemory& mem = p.memory;
  json modules = json::array();
  for (const ModuleActivation& m : mem.modules)
    modules.push_back({{"module", m.label},
                       {"type", m.type},
                       {"parent", m.parent},
                       {"calls_per_step", m.calls},
                       {"forward_ms", m.forwardMs},
                       {"saved_bytes", m.savedBytes},
                       {"own_saved_bytes", m.ownSavedBytes},
                       {"output_bytes", m.outputBytes}});
  tr["memory"] = {{"source", mem.source.empty() ? json(nullptr) : json(mem.source)},
                  {"steps", mem.steps},
                  {"saved_bytes", mem.savedBytes},
                  {"forward_ms", mem.forwardMs},
                  {"modules", modules}};
  tr["step_trace"] = json::array();
  for (const StepTraceRow& s : r.stepTrace)
    tr["step_trace"].push_back({{"step", s.step},
                                {"computing_us", s.computingUs},
                                {"communication_not_overlapped_us", s.communicationNotOverlappedUs},
                                {"overlapped_us", s.overlappedUs},
                                {"communication_us", s.communicationUs},
                                {"free_us", s.freeUs},
                                {"total_us", s.totalUs()}});
  return tr;
}

namespace {

TimingTable timingTable(const TrainingReport& r, const std::string& label) {
  TimingTable t;
  t.label = label;
  t.totalMs = r.latencyMs;
  if (r.profile.timeline == "device")
    for (const KernelTime& k : r.profile.kernels) t.nodes.emplace_back(k.name, k.ms);
  else
    for (const OpTime& o : r.profile.ops) t.nodes.emplace_back(o.name, o.selfMs);
  return t;
}

}  // namespace

TrainingComparison compareTraining(const TrainingReport& previous, const TrainingReport& current, double threshold) {
  TrainingComparison c;
  c.previousMs = previous.latencyMs;
  c.currentMs = current.latencyMs;
  c.previousP90Ms = previous.profile.stepP90Ms;
  c.ratio = c.previousMs > 0 ? c.currentMs / c.previousMs : 0;
  c.threshold = threshold;
  c.regression = c.previousMs > 0 && c.currentMs > c.previousMs * (1 + threshold) && c.currentMs > c.previousP90Ms;
  c.items = compareTimings(timingTable(previous, previous.path), timingTable(current, current.path), std::max(threshold, 0.10));
  return c;
}

json toJson(const TrainingComparison& c) {
  json j = msa::toJson(c.items);
  j["step_ms"] = {{"previous", c.previousMs}, {"current", c.currentMs}, {"previous_p90", c.previousP90Ms}};
  j["ratio"] = c.ratio;
  j["threshold"] = c.threshold;
  j["regression"] = c.regression;
  return j;
}

}  // namespace msa::training
