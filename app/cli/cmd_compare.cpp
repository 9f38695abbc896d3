// msadvisor-cli compare: two device runs (step, phases, kernel types, ranks), two saved
// profiles/reports (per-node deltas) or two models (node diff).
#include <cctype>
#include <cstdio>

#include "cli.h"
#include "model/onnx_io.h"
#include "advisor/run_analysis.h"
#include "profile/profile_import.h"
#include "report/compare.h"
#include "report/run_compare.h"
#include "util/input_file.h"

namespace msa::cli {
namespace {

// Whether a file's first non-blank byte opens JSON (a report or profile) rather than a model.
Result<bool> looksLikeJson(const std::string& path) {
  auto in = InputStream::open(path);
  if (!in) return in.error();
  for (int c; (c = (*in)->stream().get()) != EOF;)
    if (!std::isspace(c)) return c == '{' || c == '[';
  return false;
}

// What `path` is to compare: a saved profile or report (msadvisor's JSON with its "nodes"), a
// run a device or framework wrote (a profiler folder, a trace, a kernel table), else a model.
enum class CompareKind { Model, Timing, Run };

Result<CompareKind> compareKind(const std::string& path) {
  if (checkTimingTableFile(path)) return CompareKind::Timing;
  if (isProfilePath(path)) return CompareKind::Run;
  auto json = looksLikeJson(path);
  if (!json) return json.error();
  return *json ? CompareKind::Timing : CompareKind::Model;
}

const char* phaseLabel(const std::string& id) {
  static const std::pair<const char*, const char*> kLabels[] = {
      {"computing", "computing"},       {"communication_not_overlapped", "communication not overlapped"},
      {"overlapped", "  of which overlapped"}, {"free", "free"},
      {"compute", "compute"},           {"collective_exposed", "collectives exposed"},
      {"p2p_exposed", "point-to-point exposed"}, {"data_loading", "data loading"},
      {"idle", "idle"}};
  for (const auto& [key, label] : kLabels)
    if (id == key) return label;
  return id.c_str();
}

std::string msCell(const RunDelta& d, bool b) {
  if (!(b ? d.inB : d.inA)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", b ? d.bMs : d.aMs);
  return buf;
}

void printRunDelta(const RunDelta& d, const char* label, double threshold) {
  std::printf("  %-34.34s %12s %12s %+12.3f  %s\n", shown(label).c_str(), msCell(d, false).c_str(), msCell(d, true).c_str(),
              d.deltaMs(), !d.inA ? "only in B" : !d.inB ? "only in A" : beyondNoise(d, threshold) ? (d.deltaMs() > 0 ? "slower" : "faster") : "");
}

void printRuns(const RunComparison& c, size_t rows) {
  for (const RunSide* s : {&c.a, &c.b})
    std::printf("%s  %s · %s · step %.3f ms (%s)%s\n", s == &c.a ? "A" : "B", shown(s->label).c_str(), shown(s->deviceName).c_str(),
                s->stepMs, s->stepSource.empty() ? "kernels' span" : s->stepSource.c_str(),
                s->ranks > 1 ? (" · " + std::to_string(s->ranks) + " ranks").c_str() : "");
  std::printf("step  B - A %+.3f ms (B/A %.3f)\n", c.b.stepMs - c.a.stepMs, c.a.stepMs > 0 ? c.b.stepMs / c.a.stepMs : 0.0);
  if (!c.phases.empty()) {
    std::printf("\n%-36s %12s %12s %12s\n", "step phase (median per step)", "A ms", "B ms", "B - A");
    for (const RunDelta& d : c.phases) printRunDelta(d, phaseLabel(d.key), c.threshold);
  }
  if (!c.ranks.empty()) {
    std::printf("\n%-36s %12s %12s %12s\n", "rank: step (compute, idle)", "A ms", "B ms", "B - A");
    for (const RunComparison::Rank& r : c.ranks) {
      std::string label = r.step.key + (r.stage >= 0 ? " (stage " + std::to_string(r.stage + 1) + ")" : "");
      printRunDelta(r.step, label.c_str(), c.threshold);
      printRunDelta(r.compute, "  compute", c.threshold);
      printRunDelta(r.idle, "  idle", c.threshold);
    }
  }
  std::printf("\n%-36s %12s %12s %12s\n", "kernel type (per step)", "A ms", "B ms", "B - A");
  for (size_t i = 0; i < c.kernelTypes.size() && i < rows; ++i) printRunDelta(c.kernelTypes[i], c.kernelTypes[i].key.c_str(), c.threshold);
  std::printf("\n%zu kernels slower, %zu faster (beyond %.0f%%); the largest:\n", c.kernels.regressions.size(),
              c.kernels.improvements.size(), c.threshold * 100);
  for (size_t i = 0; i < c.kernels.nodes.size() && i < rows; ++i) {
    const NodeDelta& n = c.kernels.nodes[i];
    std::printf("  %-60.60s %10.3f %10.3f %+10.3f\n", shown(n.name).c_str(), n.aMs, n.bMs, n.deltaMs);
  }
}

int runCompare(const Args& args) {
  if (args.positional.size() != 2) return fail(Error::usage("compare expects two files: A B"));
  const std::string& a = args.positional[0];
  const std::string& b = args.positional[1];
  auto threshold = args.doubleValue("threshold", 0.10);
  if (!threshold) return fail(threshold.error());
  auto kindA = compareKind(a);
  if (!kindA) return fail(kindA.error());
  auto kindB = compareKind(b);
  if (!kindB) return fail(kindB.error());
  if (*kindA != *kindB)
    return fail(Error::usage("compare two device runs (profiler folders, traces), two saved analyses or profiles, or two models, not one of each"));
  auto rows = args.intValue("rows", 20, 1, 100000);
  if (!rows) return fail(rows.error());

  if (*kindA == CompareKind::Run) {
    // Each run analysed as `analyze --profile` analyses it, on its own chip unless --device names one.
    AnalysisRequest request;
    request.device = args.valueOr("device", "");
    auto timeout = timeoutSeconds(args);
    if (!timeout) return fail(timeout.error());
    std::atomic<bool> cancel{false};
    Watchdog watchdog(*timeout, cancel, a);
    const Progress progress = makeProgress(args, &cancel);
    std::vector<Report> reports;
    for (const std::string& path : {a, b}) {
      request.profilePath = path;
      auto outcome = runAnalysis(nullptr, request, progress);
      if (!outcome) return fail(watchdog.timedOut() ? watchdog.timeoutError() : outcome.error());
      reports.push_back(std::move(outcome->report));
    }
    const RunComparison c = compareRuns(reports[0], reports[1], a, b, *threshold);
    if (auto path = args.value("json")) return writeJson(toJson(c), *path);
    printRuns(c, static_cast<size_t>(*rows));
    return kOk;
  }
  const bool jsonA = *kindA == CompareKind::Timing;
  nlohmann::json out;
  if (!jsonA) {
    auto ma = loadInput(a);
    if (!ma) return fail(ma.error());
    auto mb = loadInput(b);
    if (!mb) return fail(mb.error());
    ModelDiff d = diffModels(*ma, *mb);
    out = toJson(d);
    out["nodes"] = {{"a", ma->graph.nodes.size()}, {"b", mb->graph.nodes.size()}};
    if (!args.value("json")) {
      std::printf("%s: %zu nodes   %s: %zu nodes\n  added %zu, removed %zu, changed %zu\n", shown(a).c_str(),
                  ma->graph.nodes.size(), shown(b).c_str(), mb->graph.nodes.size(), d.added.size(), d.removed.size(),
                  d.changed.size());
      for (const auto& n : d.removed) std::printf("  - %s\n", shown(n).c_str());
      for (const auto& n : d.added) std::printf("  + %s\n", shown(n).c_str());
      for (const auto& n : d.changed) std::printf("  ~ %s\n", shown(n).c_str());
    }
  } else {
    // Both files are told apart before either is read in full: a file compare cannot use is
    // refused at once, not after a gigabyte of the other.
    for (const std::string& f : {a, b})
      if (auto s = checkTimingTableFile(f); !s) return fail(s.error());
    auto ta = readTimingTable(a);
    if (!ta) return fail(ta.error());
    auto tb = readTimingTable(b);
    if (!tb) return fail(tb.error());
    TimingComparison c = compareTimings(*ta, *tb, *threshold);
    out = toJson(c);
    if (!args.value("json")) {
      std::printf("total  A %.3f ms   B %.3f ms   B/A %.3f\n", c.totalA, c.totalB, c.totalA > 0 ? c.totalB / c.totalA : 0.0);
      std::printf("%zu regressions, %zu improvements (beyond %.0f%%)\n\n", c.regressions.size(), c.improvements.size(),
                  *threshold * 100);
      std::printf("  %-48s %10s %10s %10s\n", "node", "A ms", "B ms", "delta");
      size_t printed = 0;
      for (const auto& r : c.nodes) {
        if (printed++ == static_cast<size_t>(*rows)) break;
        std::printf("  %-48.48s %10.3f %10.3f %+10.3f\n", shown(r.name).c_str(), r.aMs, r.bMs, r.deltaMs);
      }
    }
  }
  if (auto path = args.value("json")) return writeJson(out, *path);
  return kOk;
}

}  // namespace

extern const Verb kCompareVerb{
    "compare",
    "compare A B [--threshold FRACTION] [--rows N] [--device ID] [--max-names N] [--json PATH]",
    "two device runs or jobs side by side (step, step phases, kernel types, ranks, kernels), two saved profiles or "
    "reports (per-node deltas, regressions, improvements), or two models (nodes added, removed, changed)",
    {kJsonOption, {"threshold", 0, true, false, "relative change counted as a regression/improvement (default 0.10)"},
     {"rows", 0, true, false, "rows per table in the text output (default 20)"},
     {"device", 0, true, false, "price both runs on this device (default: each on the chip its profile tells)"},
     kTimeoutOption, kProgressOption, kMaxNamesOption},
    runCompare,
};

}  // namespace msa::cli
