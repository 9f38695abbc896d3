#include "whatif/whatif_json.h"

#include <cmath>

namespace msa {
namespace {

// JSON has no infinity or NaN: such a figure is null.
nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
// -1 marks "not applicable" in the structs.
nlohmann::json optional(double v) { return v < 0 ? nlohmann::json(nullptr) : number(v); }

nlohmann::json accuracyJson(const Accuracy& a) {
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputAccuracy& o : a.outputs) {
    outputs.push_back({{"name", o.name},
                       {"kind", outputKindName(o.kind)},
                       {"cosine", number(o.cosine)},
                       {"max_rel_to_range", number(o.maxRelToRange)},
                       {"max_abs", number(o.maxAbs)},
                       {"top1_agreement", optional(o.top1)},
                       {"top5_agreement", optional(o.top5)},
                       {"box_max_delta", optional(o.boxMaxDelta)},
                       {"score_max_delta", optional(o.scoreMaxDelta)}});
  }
  return {{"cosine", number(a.cosine)},
          {"top1_agreement", optional(a.top1)},
          {"top5_agreement", optional(a.top5)},
          {"max_rel_to_range", number(a.maxRelToRange)},
          {"box_max_delta", optional(a.boxMaxDelta)},
          {"score_max_delta", optional(a.scoreMaxDelta)},
          {"finite", a.finite},
          {"samples", a.samples},
          {"outputs", outputs}};
}

nlohmann::json notesJson(const std::vector<std::string>& keys, Lang lang) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : keys) out.push_back({{"key", k}, {"text", uiText(k, lang)}});
  return out;
}

nlohmann::json variantJson(const Variant& v, const WhatIfResult& r, Lang lang) {
  nlohmann::json j;
  j["name"] = v.name;
  j["kind"] = variantKindName(v.kind);
  j["summary"] = uiText("whatif.variant." + std::string(variantKindName(v.kind)), lang);
  j["measured"] = v.measured;
  j["estimated"] = v.estimated;
  const bool timed = v.measured || v.estimated;
  j["latency_ms"] = timed ? number(v.latency.median) : nlohmann::json(nullptr);
  j["latency_p10_ms"] = timed ? number(v.latency.p10) : nlohmann::json(nullptr);
  j["latency_p90_ms"] = timed ? number(v.latency.p90) : nlohmann::json(nullptr);
  j["speedup"] = timed ? number(v.speedup) : nlohmann::json(nullptr);
  j["predicted_speedup"] = v.predictedSpeedup > 0 ? number(v.predictedSpeedup) : nlohmann::json(nullptr);
  j["prediction_method"] = v.predictionMethod.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.predictionMethod);
  j["optimum_ms"] = v.optimumMs > 0 ? number(v.optimumMs) : nlohmann::json(nullptr);
  // "% of the optimum" at the variant's own precision: its roofline over its measured latency.
  j["of_optimum"] = v.optimumMs > 0 && v.measured && v.latency.median > 0 ? number(v.optimumMs / v.latency.median)
                                                                         : nlohmann::json(nullptr);
  j["accuracy"] = v.accuracy ? accuracyJson(*v.accuracy) : nlohmann::json(nullptr);
  j["within_bound"] = v.accuracy ? nlohmann::json(v.withinBound) : nlohmann::json(nullptr);
  if (v.accuracy && !v.withinBound)
    j["bound_failed"] = {{"term", v.verdict.failedTerm}, {"value", number(v.verdict.value)}, {"limit", number(v.verdict.limit)}};
  nlohmann::json settings = sessionSettingsJson(v);
  settings.erase("variant");
  settings.erase("fingerprint");
  j["settings"] = settings;
  j["batch"] = v.batch;
  if (v.kind == VariantKind::Batch && v.measured) j["items_per_second"] = number(v.itemsPerSecond);
  if (!v.int8Layers.empty() || !v.floatLayers.empty()) {
    j["int8_layers"] = v.int8Layers;
    j["float_layers"] = v.floatLayers;
  }
  if (!v.calibrationMethod.empty()) {
    nlohmann::json compared = nlohmann::json::array();
    for (const CalibrationTrial& t : v.calibrationTrials)
      compared.push_back({{"method", t.method}, {"within_bound", t.within}, {"accuracy", accuracyJson(t.accuracy)}});
    j["calibration"] = {{"method", v.calibrationMethod}, {"compared", compared}, {"samples", r.calibrationSamples},
                        {"random_inputs", r.randomInputs}};
  }
  if (!v.error.empty()) j["error"] = v.error;
  if (!v.option.empty()) j["option"] = v.option;
  j["notes"] = notesJson(v.notes, lang);
  j["fingerprint"] = v.fingerprint.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.fingerprint);
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerEffect& l : v.layers) {
    if (l.savedMs == 0 && l.accuracyCost < 0 && !l.int8) continue;
    layers.push_back({{"node", l.node}, {"saved_ms", number(l.savedMs)}, {"accuracy_cost", optional(l.accuracyCost)}, {"int8", l.int8}});
  }
  j["layers"] = layers;
  return j;
}

}  // namespace

