#pragma once
// The rule families over a run without its model, as rule.h's are over a graph: a device
// profile's kernel table (profile_rules.h), a trace's timeline (training_rules.h), a job's ranks
// (training_job.h). advisor/profile_analysis.h runs every family that applies to what the run has
// and ranks their findings together. A family is one file and one line in runRuleFamilies()
// (run_rule_families.cpp), or registerRunRuleFamily() at run time.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.h"

namespace msa {

struct ProfileData;
struct PricedProfile;
struct CommRecord;
struct DeviceProfile;
namespace training {
struct TrainingTrace;
struct TrainingProfile;
struct RuleThresholds;
struct ClusterView;
}  // namespace training

struct RunContext {
  // The kernel table and its pricing on the run's device; null when the run has none.
  const ProfileData* kernels = nullptr;
  const PricedProfile* priced = nullptr;
  const DeviceProfile* device = nullptr;
  double aiCores = 0, vectorCores = 0;  // from the profile's chip
  // The timeline analysed step by step; null when the format has none.
  const training::TrainingTrace* trace = nullptr;
  const training::TrainingProfile* steps = nullptr;
  const training::RuleThresholds* thresholds = nullptr;
  // torch_npu's communication record of the rank (profile/communication.h), when it wrote one.
  const CommRecord* communication = nullptr;
  // Several ranks: the job's view, with the analysed rank's step (null for one rank).
  const training::ClusterView* job = nullptr;
  double stepMs = 0;  // the step every view states
};

class RunRuleFamily {
 public:
  virtual ~RunRuleFamily() = default;
  virtual std::string_view family() const = 0;  // "profile", "training", "job"
  virtual bool applies(const RunContext& ctx) const = 0;
  // Appends findings, each naming the budgets it draws from (Finding::budgets).
  virtual void run(const RunContext& ctx, std::vector<Finding>& out) const = 0;
  // The per-step budgets (ms) its findings draw from.
  virtual std::map<std::string, double> budgets(const RunContext& ctx) const = 0;
  // One finding per cause: {theirs, mine} — a rule of another family it speaks for, and its own
  // rule on the same cause; when `mine` fired on this run, `theirs` is left out.
  struct SpeaksFor {
    std::string_view theirs, mine;
  };
  virtual std::vector<SpeaksFor> speaksFor(const RunContext& ctx) const {
    (void)ctx;
    return {};
  }
};

// The built-in families and those registered, in the order they run.
std::vector<const RunRuleFamily*> runRuleFamilies();
void registerRunRuleFamily(std::unique_ptr<RunRuleFamily> family);

// Every family that applies: the findings (those another family speaks for left out) and the
// budgets they draw from.
struct RunFindings {
  std::vector<Finding> findings;
  std::map<std::string, double> budgets;
};
RunFindings runRunRules(const RunContext& ctx);

}  // namespace msa
