// msadvisor-cli what-if: the variants ONNX Runtime does not make by itself (int8 dynamic, static
// and mixed, session settings, batch, bf16), built, checked for accuracy against the original
// and measured beside it as deployed; --export writes one of them (measured, within the bound,
// never over the input) with its session settings as OUT.session.json.
#include <cstdio>
#include <filesystem>

#include "cli.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "whatif/whatif.h"
#include "whatif/whatif_json.h"
#include "report/report_format.h"
#include "util/units.h"

namespace fs = std::filesystem;

namespace msa::cli {
namespace {

// "1.55×" (formatRatio), right-aligned in `width` terminal columns ("×" is one column, two bytes).
std::string ratio(double x, size_t width = 0) {
  const std::string text = x > 0 ? formatRatio(x) : "-";
  return width ? report::fitColumn(text, width, false, true) : text;
}

std::string fixed(double x, const char* fmt) {
  if (x < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, x);
  return b;
}

std::string boundFailure(const Verdict& v) {
  char value[32], limit[32];
  std::snprintf(value, sizeof value, "%.5g", v.value);
  std::snprintf(limit, sizeof limit, "%.5g", v.limit);
  // A cosine is told from 1 by its last digits ("%.5g" read 0.9999963 as "1").
  if (v.failedTerm == "cosine")
    return uiText("whatif.bound_failed.cosine", Lang::En, {{"value", formatSimilarity(v.value)}, {"limit", formatSimilarity(v.limit)}});
  return uiText("whatif.bound_failed." + v.failedTerm, Lang::En, {{"value", value}, {"limit", limit}});
}

void printReport(const WhatIfResult& r) {
  std::printf("%s — %s", r.model.c_str(), r.runtime.c_str());
  if (!r.estimated) std::printf(", %d threads", r.threads);
  std::printf("\n%s %.3f ms", r.estimated ? "estimated float32:" : "original as deployed (ORT_ENABLE_ALL):", r.baseline.median);
  if (!r.estimated) std::printf(" (p10 %.3f, p90 %.3f)", r.baseline.p10, r.baseline.p90);
  if (r.optimumMs > 0) std::printf("; optimum %.3f ms in float32", r.optimumMs);
  std::printf("\n");
  if (!r.estimated) {
    std::printf("inputs: %s; %d calibration and %d evaluation samples; bound %s\n",
                r.randomInputs ? "seeded random" : r.inputsSource.c_str(), r.calibrationSamples, r.evaluationSamples,
                boundText(r.bound).c_str());
    std::printf("host: %.0f GFLOP/s float32, %.0f GOP/s int8, %.1f GB/s (calibrated)\n", r.fp32Gflops, r.int8Gops, r.bandwidthGBs);
  }
  std::printf("\n  %-28s %8s %9s %24s %9s %7s %11s  %s\n", "variant", "speedup", "predicted",
              r.estimated ? "estimated ms" : "latency ms (p10-p90)", "cosine", "top-1", "max|d|/rng", "bound");
  for (const Variant& v : r.variants) {
    std::string name = v.name;
    if (!v.calibrationMethod.empty()) name += " (" + v.calibrationMethod + ")";
    std::string latency = "-";
    if (v.measured || v.estimated) {
      char b[64];
      if (v.estimated) std::snprintf(b, sizeof b, "%.3f", v.latency.median);
      else std::snprintf(b, sizeof b, "%.3f (%.3f-%.3f)", v.latency.median, v.latency.p10, v.latency.p90);
      latency = b;
    }
    std::string bound = v.estimated ? "not measured" : !v.error.empty() ? "cannot run" : !v.accuracy ? "-" : v.withinBound ? "within" : boundFailure(v.verdict);
    std::printf("  %-28s %s %s %24s %9s %7s %11s  %s\n", name.c_str(), ratio(v.measured || v.estimated ? v.speedup : 0, 8).c_str(),
                ratio(v.predictedSpeedup, 9).c_str(), latency.c_str(), v.accuracy ? formatSimilarity(v.accuracy->cosine).c_str() : "-",
                v.accuracy ? fixed(v.accuracy->top1, "%.3f").c_str() : "-",
                v.accuracy ? fixed(v.accuracy->maxRelToRange, "%.4f").c_str() : "-", bound.c_str());
    if (v.kind == VariantKind::Batch && v.measured) std::printf("  %-28s %.1f items/s\n", "", v.itemsPerSecond);
    if (!v.floatLayers.empty()) std::printf("  %-28s %zu layer(s) kept in float, %zu in int8\n", "", v.floatLayers.size(), v.int8Layers.size());
    if (!v.option.empty()) std::printf("  %-28s %s\n", "", v.option.c_str());
    if (!v.error.empty()) std::printf("  %-28s %s\n", "", v.error.c_str());
    for (const auto& n : v.notes) std::printf("  %-28s %s\n", "", uiText(n, Lang::En).c_str());
  }
  std::printf("\n");
  if (!r.best.empty()) {
    const Variant* b = findVariant(r, r.best);
    std::printf("best within the bound: %s, %s measured (%s predicted)\n", r.best.c_str(), ratio(b->speedup).c_str(),
                ratio(b->predictedSpeedup).c_str());
  } else if (!r.estimated) {
    std::printf("best within the bound: none measured faster than the original\n");
  }
  if (r.predictionMedianError >= 0) std::printf("predicted vs measured: median error %s\n", formatPercent(r.predictionMedianError).c_str());
  if (!r.estimated)
    std::printf("measured %s: the runtime's threads got %s of the CPU they asked for; load average %.2f\n",
                r.measurement.contended ? "on a busy machine" : "on a quiet machine", formatPercent(r.measurement.cpuShare).c_str(),
                r.measurement.load);
  if (!r.batchHandling.empty()) std::printf("batch: %s\n", uiText(r.batchHandling, Lang::En).c_str());
  for (const auto& n : r.notes) std::printf("note: %s\n", uiText(n, Lang::En).c_str());
}

int runWhatIf(const Args& args) {
  if (args.positional.size() != 1) return fail(Error::usage("what-if expects one MODEL"));
  WhatIfRequest req;
  if (auto b = args.value("bound")) {
    auto bound = parseBound(*b);
    if (!bound) return fail(bound.error());
    req.bound = *bound;
  }
  const std::string goal = args.valueOr("goal", "latency");
  if (goal != "latency" && goal != "throughput") return fail(Error::usage("--goal is latency or throughput, not '" + goal + "'"));
  req.goal = goal == "throughput" ? WhatIfRequest::Goal::Throughput : WhatIfRequest::Goal::Latency;
  req.device = args.valueOr("device", "cpu");
  if (auto dir = args.value("inputs")) req.inputsDir = *dir;
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());
  for (const auto& [k, v] : so.dims) req.inputs.dims[k] = v;
  auto seed = args.intValue("seed", 1234, 0, 1LL << 62);
  auto samples = args.intValue("samples", 8, 1, 1000);
  auto budget = args.doubleValue("budget", 40);
  if (!seed || !samples || !budget) return fail(!seed ? seed.error() : !samples ? samples.error() : budget.error());
  req.inputs.seed = static_cast<uint64_t>(*seed);
  req.randomSamples = static_cast<int>(*samples);
  req.timing.budgetSeconds = *budget;
  if (args.has("batch")) {
    req.batches.clear();
    for (const auto& b : splitList(args.values("batch"))) {
      char* end = nullptr;
      const long v = std::strtol(b.c_str(), &end, 10);
      if (*end || v < 2 || v > 4096) return fail(Error::usage("--batch takes sizes from 2 to 4096, not '" + b + "'"));
      req.batches.push_back(static_cast<int>(v));
    }
  }
  for (const auto& o : splitList(args.values("only"))) req.only.insert(o);

