// msadvisor-cli profile: per-operator latency of a model on a device, or an ONNX Runtime trace
// converted. The GUI runs this as a child process: progress lines on stderr (--progress json),
// SIGTERM cancels, --timeout bounds it, and a failure still leaves an error record at --json.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "cli.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/acl_profiler.h"
#include "profile/node_mapping.h"
#include "report/report_format.h"
#include "profile/ort_profiler.h"
#include "profile/ort_trace.h"
#include "profile/profile_import.h"

namespace fs = std::filesystem;

namespace msa::cli {
namespace {

std::string kindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Model: return "model";
    case ErrorKind::Device: return "device";
    case ErrorKind::Verification: return "verification";
    case ErrorKind::Cancelled: return "cancelled";
  }
  return "model";
}

// A failure after the arguments were understood: the error record goes where the profile would
// have gone, so a parent process always finds an answer there.
int failWithRecord(const Args& args, const Error& e, const std::string& kind = {}) {
  if (auto path = args.value("json")) {
    nlohmann::json j{{"error", {{"kind", kind.empty() ? kindName(e.kind) : kind}, {"message", e.describe()}}}};
    writeJson(j, *path);
  }
  return fail(e);
}

void printTable(const ProfileData& p, const std::string& model) {
  std::printf("%s on %s (%s, optimization %s, %d threads, %d iterations)\n", shown(model).c_str(), shown(p.device).c_str(),
              shown(p.runtime).c_str(), p.optimization.empty() ? "unknown" : p.optimization.c_str(), p.threads, p.iterations);
  const double sum = p.sumNodeMedians();
  std::printf("  end-to-end median %.3f ms (p10 %.3f, p90 %.3f); sum of node medians %.3f ms (ratio %.2f)\n",
              p.latencyMs.median, p.latencyMs.p10, p.latencyMs.p90, sum, p.latencyMs.median > 0 ? sum / p.latencyMs.median : 0.0);
  // How the end-to-end runs were timed, and whether the machine let them run.
  if (p.measurement.measured) {
    if (p.measurement.contended) std::printf("  %s\n", report::busyText(p.measurement, Lang::En).c_str());
    std::printf("  %s\n", report::measurementText(p.measurement, Lang::En).c_str());
  }
  std::vector<const NodeProfile*> order;
  for (const auto& n : p.nodes)
    if (n.parent.empty()) order.push_back(&n);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->timeMs.median > b->timeMs.median; });
  std::printf("  %-48s %-20s %10s %10s %10s\n", "node", "op", "median ms", "p10", "p90");
  for (size_t i = 0; i < order.size() && i < 25; ++i) {
    const NodeProfile& n = *order[i];
    const std::string full = shown(n.name);
    std::string name = full.size() > 48 ? "…" + full.substr(full.size() - 46) : full;
    std::printf("  %-48s %-20s %10.3f %10.3f %10.3f%s\n", name.c_str(), shown(n.opType).c_str(), n.timeMs.median, n.timeMs.p10,
                n.timeMs.p90, n.inserted ? "  (inserted)" : "");
  }
  if (order.size() > 25) std::printf("  … %zu more (use --json for all)\n", order.size() - 25);
  if (!p.unmatched.empty()) std::printf("  %zu runtime node(s) match no IR node\n", p.unmatched.size());
}

nlohmann::json resultJson(const ProfileData& p, const std::string& model) {
  nlohmann::json j = toJson(p);
  j["model"] = model;
  const double sum = p.sumNodeMedians();
  j["node_sum_to_latency_ratio"] = p.latencyMs.median > 0 ? sum / p.latencyMs.median : 0.0;
  return j;
}

int runImport(const Args& args, const std::string& tracePath, Progress& progress) {
  if (args.positional.size() != 1) return fail(Error::usage("profile --import TRACE expects the MODEL it ran"));
  // Ascend msprof / torch_npu exports, Netron attachments and our own profiles: the importers
  // (profile_import.h). ONNX Runtime traces, and anything unrecognised, take the path below.
  if (auto importer = findProfileImporter(tracePath); importer && (*importer)->id != "onnxruntime") {
    auto model = loadInput(args.positional[0]);
    if (!model) return failWithRecord(args, model.error());
    auto p = importProfile(tracePath, *model, progress);
    if (!p) return failWithRecord(args, p.error());
    if (auto out = args.value("json")) return writeJson(resultJson(*p, args.positional[0]), *out);
    printTable(*p, args.positional[0]);
    return kOk;
  }
  auto skip = args.intValue("warmup", 0, 0, 1000000);
  if (!skip) return fail(skip.error());
  progress.report("import", 0);
  auto trace = loadOrtTrace(tracePath);
  if (!trace) return failWithRecord(args, trace.error());
  auto p = profileFromTrace(*trace, static_cast<int>(*skip), tracePath);
  if (!p) return failWithRecord(args, p.error());
  auto model = loadInput(args.positional[0]);
  if (!model) return failWithRecord(args, model.error());
  std::optional<Model> runtimeGraph;
  if (auto rg = args.value("runtime-graph")) {
    auto m = loadInput(*rg);
    if (!m) return failWithRecord(args, m.error());
    runtimeGraph = std::move(*m);
  }
  mapToIr(*p, *model, runtimeGraph ? &*runtimeGraph : nullptr);
  p->device = "cpu";
  p->runtime = "onnxruntime";
  p->source = "imported:" + fs::path(tracePath).filename().string();
  p->optimization = args.valueOr("optimization", "");
  progress.report("import", 1);
  if (auto out = args.value("json")) return writeJson(resultJson(*p, args.positional[0]), *out);
  printTable(*p, args.positional[0]);
  return kOk;
}

