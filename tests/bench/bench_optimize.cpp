// What the optimizer buys, per corpus model and level, in one run: T(original, ORT disabled),
// T(optimized, ORT disabled), T(original, ORT all), T(optimized, ORT all) as medians of
// interleaved runs (compareLatency), the two target ratios, and the estimated speedup next to the
// measured one (estimateSpeedup: the original's per-node profile with ORT disabled, and at
// aggressive its ORT_ENABLE_ALL profile, on cpu-host with this machine's calibration).
// Targets: T(orig, all) / T(opt, disabled) >= 1.0 at aggressive; T(orig, all) / T(opt, all) >= 0.98
// at every level; |estimated / measured - 1| <= 15 %.
// Usage: bench_optimize [ITERATIONS] [THREADS] [MODEL_SUBSTRING]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "optimize/optimizer.h"
#include "optimize/outcome.h"
#include "profile/host_calibration.h"
#include "profile/model_inputs.h"
#include "profile/ort_profiler.h"
#include "test_paths.h"

using namespace msa;

namespace {

std::map<std::string, int64_t, std::less<>> dimsFor(const std::string& file) {
  if (file.find("PP-OCRv4_rec") != std::string::npos) return {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 320}};
  if (file.find("ppocr_mobile") != std::string::npos)
    return {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 48}, {"p2o.DynamicDimension.2", 192}};
  if (file.find("silero") != std::string::npos)
    return {{"batch", 1}, {"sequence", 512}, {"input:0", 1}, {"input:1", 512}, {"state:1", 1}};
  return {};
}

std::string shortName(std::string s) {
  if (s.size() > 5 && s.substr(s.size() - 5) == ".onnx") s.resize(s.size() - 5);
  if (s.rfind("onnx-testdata_", 0) == 0) s = "td:" + s.substr(14);
  return s.size() > 30 ? s.substr(0, 30) : s;
}

}  // namespace

int main(int argc, char** argv) {
  if (!test::hasCorpus()) {
    std::printf("no model corpus: skipped\n");
    return 0;
  }
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 40;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const std::string filter = argc > 3 ? argv[3] : "";

  auto device = loadDevice("cpu-host");
  if (!device) {
    std::fprintf(stderr, "%s\n", device.error().describe().c_str());
    return 1;
  }
  CalibrationOptions co;
  co.threads = threads;
  auto cal = hostCalibration(false, Progress::none(), nullptr, co);
  const DeviceProfile dev = cal ? withHostCalibration(*device, *cal) : *device;
  if (cal)
    std::printf("cpu-host calibrated: %.1f GFLOP/s fp32, %.1f GB/s (%s, %d thread(s))\n", cal->gflops, cal->bandwidthGBs,
                cal->cpu.c_str(), cal->threads);
  std::printf("latency: median of %d interleaved runs per configuration, %d intra-op thread(s); T in ms\n\n", iterations,
              threads);
  std::printf("%-30s %-12s %9s %9s %9s %9s %9s %9s %7s %7s %6s\n", "model", "level", "orig/dis", "opt/dis", "orig/all",
              "opt/all", "all/optD", "all/optA", "est", "meas", "err%");

  int rows = 0, ratio1Ok = 0, ratio1Rows = 0, ratio2Ok = 0, estOk = 0, estRows = 0;
  for (const auto& path : test::corpusModels()) {
    const std::string file = path.filename().string();
    if (!filter.empty() && file.find(filter) == std::string::npos) continue;
    auto model = loadModel(path);
    if (!model) {
      std::printf("%-30s skipped: %s\n", shortName(file).c_str(), model.error().describe().c_str());
      continue;
    }
    InputOptions io;
    io.dims = dimsFor(file);
    auto random = makeRandomInputs(*model, io);
    if (!random) {
      std::printf("%-30s skipped: %s\n", shortName(file).c_str(), random.error().describe().c_str());
      continue;
    }
    std::vector<DataValue> inputs;
    for (auto& t : *random) inputs.push_back(DataValue::of(std::move(t)));

    CpuProfileOptions po;
    po.iterations = std::max(10, iterations / 2);
    po.threads = threads;
    po.inputs = io;
    auto disabled = profileOnCpu(*model, po);
    if (!disabled) {
      std::printf("%-30s skipped: %s\n", shortName(file).c_str(), disabled.error().message.substr(0, 100).c_str());
      continue;
    }
    po.optimization = GraphOptimization::All;
    auto all = profileOnCpu(*model, po);

    for (OptLevel level : {OptLevel::Conservative, OptLevel::Moderate, OptLevel::Aggressive}) {
      OptimizeOptions oo;
      oo.level = level;
      oo.verification.inputs = io;
      auto r = optimize(*model, oo);
      if (!r) {
        std::printf("%-30s %-12s optimize failed: %s\n", shortName(file).c_str(), std::string(levelName(level)).c_str(),
                    r.error().describe().c_str());
        continue;
      }
      LatencyOptions lo;
      lo.iterations = iterations;
      lo.threads = threads;
      auto lat = compareLatency(*model, r->model, inputs, lo);
      if (!lat) {
        std::printf("%-30s %-12s timing failed: %s\n", shortName(file).c_str(), std::string(levelName(level)).c_str(),
                    lat.error().describe().c_str());
        continue;
      }
      auto est = estimateSpeedup(*model, r->model, r->applied, *disabled, all ? &*all : nullptr, dev);
      const double meas = lat->speedupDisabled();
      const double err = est ? std::fabs(est->speedup / meas - 1.0) * 100.0 : -1;
      ++rows;
      const double r1 = lat->allVsOptimizedDisabled(), r2 = lat->speedupAll();
      if (level == OptLevel::Aggressive) {
        ++ratio1Rows;
        ratio1Ok += r1 >= 1.0;
      }
      ratio2Ok += r2 >= 0.98;
      if (est) {
        ++estRows;
        estOk += err <= 15.0;
      }
      std::printf("%-30s %-12s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.3f %7.3f %6.1f%s%s\n", shortName(file).c_str(),
                  std::string(levelName(level)).c_str(), lat->originalDisabled.median, lat->optimizedDisabled.median,
                  lat->originalAll.median, lat->optimizedAll.median, r1, r2, est ? est->speedup : 0.0, meas, err,
                  r->applied.empty() ? "  (unchanged)" : "", r->verification && r->verification->passed ? "" : "  VERIFY FAILED");
      std::fflush(stdout);
    }
  }
  std::printf("\ntargets: all/optD >= 1.0 at aggressive: %d of %d; all/optA >= 0.98: %d of %d; estimate within 15%%: %d of %d\n",
              ratio1Ok, ratio1Rows, ratio2Ok, rows, estOk, estRows);
  return 0;
}
