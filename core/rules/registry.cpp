#include <algorithm>
#include <set>

#include "rules/ge_fusion.h"
#include "rules/rule.h"
#include "rules/rule_families.h"

namespace msa {

std::span<const std::unique_ptr<Rule>> builtinRules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v;
    for (auto make : ruleFamilies()) v.push_back(make());
    return v;
  }();
  return rules;
}

std::vector<Finding> runRules(const AnalysisContext& ctx, std::span<const std::string_view> families) {
  std::vector<Finding> out;
  const auto rules = builtinRules();
  for (size_t i = 0; i < rules.size(); ++i) {
    const Rule& r = *rules[i];
    if (!families.empty() && std::find(families.begin(), families.end(), r.family()) == families.end()) continue;
    if (ctx.progress) {
      if (ctx.progress->cancelled()) break;
      ctx.progress->report("rules", static_cast<double>(i) / static_cast<double>(rules.size()));
    }
    r.run(ctx, out);
  }
  labelGeFindings(ctx, out);
  std::set<std::string> ids;
  for (Finding& f : out) {
    if (f.id.empty()) f.id = f.rule + "@" + (f.nodes.empty() ? std::string("model") : f.nodes.front());
    std::string base = f.id;
    for (int k = 2; !ids.insert(f.id).second; ++k) f.id = base + "#" + std::to_string(k);
  }
  return out;
}

}  // namespace msa
