// msadvisor-cli optimize: rewrite a model at a level, verify it against the original, measure it,
// and write it as ONNX (atomically, never over the input).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "cli.h"
#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "optimize/optimize_report.h"
#include "optimize/optimizer.h"
#include "report/report_format.h"

namespace fs = std::filesystem;

namespace msa::cli {
namespace {

// The model file and every external data file it reads, in bytes.
int64_t fileBytes(const Model& m, const fs::path& file) {
  std::error_code ec;
  int64_t total = static_cast<int64_t>(fs::file_size(file, ec));
  if (ec) return -1;
  std::set<std::string> locations;
  m.graph.forEachGraph([&](const Graph& g, int) {
    for (const Tensor& t : g.initializers)
      if (t.external) locations.insert(t.external->location);
  });
  for (const auto& loc : locations) {
    auto n = fs::file_size(file.parent_path() / loc, ec);
    if (!ec) total += static_cast<int64_t>(n);
  }
  return total;
}

std::string mib(int64_t bytes) {
  char buf[32];
  if (bytes < 0) return "?";
  if (bytes < (int64_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

// Findings from an `analyze --json` report, to name what each rewrite resolves.
Result<std::vector<Finding>> loadFindings(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::model("cannot read the findings report", path);
  nlohmann::json j;
  try {
    in >> j;
    std::vector<Finding> out;
    for (const auto& f : j.at("findings")) {
      Finding x;
      x.id = f.at("id").get<std::string>();
      x.rule = f.value("rule", "");
      x.nodes = f.value("nodes", std::vector<std::string>{});
      if (f.contains("fix") && f["fix"].is_string()) x.fixPass = f["fix"].get<std::string>();
      x.legal = f.value("legal", true);
      out.push_back(std::move(x));
    }
    return out;
  } catch (const std::exception& e) {
    return Error::model(std::string("not an analyze report: ") + e.what(), path);
  }
}

void printReport(const OptimizeResult& r, const OptimizeMeasurement& m, int64_t sizeBefore, int64_t sizeAfter, bool written,
                 const std::string& out) {
  std::printf("level %s: %zu rewrite(s) applied in %d round(s), %zu rolled back\n", std::string(levelName(r.level)).c_str(),
              r.applied.size(), r.rounds, r.rolledBack.size());
  for (const auto& a : r.applied) {
    std::string before, after;
    for (const auto& n : a.nodesBefore) before += (before.empty() ? "" : " + ") + shown(n);
    for (const auto& n : a.nodesAfter) after += (after.empty() ? "" : " + ") + shown(n);
    if (before.size() > 90) before = before.substr(0, 87) + "...";
    if (after.size() > 60) after = after.substr(0, 57) + "...";
    std::printf("  %-26s %s -> %s%s\n", a.pass.c_str(), before.c_str(), after.empty() ? "(removed)" : after.c_str(),
                a.runtimeSpecific ? "  [runtime-specific]" : "");
  }
  for (const auto& b : r.rolledBack)
    std::printf("  ROLLED BACK %s at %s: %s\n", b.rewrite.pass.c_str(),
                b.rewrite.nodesBefore.empty() ? "?" : shown(b.rewrite.nodesBefore[0]).c_str(), shown(b.reason).c_str());
  for (const auto& o : r.opsetChanges) {
    const char* domain = o.domain.empty() ? "ai.onnx" : o.domain.c_str();
    if (o.from == 0)
      std::printf("  opset import %s version %lld added (needed by %s)\n", domain, static_cast<long long>(o.to), o.pass.c_str());
    else
      std::printf("  opset %s raised %lld -> %lld (needed by %s)\n", domain, static_cast<long long>(o.from),
                  static_cast<long long>(o.to), o.pass.c_str());
  }
  for (const auto& a : r.advice) std::printf("  advice %s: %s\n", shown(a.finding).c_str(), shown(a.reason).c_str());
  for (const auto& w : r.warnings) std::printf("  warning: %s\n", shown(w).c_str());
  std::printf("checker: %s", !r.checker.ran ? "skipped" : r.checker.passed ? "passed" : ("FAILED: " + shown(r.checker.message)).c_str());
  for (const auto& s : r.checker.skipped) std::printf("; %s", shown(s).c_str());
  std::printf("\n");
  if (r.verification) {
    const auto& v = *r.verification;
    // What was compared: which outputs, at which runtime settings, on which inputs, within what.
    std::set<std::string> names, runtimes;
    for (const auto& e : v.outputs) {
      names.insert(e.name);
      runtimes.insert(e.runtime);
    }
    std::string settings;
    for (const auto& rt : runtimes) settings += (settings.empty() ? "" : " and ") + rt;
    double toMagnitude = 0;
    for (const auto& e : v.outputs) toMagnitude = std::max(toMagnitude, e.maxErrorToMagnitude);
    // Passed on outputs that could not have failed is not a match: said so, with what to do.
    const std::string verdict = !v.passed ? "FAILED: " + v.failure : v.inconclusive ? "INCONCLUSIVE: " + inconclusiveText(v, Lang::En) : "passed";
    std::printf("verification: %s: %zu output(s) of the optimized model compared with the original's, ONNX Runtime "
                "optimization %s, on %s; tolerance atol %.0e, rtol %.0e (an element fails when it exceeds both; an output "
                "when its max abs error exceeds rtol x its largest magnitude); max abs error %.3g, max rel error %.3g, "
                "max abs error / largest magnitude %.3g\n",
                verdict.c_str(), names.size(), settings.empty() ? "-" : settings.c_str(), r.inputsSource.c_str(),
                v.tolerance.atol, v.tolerance.rtol, v.maxAbsError, v.maxRelError, toMagnitude);
  } else {
    std::printf("verification: %s\n", r.verificationSkipped.c_str());
  }
  std::set<std::string> types;
  for (const auto& [k, v] : r.before.opCounts) types.insert(k);
  for (const auto& [k, v] : r.after.opCounts) types.insert(k);
  int w = 12;  // wide enough for "SkipLayerNormalization (com.microsoft)"
  for (const auto& t : types) w = std::max(w, static_cast<int>(t.size()));
  std::printf("\n  %-*s %8s %8s %8s\n", w, "op type", "before", "after", "change");
  for (const auto& t : types) {
    long long b = r.before.opCounts.count(t) ? static_cast<long long>(r.before.opCounts.at(t)) : 0;
    long long a = r.after.opCounts.count(t) ? static_cast<long long>(r.after.opCounts.at(t)) : 0;
    std::printf("  %-*s %8lld %8lld %+8lld\n", w, shown(t).c_str(), b, a, a - b);
  }
  std::printf("  %-*s %8zu %8zu %+8lld\n", w, "nodes", r.before.nodes, r.after.nodes,
              static_cast<long long>(r.after.nodes) - static_cast<long long>(r.before.nodes));
  std::printf("  %-*s %8s %8s   (file; weights %s -> %s)\n", w, "model size", mib(sizeBefore).c_str(),
              written ? mib(sizeAfter).c_str() : "-", mib(r.before.weightBytes).c_str(), mib(r.after.weightBytes).c_str());
  if (!written) std::printf("  (nothing written)\n");
  if (m.latency) {
    const auto& l = *m.latency;
    // The deployed configuration (ONNX Runtime's optimizer on, what InferenceSession does) first;
    // a speedup whose interval holds 1 is said to be noise, never printed as a result.
    std::printf("measured speedup as deployed (ORT_ENABLE_ALL): %s (original %.3f ms, optimized %.3f ms)\n",
                report::speedupText(l.speedupAll(), l.speedupAllNoise, Lang::En).c_str(), l.originalAll.median,
                l.optimizedAll.median);
    if (l.measurement.contended) std::printf("%s\n", report::busyText(l.measurement, Lang::En).c_str());
    std::printf("latency (wall time, median of %d runs per configuration in turns, %d intra-op threads, ms): original %.3f / "
                "optimized %.3f at ORT_ENABLE_ALL, %.3f / %.3f with ORT disabled\n",
                l.iterations, l.threads, l.originalAll.median, l.optimizedAll.median, l.originalDisabled.median,
                l.optimizedDisabled.median);
    std::printf("measured speedup %.3fx (ORT all), %.3fx (ORT disabled); original(all)/optimized(disabled) %.3f\n",
                l.speedupAll(), l.speedupDisabled(), l.allVsOptimizedDisabled());
    std::printf("from the 10th percentiles: %.3fx, %.3fx; %.3f\n",
                l.speedupDisabled(true), l.speedupAll(true), l.allVsOptimizedDisabled(true));
  }
  if (m.estimate && m.estimate->deployedSpeedup > 0)
    std::printf("estimated speedup as deployed (ORT_ENABLE_ALL) %.3fx: the original's runtime kernels that still run\n",
                m.estimate->deployedSpeedup);
  if (m.estimate) std::printf("estimated speedup %.3fx with ORT disabled (%s)\n", m.estimate->speedup, shown(m.estimate->method).c_str());
  else if (!m.estimateError.empty()) std::printf("estimated speedup: none (%s)\n", shown(m.estimateError).c_str());
  if (written) std::printf("wrote %s\n", shown(out).c_str());
}

int listPasses() {
  for (const auto& p : builtinPasses()) {
    const PassInfo& i = p->info();
    std::printf("%-35.*s %-12.*s %s%.*s\n", static_cast<int>(i.id.size()), i.id.data(),
                static_cast<int>(levelName(i.level).size()), levelName(i.level).data(),
                i.runtimeSpecific ? "[runtime-specific] " : "", static_cast<int>(i.summary.size()), i.summary.data());
  }
  return kOk;
}

// --measure: the four timings and the estimate (core/optimize/optimize_report.h).
Result<OptimizeMeasurement> measure(const Args& args, const Model& original, const OptimizeResult& r, const InputOptions& io,
                                    const Progress& progress) {
  auto iterations = args.intValue("iterations", 30, 1, 100000);
  if (!iterations) return iterations.error();
  auto threads = args.intValue("threads", 0, 0, 1024);
  if (!threads) return threads.error();
  MeasureOptimizationOptions mo;
  mo.iterations = static_cast<int>(*iterations);
  mo.threads = static_cast<int>(*threads);
  mo.inputs = io;
  if (auto dir = args.value("inputs")) mo.inputsDir = *dir;
  return measureOptimization(original, r, mo, progress);
}

int runOptimize(const Args& args) {
  if (args.has("list-passes")) return listPasses();
  if (args.positional.size() != 1) return fail(Error::usage("optimize expects one MODEL"));
  auto out = args.value("output");
  if (!out) return fail(Error::usage("optimize needs -o OUT, the file to write"));
  OptimizeOptions o;
  if (!parseLevel(args.valueOr("level", "conservative"), o.level))
    return fail(Error::usage("--level is conservative, moderate or aggressive, not '" + args.valueOr("level", "") + "'"));
  o.only = splitList(args.values("only"));
  o.skip = splitList(args.values("skip"));
  // Outputs are compared with the original unless --no-verify says not to (--verify is the
  // default, kept as a flag so that scripts written for it still run).
  if (args.has("verify") && args.has("no-verify")) return fail(Error::usage("--verify and --no-verify contradict each other"));
  const bool verify = !args.has("no-verify");
  o.verify = verify && !args.has("no-rollback");
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());
  for (const auto& [k, v] : so.dims) o.verification.inputs.dims[k] = v;
  o.staticDims = args.has("static");
  if (o.staticDims && so.dims.empty()) return fail(Error::usage("--static binds the dims given with --dim; give at least one"));
  auto seed = args.intValue("seed", 1234, 0, std::numeric_limits<long long>::max());
  if (!seed) return fail(seed.error());
  o.verification.inputs.seed = static_cast<uint64_t>(*seed);
  if (auto dir = args.value("inputs")) o.verification.inputsDir = *dir;
  auto atol = args.doubleValue("atol", toleranceFor(o.level).atol);
  auto rtol = args.doubleValue("rtol", toleranceFor(o.level).rtol);
  if (!atol || !rtol) return fail(!atol ? atol.error() : rtol.error());
  o.verification.tolerance = toleranceFor(o.level);
  o.verification.tolerance.atol = *atol;
  o.verification.tolerance.rtol = *rtol;
  o.verification.tolerance.relToMagnitude = *rtol;
  o.toleranceOverride = true;
  std::vector<Finding> findings;
  if (auto f = args.value("findings")) {
    auto loaded = loadFindings(*f);
    if (!loaded) return fail(loaded.error());
    findings = std::move(*loaded);
    o.findings = findings;
  }
  if (auto s = selectPasses(o); !s) return fail(s.error());

  std::error_code ec;
  // A folder that is not there fails now, not after minutes of optimizing.
  if (fs::path dir = fs::path(*out).parent_path(); !dir.empty() && !fs::is_directory(dir, ec))
    return fail(Error::model("cannot write there: folder '" + dir.string() + "' does not exist", *out));

  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  std::atomic<bool> cancel{false};
  Watchdog watchdog(*timeout, cancel, args.positional[0]);  // bounds --verify and --measure (the runtime)
  Progress progress = makeProgress(args, &cancel);
  const auto failed = [&](const Error& e) { return fail(watchdog.timedOut() ? watchdog.timeoutError() : e); };
  progress.report("loading", 0);
  auto model = loadInput(args.positional[0]);
  if (!model) return fail(model.error());
  SaveOptions save;
  // Weights that were external stay external, even when every external tensor was rewritten.
  bool sourceExternal = false;
  model->graph.forEachGraph([&](const Graph& g, int) {
    for (const Tensor& t : g.initializers) sourceExternal = sourceExternal || t.external.has_value();
  });
  if (sourceExternal) save.external = SaveOptions::External::Always;
  // The data file the export generates (beside -o, checked with the options) lands on nothing the
  // run reads, checked before any work.
  const std::vector<PlannedOutput> saved = savedFiles(*model, *out, save, "-o");
  for (size_t i = 1; i < saved.size(); ++i)
    if (auto s = checkPlannedOutput(saved[i].what, saved[i].path.string()); !s) return fail(s.error());
  const int64_t sizeBefore = fileBytes(*model, args.positional[0]);
  auto result = optimize(*model, o, progress);
  if (!result) return failed(result.error());
  OptimizeResult& r = *result;

  // Nothing is shipped that failed: the checker, or the outputs when they were compared.
  const bool sourceFailsChecker = r.originalChecker.ran && !r.originalChecker.passed;
  bool ok = !r.checker.ran || r.checker.passed || sourceFailsChecker;
  if (verify && args.has("no-rollback")) {
    VerifyOptions vo = o.verification;
    auto v = Verifier::create(*model, vo, progress);
    if (!v) return failed(v.error());
    r.verification = v->check(r.model, !sourceFailsChecker);
    r.inputsSource = v->inputsSource();
    r.verificationSkipped.clear();
  }
  if (r.verification) ok = ok && r.verification->passed;

  bool written = false;
  int64_t sizeAfter = -1;
  if (ok) {
    if (auto s = saveModel(r.model, *out, save); !s) return fail(s.error());
    written = true;
    sizeAfter = static_cast<int64_t>(fs::file_size(*out, ec));
    if (auto data = fs::path(*out).concat(".data"); fs::exists(data, ec)) sizeAfter += static_cast<int64_t>(fs::file_size(data, ec));
  }

  OptimizeMeasurement m;
  if (ok && args.has("measure")) {
    auto measured = measure(args, *model, r, o.verification.inputs, progress);
    if (!measured) return failed(measured.error());
    m = std::move(*measured);
  }
  OptimizeReportContext context{args.positional[0], written ? *out : std::string(), sizeBefore, sizeAfter};
  nlohmann::json j = optimizeReportJson(r, m, context);
  if (auto path = args.value("json")) {
    if (int rc = writeJson(j, *path); rc != kOk) return rc;
  }
  if (args.valueOr("json", "") != "-") printReport(r, m, sizeBefore, sizeAfter, written, *out);
  if (!ok) {
    return fail({ErrorKind::Verification,
                 r.checker.ran && !r.checker.passed ? "the ONNX checker rejects the result: " + r.checker.message
                                                     : "the optimized model does not match the original: " + r.verification->failure +
                                                           "; nothing written",
                 args.positional[0], {}});
  }
  return kOk;
}

}  // namespace

extern const Verb kOptimizeVerb{
    "optimize",
    "optimize MODEL -o OUT [--level conservative|moderate|aggressive] [--only PASS,...] [--skip PASS,...] [--no-verify] "
    "[--no-rollback] [--inputs DIR] [--dim NAME=VALUE]... [--static] [--measure] [--findings REPORT.json] [--json REPORT]\n"
    "       msadvisor-cli optimize --list-passes",
    "rewrite a model (fold, cancel, fuse), verify it against the original and write it as ONNX",
    {kJsonOption,
     kDimOption,
     kProgressOption,
     {"output", 'o', true, false, "the optimized model to write (never the input file)", PathUse::Writes},
     {"level", 0, true, false, "conservative (exact, default), moderate (+ float reassociation), aggressive (+ runtime-specific)"},
     {"only", 0, true, true, "run only these passes (comma-separated, repeatable)"},
     {"skip", 0, true, true, "never run these passes (comma-separated, repeatable)"},
     kTimeoutOption,
     {"verify", 0, false, false, "compare outputs with the original after every pass; roll back what breaks them (the default)"},
     {"no-verify", 0, false, false, "do not compare outputs: only the ONNX checker guards what is written"},
     {"no-rollback", 0, false, false, "apply everything, verify once at the end, exit 4 if it fails"},
     {"inputs", 0, true, false, "folder of inputs for verification: NAME.pb / NAME.npy (default: seeded random)", PathUse::Reads},
     {"static", 0, false, false, "write the --dim values into the model's inputs first: shape arithmetic folds and "
                                 "shape-dependent fusions apply; the result runs at those dims only"},
     {"seed", 0, true, false, "seed of the random inputs (default 1234)"},
     {"atol", 0, true, false, "absolute tolerance (default: the level's)"},
     {"rtol", 0, true, false, "relative tolerance (default: the level's)"},
     {"measure", 0, false, false, "time original and optimized (ORT disabled and all) and estimate the speedup"},
     {"iterations", 'n', true, false, "timed runs per configuration with --measure (default 30)"},
     {"threads", 0, true, false, "intra-op threads for --measure (default: the runtime's)"},
     {"findings", 0, true, false, "an analyze --json report: name the finding each rewrite resolves", PathUse::Reads},
     {"list-passes", 0, false, false, "list every pass with its level and summary"}},
    runOptimize,
};

}  // namespace msa::cli
