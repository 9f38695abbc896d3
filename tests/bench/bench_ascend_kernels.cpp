// The Ascend cost model against real kernels: every kernel with shapes in the real profiles
// (../shared/real-profiles/ascend, PROVENANCE.md there) priced from its own row
// (profile/profile_kernels.h) on the device profile its chip maps to, against its measured time.
// Prints:
//  1. per op type and core type, measured ÷ roofline (median, p10, p90) and the share of kernels
//     faster than their roofline (physically impossible: over 2 % means a device figure is
//     wrong), with the device figures as shipped and as they were before L2, the float32 cube
//     rate and the task floor;
//  2. the formulas against the kernels' own counters: the cube's MACs (aic_total_cycles x
//     aic_mac_ratio x MACs per cycle) and the vector's operations; a cube formula more than 10 %
//     off is listed as a formula bug;
//  3. the kernel-time model (cost/kernel_predict.h): per family, the share of kernels predicted
//     within ±25 % and the median error, on the kernels it was fitted on and on kernels of files
//     it was not fitted on (leave one file out; and leave one job out, the two AlexNet files
//     being one job profiled twice);
//  4. AlexNet: `estimate` of torchvision's AlexNet (exported here with python3-torch, batch 32)
//     on the 910B2 against the real forward kernels, per Conv/Gemm.
// Asserts nothing.
//
//   bench_ascend_kernels [REAL_PROFILES_DIR] [--csv KERNELS.csv] [--write-model FILE.json]
//     --write-model writes the model fitted on every file (resources/ascend/kernel_efficiency.json)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cost/kernel_predict.h"
#include "cost/roofline.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/profile_import.h"
#include "profile/profile_kernels.h"
#include "rules/ge_fusion.h"

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

// The device figures before the corrections of issue 22: no L2, no task floor, no float32 cube
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
           (k.seqQ % 128 == 0 ? ", S % 128 == 0" : ", S % 128 != 0") + (k.mask != "none" ? ", mask " + k.mask : "");
  return "";
}

struct Sample {
  double value;   // a ratio
  double weight;  // calls x steps: how many kernels the entry stands for
};

struct Group {
  std::vector<Sample> samples;
  void add(double v, double n) { samples.push_back({v, n}); }
  double count() const {
    double c = 0;
    for (const auto& s : samples) c += s.weight;
    return c;
  }
  double share(bool (*pred)(double)) const {
    double c = 0;
    for (const auto& s : samples) c += pred(s.value) ? s.weight : 0;
    return count() > 0 ? c / count() : 0;
  }
  std::vector<double> expanded() const {
    std::vector<double> v;
    for (const auto& s : samples)
      for (int k = 0; k < std::max(1, static_cast<int>(std::lround(s.weight))); ++k) v.push_back(s.value);
    return v;
  }
};

void printRatios(const char* title, const std::map<std::string, Group>& groups) {
  std::printf("\n%s\n%-52s %6s %9s %9s %9s %8s\n", title, "op type / core type", "count", "median", "p10", "p90", "faster");
  double all = 0, faster = 0;
  for (const auto& [key, g] : groups) {
    const auto v = g.expanded();
    const double f = g.share([](double r) { return r < 1.0; });
    std::printf("%-52s %6.0f %9.2f %9.2f %9.2f %7.1f%%\n", key.c_str(), g.count(), quantile(v, 0.5), quantile(v, 0.1),
                quantile(v, 0.9), 100.0 * f);
    all += g.count(), faster += f * g.count();
  }
  std::printf("%-52s %6.0f %29s %7.2f%%   (target <= 2 %%)\n", "all kernels with a price", all, "", 100.0 * faster / std::max(1.0, all));
}

// One priced kernel of a run, with what the model needs.
struct Kernel {
  std::string run, job, name, opType, core;
  PricedKernel priced;
  DeviceProfile const* device = nullptr;
  double weight = 1;
  size_t inputs = 0;  // tensors the row lists as inputs
  EfficiencySample sample;
};

std::string jobOf(const std::string& run) { return run.find("alexnet") != std::string::npos ? "torch_npu_alexnet_train" : run; }

// Per family: share within ±25 % and the median |error|, of predictions made by `model`s.
struct Scores {
  std::map<std::string, Group> error;  // family -> |predicted / measured - 1|
  std::map<std::string, std::set<std::string>> files;
  void add(const Kernel& k, double predicted) {
    const double measured = k.sample.measuredSeconds;
    if (predicted <= 0 || measured <= 0) return;
    error[k.sample.cost.family].add(std::abs(predicted / measured - 1), k.weight);
    error["(all)"].add(std::abs(predicted / measured - 1), k.weight);
    files[k.sample.cost.family].insert(k.run);
    files["(all)"].insert(k.run);
  }
};

