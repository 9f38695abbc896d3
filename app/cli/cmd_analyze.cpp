// msadvisor-cli analyze: profile (or estimate) -> rules -> a ranked report, as a check-up sheet
// on stdout, JSON, Markdown and a self-contained HTML file. The focused views `fusions`,
// `formats` and `kernels` run the same analysis and print one category's findings.
#include <cstdio>
#include <filesystem>

#include "advisor/run_analysis.h"
#include "cli.h"
#include "model/shape_inference.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_text.h"

namespace fs = std::filesystem;

namespace msa::cli {
namespace {

Category categoryOf(std::string_view verb) {
  if (verb == "fusions") return Category::Fusion;
  if (verb == "formats") return Category::Format;
  return Category::Kernel;
}

int analyzeVerb(const Args& args, std::string_view verb) {
  // A MODEL, a --profile, or both: a profile alone is the profile-only analysis.
  if (args.positional.size() > 1 || (args.positional.empty() && !args.has("profile")))
    return fail(Error::usage(std::string(verb) + " expects one MODEL, a --profile PROFILE, or both"));
  AnalysisRequest request;
  AnalyzeOptions& ao = request.options;
  if (!parseGoal(args.valueOr("goal", "latency"), ao.goal)) return fail(Error::usage("--goal is latency or throughput"));
  if (!parseScenario(args.valueOr("scenario", "edge"), ao.scenario)) return fail(Error::usage("--scenario is edge or datacenter"));
  auto top = args.intValue("top", 10, 1, 1000);
  if (!top) return fail(top.error());
  ao.topN = static_cast<int>(*top);
  ReportOptions ro;
  if (!parseLang(args.valueOr("lang", "en"), ro.lang)) return fail(Error::usage("--lang is en or zh"));
  ro.generator = std::string("msadvisor-cli ") + MSA_VERSION;
  ro.topN = ao.topN;
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());
  for (const auto& [k, v] : so.dims) request.dims[k] = v;
  request.device = args.valueOr("device", "cpu");
  if (auto path = args.value("profile")) request.profilePath = *path;
  if (auto path = args.value("fusion-result")) request.fusionResultPath = *path;
  auto iterations = args.intValue("iterations", 10, 1, 100000);
  if (!iterations) return fail(iterations.error());
  auto warmup = args.intValue("warmup", 2, 0, 100000);
  if (!warmup) return fail(warmup.error());
  auto threads = args.intValue("threads", 0, 0, 1024);
  if (!threads) return fail(threads.error());
  request.measure.iterations = static_cast<int>(*iterations);
  request.measure.warmup = static_cast<int>(*warmup);
  request.measure.threads = static_cast<int>(*threads);
  if (auto dir = args.value("inputs")) request.measure.inputsDir = *dir;
  // This host's calibration, measured now (with progress) when none is cached for it or the one
  // cached is stale; --no-calibrate keeps the cpu-host defaults, and the report says so.
  request.calibration = args.has("no-calibrate") ? CalibrationPolicy::Off : CalibrationPolicy::Auto;

  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  std::atomic<bool> cancel{false};
  Watchdog watchdog(*timeout, cancel, args.positional.empty() ? args.valueOr("profile", "") : args.positional[0]);
  const Progress progress = makeProgress(args, &cancel);
  const fs::path modelPath = args.positional.empty() ? fs::path() : fs::path(args.positional[0]);
  std::shared_ptr<const Model> model;
  if (!modelPath.empty()) {
    progress.report("loading", 0);
    auto loaded = loadInput(modelPath);
    if (!loaded) return fail(loaded.error());
    model = std::make_shared<const Model>(std::move(*loaded));
  }
  auto outcome = runAnalysis(std::move(model), request, progress);
  if (!outcome) return fail(watchdog.timedOut() ? watchdog.timeoutError() : outcome.error());
  const Report* report = &outcome->report;
  if (args.valueOr("progress", "text") == "text") {
    for (const auto& w : outcome->warnings) std::fprintf(stderr, "msadvisor-cli: warning: %s\n", shown(w).c_str());
    std::fprintf(stderr, "msadvisor-cli: %zu findings, latency %.3f ms (%s, %s run)\n", report->findings.size(),
                 report->latencyMs, report->latencySource.c_str(), report->latencyRun.c_str());
  }

