// Overlap accounting: findings claim time from per-node budgets so that no node's time is
// counted twice, and the impacts never add up to more than the time there is to gain.
#include <algorithm>
#include <numeric>

#include "advisor/advisor.h"

namespace msa {

std::vector<double> accountOverlaps(const std::vector<Finding>& findings, const std::vector<size_t>& order,
                                    const GraphIndex& index, const OverlapBudget& budget) {
  std::vector<double> nodeLeft(budget.nodeMs.size());
  for (size_t i = 0; i < nodeLeft.size(); ++i) nodeLeft[i] = std::max(0.0, budget.nodeMs[i] * budget.scale);
  std::map<std::string, double> runtimeLeft;
  for (const auto& [name, ms] : budget.runtimeMs) runtimeLeft[name] = std::max(0.0, ms * budget.scale);

  std::vector<double> impact(findings.size(), 0.0);
  std::vector<double*> slots;
  for (size_t k : order) {
    if (k >= findings.size()) continue;
    const Finding& f = findings[k];
    const double want = std::max(0.0, f.impact.rawMs * budget.scale);
    // The budgets this finding may draw from: its runtime-only nodes (what it removes, when it
    // names any) first, then its IR nodes (each once).
    slots.clear();
    size_t runtimeSlots = 0;
    for (const auto& name : f.runtimeNodes)
      if (auto it = runtimeLeft.find(name); it != runtimeLeft.end() && std::find(slots.begin(), slots.end(), &it->second) == slots.end())
        slots.push_back(&it->second);
    runtimeSlots = slots.size();
    for (const auto& name : f.nodes) {
      long i = index.indexOfName(name);
      if (i < 0 || static_cast<size_t>(i) >= nodeLeft.size()) continue;
      double* s = &nodeLeft[static_cast<size_t>(i)];
      if (std::find(slots.begin(), slots.end(), s) == slots.end()) slots.push_back(s);
    }
    double runtimeAvailable = 0, available = 0;
    for (size_t k2 = 0; k2 < slots.size(); ++k2) (k2 < runtimeSlots ? runtimeAvailable : available) += *slots[k2];
    available += runtimeAvailable;
    const bool modelLevel = f.nodes.empty() && f.runtimeNodes.empty();
    const double ms = modelLevel ? want : std::min(want, available);
    if (ms <= 0) continue;
    // Take from each budget in proportion to what is left of it: runtime nodes, then IR nodes.
    if (!modelLevel) {
      const double fromRuntime = std::min(ms, runtimeAvailable), fromIr = ms - fromRuntime;
      const double irAvailable = available - runtimeAvailable;
      for (size_t k2 = 0; k2 < slots.size(); ++k2) {
        double* s = slots[k2];
        if (k2 < runtimeSlots) *s = runtimeAvailable > 0 ? std::max(0.0, *s - fromRuntime * (*s / runtimeAvailable)) : *s;
        else *s = irAvailable > 0 ? std::max(0.0, *s - fromIr * (*s / irAvailable)) : *s;
      }
    }
    impact[k] = ms;
  }
  shrinkToFit(impact, budget.latencyMs);  // the time there is to gain bounds them together
  return impact;
}

void shrinkToFit(std::vector<double>& impactsMs, double limitMs) {
  const double total = std::accumulate(impactsMs.begin(), impactsMs.end(), 0.0), limit = std::max(0.0, limitMs);
  if (total > limit)
    for (double& ms : impactsMs) ms *= limit / total;
}

}  // namespace msa