void printScores(const char* title, const Scores& s) {
  std::printf("\n%s\n%-14s %7s %6s %12s %13s %9s\n", title, "family", "kernels", "files", "within ±25 %", "median |err|",
              "p90 |err|");
  for (const auto& [family, g] : s.error) {
    const auto v = g.expanded();
    std::printf("%-14s %7.0f %6zu %11.1f%% %12.1f%% %8.0f%%\n", family.c_str(), g.count(), s.files.at(family).size(),
                100.0 * g.share([](double e) { return e <= 0.25; }), 100.0 * quantile(v, 0.5), 100.0 * quantile(v, 0.9));
  }
}

double predictWith(const EfficiencyModel& m, const Kernel& k) {
  return predictKernel(k.sample.cost, k.sample.roofline, *k.device, k.sample.mix, m).seconds;
}

// Leave out each group of files in turn: fit on the others, predict the group's kernels.
Scores leaveOut(const std::vector<Kernel>& kernels, const std::vector<std::string>& socs, bool byJob,
                const EfficiencyFitOptions& options = {}) {
  std::set<std::string> groups;
  for (const Kernel& k : kernels) groups.insert(byJob ? k.job : k.run);
  Scores s;
  for (const std::string& g : groups) {
    std::vector<EfficiencySample> train;
    for (const Kernel& k : kernels)
      if ((byJob ? k.job : k.run) != g) train.push_back(k.sample);
    EfficiencyModel m = fitEfficiencyModel(train, options);
    m.socs = socs;
    for (const Kernel& k : kernels)
      if ((byJob ? k.job : k.run) == g) s.add(k, predictWith(m, k));
  }
  return s;
}

// ---- AlexNet: the graph estimate against the real forward kernels ----