  bool jsonToStdout = false;
  if (auto out = args.value("json")) {
    jsonToStdout = *out == "-";
    nlohmann::json j = reportToJson(*report, ro);
    j["warnings"] = outcome->warnings;  // what the import read as far as it was unambiguous, shape inference's
    if (int rc = writeJson(j, *out); rc != kOk) return rc;
  }
  if (auto out = args.value("html"))
    if (int rc = writeOutput(reportToHtml(*report, ro), *out); rc != kOk) return rc;
  if (auto out = args.value("md"))
    if (int rc = writeOutput(reportToMarkdown(*report, ro), *out); rc != kOk) return rc;
  if (!jsonToStdout) {
    const std::string text = verb == "analyze" ? reportToText(*report, ro) : categoryToText(*report, categoryOf(verb), ro);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return kOk;
}

int runAnalyze(const Args& args) { return analyzeVerb(args, "analyze"); }
int runFusions(const Args& args) { return analyzeVerb(args, "fusions"); }
int runFormats(const Args& args) { return analyzeVerb(args, "formats"); }
int runKernels(const Args& args) { return analyzeVerb(args, "kernels"); }

std::vector<OptionSpec> analyzeOptions() {
  return {kJsonOption,
          kDimOption,
          kProgressOption,
          {"device", 0, true, false,
           "cpu (default: measure here with ONNX Runtime), a device profile id to estimate on (ascend910b, … see "
           "'estimate --device list'), or a profile JSON file", PathUse::Reads},
          {"profile", 0, true, false,
           "analyse an imported profile instead of measuring: msprof / torch_npu folder or file (any CANN "
           "generation), ONNX Runtime or PyTorch profiler JSON, trtexec --exportProfile, Netron attachment, "
           "'profile --json' output; without a MODEL the profile alone is analysed, priced on the chip it ran on", PathUse::Reads},
          {"fusion-result", 0, true, false,
           "ATC's fusion_result.json for this model (Ascend): which graph and UB fusions really fired; by default "
           "one beside the --profile is used", PathUse::Reads},
          kTimeoutOption,
          {"goal", 0, true, false, "latency (default) or throughput: what the ranking favours"},
          {"scenario", 0, true, false, "edge (default) or datacenter"},
          {"top", 0, true, false, "bottlenecks in the TOP list (default 10)"},
          {"html", 0, true, false, "write a self-contained HTML report to PATH", PathUse::Writes},
          {"md", 0, true, false, "write a Markdown report to PATH", PathUse::Writes},
          {"lang", 0, true, false, "language of the texts: en (default) or zh"},
          {"iterations", 'n', true, false, "--device cpu: timed runs per profile (default 10)"},
          {"warmup", 0, true, false, "--device cpu: untimed runs first (default 2)"},
          {"threads", 0, true, false, "--device cpu: intra-op threads (default: the runtime's, one per physical core)"},
          {"inputs", 0, true, false, "--device cpu: folder of input files (default: seeded random)", PathUse::Reads},
          {"no-calibrate", 0, false, false,
           "--device cpu: price on the uncalibrated cpu-host defaults instead of this host's calibration "
           "(measured on first use and cached)"},
          kMaxEventsOption,
          kMaxNamesOption};
}

#define MSA_ANALYZE_OPTIONS                                                                                  \
  " [MODEL] [--device cpu|ID|PATH] [--profile FILE|DIR] [--fusion-result FILE] [--goal latency|throughput] " \
  "[--scenario edge|datacenter] "                                                                            \
  "[--top N] [--json OUT] [--html OUT] [--md OUT] [--lang en|zh] [--dim NAME=VALUE]... [--iterations N] [--threads N] " \
  "[--no-calibrate] [--max-events N] [--max-names N]"

}  // namespace

extern const Verb kAnalyzeVerb{
    "analyze", "analyze" MSA_ANALYZE_OPTIONS,
    "what is slow, why, what to do and what it is worth: ranked findings, optimum, report (text, JSON, HTML, Markdown)",
    analyzeOptions(), runAnalyze};
extern const Verb kFusionsVerb{"fusions", "fusions" MSA_ANALYZE_OPTIONS,
                               "the analysis, fusion findings only: chains to fuse, what blocks them", analyzeOptions(),
                               runFusions};
extern const Verb kFormatsVerb{"formats", "formats" MSA_ANALYZE_OPTIONS,
                               "the analysis, layout/format conversion findings only", analyzeOptions(), runFormats};
extern const Verb kKernelsVerb{"kernels", "kernels" MSA_ANALYZE_OPTIONS,
                               "the analysis, kernel selection findings only: operators far below their roofline",
                               analyzeOptions(), runKernels};

}  // namespace msa::cli
