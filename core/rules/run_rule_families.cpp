// The rule families over a run without its model (run_rule.h): one class and one line each.
#include <algorithm>
#include <mutex>
#include <set>

#include "profile/job.h"
#include "rules/profile_rules.h"
#include "rules/run_rule.h"
#include "rules/training_job.h"
#include "rules/training_rules.h"

namespace msa {
namespace {

// The kernel table: what each kernel's own row says (AI CPU dtypes, block dims, roofline, …).
class KernelTableRules final : public RunRuleFamily {
 public:
  std::string_view family() const override { return "profile"; }
  bool applies(const RunContext& c) const override { return c.kernels && c.priced && c.device; }
  void run(const RunContext& c, std::vector<Finding>& out) const override {
    for (Finding& f : runProfileRules(context(c))) out.push_back(std::move(f));
  }
  std::map<std::string, double> budgets(const RunContext& c) const override { return profileBudgets(context(c)); }
  // An AI CPU task's dtypes and a kernel's dynamic shape come from its own rows.
  std::vector<SpeaksFor> speaksFor(const RunContext&) const override {
    return {{"training.aicpu", "profile.aicpu"}, {"training.dynamic_shape", "profile.dynamic_shape"}};
  }

 private:
  static ProfileRuleContext context(const RunContext& c) {
    ProfileRuleContext p;
    p.profile = c.kernels;
    p.priced = c.priced;
    p.device = c.device;
    p.stepMs = c.stepMs;
    p.aiCores = c.aiCores;
    p.vectorCores = c.vectorCores;
    return p;
  }
};

// The timeline: what launched each kernel, the gaps, the phases, each communication's kind.
class TimelineRules final : public RunRuleFamily {
 public:
  std::string_view family() const override { return "training"; }
  bool applies(const RunContext& c) const override { return c.trace && c.steps && c.thresholds; }
  void run(const RunContext& c, std::vector<Finding>& out) const override {
    for (Finding& f : training::runTrainingRules(*c.trace, *c.steps, *c.thresholds, c.communication))
      out.push_back(std::move(f));
  }
  std::map<std::string, double> budgets(const RunContext& c) const override {
    return training::trainingBudgets(*c.trace, *c.steps);
  }
  // The waits before short kernels and which communication is pipeline point-to-point are the
  // timeline's to tell.
  std::vector<SpeaksFor> speaksFor(const RunContext&) const override {
    return {{"profile.launch_bound", "training.launch_bound"},
            {"profile.communication", "training.communication"},
            {"profile.communication", "training.pipeline_bubble"}};
  }
};

// A job's ranks: the slow rank, the slow link.
class JobRules final : public RunRuleFamily {
 public:
  std::string_view family() const override { return "job"; }
  bool applies(const RunContext& c) const override { return c.job != nullptr; }
  void run(const RunContext& c, std::vector<Finding>& out) const override {
    for (Finding& f : training::clusterFindings(*c.job, c.stepMs, c.device)) out.push_back(std::move(f));
  }
  std::map<std::string, double> budgets(const RunContext&) const override { return {}; }
};

struct Registry {
  Registry() {
    families.push_back(std::make_unique<KernelTableRules>());
    families.push_back(std::make_unique<TimelineRules>());
    families.push_back(std::make_unique<JobRules>());
  }
  std::mutex mutex;
  std::vector<std::unique_ptr<RunRuleFamily>> families;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::vector<const RunRuleFamily*> runRuleFamilies() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const RunRuleFamily*> out;
  for (const auto& f : r.families) out.push_back(f.get());
  return out;
}

void registerRunRuleFamily(std::unique_ptr<RunRuleFamily> family) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.families.push_back(std::move(family));
}

RunFindings runRunRules(const RunContext& ctx) {
  RunFindings out;
  std::vector<Finding> all;
  std::vector<RunRuleFamily::SpeaksFor> precedence;
  for (const RunRuleFamily* f : runRuleFamilies()) {
    if (!f->applies(ctx)) continue;
    f->run(ctx, all);
    for (const auto& p : f->speaksFor(ctx)) precedence.push_back(p);
    // One name, one share of the run: where two families price it, the larger holds what either claims.
    for (const auto& [name, ms] : f->budgets(ctx)) out.budgets[name] = std::max(out.budgets[name], ms);
  }
  std::set<std::string, std::less<>> fired, spokenFor;
  for (const Finding& f : all) fired.insert(f.rule);
  for (const auto& p : precedence)
    if (fired.count(p.mine)) spokenFor.emplace(p.theirs);
  // Ids are unique in a report: a second finding on the same anchor gets "#2", …
  std::set<std::string> ids;
  for (Finding& f : all) {
    if (spokenFor.count(f.rule)) continue;
    const std::string base = f.id;
    for (int k = 2; !ids.insert(f.id).second; ++k) f.id = base + "#" + std::to_string(k);
    out.findings.push_back(std::move(f));
  }
  return out;
}

}  // namespace msa