nlohmann::json whatIfJson(const WhatIfResult& r, Lang lang) {
  nlohmann::json j;
  j["model"] = r.model;
  j["device"] = r.device;
  j["runtime"] = r.runtime;
  j["estimated"] = r.estimated;
  j["goal"] = r.goal == WhatIfRequest::Goal::Throughput ? "throughput" : "latency";
  j["baseline"] = {{"latency_ms", number(r.baseline.median)},
                   {"latency_p10_ms", number(r.baseline.p10)},
                   {"latency_p90_ms", number(r.baseline.p90)},
                   {"threads", r.threads},
                   {"optimum_ms", r.optimumMs > 0 ? number(r.optimumMs) : nlohmann::json(nullptr)}};
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputPlan& p : r.inputs) inputs.push_back({{"name", p.name}, {"shape", p.shape}, {"dtype", p.dtype}});
  j["inputs"] = inputs;
  j["inputs_source"] = r.inputsSource;
  j["random_inputs"] = r.randomInputs;
  j["calibration_samples"] = r.calibrationSamples;
  j["evaluation_samples"] = r.evaluationSamples;
  j["bound"] = {{"cosine", r.bound.cosine}, {"top1", r.bound.top1},
                {"max_rel", r.bound.maxRelToRange >= 0 ? number(r.bound.maxRelToRange) : nlohmann::json(nullptr)}};
  nlohmann::json variants = nlohmann::json::array();
  for (const Variant& v : r.variants) variants.push_back(variantJson(v, r, lang));
  j["variants"] = variants;
  j["best"] = r.best.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.best);
  if (!r.estimated)
    j["measurement"] = {{"threads", r.measurement.threads},
                        {"contended", r.measurement.contended},
                        {"cpu_share", number(r.measurement.cpuShare)},
                        {"load", number(r.measurement.load)},
                        {"rounds", r.measurement.blocks}};
  j["host"] = {{"fp32_gflops", number(r.fp32Gflops)}, {"int8_gops", number(r.int8Gops)}, {"bandwidth_gbps", number(r.bandwidthGBs)}};
  j["prediction_median_error"] = r.predictionMedianError >= 0 ? number(r.predictionMedianError) : nlohmann::json(nullptr);
  j["notes"] = notesJson(r.notes, lang);
  if (!r.batchHandling.empty()) j["batch_handling"] = {{"key", r.batchHandling}, {"text", uiText(r.batchHandling, lang)}};
  return j;
}

