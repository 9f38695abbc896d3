#pragma once
// The rules of the profile-only analysis: what a device profile says without its model. They
// cover every computation check of msprof-analyze advisor (AI CPU tasks and their dtype causes,
// dynamic OP State, block dims not a multiple of the cores, operators no pipeline bounds, MatMul
// inner axes off 256 and FlashAttention D/S off 128, cube/vector bound from the pipe ratios,
// repeated fusible sequences, AI Core frequency drops) and add what it lacks: each kernel's
// roofline efficiency against same-type peers, the cube's padding waste, measured TransData,
// launch-bound short kernels and the waits before them, exposed communication. Thresholds and
// their sources: docs/rules.md, "Profile without a model". Texts: resources/rules/profile.json.
//
// Findings name kernels (profile entries) in `nodes`, and draw their impact from per-kernel
// budgets ("kernel:<entry>"), the device's idle time ("idle") or the exposed communication
// ("communication"): the advisor's overlap accounting keeps their sum within the step.
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "profile/profile_kernels.h"
#include "profile/profile_data.h"
#include "rules/finding.h"

namespace msa {

struct ProfileRuleContext {
  const ProfileData* profile = nullptr;
  const PricedProfile* priced = nullptr;
  const DeviceProfile* device = nullptr;
  double stepMs = 0;  // the measured step (iteration)
  double aiCores = 0, vectorCores = 0;  // from the profile's chip (else the device profile's)
};

// Each finding names the budgets it draws from (Finding::budgets).
std::vector<Finding> runProfileRules(const ProfileRuleContext& ctx);

// The budgets those findings draw from, per iteration (ms).
std::map<std::string, double> profileBudgets(const ProfileRuleContext& ctx);

// "aten::conv2d (nn.Module: Conv2d_0; imagenet_script/main.py(345): train)", "aclnnMatmul (its
// name)", "" when unknown: where a kernel comes from, for finding texts.
std::string describeOrigin(const NodeProfile::Origin& o);

}  // namespace msa
