#pragma once
// Small pieces the training rule files share (training_rules.cpp, training_fusion.cpp): number
// formatting for finding params, and the finding skeleton every training rule fills.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "rules/finding.h"
#include "profile/trace_analysis.h"
#include "rules/training_rules.h"
#include "util/units.h"

namespace msa {
struct CommRecord;
}

namespace msa::training {

namespace detail {
struct RuleContext;
}
// Communication by what it is for, from torch_npu's communication record (training_communication.cpp).
void roleAwareCommunication(detail::RuleContext& c, const CommRecord& rec);

namespace detail {

// What every training rule reads and where it writes.
struct RuleContext {
  const TrainingTrace& t;
  const TrainingProfile& p;
  const RuleThresholds& th;
  double steps;
  std::vector<Finding>& out;

  const TraceEvent& event(int i) const { return t.events[static_cast<size_t>(i)]; }
};

inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Advice on a trace: nothing is rewritten, so it is always "legal".
inline Finding makeFinding(std::string rule, Category category, std::vector<std::string> nodes, double currentMs, double fixedMs,
                           ImpactSource source, std::string method) {
  Finding f;
  f.rule = std::move(rule);
  f.category = category;
  f.nodes = std::move(nodes);
  f.id = f.rule + "@" + (f.nodes.empty() ? std::string("step") : f.nodes.front());
  f.impact.currentMs = currentMs;
  f.impact.fixedMs = fixedMs;
  f.impact.rawMs = std::max(0.0, currentMs - fixedMs);
  f.impact.source = source;
  f.impact.method = std::move(method);
  f.legal = true;
  return f;
}

// Adds a finding drawing from `budgets` (none: the run as a whole).
inline void addFinding(std::vector<Finding>& out, Finding f, std::vector<std::string> budgets) {
  f.budgets = budgets.empty() ? std::vector<std::string>{std::string(kWholeRunBudget)} : std::move(budgets);
  out.push_back(std::move(f));
}

// The `n` keys of `m` with the largest values, largest first.
inline std::vector<std::string> topKeys(const std::map<std::string, double>& m, size_t n) {
  std::vector<std::pair<std::string, double>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out.push_back(v[i].first);
  return out;
}

}  // namespace detail
}  // namespace msa::training