  const auto exportName = args.value("export");
  const auto out = args.value("output");
  if (exportName.has_value() != out.has_value()) return fail(Error::usage("--export NAME and -o OUT go together"));
  if (exportName) {
    req.only = {*exportName};
    if (req.device != "cpu") return fail(Error::usage("--export writes a measured variant: estimated (Ascend) variants have no model to write"));
    std::error_code ec;
    if (fs::path dir = fs::path(*out).parent_path(); !dir.empty() && !fs::is_directory(dir, ec))
      return fail(Error::model("cannot write there: folder '" + dir.string() + "' does not exist", *out));
    if (auto s = checkPlannedOutput("the session settings (OUT.session.json)", *out + ".session.json"); !s) return fail(s.error());
  }

  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  std::atomic<bool> cancel{false};
  Watchdog watchdog(*timeout, cancel, args.positional[0]);
  Progress progress = makeProgress(args, &cancel);
  const auto failed = [&](const Error& e) { return fail(watchdog.timedOut() ? watchdog.timeoutError() : e); };
  progress.report("loading", 0);
  auto model = loadInput(args.positional[0]);
  if (!model) return fail(model.error());
  SaveOptions save;
  if (exportName) {
    const std::vector<PlannedOutput> saved = savedFiles(*model, *out, save, "-o");
    for (size_t i = 1; i < saved.size(); ++i)
      if (auto s = checkPlannedOutput(saved[i].what, saved[i].path.string()); !s) return fail(s.error());
  }
  auto result = runWhatIf(*model, req, progress);
  if (!result) return failed(result.error());
  nlohmann::json j = whatIfJson(*result);

