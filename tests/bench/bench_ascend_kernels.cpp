// The Ascend cost model against real kernels: every kernel with shapes in the real profiles
// (../shared/real-profiles/ascend, PROVENANCE.md there) priced from its own row
// (cost/profile_kernels.h) on the device profile its chip maps to, against its measured time.
// Prints, per op type and core type: the kernels, the median and p10/p90 of measured ÷
// roofline, and the share of kernels faster than their roofline (physically impossible: over
// 2 % means the device figures are wrong). The same over the device figures as they were
// before L2, the float32 cube rate and the task floor were added ("before"), and, for MatMul
// and FlashAttention kernels, the median per shape class. Asserts nothing.
//
//   bench_ascend_kernels [REAL_PROFILES_DIR]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "profile/profile_kernels.h"
#include "profile/profile_import.h"

namespace fs = std::filesystem;
using namespace msa;

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// The device figures before this round's corrections: no L2, no task floor, no float32 cube
// rate (float32 priced at the float16 rate), the 910B3's device-memory bandwidth.
DeviceProfile before(DeviceProfile d) {
  d.l2Bandwidth = d.l2Size = d.taskFloor = Figure{};
  for (auto it = d.peaks.begin(); it != d.peaks.end();)
    it = it->first.first == ComputeUnit::Cube && it->first.second == DType::Float ? d.peaks.erase(it) : std::next(it);
  if (d.soc.starts_with("Ascend910B")) d.memoryBandwidth.value = 1152e9;
  return d;
}

std::string shapeClass(const KernelCost& k) {
  if (k.family == "matmul") {
    const bool skinny = k.m < 64 || k.n < 64;
    const bool aligned = k.k % 256 == 0 && k.n % 256 == 0;
    return std::string(skinny ? "skinny (M or N < 64)" : "M, N >= 64") + (aligned ? ", K and N % 256 == 0" : ", K or N % 256 != 0") +
           " " + std::string(dtypeName(k.cost.computeType));
  }
  if (k.family == "attention")
    return std::string(k.headDim > 0 && k.headDim % 128 == 0 ? "D % 128 == 0" : "D % 128 != 0") +
           (k.seqQ % 128 == 0 ? ", S % 128 == 0" : ", S % 128 != 0") + (k.maskedHalf ? ", masked" : "");
  if (k.family == "conv") return std::string("conv ") + std::string(dtypeName(k.cost.computeType));
  return "";
}

struct Sample {
  double ratio;  // measured / roofline, per call
  double weight; // calls x iterations: how many kernels the entry stands for
};

struct Group {
  std::vector<Sample> samples;
  void add(double ratio, double n) { samples.push_back({ratio, n}); }
  double count() const {
    double c = 0;
    for (const auto& s : samples) c += s.weight;
    return c;
  }
  double faster() const {
    double c = 0;
    for (const auto& s : samples) c += s.ratio < 1.0 ? s.weight : 0;
    return c;
  }
  std::vector<double> expanded() const {
    std::vector<double> v;
    for (const auto& s : samples)
      for (int k = 0; k < static_cast<int>(std::lround(s.weight)); ++k) v.push_back(s.ratio);
    return v;
  }
};

void print(const char* title, const std::map<std::string, Group>& groups) {
  std::printf("\n%s\n%-44s %6s %9s %9s %9s %8s\n", title, "op type / core type", "count", "median", "p10", "p90", "faster");
  double all = 0, faster = 0;
  for (const auto& [key, g] : groups) {
    const auto v = g.expanded();
    std::printf("%-44s %6.0f %9.2f %9.2f %9.2f %7.1f%%\n", key.c_str(), g.count(), quantile(v, 0.5), quantile(v, 0.1),
                quantile(v, 0.9), 100.0 * g.faster() / std::max(1.0, g.count()));
    all += g.count(), faster += g.faster();
  }
  std::printf("%-44s %6.0f %39s %7.2f%%   (target <= 2 %%)\n", "all kernels with a price", all, "", 100.0 * faster / std::max(1.0, all));
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = argc > 1 ? fs::path(argv[1]) : fs::path(MSA_REAL_PROFILES_DIR);
  if (root.empty() || !fs::exists(root / "ascend")) {
    std::printf("bench_ascend_kernels: no real profiles (give the folder as the first argument)\n");
    return 0;
  }
  // Each run once: the folders whose kernels carry shapes.
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(root / "ascend"))
    if (e.is_directory()) runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());
  std::map<std::string, Group> now, old, classes;
  double total = 0, unpricedMs = 0, computeMs = 0;
  std::map<std::string, std::pair<int, double>> unpriced;
  for (const fs::path& run : runs) {
    auto p = importProfile(run, nullptr);
    if (!p) {
      std::printf("%s: %s\n", run.filename().c_str(), p.error().describe().c_str());
      continue;
    }
    if (!p->caps.shapes) {
      std::printf("%-52s %s: no shapes, skipped\n", run.filename().c_str(), p->device.c_str());
      continue;
    }
    const std::string id = p->device.starts_with("ascend9") || p->device.starts_with("ascend3") ? p->device : "ascend910b";
    auto device = loadDevice(id);
    if (!device) {
      std::printf("%s: %s\n", id.c_str(), device.error().describe().c_str());
      return 1;
    }
    const PricedProfile priced = priceKernels(*p, *device), plain = priceKernels(*p, before(*device));
    std::printf("%-52s %-12s %4zu entries, %5.0f kernels priced of %d tasks; %s\n", run.filename().c_str(), id.c_str(),
                p->nodes.size(),
                [&] {
                  double n = 0;
                  for (const auto& k : priced.kernels) n += k.priced() ? k.calls * p->iterations : 0;
                  return n;
                }(),
                p->tasks, p->chipBasis.c_str());
    computeMs += priced.computeMs;
    for (const auto& u : priced.unpriced) {
      unpriced[u.opType].first += u.kernels;
      unpriced[u.opType].second += u.ms;
      unpricedMs += u.ms;
    }
    for (size_t i = 0; i < priced.kernels.size(); ++i) {
      const PricedKernel& k = priced.kernels[i];
      if (!k.priced()) continue;
      const NodeProfile& n = p->nodes[i];
      const double kernels = k.calls * std::max(1, p->iterations);
      const std::string key = n.opType + " / " + std::string(coreTypeName(k.core));
      now[key].add(k.measuredMs / k.rooflineMs, kernels);
      const PricedKernel& b = plain.kernels[i];
      if (b.priced()) old[key].add(b.measuredMs / b.rooflineMs, kernels);
      if (const std::string c = shapeClass(k.cost); !c.empty() && k.cost.family != "conv")
        classes[n.opType + ": " + c].add(k.measuredMs / k.rooflineMs, kernels);
      total += kernels;
    }
  }
  print("measured / roofline, device figures as shipped", now);
  print("measured / roofline, device figures before the corrections", old);
  print("MatMul and FlashAttention: measured / roofline per shape class", classes);
  std::printf("\nkernels without a price (no formula or no shapes): %.1f %% of the compute kernels' time\n",
              computeMs > 0 ? 100.0 * unpricedMs / computeMs : 0.0);
  for (const auto& [type, u] : unpriced) std::printf("  %-28s %4d entries %9.3f ms\n", type.c_str(), u.first, u.second);
  return 0;
}
