#include "profile/profile_remap.h"

#include <algorithm>
#include <unordered_set>

namespace msa {
namespace {
constexpr std::string_view kMapped = " (mapped onto the edited model)";
}

ProfileData remapProfile(const ProfileData& p, const Graph& g) {
  std::unordered_set<std::string> alive;
  alive.reserve(g.nodes.size());
  for (const Node& n : g.nodes) alive.insert(n.name);
  ProfileData out = p;
  out.nodes.clear();
  double savedMs = 0;
  bool changed = false;  // a node of the run is gone or covers less: the run is of another graph
  for (const NodeProfile& e : p.nodes) {
    if (e.inserted || e.irNodes.empty()) {
      out.nodes.push_back(e);
      continue;
    }
    NodeProfile kept = e;
    changed |= std::erase_if(kept.irNodes, [&](const std::string& n) { return !alive.count(n); }) > 0;
    if (kept.irNodes.empty()) {
      if (e.parent.empty()) savedMs += e.timeMs.median;  // a subgraph node's time is inside its parent's
      continue;
    }
    out.nodes.push_back(std::move(kept));
  }
  std::erase_if(out.irNodesNotRun, [&](const std::string& n) { return !alive.count(n); });
  const double before = p.sumNodeMedians();
  if (savedMs > 0 && before > 0) {
    // The end-to-end figures lose the removed nodes' share of the node time: per-node timings
    // (profiling on) and the end-to-end run (profiling off) differ in scale, shares do not.
    const double keep = std::max(0.0, 1.0 - savedMs / before);
    for (double* v : {&out.latencyMs.median, &out.latencyMs.p10, &out.latencyMs.p90, &out.latencyMs.mean,
                      &out.latencyMs.min, &out.latencyMs.max})
      *v *= keep;
  }
  if (changed && !isRemapped(p)) out.source = p.source + std::string(kMapped);
  return out;
}

bool isRemapped(const ProfileData& p) { return p.source.find(kMapped) != std::string::npos; }

}  // namespace msa