int runProfile(const Args& args) {
  std::atomic<bool> cancel{false};
  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  Watchdog watchdog(*timeout, cancel, args.positional.empty() ? args.valueOr("import", "") : args.positional[0],
                    [&args](const Error& e, const std::string& kind) { failWithRecord(args, e, kind); });
  Progress progress = makeProgress(args, &cancel);

  if (auto imp = args.value("import")) return runImport(args, *imp, progress);
  if (args.positional.size() != 1) return fail(Error::usage("profile expects one MODEL"));

  const std::string device = args.valueOr("device", "cpu");
  if (device != "cpu" && device != "acl") return fail(Error::usage("--device is cpu or acl, not '" + device + "'"));
  CpuProfileOptions o;
  auto iterations = args.intValue("iterations", o.iterations, 1, 100000);
  if (!iterations) return fail(iterations.error());
  auto warmup = args.intValue("warmup", o.warmup, 0, 100000);
  if (!warmup) return fail(warmup.error());
  auto threads = args.intValue("threads", 0, 0, 1024);
  if (!threads) return fail(threads.error());
  auto seed = args.intValue("seed", static_cast<long long>(o.inputs.seed), 0, std::numeric_limits<long long>::max());
  if (!seed) return fail(seed.error());
  auto opt = optimizationFromName(args.valueOr("optimization", "disabled"));
  if (!opt || (*opt != GraphOptimization::Disabled && *opt != GraphOptimization::All))
    return fail(Error::usage("--optimization is disabled or all"));
  o.iterations = static_cast<int>(*iterations);
  o.warmup = static_cast<int>(*warmup);
  o.threads = static_cast<int>(*threads);
  o.spinning = !args.has("no-spinning");
  o.optimization = *opt;
  o.inputs.seed = static_cast<uint64_t>(*seed);
  const std::string fill = args.valueOr("fill", "normal");
  if (fill != "normal" && fill != "uniform") return fail(Error::usage("--fill is normal or uniform"));
  o.inputs.floatFill = fill == "normal" ? InputOptions::FloatFill::Normal : InputOptions::FloatFill::Uniform;
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());
  for (const auto& [k, v] : so.dims) o.inputs.dims[k] = v;
  if (auto dir = args.value("inputs")) o.inputsDir = *dir;
  if (auto trace = args.value("trace")) o.keepTrace = *trace;

  progress.report("loading", 0);
  auto model = loadInput(args.positional[0]);
  if (!model) return failWithRecord(args, model.error());
  AclProfileOptions ao;  // --device acl: ATC + AscendCL, or a plain "no CANN in this build"
  ao.iterations = o.iterations;
  ao.warmup = o.warmup;
  ao.seed = static_cast<unsigned>(o.inputs.seed);
  ao.dims = so.dims;
  auto p = device == "acl" ? profileWithAcl(*model, ao, progress) : profileOnCpu(*model, o, progress);
  if (!p) {
    if (watchdog.timedOut()) return failWithRecord(args, watchdog.timeoutError(), "timeout");
    return failWithRecord(args, p.error());
  }
  if (auto out = args.value("json")) return writeJson(resultJson(*p, args.positional[0]), *out);
  printTable(*p, args.positional[0]);
  return kOk;
}

}  // namespace

extern const Verb kProfileVerb{
    "profile",
    "profile MODEL [--device cpu|acl] [--iterations N] [--warmup N] [--threads N] [--optimization disabled|all] "
    "[--inputs DIR] [--dim NAME=VALUE]... [--timeout SECONDS] [--trace PATH] [--json PATH]\n"
    "       msadvisor-cli profile --import TRACE.json|op_summary.csv|PROF_DIR MODEL [--runtime-graph OPTIMIZED.onnx] "
    "[--warmup N] [--max-events N] [--max-names N] [--json PATH]",
    "per-operator latency on a device (ONNX Runtime CPU), or an ONNX Runtime profile converted",
    {kJsonOption,
     kDimOption,
     kProgressOption,
     {"device", 0, true, false, "cpu (ONNX Runtime, default) or acl (Ascend: ATC + AscendCL, where CANN is installed)"},
     {"iterations", 'n', true, false, "timed runs (default 20)"},
     {"warmup", 0, true, false, "untimed runs first (default 3); with --import: runs of the trace to skip (default 0)"},
     {"threads", 0, true, false, "intra-op threads (default: the runtime's, one per physical core)"},
     {"no-spinning", 0, false, false, "idle runtime threads sleep instead of spinning (steadier on a loaded machine)"},
     {"optimization", 0, true, false, "runtime graph optimization: disabled (default, the model as it is) or all"},
     {"inputs", 0, true, false, "folder of input files: NAME.pb / NAME.npy or input_K.pb (default: seeded random)", PathUse::Reads},
     {"seed", 0, true, false, "seed of the random inputs (default 1234)"},
     {"fill", 0, true, false, "random float inputs: normal N(0,1) (default) or uniform U(-1,1)"},
     kTimeoutOption,
     {"trace", 0, true, false, "also keep ONNX Runtime's own profile JSON at PATH", PathUse::Writes},
     {"import", 0, true, false,
      "convert a profile instead of running: ONNX Runtime JSON, msprof op_summary CSV or PROF_ folder, "
      "torch_npu kernel_details.csv, Netron attachment", PathUse::Reads},
     {"runtime-graph", 0, true, false, "with --import: the optimized graph ONNX Runtime dumped, to map fused nodes", PathUse::Reads},
     kMaxEventsOption,
     kMaxNamesOption},
    runProfile,
};

}  // namespace msa::cli
