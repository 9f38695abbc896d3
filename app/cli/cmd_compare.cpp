// msadvisor-cli compare: two profiles/reports (per-node deltas) or two models (node diff).
#include <cctype>
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "model/onnx_io.h"
#include "report/compare.h"

namespace msa::cli {
namespace {

bool looksLikeJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
  return false;
}

Result<TimingTable> readTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::model("cannot open", path);
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return Error::model("not valid JSON", path);
  return timingTableFromJson(j, path);
}

int runCompare(const Args& args) {
  if (args.positional.size() != 2) return fail(Error::usage("compare expects two files: A B"));
  const std::string& a = args.positional[0];
  const std::string& b = args.positional[1];
  auto threshold = args.doubleValue("threshold", 0.10);
  if (!threshold) return fail(threshold.error());
  bool jsonA = looksLikeJson(a), jsonB = looksLikeJson(b);
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
      std::printf("%s: %zu nodes   %s: %zu nodes\n  added %zu, removed %zu, changed %zu\n", a.c_str(),
                  ma->graph.nodes.size(), b.c_str(), mb->graph.nodes.size(), d.added.size(), d.removed.size(),
                  d.changed.size());
      for (const auto& n : d.removed) std::printf("  - %s\n", n.c_str());
      for (const auto& n : d.added) std::printf("  + %s\n", n.c_str());
      for (const auto& n : d.changed) std::printf("  ~ %s\n", n.c_str());
    }
  } else {
    auto ta = readTable(a);
    if (!ta) return fail(ta.error());
    auto tb = readTable(b);
    if (!tb) return fail(tb.error());
    TimingComparison c = compareTimings(*ta, *tb, *threshold);
    out = toJson(c);
    if (!args.value("json")) {
      std::printf("total  A %.3f ms   B %.3f ms   B/A %.3f\n", c.totalA, c.totalB, c.totalA > 0 ? c.totalB / c.totalA : 0.0);
      std::printf("%zu regressions, %zu improvements (beyond %.0f%%)\n\n", c.regressions.size(), c.improvements.size(),
                  *threshold * 100);
      std::printf("  %-48s %10s %10s %10s\n", "node", "A ms", "B ms", "delta");
      size_t shown = 0;
      for (const auto& r : c.nodes) {
        if (shown++ == 20) break;
        std::printf("  %-48.48s %10.3f %10.3f %+10.3f\n", r.name.c_str(), r.aMs, r.bMs, r.deltaMs);
      }
    }
  }
  if (auto path = args.value("json")) return writeJson(out, *path);
  return kOk;
}

}  // namespace

extern const Verb kCompareVerb{
    "compare",
    "compare A B [--threshold FRACTION] [--json PATH]",
    "two profiles or reports side by side (per-node deltas, regressions, improvements), or two models (nodes "
    "added, removed, changed)",
    {kJsonOption, {"threshold", 0, true, false, "relative change counted as a regression/improvement (default 0.10)"}},
    runCompare,
};

}  // namespace msa::cli
