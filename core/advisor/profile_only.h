#pragma once
// The profile-only analysis: a device profile without its model (`msadvisor-cli analyze
// --profile P` without a MODEL, File ▸ Open Profile in the GUI, runAnalysis with a null model).
//   - the measured step (the profiler's own step time when it wrote one, else the kernels' span);
//   - each kernel priced from its own row (cost/profile_kernels.h) on the device its chip maps
//     to (profile/ascend_chip.h; --device overrides), its roofline and efficiency;
//   - the optimum (every priced kernel at its roofline) and the gap of the priced kernels;
//   - ranked findings from the profile alone (rules/profile_rules.h), with the advisor's
//     priority policy and overlap accounting: their impacts add up to at most the step.
// The Report's `nodes` are the profile's kernels (per entry: name and shapes), so every writer,
// chart and dock that reads a Report works without a graph; `profileOnly` carries what the node
// table does not hold (core types, calls, origins, kernels without a price, the chip).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "cost/profile_kernels.h"
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
  double gapRatio = 0;         // priced kernels: measured / roofline
  int fasterThanRoofline = 0;  // priced kernels measured below their roofline (impossible: figures wrong)
};

// The device a profile is priced on: `requested` when given (an id or a JSON path), else the
// one its chip maps to, else the default Ascend profile. Sets `choice`.
Result<DeviceProfile> profileDevice(const ProfileData& profile, const std::string& requested, std::string& choice);

Result<Report> analyzeProfileOnly(const ProfileData& profile, const DeviceProfile& device, const AnalyzeOptions& options,
                                  const std::string& deviceChoice = "requested", const Progress& progress = Progress::none());

// The whole path from a file or folder: import without a model, choose the device
// (`requestedDevice` empty or "cpu": the chip's), analyse. What runAnalysis does for a null model.
Result<Report> analyzeProfileFile(const std::filesystem::path& profile, const std::string& requestedDevice,
                                  const AnalyzeOptions& options, const Progress& progress = Progress::none());

// The "profile_only" block of the report JSON.
nlohmann::json profileOnlyJson(const ProfileOnlySummary& s, const ProfileData& profile);

}  // namespace msa