Result<WhatIfResult> whatIfFromJson(const nlohmann::json& j) {
  try {
    WhatIfResult r;
    r.model = j.value("model", "");
    r.device = j.value("device", "");
    r.runtime = j.value("runtime", "");
    r.estimated = j.value("estimated", false);
    auto num = [](const nlohmann::json& x, const char* k, double d = 0) {
      return x.contains(k) && x[k].is_number() ? x[k].get<double>() : d;
    };
    const auto& b = j.at("baseline");
    r.baseline.median = num(b, "latency_ms");
    r.baseline.p10 = num(b, "latency_p10_ms");
    r.baseline.p90 = num(b, "latency_p90_ms");
    r.threads = b.value("threads", 0);
    r.best = j.contains("best") && j["best"].is_string() ? j["best"].get<std::string>() : "";
    r.randomInputs = j.value("random_inputs", true);
    if (j.contains("measurement")) {
      const auto& m = j["measurement"];
      r.measurement.threads = m.value("threads", 0);
      r.measurement.contended = m.value("contended", false);
      r.measurement.cpuShare = num(m, "cpu_share", 1);
      r.measurement.load = num(m, "load");
    }
    for (const auto& n : j.value("notes", nlohmann::json::array())) r.notes.push_back(n.value("key", ""));
    for (const auto& x : j.at("variants")) {
      Variant v;
      v.name = x.at("name").get<std::string>();
      const std::string kind = x.value("kind", "");
      for (VariantKind k : {VariantKind::Int8Dynamic, VariantKind::Int8Static, VariantKind::Int8Mixed, VariantKind::RuntimeSettings,
                            VariantKind::Batch, VariantKind::Bf16, VariantKind::Fp16, VariantKind::Int8Amct, VariantKind::ImplMode})
        if (variantKindName(k) == kind) v.kind = k;
      v.measured = x.value("measured", false);
      v.estimated = x.value("estimated", false);
      v.latency.median = num(x, "latency_ms");
      v.latency.p10 = num(x, "latency_p10_ms");
      v.latency.p90 = num(x, "latency_p90_ms");
      v.speedup = num(x, "speedup");
      v.predictedSpeedup = num(x, "predicted_speedup");
      v.optimumMs = num(x, "optimum_ms");
      v.batch = x.value("batch", 1);
      v.withinBound = x.contains("within_bound") && x["within_bound"].is_boolean() && x["within_bound"].get<bool>();
      if (x.contains("accuracy") && x["accuracy"].is_object()) {
        Accuracy a;
        a.cosine = num(x["accuracy"], "cosine", 0);
        a.top1 = num(x["accuracy"], "top1_agreement", -1);
        a.top5 = num(x["accuracy"], "top5_agreement", -1);
        a.maxRelToRange = num(x["accuracy"], "max_rel_to_range");
        v.accuracy = a;
      }
      v.error = x.value("error", "");
      v.option = x.value("option", "");
      v.calibrationMethod = x.contains("calibration") ? x["calibration"].value("method", "") : "";
      v.int8Layers = x.value("int8_layers", std::vector<std::string>{});
      v.floatLayers = x.value("float_layers", std::vector<std::string>{});
      v.fingerprint = x.contains("fingerprint") && x["fingerprint"].is_string() ? x["fingerprint"].get<std::string>() : "";
      for (const auto& n : x.value("notes", nlohmann::json::array())) v.notes.push_back(n.value("key", ""));
      for (const auto& l : x.value("layers", nlohmann::json::array())) {
        LayerEffect e;
        e.node = l.value("node", "");
        e.savedMs = num(l, "saved_ms");
        e.accuracyCost = num(l, "accuracy_cost", -1);
        e.int8 = l.value("int8", false);
        v.layers.push_back(std::move(e));
      }
      const auto& s = x.value("settings", nlohmann::json::object());
      v.settings.threads = s.value("intra_op_num_threads", 0);
      v.settings.parallelExecution = s.value("execution_mode", "") == "ORT_PARALLEL";
      if (s.contains("config_entries")) v.settings.spinning = s["config_entries"].value("session.intra_op.allow_spinning", "1") != "0";
      r.variants.push_back(std::move(v));
    }
    return r;
  } catch (const std::exception& e) {
    return Error::model(std::string("not a what-if report: ") + e.what());
  }
}

}  // namespace msa
