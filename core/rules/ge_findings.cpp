// Findings against the graph ATC compiles: what the graph engine fuses by itself is not left for
// the user (Finding::appliedBy "ascend-ge", priced as the saving the graph engine makes over the
// graph as written); what it would fuse but for a condition keeps the condition as a blocker.
#include <algorithm>
#include <map>
#include <set>

#include "rules/ge_fusion.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

// Fixes a fusing compiler can apply: the fusion family's groups and repeated small-op sequences.
bool fusionFix(const Finding& f) {
  return (f.category == Category::Fusion && f.rule != "fusion.pipeline") || f.rule == "small_ops.sequence";
}

std::string joined(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

}  // namespace

void labelGeFindings(const AnalysisContext& ctx, std::vector<Finding>& findings) {
  if (!ctx.geFusion || !ctx.geFusion->ran) return;
  const GeFusion& ge = *ctx.geFusion;
  std::vector<std::vector<size_t>> missesOf(ctx.graph->nodes.size());
  for (size_t k = 0; k < ge.nearMisses.size(); ++k)
    for (size_t m : ge.nearMisses[k].members) missesOf[m].push_back(k);
  const std::string source = ge.fusionResultPath.empty() ? "simulated" : "fusion_result";

  for (Finding& f : findings) {
    if (!fusionFix(f) || !f.appliedBy.empty()) continue;
    std::vector<size_t> members;
    for (const auto& name : f.nodes)
      if (long i = ctx.index->indexOfName(name); i >= 0) members.push_back(static_cast<size_t>(i));
    if (members.empty()) continue;
    const long kernel = ge.kernelOf[members.front()];
    const bool applied =
        members.size() >= 2 && kernel >= 0 &&
        std::all_of(members.begin(), members.end(), [&](size_t m) { return ge.kernelOf[m] == kernel; });
    if (applied) {
      const GeKernel& k = ge.kernels[static_cast<size_t>(kernel)];
      double written = 0, compiled = 0;
      for (size_t m : members) {
        written += ge.writtenMs[m];
        compiled += ctx.timeMs(m);
      }
      f.appliedBy = "ascend-ge";
      f.params["ge_passes"] = joined(k.passes, " + ");
      f.params["ge_source"] = source;
      f.impact.currentMs = written;
      f.impact.fixedMs = std::min(written, compiled);
      f.impact.ms = f.impact.rawMs = f.impact.currentMs - f.impact.fixedMs;
      f.impact.source = ImpactSource::Estimated;
      f.impact.method = phrase(ge.fusionResultPath.empty() ? "method.ge.simulated" : "method.ge.fusion_result");
      continue;
    }
    // Not fused: the near-misses on at least two of its nodes say why.
    std::set<size_t> touching;
    std::map<size_t, int> hits;
    for (size_t m : members)
      for (size_t k : missesOf[m]) ++hits[k];
    for (const auto& [k, count] : hits)
      if (count >= 2 || members.size() == 1) touching.insert(k);
    std::vector<std::string> passes;
    for (size_t k : touching) {
      const GeNearMiss& nm = ge.nearMisses[k];
      if (std::find(passes.begin(), passes.end(), nm.pass) == passes.end()) passes.push_back(nm.pass);
      for (const auto& b : nm.blockers)
        if (std::find(f.blockers.begin(), f.blockers.end(), b) == f.blockers.end()) f.blockers.push_back(b);
    }
    if (!passes.empty()) f.params["ge_passes"] = joined(passes, " + ");
  }
}

}  // namespace msa