  int rc = kOk;
  std::string exportMessage;
  if (exportName) {
    const Variant* v = findVariant(*result, *exportName);
    if (!v) {
      std::string names;
      for (const auto& x : result->variants) names += (names.empty() ? "" : ", ") + x.name;
      return fail(Error::usage("no variant '" + *exportName + "' applies to this model" + (names.empty() ? "" : " (built: " + names + ")")));
    }
    if (!v->measured) return fail(Error::device("variant '" + v->name + "' was not measured: " + (v->error.empty() ? "the runtime cannot run it" : v->error)));
    if (!v->withinBound) {
      rc = fail({ErrorKind::Verification,
                 "variant '" + v->name + "' is outside the accuracy bound (" + boundFailure(v->verdict) + "); nothing written",
                 args.positional[0], {}});
    } else {
      if (auto s = saveModel(v->model, *out, save); !s) return fail(s.error());
      if (int w = writeOutput(sessionSettingsJson(*v).dump(2) + "\n", *out + ".session.json"); w != kOk) return w;
      j["exported"] = {{"variant", v->name}, {"path", *out}, {"session_settings", *out + ".session.json"}, {"fingerprint", v->fingerprint}};
      char b[160];
      std::snprintf(b, sizeof b, "wrote %s (%s, %s measured, within the bound) and %s.session.json\n", out->c_str(), v->name.c_str(),
                    formatRatio(v->speedup).c_str(), out->c_str());
      exportMessage = b;
    }
  }
  if (auto path = args.value("json"))
    if (int w = writeJson(j, *path); w != kOk) return w;
  if (args.valueOr("json", "") != "-") {
    printReport(*result);
    if (!exportMessage.empty()) std::printf("%s", exportMessage.c_str());
  }
  return rc;
}

}  // namespace

extern const Verb kWhatIfVerb{
    "what-if",
    "what-if MODEL [--inputs DIR] [--bound cosine=0.999,top1=0.99] [--goal latency|throughput] [--device cpu|ID] "
    "[--dim NAME=VALUE]... [--only NAME,...] [--json PATH]\n"
    "       msadvisor-cli what-if MODEL --export NAME -o OUT [--inputs DIR] [--bound ...]",
    "build int8, session-setting, batch and bf16 variants, check their accuracy and measure them against the original",
    {kJsonOption,
     kDimOption,
     kProgressOption,
     kTimeoutOption,
     {"inputs", 0, true, false, "folder of inputs for calibration and accuracy: NAME.npy/.pb, *.npz, or subfolders (default: seeded random)",
      PathUse::Reads},
     {"bound", 0, true, false, "accuracy bound: cosine=MIN,top1=MIN[,max_rel=MAX] (default cosine=0.999,top1=0.99)"},
     {"goal", 0, true, false, "latency (default) or throughput (adds batch sizes)"},
     {"device", 0, true, false, "cpu (measure here, default) or an Ascend device profile id/JSON (estimate)"},
     {"only", 0, true, true, "build only these variants (names or kinds, comma-separated)"},
     {"batch", 0, true, true, "batch sizes for the throughput goal (default 2,4,8,16)"},
     {"samples", 0, true, false, "random inputs: calibration samples, and as many for accuracy (default 8)"},
     {"seed", 0, true, false, "seed of the random inputs (default 1234)"},
     {"budget", 0, true, false, "seconds of timing at most, after three rounds (default 40)"},
     {"export", 0, true, false, "write this variant (measured, within the bound) with -o"},
     {"output", 'o', true, false, "the variant's model to write with --export (never the input); its settings go to OUT.session.json",
      PathUse::Writes}},
    runWhatIf,
};

}  // namespace msa::cli
