// msadvisor-cli compare: two profiles/reports (per-node deltas) or two models (node diff).
#include <cctype>
#include <cstdio>

#include "cli.h"
#include "model/onnx_io.h"
#include "report/compare.h"
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

int runCompare(const Args& args) {
  if (args.positional.size() != 2) return fail(Error::usage("compare expects two files: A B"));
  const std::string& a = args.positional[0];
  const std::string& b = args.positional[1];
  auto threshold = args.doubleValue("threshold", 0.10);
  if (!threshold) return fail(threshold.error());
  auto isJsonA = looksLikeJson(a);
  if (!isJsonA) return fail(isJsonA.error());
  auto isJsonB = looksLikeJson(b);
  if (!isJsonB) return fail(isJsonB.error());
  const bool jsonA = *isJsonA, jsonB = *isJsonB;
  if (jsonA != jsonB) return fail(Error::usage("compare two runs (profiles or reports) or two models, not one of each"));

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
      size_t rows = 0;
      for (const auto& r : c.nodes) {
        if (rows++ == 20) break;
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
    "compare A B [--threshold FRACTION] [--max-names N] [--json PATH]",
    "two profiles or reports side by side (per-node deltas, regressions, improvements), or two models (nodes "
    "added, removed, changed)",
    {kJsonOption, {"threshold", 0, true, false, "relative change counted as a regression/improvement (default 0.10)"},
     kMaxNamesOption},
    runCompare,
};

}  // namespace msa::cli
