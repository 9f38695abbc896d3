// Which findings the runtime already applies, read from the graph it ran (docs/advisor.md,
// "The deployed run"). Decided per finding from the runtime's node mapping, never from the rule.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "advisor/advisor.h"

namespace msa {

bool describesOrtOptimizedGraph(const ProfileData& p) {
  std::string runtime = p.runtime;
  std::transform(runtime.begin(), runtime.end(), runtime.begin(), [](unsigned char c) { return std::tolower(c); });
  return runtime.find("onnxruntime") != std::string::npos && p.optimization != "disabled" && p.caps.runtimeGraph;
}

int markAppliedByRuntime(std::vector<Finding>& findings, const ProfileData& runtime, const GraphIndex& index,
                         std::string_view who) {
  // IR node -> the top-level runtime node that ran it; IR nodes it removed or folded.
  std::map<std::string, size_t, std::less<>> ranIn;
  std::map<size_t, size_t> covered;  // runtime node -> how many IR nodes it ran
  for (size_t k = 0; k < runtime.nodes.size(); ++k) {
    const NodeProfile& n = runtime.nodes[k];
    if (!n.parent.empty()) continue;
    for (const auto& ir : n.irNodes) ranIn.emplace(ir, k);
    covered[k] = n.irNodes.size();
  }
  const std::set<std::string, std::less<>> notRun(runtime.irNodesNotRun.begin(), runtime.irNodesNotRun.end());
  // Done by the runtime: the nodes are folded away, or they all run as one runtime kernel that
  // does the work of more than one IR node. A node missing from the runtime's graph as we read
  // it makes no claim either way.
  auto done = [&](const std::vector<std::string>& nodes, size_t count) {
    std::set<size_t> kernels;
    int removed = 0, known = 0;
    for (size_t k = 0; k < count; ++k) {
      if (index.indexOfName(nodes[k]) < 0) continue;
      ++known;
      if (notRun.count(nodes[k])) {
        ++removed;
        continue;
      }
      auto it = ranIn.find(nodes[k]);
      if (it == ranIn.end()) return false;
      kernels.insert(it->second);
    }
    if (known == 0 || kernels.size() > 1) return false;
    return removed > 0 || (kernels.size() == 1 && covered[*kernels.begin()] > 1);
  };
  // Every node the finding names ran, in more than one kernel: the runtime left it undone.
  auto undone = [&](const std::vector<std::string>& nodes) {
    std::set<size_t> kernels;
    for (const auto& n : nodes) {
      if (index.indexOfName(n) < 0) continue;
      auto it = ranIn.find(n);
      if (notRun.count(n) || it == ranIn.end()) return false;
      kernels.insert(it->second);
    }
    return kernels.size() > 1;
  };
  int marked = 0;
  for (Finding& f : findings) {
    // Structural rewrites only: a precision, layout, kernel or alignment finding is not something
    // a graph optimizer does, whatever it fused around the node.
    if (!f.appliedBy.empty() || f.nodes.empty() || !f.runtimeNodes.empty()) continue;
    if (f.category != Category::Fusion && f.category != Category::SmallOps && f.category != Category::Graph) continue;
    if (done(f.nodes, f.nodes.size())) {
      f.appliedBy = std::string(who);
      ++marked;
    } else if (f.hasFix() && f.fixSpan > 1 && f.fixSpan < f.nodes.size() && done(f.nodes, f.fixSpan)) {
      f.fixDoneBy = std::string(who);
    } else if (undone(f.nodes)) {
      f.notAppliedBy = std::string(who);
    }
  }
  return marked;
}

}  // namespace msa
