#include "optimize/optimize_report.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "cost/device_profile.h"
#include "profile/host_calibration.h"
#include "profile/ort_profiler.h"

namespace msa {
namespace {

using json = nlohmann::json;

json rewriteJson(const Rewrite& r) {
  json j{{"pass", r.pass},
         {"finding", r.finding.empty() ? json(nullptr) : json(r.finding)},
         {"nodes_before", r.nodesBefore},
         {"nodes_after", r.nodesAfter},
         {"runtime_specific", r.runtimeSpecific}};
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

json checkerJson(const CheckerResult& c) {
  return {{"ran", c.ran}, {"passed", c.ran ? json(c.passed) : json(nullptr)}, {"message", c.message}, {"skipped", c.skipped}};
}

json verificationJson(const OptimizeResult& r) {
  if (!r.verification) return nullptr;
  const VerifyResult& v = *r.verification;
  json outs = json::array();
  auto finite = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
  for (const auto& o : v.outputs)
    outs.push_back({{"name", o.name}, {"max_abs_error", o.maxAbsError}, {"max_rel_error", o.maxRelError},
                    {"mismatches", o.mismatches}, {"passed", o.passed}, {"first_mismatch", o.firstMismatch},
                    {"max_error_to_magnitude", finite(o.maxErrorToMagnitude)}, {"cosine", finite(o.cosine)},
                    {"top1_agreement", o.top1Agreement >= 0 ? json(o.top1Agreement) : json(nullptr)},
                    {"degenerate", o.degenerate.empty() ? json(nullptr) : json(o.degenerate)}});
  return {{"passed", v.passed},
          // "match" only when the reference could have told a wrong result apart.
          {"verdict", !v.passed ? "failed" : v.inconclusive ? "inconclusive" : "match"},
          {"inconclusive", v.inconclusive ? json(inconclusiveText(v, Lang::En)) : json(nullptr)},
          {"rel_to_magnitude", v.tolerance.relToMagnitude},
          {"max_abs_error", v.maxAbsError},
          {"max_rel_error", v.maxRelError},
          {"atol", v.tolerance.atol},
          {"rtol", v.tolerance.rtol},
          {"semantics", "an element fails only where |a-b| > atol and |a-b|/|b| > rtol (Polygraphy); an output fails when "
                        "max |a-b| > rel_to_magnitude x max |b|"},
          {"inputs", r.inputsSource},
          {"runtime", "onnxruntime, graph optimizations disabled, both models"},
          {"outputs", outs},
          {"failure", v.failure}};
}

}  // namespace

Result<OptimizeMeasurement> measureOptimization(const Model& original, const OptimizeResult& r,
                                                const MeasureOptimizationOptions& options, const Progress& progress) {
  OptimizeMeasurement m;
  std::vector<DataValue> inputs;
  if (!options.inputsDir.empty()) {
    auto in = loadInputs(original, options.inputsDir, options.inputs);
    if (!in) return in.error();
    inputs = std::move(*in);
  } else {
    auto in = makeRandomInputs(original, options.inputs);
    if (!in) return in.error();
    for (auto& t : *in) inputs.push_back(DataValue::of(std::move(t)));
  }
  LatencyOptions lo;
  lo.iterations = options.iterations;
  lo.threads = options.threads;
  auto lat = compareLatency(original, r.model, inputs, lo, progress);
  if (!lat) return lat.error();
  m.latency = *lat;

  CpuProfileOptions po;
  po.latencyTarget = 1;  // the per-node profiles only: compareLatency times the runs
  po.iterations = std::max(10, lo.iterations / 2);
  po.threads = lo.threads;
  po.inputs = options.inputs;
  po.inputsDir = options.inputsDir;
  auto disabled = profileOnCpu(original, po, progress);
  if (!disabled) return m.estimateError = disabled.error().describe(), m;
  // The original as deployed (ORT_ENABLE_ALL): what the deployed speedup is estimated from.
  std::optional<ProfileData> all;
  {
    po.optimization = GraphOptimization::All;
    auto p = profileOnCpu(original, po, progress);
    if (!p) return m.estimateError = p.error().describe(), m;
    all = std::move(*p);
  }
  auto device = loadDevice("cpu-host");
  if (!device) return m.estimateError = device.error().describe(), m;
  auto cal = hostCalibration(false, progress);
  DeviceProfile dev = cal ? withHostCalibration(*device, *cal) : *device;
  auto est = estimateSpeedup(original, r.model, r.applied, *disabled, all ? &*all : nullptr, dev);
  if (!est) m.estimateError = est.error().describe();
  else m.estimate = *est;
  return m;
}

json optimizeReportJson(const OptimizeResult& r, const OptimizeMeasurement& m, const OptimizeReportContext& ctx) {
  const bool written = !ctx.output.empty();
  json j;
  j["model"] = ctx.model;
  j["output"] = written ? json(ctx.output) : json(nullptr);
  j["level"] = std::string(levelName(r.level));
  j["passes"] = r.passesRun;
  j["rounds"] = r.rounds;
  j["applied"] = json::array();
  for (const auto& a : r.applied) j["applied"].push_back(rewriteJson(a));
  j["rolled_back"] = json::array();
  for (const auto& b : r.rolledBack) {
    auto x = rewriteJson(b.rewrite);
    x["reason"] = b.reason;
    j["rolled_back"].push_back(x);
  }
  j["advice"] = json::array();
  for (const auto& a : r.advice) j["advice"].push_back({{"finding", a.finding}, {"rule", a.rule}, {"reason", a.reason}});
  j["opset_changes"] = json::array();
  for (const auto& o : r.opsetChanges)
    j["opset_changes"].push_back({{"domain", o.domain.empty() ? "ai.onnx" : o.domain}, {"from", o.from}, {"to", o.to}, {"pass", o.pass}});
  j["checker"] = checkerJson(r.checker);
  j["verification"] = verificationJson(r);
  if (!r.verificationSkipped.empty()) j["verification_skipped"] = r.verificationSkipped;
  json lat = {{"original_disabled", nullptr}, {"optimized_disabled", nullptr}, {"original_all", nullptr}, {"optimized_all", nullptr}};
  j["estimated_speedup"] = nullptr;
  j["measured_speedup"] = nullptr;
  if (m.latency) {
    const auto& l = *m.latency;
    lat = {{"original_disabled", l.originalDisabled.median}, {"optimized_disabled", l.optimizedDisabled.median},
           {"original_all", l.originalAll.median}, {"optimized_all", l.optimizedAll.median}};
    j["latency_iterations"] = l.iterations;
    j["measurement"] = toJson(l.measurement);
    // A speedup whose interval holds 1 measured no change (docs/optimizer.md, "Within noise").
    auto noise = [](double x) { return std::isfinite(x) ? json(x) : json(nullptr); };
    j["speedup_noise"] = {{"disabled", noise(l.speedupDisabledNoise)}, {"all", noise(l.speedupAllNoise)}};
    j["within_noise"] = {{"disabled", l.disabledWithinNoise()}, {"all", l.allWithinNoise()}};
    auto st = [](const Stats& x) { return json{{"median", x.median}, {"p10", x.p10}, {"p90", x.p90}, {"min", x.min}}; };
    j["latency_detail_ms"] = {{"original_disabled", st(l.originalDisabled)}, {"optimized_disabled", st(l.optimizedDisabled)},
                              {"original_all", st(l.originalAll)}, {"optimized_all", st(l.optimizedAll)}};
    j["measured_speedup"] = l.speedupDisabled();
    j["measured_speedup_all"] = l.speedupAll();
    j["original_all_over_optimized_disabled"] = l.allVsOptimizedDisabled();
    // The same from the 10th percentiles: what the runs take when other load does not preempt them.
    j["latency_p10_ms"] = {{"original_disabled", l.originalDisabled.p10}, {"optimized_disabled", l.optimizedDisabled.p10},
                           {"original_all", l.originalAll.p10}, {"optimized_all", l.optimizedAll.p10}};
    j["measured_speedup_p10"] = l.speedupDisabled(true);
  }
  j["latency_ms"] = lat;
  if (m.estimate) {
    j["estimated_speedup"] = m.estimate->speedup;
    j["estimated_deployed_speedup"] = m.estimate->deployedSpeedup > 0 ? json(m.estimate->deployedSpeedup) : json(nullptr);
    j["estimate"] = {{"original_ms", m.estimate->originalMs}, {"optimized_ms", m.estimate->optimizedMs},
                     {"deployed_original_ms", m.estimate->deployedOriginalMs},
                     {"deployed_optimized_ms", m.estimate->deployedOptimizedMs},
                     {"measured_nodes", m.estimate->measuredNodes}, {"estimated_nodes", m.estimate->estimatedNodes},
                     {"method", m.estimate->method}};
  } else if (!m.estimateError.empty()) {
    j["estimate"] = {{"error", m.estimateError}};
  }
  json ops = json::array();
  std::set<std::string> types;
  for (const auto& [k, v] : r.before.opCounts) types.insert(k);
  for (const auto& [k, v] : r.after.opCounts) types.insert(k);
  for (const auto& t : types) {
    auto b = r.before.opCounts.count(t) ? r.before.opCounts.at(t) : 0;
    auto a = r.after.opCounts.count(t) ? r.after.opCounts.at(t) : 0;
    ops.push_back({{"op", t}, {"before", b}, {"after", a}, {"change", static_cast<long long>(a) - static_cast<long long>(b)}});
  }
  j["op_counts"] = ops;
  j["size"] = {{"nodes_before", r.before.nodes}, {"nodes_after", r.after.nodes},
               {"weight_bytes_before", r.before.weightBytes}, {"weight_bytes_after", r.after.weightBytes},
               {"file_bytes_before", ctx.fileBytesBefore},
               {"file_bytes_after", written ? json(ctx.fileBytesAfter) : json(nullptr)}};
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace msa
