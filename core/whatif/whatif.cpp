#include "whatif/whatif.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "advisor/run_analysis.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "optimize/optimizer.h"
#include "profile/host_calibration.h"
#include "profile/ort_profiler.h"
#include "profile/ort_session.h"
#include "whatif/ascend_whatif.h"
#include "whatif/calibration.h"
#include "whatif/prediction.h"
#include "whatif/quantize_dynamic.h"
#include "whatif/quantize_static.h"
#include "whatif/runtime_variants.h"

namespace msa {
namespace {

// The part [lo, hi] of the caller's progress bar, with the caller's cancel flag.
Progress slice(const Progress& p, double lo, double hi) {
  return Progress([&p, lo, hi](std::string_view phase, double f) { p.report(phase, lo + (hi - lo) * std::clamp(f, 0.0, 1.0)); },
                  p.cancelFlag());
}

// A variant counts as faster than the original when it measured at least this much faster: the
// spread of two timings of the same model in turns on this machine.
constexpr double kFasterThan = 1.05;

// Samples used to rank the layers by the error they add (a shadow run is twice the model).
constexpr size_t kSensitivitySamples = 4;

// Passes that prepare the float model for quantization, as ONNX Runtime's quantizer prepares it:
// BatchNormalization folded into the Conv before it, weights computed by constant nodes
// (Transpose of an initializer) folded into initializers. Exact rewrites, verified.
const std::vector<std::string> kPreparePasses = {"fold_bn_into_conv", "fold_bn_into_gemm", "fold_constants",
                                                 "eliminate_identity", "eliminate_dead_code"};

struct Runs {
  std::vector<std::vector<DataValue>> outputs;
};

// Runs `model` as deployed (ORT_ENABLE_ALL) with `settings` on every sample.
Result<std::vector<std::vector<DataValue>>> runSamples(const Model& model, const VariantSettings& settings,
                                                       const std::vector<std::vector<DataValue>>& samples,
                                                       const Progress& progress,
                                                       GraphOptimization level = GraphOptimization::All,
                                                       std::span<const std::string> outputs = {}) {
  VariantSettings at = settings;
  at.optimization = level;
  auto session = OrtSession::create(model, runtimeOptionsFor(at));
  if (!session) return session.error();
  std::vector<std::vector<DataValue>> out;
  for (const auto& s : samples) {
    if (progress.cancelled()) return Error::cancelled();
    auto r = session->run(s, outputs);
    if (!r) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

// The interface the user's application sees stays the original's: a variant built on the model
// with its symbolic dims bound gets the original's input and output declarations back.
void restoreInterface(Model& variant, const Model& original) {
  variant.graph.inputs = original.graph.inputs;
  variant.graph.outputs = original.graph.outputs;
  std::set<std::string, std::less<>> produced;
  for (const Node& n : variant.graph.nodes)
    for (const auto& o : n.outputs) produced.insert(o);
  variant.graph.valueInfo.clear();
  for (const ValueInfo& v : original.graph.valueInfo)
    if (produced.count(v.name)) variant.graph.valueInfo.push_back(v);
}

struct Context {
  const WhatIfRequest& req;
  const Progress& progress;
  WhatIfResult& result;
  Model original;    // as given
  Model floatModel;  // prepared for quantization (BN and constant weights folded), the original's interface
  Model typed;       // floatModel with shapes inferred at the bound dims: plans, costs, calibration
  InputOptions io;
  std::vector<std::vector<DataValue>> calibration, evaluation, reference;
  std::optional<Predictor> predictor;
  std::map<std::string, double> staticSensitivity, dynamicSensitivity;
};

bool wanted(const WhatIfRequest& r, std::string_view name, VariantKind kind) {
  return r.only.empty() || r.only.count(name) || r.only.count(variantKindName(kind));
}

// Accuracy of `v` against the reference (the original's outputs on the same inputs), and the
// verdict against the bound.
Status judgeVariant(Context& c, Variant& v, const std::vector<std::vector<DataValue>>& outputs,
                    const std::vector<std::vector<DataValue>>* reference = nullptr) {
  auto acc = compareOutputs(reference ? *reference : c.reference, outputs);
  if (!acc) return acc.error();
  v.accuracy = std::move(*acc);
  v.verdict = judge(*v.accuracy, c.req.bound);
  v.withinBound = v.verdict.within;
  return Ok{};
}

// Runs a changed model on the evaluation samples and judges it; a model the runtime cannot load
// or run is recorded on the variant (error), not an error of the what-if.
Status evaluate(Context& c, Variant& v, const Progress& p) {
  auto outputs = runSamples(v.model, v.settings, c.evaluation, p);
  if (!outputs) {
    if (outputs.error().kind == ErrorKind::Cancelled) return outputs.error();
    v.error = outputs.error().message;
    return Ok{};
  }
  return judgeVariant(c, v, *outputs);
}

// Relative squared error each layer alone adds (whatif/quantize_static.h, shadowModel).
Result<std::map<std::string, double>> sensitivity(Context& c, ShadowKind kind, const std::vector<QuantLayer>& layers,
                                                  const StaticPlan* plan, const std::map<std::string, Range>* ranges,
                                                  const Progress& p) {
  auto shadow = shadowModel(c.typed, kind, layers, plan, ranges, true);
  if (!shadow) return shadow.error();
  std::vector<std::string> names;
  for (const auto& pair : shadow->pairs) {
    names.push_back(pair.reference);
    names.push_back(pair.shadow);
  }
  const size_t n = std::min(kSensitivitySamples, c.calibration.size());
  std::vector<std::vector<DataValue>> samples(c.calibration.begin(), c.calibration.begin() + static_cast<long>(n));
  auto runs = runSamples(shadow->model, {}, samples, p, GraphOptimization::Disabled, names);
  if (!runs) return runs.error();
  std::map<std::string, double> err;
  for (size_t k = 0; k < shadow->pairs.size(); ++k) {
    double num = 0, den = 0;
    for (const auto& run : *runs) {
      const std::vector<double> r = run[2 * k].tensor.toDouble(), s = run[2 * k + 1].tensor.toDouble();
      for (size_t i = 0; i < r.size() && i < s.size(); ++i) {
        num += (s[i] - r[i]) * (s[i] - r[i]);
        den += r[i] * r[i];
      }
    }
    err[shadow->pairs[k].layer] = den > 0 ? num / den : (num > 0 ? INFINITY : 0.0);
  }
  return err;
}

void setLayerEffects(Variant& v, const Prediction& pred, const std::map<std::string, double>& sensitivity,
                     const std::set<std::string, std::less<>>& int8Nodes) {
  std::set<std::string> names;
  for (const auto& [n, s] : pred.savedMs) names.insert(n);
  for (const auto& [n, s] : sensitivity) names.insert(n);
  for (const auto& n : names) {
    LayerEffect e;
    e.node = n;
    if (auto s = pred.savedMs.find(n); s != pred.savedMs.end()) e.savedMs = s->second;
    if (auto s = sensitivity.find(n); s != sensitivity.end() && int8Nodes.count(n)) e.accuracyCost = s->second;
    e.int8 = int8Nodes.count(n) > 0;
    v.layers.push_back(std::move(e));
  }
}

void predict(Context& c, Variant& v, const Prediction& p, const std::map<std::string, double>& sens,
             const std::set<std::string, std::less<>>& int8Nodes) {
  v.predictedSpeedup = p.speedup;
  v.predictionMethod = p.method;
  v.optimumMs = p.optimumMs;
  setLayerEffects(v, p, sens, int8Nodes);
  (void)c;
}

// --- the quantized variants ------------------------------------------------------------------

Status addDynamic(Context& c, const Progress& p) {
  const auto layers = quantizableLayers(c.typed.graph, false);
  if (layers.empty()) return Ok{};
  for (bool perChannel : {true, false}) {
    Variant v;
    v.name = perChannel ? "int8_dynamic" : "int8_dynamic_per_tensor";
    v.kind = VariantKind::Int8Dynamic;
    if (!wanted(c.req, v.name, v.kind) && !(perChannel && wanted(c.req, "int8_mixed", VariantKind::Int8Mixed))) continue;
    DynamicQuantOptions o;
    o.perChannel = perChannel;
    auto q = quantizeDynamic(c.typed, o);
    if (!q) return q.error();
    v.model = std::move(q->model);
    v.modelChanged = true;
    restoreInterface(v.model, c.floatModel);
    v.int8Layers = q->layers;
    if (auto s = evaluate(c, v, p); !s) return s;
    if (c.predictor) {
      std::set<std::string, std::less<>> nodes(v.int8Layers.begin(), v.int8Layers.end());
      predict(c, v, c.predictor->quantized(nodes, true), c.dynamicSensitivity, nodes);
    }
    c.result.variants.push_back(std::move(v));
  }
  return Ok{};
}

Result<Model> buildStatic(Context& c, const std::set<std::string, std::less<>>& keepFloat, const std::map<std::string, Range>& ranges,
                          StaticPlan* planOut, std::vector<std::string>* layersOut) {
  StaticPlan plan = planStatic(c.typed, keepFloat);
  auto q = quantizeStatic(c.typed, plan, ranges);
  if (!q) return q.error();
  restoreInterface(q->model, c.floatModel);
  if (layersOut) *layersOut = q->layers;
  if (planOut) *planOut = std::move(plan);
  return std::move(q->model);
}

struct StaticFamily {
  StaticPlan plan;
  std::map<std::string, TensorStatistics> stats;
  std::string method;
  std::map<std::string, Range> ranges;
};

Status addStatic(Context& c, std::optional<StaticFamily>& family, const Progress& p) {
  const auto layers = quantizableLayers(c.typed.graph, true);
  if (layers.empty()) return Ok{};
  if (!wanted(c.req, "int8_static", VariantKind::Int8Static) && !wanted(c.req, "int8_mixed", VariantKind::Int8Mixed)) return Ok{};
  if (c.typed.opset() < 13) {
    c.result.notes.push_back("whatif.note.static_needs_opset13");
    return Ok{};
  }
  StaticFamily f;
  f.plan = planStatic(c.typed);
  auto stats = collectStatistics(c.typed, calibrationTensors(f.plan), c.calibration, slice(p, 0, 0.4));
  if (!stats) return stats.error();
  f.stats = std::move(*stats);
  Variant best;
  bool haveBest = false;
  std::vector<CalibrationTrial> trials;
  int k = 0;
  for (CalibrationMethod m : kCalibrationMethods) {
    Variant v;
    v.name = "int8_static";
    v.kind = VariantKind::Int8Static;
    v.calibrationMethod = std::string(calibrationMethodName(m));
    const auto ranges = calibratedRanges(f.stats, m);
    auto model = buildStatic(c, {}, ranges, nullptr, &v.int8Layers);
    if (!model) return model.error();
    v.model = std::move(*model);
    v.modelChanged = true;
    if (auto s = evaluate(c, v, slice(p, 0.4 + 0.2 * k, 0.6 + 0.2 * k)); !s) return s;
    ++k;
    if (!v.accuracy) {  // the runtime could not run it: no other method will do better
      best = std::move(v);
      haveBest = true;
      break;
    }
    trials.push_back({v.calibrationMethod, *v.accuracy, v.withinBound});
    // The most accurate method: within the bound first, then by cosine, then by top-1.
    auto key = [](const Variant& x) { return std::make_tuple(x.withinBound, x.accuracy->cosine, x.accuracy->top1); };
    if (!haveBest || key(v) > key(best)) {
      best = std::move(v);
      f.method = best.calibrationMethod;
      f.ranges = ranges;
      haveBest = true;
    }
  }
  best.calibrationTrials = std::move(trials);
  if (c.predictor && best.accuracy) {
    std::set<std::string, std::less<>> nodes = f.plan.nodes;
    auto sens = sensitivity(c, ShadowKind::Static, f.plan.layers, &f.plan, &f.ranges, p);
    if (sens) c.staticSensitivity = std::move(*sens);
    else if (sens.error().kind == ErrorKind::Cancelled) return sens.error();
    predict(c, best, c.predictor->quantized(nodes, false, f.plan.tensors), c.staticSensitivity, nodes);
  }
  if (best.accuracy) family = std::move(f);
  if (wanted(c.req, "int8_static", VariantKind::Int8Static)) c.result.variants.push_back(std::move(best));
  return Ok{};
}

// Keeps the layers that add the most error in float, as few as the bound allows: the worst one,
// two, four… until the bound holds, then the fewest between the last two tries.
Status addMixed(Context& c, const std::optional<StaticFamily>& family, const Progress& p) {
  if (!wanted(c.req, "int8_mixed", VariantKind::Int8Mixed)) return Ok{};
  // Static for a model with convolutions (dynamic leaves them in float); dynamic for the others.
  // (A convolutional network: more Conv layers than MatMul/Gemm ones; a ViT's one patch Conv does not make it one.)
  const auto all = quantizableLayers(c.typed.graph, true);
  const auto convs = std::count_if(all.begin(), all.end(), [](const QuantLayer& l) { return l.op == "Conv"; });
  const bool isStatic = family.has_value() && 2 * static_cast<size_t>(convs) >= all.size();
  const Variant* base = findVariant(c.result, isStatic ? "int8_static" : "int8_dynamic");
  if (!isStatic && !base) return Ok{};
  // Only when the all-int8 variant misses the bound (the export of int8_mixed alone rebuilds it).
  if (base && (base->withinBound || !base->accuracy)) return Ok{};
  std::map<std::string, double> sens;
  std::vector<QuantLayer> layers;
  if (isStatic) {
    layers = family->plan.layers;
    if (c.staticSensitivity.empty()) {
      auto s = sensitivity(c, ShadowKind::Static, layers, &family->plan, &family->ranges, p);
      if (!s) return s.error();
      c.staticSensitivity = std::move(*s);
    }
    sens = c.staticSensitivity;
  } else {
    layers = quantizableLayers(c.typed.graph, false);
    if (c.dynamicSensitivity.empty()) {
      auto s = sensitivity(c, ShadowKind::Dynamic, layers, nullptr, nullptr, p);
      if (!s) return s.error();
      c.dynamicSensitivity = std::move(*s);
    }
    sens = c.dynamicSensitivity;
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const QuantLayer& l : layers) ranked.emplace_back(sens.count(l.node) ? sens.at(l.node) : 0.0, l.node);
  // Worst first; ties by name, so the same inputs give the same variant.
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  auto build = [&](size_t k) -> Result<Variant> {
    Variant v;
    v.name = "int8_mixed";
    v.kind = VariantKind::Int8Mixed;
    std::set<std::string, std::less<>> keep;
    for (size_t i = 0; i < k; ++i) keep.insert(ranked[i].second);
    v.floatLayers.assign(keep.begin(), keep.end());
    if (isStatic) {
      auto m = buildStatic(c, keep, family->ranges, nullptr, &v.int8Layers);
      if (!m) return m.error();
      v.model = std::move(*m);
      v.calibrationMethod = family->method;
    } else {
      DynamicQuantOptions o;
      o.keepFloat = keep;
      auto q = quantizeDynamic(c.typed, o);
      if (!q) return q.error();
      v.model = std::move(q->model);
      restoreInterface(v.model, c.floatModel);
      v.int8Layers = q->layers;
    }
    v.modelChanged = true;
    if (auto s = evaluate(c, v, p); !s) return s.error();
    return v;
  };
  std::optional<Variant> found;
  size_t lo = 0, hi = 0;  // the bound fails keeping lo layers, holds keeping hi
  for (size_t k = 1; k < ranked.size(); k *= 2) {
    if (p.cancelled()) return Error::cancelled();
    auto v = build(k);
    if (!v) return v.error();
    p.report("mixed precision", std::min(0.9, std::log2(static_cast<double>(k) + 1) / std::log2(static_cast<double>(ranked.size()) + 1)));
    if (v->withinBound) {
      found = std::move(*v);
      hi = k;
      break;
    }
    lo = k;
  }
  if (!found) {
    c.result.notes.push_back(isStatic ? "whatif.note.mixed_none_static" : "whatif.note.mixed_none_dynamic");
    return Ok{};
  }
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    auto v = build(mid);
    if (!v) return v.error();
    if (v->withinBound) {
      found = std::move(*v);
      hi = mid;
    } else {
      lo = mid;
    }
  }
  if (c.predictor) {
    std::set<std::string, std::less<>> nodes(found->int8Layers.begin(), found->int8Layers.end());
    if (isStatic) {
      const StaticPlan plan = planStatic(c.typed, {found->floatLayers.begin(), found->floatLayers.end()});
      predict(c, *found, c.predictor->quantized(plan.nodes, false, plan.tensors), sens, plan.nodes);
    } else {
      predict(c, *found, c.predictor->quantized(nodes, true), sens, nodes);
    }
  }
  found->notes.push_back(isStatic ? "whatif.note.mixed_from_static" : "whatif.note.mixed_from_dynamic");
  c.result.variants.push_back(std::move(*found));
  return Ok{};
}

// --- session settings, batch, bf16 -----------------------------------------------------------

Status addRuntimeSettings(Context& c, const Progress& p) {
  const int cores = defaultThreads();
  for (auto& [name, settings] : runtimeSettingVariants(cores)) {
    Variant v;
    v.name = name;
    v.kind = VariantKind::RuntimeSettings;
    if (!wanted(c.req, v.name, v.kind)) continue;
    v.settings = settings;
    v.model = c.original;
    auto outputs = runSamples(v.model, v.settings, c.evaluation, p);
    if (!outputs) {
      if (outputs.error().kind == ErrorKind::Cancelled) return outputs.error();
      v.error = outputs.error().message;
    } else if (auto s = judgeVariant(c, v, *outputs); !s) {
      return s;
    }
    if (c.predictor) {
      const Prediction pred = settings.threads > 0 ? c.predictor->threads(settings.threads, cores)
                                                   : c.predictor->unchanged(settings.spinning ? "parallel_execution" : "spinning");
      predict(c, v, pred, {}, {});
    }
    c.result.variants.push_back(std::move(v));
  }
  return Ok{};
}

Status addBatches(Context& c, const Progress& p) {
  const bool throughput = c.req.goal == WhatIfRequest::Goal::Throughput;
  if (!throughput && !c.req.only.count("batch")) {
    c.result.batchHandling = "whatif.batch.latency_goal";
    return Ok{};
  }
  const BatchDim dim = batchDimOf(c.original);
  Model model = c.original;
  if (dim == BatchDim::None || dim == BatchDim::Fixed) {
    c.result.batchHandling = dim == BatchDim::None ? "whatif.batch.none" : "whatif.batch.fixed";
    return Ok{};
  }
  if (dim == BatchDim::MadeSymbolic) model = withSymbolicBatch(c.original);
  // A batch of two, item by item against the batch-1 reference: a graph that bakes its batch of 1
  // into a Reshape fails here (or gives other numbers) and is left alone.
  if (c.evaluation.size() >= 2 || dim == BatchDim::MadeSymbolic) {
    auto two = runSamples(model, {}, {stackSamples(c.evaluation, 2)}, p);
    bool ok = two.ok();
    if (ok) {
      auto items = splitItems(two->front(), 2);
      std::vector<std::vector<DataValue>> ref(c.reference.begin(), c.reference.begin() + std::min<long>(2, static_cast<long>(c.reference.size())));
      if (ref.size() < 2) ref.push_back(c.reference.front());
      auto acc = compareOutputs(ref, items);
      ok = acc && acc->cosine > 0.99999;
    } else if (two.error().kind == ErrorKind::Cancelled) {
      return two.error();
    }
    if (!ok) {
      c.result.batchHandling = "whatif.batch.fixed_in_graph";
      return Ok{};
    }
  }
  c.result.batchHandling = dim == BatchDim::MadeSymbolic ? "whatif.batch.made_symbolic" : "whatif.batch.symbolic";
  for (int b : c.req.batches) {
    if (b < 2) continue;
    Variant v;
    v.name = "batch_" + std::to_string(b);
    v.kind = VariantKind::Batch;
    if (!wanted(c.req, v.name, v.kind) && !c.req.only.count("batch") && !c.req.only.empty()) continue;
    v.batch = b;
    v.model = model;
    v.modelChanged = dim == BatchDim::MadeSymbolic;
    if (dim == BatchDim::MadeSymbolic) v.notes.push_back("whatif.note.batch_made_symbolic");
    // Accuracy item by item: each of the batch's items against its own batch-1 reference.
    auto out = runSamples(model, {}, {stackSamples(c.evaluation, b)}, p);
    if (!out) {
      if (out.error().kind == ErrorKind::Cancelled) return out.error();
      v.error = out.error().message;
    } else {
      std::vector<std::vector<DataValue>> ref;
      for (int i = 0; i < b; ++i) ref.push_back(c.reference[static_cast<size_t>(i) % c.reference.size()]);
      if (auto s = judgeVariant(c, v, splitItems(out->front(), b), &ref); !s) return s;
    }
    if (c.predictor) predict(c, v, c.predictor->batch(b), {}, {});
    c.result.variants.push_back(std::move(v));
  }
  return Ok{};
}

Status addBf16(Context& c, const Progress& p) {
  if (!wanted(c.req, "bf16", VariantKind::Bf16)) return Ok{};
  if (!cpuHasBf16()) {
    c.result.notes.push_back("whatif.note.no_bf16");
    return Ok{};
  }
  Variant v;
  v.name = "bf16";
  v.kind = VariantKind::Bf16;
  std::set<std::string, std::less<>> nodes;
  v.model = bf16Variant(c.typed, &nodes);
  if (nodes.empty()) return Ok{};
  v.modelChanged = true;
  restoreInterface(v.model, c.floatModel);
  v.int8Layers.clear();
  if (auto s = evaluate(c, v, p); !s) return s;
  if (!v.error.empty()) v.notes.push_back("whatif.note.bf16_no_kernels");
  if (c.predictor) predict(c, v, c.predictor->bf16(nodes), {}, nodes);
  c.result.variants.push_back(std::move(v));
  return Ok{};
}

// --- inputs ----------------------------------------------------------------------------------

Status prepareInputs(Context& c) {
  WhatIfResult& r = c.result;
  // A symbolic batch dim nobody bound runs at 1 (what-if varies it itself for the throughput goal).
  for (const ValueInfo* in : runtimeInputs(c.original.graph)) {
    if (!in->type.shape || in->type.shape->dims.empty()) continue;
    const Dim& d = in->type.shape->dims[0];
    if (d.known() || c.io.dims.count(in->name + ":0") || (!d.param.empty() && c.io.dims.count(d.param))) continue;
    if (!d.param.empty()) c.io.dims[d.param] = 1;
    else c.io.dims[in->name + ":0"] = 1;
    if (std::find(r.notes.begin(), r.notes.end(), "whatif.note.batch_bound") == r.notes.end()) r.notes.push_back("whatif.note.batch_bound");
  }
  if (!c.req.inputsDir.empty()) {
    auto samples = loadInputSamples(c.original, c.req.inputsDir, c.io);
    if (!samples) return samples.error();
    c.calibration = *samples;
    c.evaluation = std::move(*samples);
    r.randomInputs = false;
    r.inputsSource = c.req.inputsDir.string();
    if (c.evaluation.size() < 2) r.notes.push_back("whatif.note.one_sample");
  } else {
    const int n = std::max(1, c.req.randomSamples);
    for (int k = 0; k < 2 * n; ++k) {
      InputOptions o = c.io;
      o.seed = c.io.seed + static_cast<uint64_t>(k < n ? k : 1000 + k - n);
      std::vector<InputPlan> plan;
      auto t = makeRandomInputs(c.original, o, k == 0 ? &r.inputs : nullptr);
      if (!t) return t.error();
      std::vector<DataValue> sample;
      for (Tensor& x : *t) sample.push_back(DataValue::of(std::move(x)));
      (k < n ? c.calibration : c.evaluation).push_back(std::move(sample));
    }
    r.randomInputs = true;
    r.inputsSource = "random";
    r.notes.push_back("whatif.note.random_inputs");
  }
  if (r.inputs.empty())
    for (const DataValue& v : c.evaluation.front()) r.inputs.push_back({v.name, std::string(dtypeName(v.tensor.dtype)), v.tensor.dims, "file"});
  r.calibrationSamples = static_cast<int>(c.calibration.size());
  r.evaluationSamples = static_cast<int>(c.evaluation.size());
  return Ok{};
}

// The float model the quantized variants start from (ONNX Runtime's quantizer prepares it the same way).
Status prepareFloatModel(Context& c, const Progress& p) {
  c.floatModel = c.original;
  if (c.req.preprocess) {
    OptimizeOptions o;
    o.level = OptLevel::Conservative;
    o.only = kPreparePasses;
    o.verification.inputs = c.io;
    auto r = optimize(c.original, o, p);
    if (!r) {
      if (r.error().kind == ErrorKind::Cancelled) return r.error();
      c.result.notes.push_back("whatif.note.prepare_failed");
    } else {
      c.floatModel = std::move(r->model);
    }
  }
  c.typed = c.floatModel;
  ShapeOptions so;
  so.dims = c.io.dims;
  auto shapes = inferShapes(c.typed, so);
  if (!shapes) return shapes.error();
  return Ok{};
}

Status preparePredictor(Context& c, const Progress& p) {
  AnalysisRequest ar;
  ar.device = "cpu";
  auto device = analysisDevice(ar, slice(p, 0, 0.5));
  if (!device) return device.error();
  for (const auto& [key, f] : device->peaks) {
    if (key.second == DType::Float) c.result.fp32Gflops = f.value / 1e9;
    if (key.second == DType::Int8) c.result.int8Gops = f.value / 1e9;
  }
  c.result.bandwidthGBs = device->memoryBandwidth.value / 1e9;
  CpuProfileOptions po;
  po.optimization = GraphOptimization::All;
  po.iterations = 10;
  po.threads = defaultThreads();
  po.inputs = c.io;
  po.measureLatency = false;
  auto profile = profileOnCpu(c.typed, po, slice(p, 0.5, 1.0));
  if (!profile) return profile.error();
  // analysisDevice calibrated the host (or read its record): the same record's int8 conv speedups.
  const auto host = cachedHostCalibration();
  auto predictor = Predictor::create(c.typed, *profile, *device, host ? host->int8KernelSpeedup : decltype(host->int8KernelSpeedup){});
  if (!predictor) {
    c.result.notes.push_back("whatif.note.no_prediction");
    return Ok{};
  }
  c.predictor = std::move(*predictor);
  c.result.optimumMs = c.predictor->optimumMs();
  return Ok{};
}

Status measure(Context& c, const Progress& p) {
  WhatIfResult& r = c.result;
  std::vector<TimedVariant> timed;
  std::vector<Variant*> order;
  std::vector<std::vector<DataValue>> batched(r.variants.size());
  timed.push_back({&c.original, c.evaluation.front(), {}});
  for (size_t i = 0; i < r.variants.size(); ++i) {
    Variant& v = r.variants[i];
    if (!v.error.empty() || v.estimated) continue;
    if (v.batch > 1) batched[i] = stackSamples(c.evaluation, v.batch);
    timed.push_back({&v.model, v.batch > 1 ? std::span<const DataValue>(batched[i]) : std::span<const DataValue>(c.evaluation.front()),
                     v.settings});
    order.push_back(&v);
  }
  auto t = timeVariants(timed, c.req.timing, p);
  if (!t) return t.error();
  r.baseline = t->timings[0].stats;
  r.threads = t->measurement.threads;
  for (size_t k = 0; k < order.size(); ++k) {
    Variant& v = *order[k];
    const VariantTiming& vt = t->timings[k + 1];
    if (!vt.error.empty()) {
      v.error = vt.error;
      continue;
    }
    v.measured = true;
    v.latency = vt.stats;
    if (v.latency.median > 0) {
      v.itemsPerSecond = 1e3 * v.batch / v.latency.median;
      v.speedup = r.baseline.median * v.batch / v.latency.median;
    }
  }
  r.measurement = t->measurement;
  return Ok{};
}

void conclude(WhatIfResult& r) {
  double bestSpeedup = kFasterThan;
  std::vector<double> errors;
  for (const Variant& v : r.variants) {
    if (v.measured && v.predictedSpeedup > 0 && v.speedup > 0) errors.push_back(std::fabs(v.predictedSpeedup / v.speedup - 1));
    if (!v.measured || !v.withinBound) continue;
    if (v.kind == VariantKind::Batch && r.goal != WhatIfRequest::Goal::Throughput) continue;
    if (v.speedup >= bestSpeedup) {
      bestSpeedup = v.speedup;
      r.best = v.name;
    }
  }
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    r.predictionMedianError = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  }
}

}  // namespace

std::string_view variantKindName(VariantKind k) {
  switch (k) {
    case VariantKind::Int8Dynamic: return "int8_dynamic";
    case VariantKind::Int8Static: return "int8_static";
    case VariantKind::Int8Mixed: return "int8_mixed";
    case VariantKind::RuntimeSettings: return "runtime_settings";
    case VariantKind::Batch: return "batch";
    case VariantKind::Bf16: return "bf16";
    case VariantKind::Fp16: return "fp16";
    case VariantKind::Int8Amct: return "int8_amct";
    case VariantKind::ImplMode: return "impl_mode";
  }
  return "unknown";
}

const Variant* findVariant(const WhatIfResult& r, std::string_view name) {
  for (const Variant& v : r.variants)
    if (v.name == name) return &v;
  return nullptr;
}

std::string modelFingerprint(const Model& m) {
  auto bytes = serializeModel(m);
  if (!bytes) return {};
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : *bytes) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

nlohmann::json sessionSettingsJson(const Variant& v) {
  nlohmann::json j;
  j["graph_optimization_level"] = "ORT_ENABLE_ALL";
  j["intra_op_num_threads"] = resolvedThreads(v.settings);
  j["execution_mode"] = v.settings.parallelExecution ? "ORT_PARALLEL" : "ORT_SEQUENTIAL";
  if (v.settings.parallelExecution) j["inter_op_num_threads"] = v.settings.interOpThreads;
  j["config_entries"] = {{"session.intra_op.allow_spinning", v.settings.spinning ? "1" : "0"}};
  j["batch"] = v.batch;
  j["variant"] = v.name;
  j["fingerprint"] = v.fingerprint;
  return j;
}

Result<WhatIfResult> runWhatIf(const Model& model, const WhatIfRequest& req, const Progress& progress) {
  WhatIfResult result;
  result.model = model.path.string();
  result.device = req.device;
  result.bound = req.bound;
  result.goal = req.goal;
  if (req.device != "cpu") {
    auto s = estimateAscendWhatIf(model, req, result, progress);
    if (!s) return s.error();
    return result;
  }
  result.runtime = ortVersion();
  Context c{req, progress, result, model, {}, {}, req.inputs, {}, {}, {}, {}, {}, {}};
  if (auto s = prepareInputs(c); !s) return s.error();
  progress.report("reference", 0);
  auto reference = runSamples(c.original, {}, c.evaluation, progress);
  if (!reference) return reference.error();
  c.reference = std::move(*reference);
  if (auto s = prepareFloatModel(c, slice(progress, 0.0, 0.1)); !s) return s.error();
  if (auto s = preparePredictor(c, slice(progress, 0.1, 0.25)); !s) return s.error();
  if (progress.cancelled()) return Error::cancelled();
  if (auto s = addDynamic(c, slice(progress, 0.25, 0.35)); !s) return s.error();
  std::optional<StaticFamily> family;
  if (auto s = addStatic(c, family, slice(progress, 0.35, 0.5)); !s) return s.error();
  if (auto s = addMixed(c, family, slice(progress, 0.5, 0.6)); !s) return s.error();
  if (auto s = addRuntimeSettings(c, slice(progress, 0.6, 0.63)); !s) return s.error();
  if (auto s = addBatches(c, slice(progress, 0.63, 0.66)); !s) return s.error();
  if (auto s = addBf16(c, slice(progress, 0.66, 0.68)); !s) return s.error();
  const std::string originalFingerprint = modelFingerprint(c.original);
  for (Variant& v : result.variants) v.fingerprint = v.modelChanged ? modelFingerprint(v.model) : originalFingerprint;
  if (auto s = measure(c, slice(progress, 0.68, 1.0)); !s) return s.error();
  conclude(result);
  progress.report("done", 1);
  return result;
}

}  // namespace msa
