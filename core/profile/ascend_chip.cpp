#include "profile/ascend_chip.h"
#include "util/input_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "profile/ascend_ops.h"
#include "profile/csv_table.h"
#include "profile/json_file.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

// The core count the kernels tell, by a vote: a kernel that fills the chip launches one block
// per core, so among the block dims that equal a chip's core count for these task types, the one
// the most calls used wins (two kernels of 591 that queued 52 vector blocks in waves do not make
// a 52-core chip). Without such a block dim, the largest that at least two calls used.
double typicalMaxBlocks(const ProfileData& p, bool vector) {
  static const std::set<double> kCubeCounts = {8, 10, 20, 24, 30, 32}, kVectorCounts = {7, 8, 40, 48};
  const std::set<double>& known = vector ? kVectorCounts : kCubeCounts;
  std::map<double, double> counts, votes;
  for (const NodeProfile& n : p.nodes) {
    const bool isVector = n.kernel == "AI_VECTOR_CORE" || n.kernel == "MIX_AIV";
    const bool isCube = n.kernel == "AI_CORE" || n.kernel == "MIX_AIC";
    if (vector ? !isVector : !isCube) continue;
    auto bd = n.metrics.find("block_dim");
    if (bd == n.metrics.end() || !(bd->second >= 1)) continue;
    const double blocks = std::round(bd->second), calls = std::max(1.0, std::round(n.calls));
    counts[blocks] += calls;
    if (known.count(blocks)) votes[blocks] += calls;
  }
  if (!votes.empty())
    return std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
             return a.second < b.second || (a.second == b.second && a.first < b.first);
           })->first;
  if (counts.empty()) return 0;
  for (auto it = counts.rbegin(); it != counts.rend(); ++it)
    if (it->second >= 2) return it->first;
  return counts.rbegin()->first;
}

// aic_total_cycles / (block dim x aicore_time(us)): the AI Core clock in MHz (median).
double clockFromCycles(const ProfileData& p) {
  std::vector<double> mhz;
  for (const NodeProfile& n : p.nodes) {
    for (auto [cyc, time] : {std::pair{"aic_total_cycles", "aicore_time(us)"}, {"total_cycles", "aicore_time(us)"},
                             {"aiv_total_cycles", "aiv_time(us)"}}) {
      auto c = n.metrics.find(cyc), t = n.metrics.find(time), b = n.metrics.find("block_dim");
      if (c == n.metrics.end() || t == n.metrics.end() || b == n.metrics.end()) continue;
      if (!(c->second > 0) || !(t->second > 1) || !(b->second >= 1)) continue;
      mhz.push_back(c->second / (b->second * t->second));
      break;
    }
  }
  if (mhz.size() < 3) return 0;
  std::sort(mhz.begin(), mhz.end());
  return mhz[mhz.size() / 2];
}

struct ChipClass {
  const char* soc;
  const char* device;
  double aiCores, vectorCores, mhz;
};

// Cores and cube_freq from CANN's platform_config (docs/cost-model.md, "Devices").
constexpr ChipClass kChips[] = {
    {"Ascend910B1", "ascend910b1", 24, 48, 1850}, {"Ascend910B2", "ascend910b2", 24, 48, 1800},
    {"Ascend910B3", "ascend910b", 20, 40, 1800},  {"Ascend910B4", "ascend910b4", 20, 40, 1500},
    {"Ascend910", "ascend910", 32, 0, 1000},      {"Ascend310P3", "ascend310p", 8, 7, 1060},
};

const ChipClass* bySoc(const std::string& soc) {
  std::string s = lowercase(soc);
  for (const auto& c : kChips)
    if (lowercase(c.soc) == s) return &c;
  // Names the table spells differently: Ascend910A / 910ProB -> 910; 310P1/P3 -> 310P.
  if (s.starts_with("ascend910b2")) return &kChips[1];  // 910B2C
  if (s == "ascend910a" || s == "ascend910proa" || s == "ascend910prob" || s == "ascend910premiuma") return &kChips[4];
  if (s.starts_with("ascend310p")) return &kChips[5];
  return nullptr;
}

const ChipClass* byCores(double ai, double vec, double mhz) {
  if (ai <= 0) return nullptr;
  if (vec == 0 && ai >= 30) return &kChips[4];
  if (ai >= 8 && ai <= 10 && vec <= 10) return &kChips[5];
  const ChipClass* best = nullptr;
  for (const auto& c : kChips) {
    if (c.aiCores != ai) continue;
    if (vec > 0 && c.vectorCores != vec) continue;
    if (!best || (mhz > 0 && std::fabs(c.mhz - mhz) < std::fabs(best->mhz - mhz))) best = &c;
  }
  return best;
}

}  // namespace

