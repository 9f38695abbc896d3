#pragma once
// Which Ascend chip a profile was taken on, and which built-in device profile prices it.
// The facts come from the profile itself, in this order:
//   1. a SoC name anywhere in info.json.N, profiler_info_*.json or profiler_metadata.json
//      ("Ascend910B3", "Ascend310P3");
//   2. info.json.N's DeviceInfo: ai_core_num, aiv_num, aic_frequency (MHz);
//   3. the kernels: the largest block dim of AI_CORE tasks (AI Cores) and of AI_VECTOR_CORE /
//      MIX_AIV tasks (Vector Cores), and the clock from aic_total_cycles / (block dim x
//      aicore_time) — what a torch_npu folder without info.json still says.
// Cores and clock map to a chip class: no Vector Cores and 30-32 AI Cores: 910 (910A);
// 24 AI Cores + 48 Vector Cores: 910B1 (1850 MHz) or 910B2 (1800 MHz); 20 + 40: 910B3
// (1800 MHz) or 910B4 (1500 MHz); 8-10 AI Cores with up to 8 separate Vector Cores: 310P.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "profile/profile_data.h"
#include "util/error.h"

namespace msa {

struct AscendChip {
  std::string soc;       // "Ascend910B2", "" when nothing says
  std::string deviceId;  // built-in device profile: "ascend910b2", "ascend910", …; "" unknown
  double aiCores = 0, vectorCores = 0, mhz = 0;
  // Where the facts came from, for the report: "info.json.0: 20 AI Cores, 40 Vector Cores,
  // 1800 MHz" or "kernels: block dims up to 24 (AI Core) and 48 (Vector), 1800 MHz from cycles".
  std::string basis;
  bool exact = false;  // the SoC was named, or the core counts and clock match one chip
  double tableMhz = 0;  // the clock of the chip class it maps to (its device profile's); mhz may differ
};

// DeviceInfo[0] of info.json.N (and the SoC name when the file has one): ai_core_num, aiv_num,
// ai_cpu_core_num, aic_frequency_mhz, aiv_frequency_mhz, hwts_frequency_mhz (those present).
Result<std::map<std::string, double>> readAscendInfo(const std::filesystem::path& infoJson);

// A SoC name ("Ascend910B3") in any string value of a JSON file, "" when none.
std::string socNameIn(const std::filesystem::path& jsonFile);

// Detects the chip from what `profile` carries (deviceInfo, its kernels' block dims and
// cycles) and an optional SoC name.
AscendChip detectAscendChip(const ProfileData& profile, const std::string& socName = {});

}  // namespace msa