void alexnet(const std::vector<Kernel>& kernels, const EfficiencyModel& all,
             const EfficiencyModel& withoutAlexnet) {
  std::printf("\nAlexNet (torchvision, ONNX export batch 32, 224x224, float32): estimate on ascend910b2 against the real "
              "forward kernels (torch_npu_alexnet_train_level1)\n");
  const fs::path dir = fs::temp_directory_path() / ("msa_bench_alexnet_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path onnx = dir / "alexnet_b32.onnx";
  const std::string cmd =
      "/usr/bin/python3 -c \"import torch, torchvision; m = torchvision.models.alexnet().eval(); "
      "torch.onnx.export(m, torch.randn(32, 3, 224, 224), '" +
      onnx.string() + "', opset_version=13)\" > /dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0 || !fs::exists(onnx)) {
    std::printf("  skipped: python3-torch/torchvision could not export the model\n");
    fs::remove_all(dir);
    return;
  }
  auto model = loadModel(onnx);
  fs::remove_all(dir);
  if (!model || !inferShapes(*model)) {
    std::printf("  skipped: the exported model did not load\n");
    return;
  }
  auto device = loadDevice("ascend910b2");
  if (!device) return;
  const Graph& g = model->graph;
  const GraphIndex index(g);
  const GraphCost cost = computeCosts(g);
  RooflineOptions ro;
  ro.precision = RooflineOptions::Precision::Model;  // the real run is float32
  GeFusion ge;
  const RooflineEstimate est = compiledRoofline(*model, index, cost, *device, ro, nullptr, &ge);
  const auto predicted = predictGraphKernels(g, index, cost, est, *device, all);
  const auto predictedOut = predictGraphKernels(g, index, cost, est, *device, withoutAlexnet);
  std::printf("%-40s %9s %9s %11s %9s %9s %9s %9s\n", "layer (the compiled kernel)", "roofline", "predicted", "pred. (no A)",
              "real", "+ ReLU", "pred/real", "no A/real");
  double worst = 0, worstOut = 0;
  int layers = 0, within = 0, withinOut = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!(n.is("Conv") || n.is("Gemm"))) continue;
    const KernelCost k = kernelCostOfNode(n, index, cost.nodes[i], est.nodes[i].computeType);
    // The real forward kernel: a Conv2D, or a MatMulV2 with its bias (the backward dX of fc2
    // has the same M, N and K), of the same M, N and padded K.
    const Kernel* real = nullptr;
    for (const Kernel& r : kernels) {
      const KernelCost& c = r.priced.formula;
      if (r.run == "torch_npu_alexnet_train_level1" && c.opType == (k.family == "conv" ? "Conv2D" : "MatMulV2") &&
          c.m == k.m && c.n == k.n && c.paddedK == k.paddedK && (k.family == "conv" || r.inputs == 3)) {
        real = &r;
        break;
      }
    }
    // The ReLU kernel after it in the run (eager mode: a kernel of its own).
    double relu = 0;
    if (real)
      for (const Kernel& r : kernels)
        if (r.run == real->run && r.opType == "Relu" && r.priced.cost.cost.bytes() > 0 &&
            std::abs(r.priced.cost.cost.bytesWritten - k.cost.bytesWritten) < 0.02 * k.cost.bytesWritten) {
          relu = r.priced.callMs * 1e3;
          break;
        }
    const double roof = est.nodes[i].seconds * 1e6, pred = predicted.empty() ? 0 : predicted[i] * 1e6,
                 predOut = predictedOut.empty() ? 0 : predictedOut[i] * 1e6, meas = real ? real->priced.callMs * 1e3 : 0;
    std::printf("%-40s %9.1f %9.1f %11.1f %9.1f %9.1f %9.2f %9.2f\n", n.name.substr(0, 40).c_str(), roof, pred, predOut, meas,
                relu, meas > 0 ? pred / meas : 0.0, meas > 0 ? predOut / meas : 0.0);
    if (meas > 0) {
      ++layers;
      within += std::abs(pred / meas - 1) <= 0.25;
      withinOut += std::abs(predOut / meas - 1) <= 0.25;
      worst = std::max(worst, std::abs(std::log(pred / meas)));
      worstOut = std::max(worstOut, std::abs(std::log(predOut / meas)));
    }
  }
  std::printf("  %d of %d Conv/Gemm layers within ±25 %% (worst x%.2f); fitted without the AlexNet files: %d of %d (worst x%.2f)\n",
              within, layers, std::exp(worst), withinOut, layers, std::exp(worstOut));
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root = fs::path(MSA_REAL_PROFILES_DIR);
  std::string csvPath, modelPath;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc) csvPath = argv[++i];
    else if (a == "--write-model" && i + 1 < argc) modelPath = argv[++i];
    else root = a;
  }
  if (root.empty() || !fs::exists(root / "ascend")) {
    std::printf("bench_ascend_kernels: no real profiles (give the folder as the first argument)\n");
    return 0;
  }
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(root / "ascend"))
    if (e.is_directory()) runs.push_back(e.path());
  std::sort(runs.begin(), runs.end());
  std::map<std::string, Group> now, old, classes;
  std::map<std::string, Group> cubeCheck, vectorCheck;  // op type -> formula ÷ counters
  std::vector<std::string> formulaBugs;
  double unpricedMs = 0, computeMs = 0;
  std::map<std::string, std::pair<int, double>> unpriced;
  std::vector<Kernel> kernels;
  std::map<std::string, DeviceProfile> devices;
  std::set<std::string> socs;
  std::map<std::string, std::string> sources;
  for (const fs::path& run : runs) {
    auto p = importProfile(run, nullptr);
    const std::string name = run.filename().string();
    if (!p) {
      std::printf("%s: %s\n", name.c_str(), p.error().describe().c_str());
      continue;
    }
    if (!p->caps.shapes) {
      std::printf("%-48s %s: no shapes, skipped\n", name.c_str(), p->device.c_str());
      continue;
    }
    const std::string id = p->device.starts_with("ascend9") || p->device.starts_with("ascend3") ? p->device : "ascend910b";
    auto device = loadDevice(id);
    if (!device) {
      std::printf("%s: %s\n", id.c_str(), device.error().describe().c_str());
      return 1;
    }
    devices[name] = *device;
    socs.insert(device->soc);
    sources[name] = "ascend/" + name + " (" + p->chipBasis + ")";
    const PricedProfile priced = priceKernels(*p, devices[name]), plain = priceKernels(*p, before(*device));
    double count = 0;
    for (const auto& k : priced.kernels) count += k.priced() ? k.calls * std::max(1, p->iterations) : 0;
    std::printf("%-48s %-12s %4zu entries, %5.0f kernels priced of %d tasks; %s\n", name.c_str(), id.c_str(), p->nodes.size(),
                count, p->tasks, p->chipBasis.c_str());
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
      const double weight = k.calls * std::max(1, p->iterations);
      const std::string key = n.opType + " / " + std::string(coreTypeName(k.core));
      now[key].add(k.measuredMs / k.rooflineMs, weight);
      if (const PricedKernel& b = plain.kernels[i]; b.priced()) old[key].add(b.measuredMs / b.rooflineMs, weight);
      if (const std::string c = shapeClass(k.cost); !c.empty()) classes[n.opType + ": " + c].add(k.measuredMs / k.rooflineMs, weight);
      // The formula against the counters.
      const DType t = k.formula.cost.computeType;
      if (k.formula.cost.unit == ComputeUnit::Cube && k.counters.cubeMacs(t) > 0 && k.formula.cost.macs > 0) {
        const double r = k.formula.cost.macs / k.counters.cubeMacs(t);
        cubeCheck[n.opType + " / " + std::string(coreTypeName(k.core))].add(r, weight);
        if (std::abs(r - 1) > 0.10) {
          char line[512];
          std::snprintf(line, sizeof line, "  %-26s %-34s formula %.3g MACs, counters %.3g (%+.0f %%) %s", n.opType.c_str(),
                        name.substr(0, 34).c_str(), k.formula.cost.macs, k.counters.cubeMacs(t), 100 * (r - 1),
                        k.formula.mask != "none" ? ("mask " + k.formula.mask).c_str() : "");
          formulaBugs.push_back(line);
        }
      }
      if (k.formula.cost.unit == ComputeUnit::Vector && k.counters.vectorOps(t) > 0 && k.formula.cost.flops > 0)
        vectorCheck[n.opType].add(k.formula.cost.flops / k.counters.vectorOps(t), weight);
      Kernel kk;
      kk.run = name, kk.job = jobOf(name), kk.name = n.name, kk.opType = n.opType;
      kk.core = std::string(coreTypeName(k.core));
      kk.priced = k;
      kk.weight = weight;
      for (const auto& shape : n.inputShapes) kk.inputs += !shape.empty();
      kk.sample.cost = k.formula;
      kk.sample.roofline = kernelRoofline(k.formula.cost, devices[name]);
      kk.sample.mix = k.core == CoreType::MixCube || k.core == CoreType::MixVector;
      kk.sample.measuredSeconds = k.callMs * 1e-3;
      kk.sample.weight = weight;
      kk.sample.file = name;
      kernels.push_back(std::move(kk));
    }
  }
  for (Kernel& k : kernels) k.device = &devices[k.run];
  printRatios("measured / roofline (the executed work: the counters' where the row has them), device figures as shipped", now);
  printRatios("measured / roofline, device figures before the corrections", old);
  printRatios("MatMul and FlashAttention: measured / roofline per shape class", classes);

  std::printf("\nthe formulas against the kernels' counters: formula ÷ counters (cube MACs; vector operations)\n");
  std::printf("%-52s %6s %9s %9s %9s\n", "cube: op type / core type", "count", "median", "min", "max");
  for (const auto& [key, g] : cubeCheck) {
    const auto v = g.expanded();
    std::printf("%-52s %6.0f %9.3f %9.3f %9.3f\n", key.c_str(), g.count(), quantile(v, 0.5), quantile(v, 0), quantile(v, 1));
  }
  std::printf("cube formulas more than 10 %% off the counters (formula bugs): %zu entries\n", formulaBugs.size());
  for (const auto& l : formulaBugs) std::printf("%s\n", l.c_str());
  std::printf("%-52s %6s %9s %9s %9s   (the vector weights are operations per element, not the\n", "vector: op type", "count",
              "median", "min", "max");
  std::printf("%-52s %6s %9s %9s %9s    instructions the kernel issues: an order of magnitude)\n", "", "", "", "", "");
  for (const auto& [key, g] : vectorCheck) {
    const auto v = g.expanded();
    std::printf("%-52s %6.0f %9.3f %9.3f %9.3f\n", key.c_str(), g.count(), quantile(v, 0.5), quantile(v, 0), quantile(v, 1));
  }

  // The kernel-time model.
  std::vector<EfficiencySample> samples;
  for (const Kernel& k : kernels) samples.push_back(k.sample);
  const std::vector<std::string> socList(socs.begin(), socs.end());
  EfficiencyModel fitted = fitEfficiencyModel(samples);
  fitted.socs = socList;
  fitted.sources = sources;
  Scores fit, shipped;
  for (const Kernel& k : kernels) {
    fit.add(k, predictWith(fitted, k));
    shipped.add(k, predictWith(builtinEfficiencyModel(), k));
  }
  std::printf("\nkernel-time model: predicted = max(roofline, start + max(a x compute, b x device-memory time)), per class\n");
  printScores("fitted on every file, predicting the kernels it was fitted on", fit);
  printScores("the built-in model (resources/ascend/kernel_efficiency.json)", shipped);
  printScores("leave one file out: fitted on the other files", leaveOut(kernels, socList, false));
  printScores("leave one job out (the two AlexNet files, one job profiled twice, left out together)",
              leaveOut(kernels, socList, true));
  // How much the fit's settings matter (chosen before looking: the defaults above).
  std::printf("\nleave one job out under other fit settings: within ±25 %% (all / matmul / attention / elementwise)\n");
  for (const auto& [label, o] : std::vector<std::pair<const char*, EfficiencyFitOptions>>{
           {"classes from one file too", {3, 1, false}}, {"least mean |log error|", {3, 2, true}}}) {
    const Scores s = leaveOut(kernels, socList, true, o);
    auto share = [&](const char* f) {
      auto it = s.error.find(f);
      return it == s.error.end() ? 0.0 : 100 * it->second.share([](double e) { return e <= 0.25; });
    };
    std::printf("  %-28s %5.1f%% %5.1f%% %5.1f%% %5.1f%%\n", label, share("(all)"), share("matmul"), share("attention"),
                share("elementwise"));
  }
  std::printf("\nfitted classes (start us, compute factor, memory factor; entries, files, within ±25 %% in the fit)\n");
  for (const auto& [key, f] : fitted.classes)
    std::printf("  %-34s %5.2f %7.2f %7.2f   %3d entries %2zu files %5.1f%%\n", key.c_str(), f.startSeconds * 1e6, f.computeFactor,
                f.memoryFactor, f.entries, f.files.size(), 100 * f.within25);
  if (!modelPath.empty()) {
    nlohmann::json j = toJson(fitted);
    j["notes"] =
        "Written by tests/bench/bench_ascend_kernels --write-model: the kernel-time model (core/cost/kernel_predict.h, "
        "docs/cost-model.md) fitted on every kernel with shapes of the real profiles listed in sources "
        "(../shared/real-profiles/ascend, PROVENANCE.md there). Per class: predicted = max(roofline, start_us + "
        "max(compute_factor x FLOPs/peak, memory_factor x bytes/device-memory bandwidth)); kernels are calls over the "
        "profiled steps, entries the distinct kernels, within_25 the share the fit puts within ±25 % of the measured time.";
    std::ofstream(modelPath) << j.dump(1) << "\n";
    std::printf("model written to %s\n", modelPath.c_str());
  }

  // The model without the AlexNet job: the AlexNet estimate out of sample.
  std::vector<EfficiencySample> noAlexnet;
  for (const Kernel& k : kernels)
    if (k.job != "torch_npu_alexnet_train") noAlexnet.push_back(k.sample);
  EfficiencyModel outOfSample = fitEfficiencyModel(noAlexnet);
  outOfSample.socs = socList;
  alexnet(kernels, fitted, outOfSample);

  std::printf("\nkernels without a price (no formula or no shapes): %.1f %% of the compute kernels' time\n",
              computeMs > 0 ? 100.0 * unpricedMs / computeMs : 0.0);
  for (const auto& [type, u] : unpriced) std::printf("  %-28s %4d entries %9.3f ms\n", type.c_str(), u.first, u.second);

  if (!csvPath.empty()) {
    std::ofstream csv(csvPath);
    csv << "run,name,op,core,family,dtype,calls,kernels,measured_us,roof_us,compute_us,memory_us,hbm_us,floor_us,"
           "predicted_us,flops,formula_flops,bytes,m,n,k,padded_k,mask,mask_share,cube_macs_counters\n";
    for (const Kernel& k : kernels) {
      const PricedKernel& p = k.priced;
      csv << k.run << ",\"" << k.name << "\"," << k.opType << "," << k.core << "," << p.formula.family << ","
          << dtypeName(p.formula.cost.computeType) << "," << p.calls << "," << k.weight << "," << p.callMs * 1e3 << ","
          << p.roofline.seconds * 1e6 << "," << p.roofline.computeSeconds * 1e6 << "," << p.roofline.memorySeconds * 1e6 << ","
          << k.sample.roofline.hbmSeconds * 1e6 << "," << p.roofline.floorSeconds * 1e6 << ","
          << predictWith(fitted, k) * 1e6 << "," << p.cost.cost.flops << "," << p.formula.cost.flops << ","
          << p.formula.cost.bytes() << "," << p.formula.m << "," << p.formula.n << "," << p.formula.k << "," << p.formula.paddedK
          << "," << p.formula.mask << "," << p.formula.maskShare << "," << p.counters.cubeMacs(p.formula.cost.computeType) << "\n";
    }
  }
  return 0;
}