Result<std::map<std::string, double>> readAscendInfo(const fs::path& file) {
  auto read = readJsonFile(file);
  if (!read) return read.error();
  const nlohmann::json& j = *read;
  auto dev = j.is_object() ? j.find("DeviceInfo") : j.end();
  if (!j.is_object() || dev == j.end() || !dev->is_array() || dev->empty() || !(*dev)[0].is_object())
    return Error::model("no \"DeviceInfo\" entry (is this an msprof info.json?)", file.string());
  const auto& d = (*dev)[0];
  std::map<std::string, double> out;
  for (auto [key, as] : {std::pair{"ai_core_num", "ai_core_num"}, std::pair{"aiv_num", "aiv_num"},
                         std::pair{"ai_cpu_core_num", "ai_cpu_core_num"},
                         std::pair{"aic_frequency", "aic_frequency_mhz"},
                         std::pair{"aiv_frequency", "aiv_frequency_mhz"},
                         std::pair{"hwts_frequency", "hwts_frequency_mhz"}}) {
    auto it = d.find(key);
    if (it == d.end()) continue;
    std::optional<double> v;
    if (it->is_number()) v = it->get<double>();
    else if (it->is_string()) v = parseNumber(it->get<std::string>());
    if (!v) return Error::model(std::string("DeviceInfo.") + key + " is not a number", file.string());
    out[as] = *v;
  }
  return out;
}

std::string socNameIn(const fs::path& file) {
  if (!checkInput(file)) return "";
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) return "";
  static const std::regex soc("(Ascend(910|310|610|710)[A-Za-z0-9]*)");
  std::string found;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
    if (!found.empty()) return;
    if (v.is_string()) {
      std::smatch m;
      const std::string s = v.get<std::string>();
      if (std::regex_search(s, m, soc)) found = m[1].str();
    } else if (v.is_structured()) {
      for (const auto& e : v) walk(e);
    }
  };
  walk(j);
  return found;
}

AscendChip detectAscendChip(const ProfileData& p, const std::string& socName) {
  AscendChip c;
  auto info = [&](const char* k) {
    auto it = p.deviceInfo.find(k);
    return it == p.deviceInfo.end() ? 0.0 : it->second;
  };
  if (!socName.empty()) {
    c.soc = socName;
    if (const ChipClass* k = bySoc(socName)) {
      c.deviceId = k->device;
      c.aiCores = k->aiCores, c.vectorCores = k->vectorCores, c.mhz = info("aic_frequency_mhz") > 0 ? info("aic_frequency_mhz") : k->mhz;
      c.tableMhz = k->mhz;
      c.exact = true;
      c.basis = "SoC " + socName + " named in the profile";
      return c;
    }
  }
  if (info("ai_core_num") > 0) {
    c.aiCores = info("ai_core_num"), c.vectorCores = info("aiv_num"), c.mhz = info("aic_frequency_mhz");
    c.basis = "info.json: " + fmt(c.aiCores) + " AI Cores, " + fmt(c.vectorCores) + " Vector Cores, " + fmt(c.mhz) + "\u202fMHz";
  } else {
    c.aiCores = typicalMaxBlocks(p, false);
    const double vecBlocks = typicalMaxBlocks(p, true);
    // A MIX kernel runs on cube and vector cores together: a chip without Vector Cores (910A)
    // never ran it, whatever its block dims say.
    bool vectorTasks = false;
    for (const NodeProfile& n : p.nodes)
      vectorTasks = vectorTasks || n.kernel == "AI_VECTOR_CORE" || n.kernel == "MIX_AIV" || n.kernel == "MIX_AIC";
    // Separate Vector Cores (910B: cube_vector_combine=split, two per AI Core) show as their
    // own task type; their count follows from the AI Cores when the block dims agree.
    c.vectorCores = vectorTasks && c.aiCores > 0 ? (vecBlocks == 2 * c.aiCores || vecBlocks == 0 ? 2 * c.aiCores : vecBlocks) : 0;
    c.mhz = clockFromCycles(p);
    if (c.aiCores <= 0) return c;
    c.basis = "kernels: block dims " + fmt(c.aiCores) + " (AI Core, the most calls')" +
              (c.vectorCores > 0 ? " and " + fmt(vecBlocks) + " (Vector Core)" : std::string()) +
              (c.mhz > 0 ? ", " + fmt(c.mhz) + "\u202fMHz from the cycle counts" : std::string());
  }
  if (const ChipClass* k = byCores(c.aiCores, c.vectorCores, c.mhz)) {
    c.soc = k->soc;
    c.deviceId = k->device;
    c.exact = c.mhz <= 0 || std::fabs(c.mhz - k->mhz) <= 30;
    c.tableMhz = k->mhz;
  }
  return c;
}

}  // namespace msa
