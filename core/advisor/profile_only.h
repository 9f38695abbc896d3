#pragma once
// The kernel table of a profile analysed without its model (advisor/profile_analysis.h is the whole
// analysis: `msadvisor-cli analyze --profile P` without a MODEL, `training P`, File ▸ Open Profile).
//   - the measured step (the profiler's own step time when it wrote one, else the kernels' span);
//   - each kernel priced from its own row (profile/profile_kernels.h) on the device its chip maps
//     to (profile/ascend_chip.h; --device overrides), its roofline and efficiency;
//   - the optimum (every priced kernel at its roofline) and the gap of the priced kernels.
// The Report's `nodes` are the profile's kernels (per entry: name and shapes), so every writer,
// chart and dock that reads a Report works without a graph; `profileOnly` carries what the node
// table does not hold (core types, calls, origins, kernels without a price, the chip).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "profile/profile_kernels.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct ProfileOnlySummary {
  std::string chip;            // how the chip was told ("Ascend910B2 (kernels: …)"), "" unknown
  std::string deviceChoice;    // "detected" (from the chip), "requested" (--device), "default" (chip unknown)
  std::string importer;        // which importer read the profile
  std::vector<std::string> warnings;  // the importer's (ragged rows, several ranks, …)
  PricedProfile priced;        // per kernel, aligned with the profile's entries
  double stepMs = 0;
  double computeMs = 0, pricedMs = 0, rooflineMs = 0;
  double predictedMs = 0;      // the priced kernels' predicted times (cost/kernel_predict.h)
  double gapRatio = 0;         // priced kernels: measured / roofline
  int fasterThanRoofline = 0;  // priced kernels measured below their roofline (impossible: figures wrong)
};

// The device a profile is priced on: `requested` when given (an id or a JSON path), else the
// one its chip maps to, else the default Ascend profile. Sets `choice`.
Result<DeviceProfile> profileDevice(const ProfileData& profile, const std::string& requested, std::string& choice);

// The kernel table priced on `device` (each kernel from its own row), on the step `stepMs` (0: the
// profiler's own, else the entries' sum).
std::shared_ptr<ProfileOnlySummary> priceKernelTable(const ProfileData& profile, const DeviceProfile& device,
                                                     const std::string& deviceChoice, double stepMs);

// A report of a run without its model, from its kernel table: the device header, one node row per
// kernel, time by op type, the optimum and gap of the priced kernels, the notes. Call after the
// findings are in the report (each row names the findings about it).
void describeKernelRun(Report& r, const ProfileData& profile, const DeviceProfile& device,
                       std::shared_ptr<const ProfileOnlySummary> summary);

// The "profile_only" block of the report JSON.
nlohmann::json profileOnlyJson(const ProfileOnlySummary& s, const ProfileData& profile);

}  // namespace msa
