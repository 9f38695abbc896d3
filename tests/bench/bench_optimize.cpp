// What the optimizer buys, per corpus model and level, in one run: T(original, ORT disabled),
// T(optimized, ORT disabled), T(original, ORT all), T(optimized, ORT all) as medians of
// runs taken in turns (compareLatency), the two target ratios, and the estimated speedup next
// to the measured one (estimateSpeedup: the original's per-node profile with ORT disabled, and at
// aggressive its ORT_ENABLE_ALL profile, on cpu-host with this machine's calibration).
// Targets: T(orig, all) / T(opt, disabled) >= 1.0 at aggressive; T(orig, all) / T(opt, all) >= 0.98
// at every level; |estimated / measured - 1| <= 15 %. As deployed (issue 10): the estimate at
// ORT_ENABLE_ALL against the measured T(orig, all) / T(opt, all), median |est / meas - 1| <= 10 %
// at every level, max <= 25 % outside runs under 0.1 ms (printed per level at the end).
// Beside it, at the aggressive level, the original and the optimized model timed in plain ONNX
// Runtime sessions written here (plain_ort_timing.h), as deployed: T(orig) / T(opt) per model,
// target >= 1 on every model (never slower) and >= 1.2 on the GPT-style decoder (generated,
// tests/tools: 4 layers, hidden 256, 4 heads, sequence 128, the FastGELU tanh form) and the
// BERT-like encoder, with the outputs of both sessions compared.
// Usage: bench_optimize [ITERATIONS] [THREADS] [MODEL_SUBSTRING] [LEVEL]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include <QTemporaryDir>

#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "optimize/optimizer.h"
#include "optimize/outcome.h"
#include "profile/host_calibration.h"
#include "profile/model_inputs.h"
#include "profile/ort_profiler.h"
#include "large_models.h"
#include "plain_ort_timing.h"
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

std::string loadAverage() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  char buf[64] = {};
  if (f) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string s(buf);
  return s.substr(0, s.find(' ', s.find(' ', s.find(' ') + 1) + 1));
}

std::string shortName(std::string s) {
  if (s.size() > 5 && s.substr(s.size() - 5) == ".onnx") s.resize(s.size() - 5);
  for (const char* prefix : {"onnx-testdata_pytorch-converted_test_", "onnx-testdata_pytorch-operator_test_", "onnx-testdata_"})
    if (s.rfind(prefix, 0) == 0) {
      s = "td:" + s.substr(std::string(prefix).size());
      break;
    }
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
  OptLevel only = OptLevel::Conservative;
  const bool oneLevel = argc > 4 && parseLevel(argv[4], only);

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
  std::printf("latency: the measurement engine, at least %d uncontended runs per configuration in turns, %d intra-op thread(s); load average %s\n",
              iterations, threads, loadAverage().c_str());
  std::printf("T in ms: median (10th percentile); ratios r1 = T(orig, all) / T(opt, disabled), r2 = T(orig, all) / T(opt, all)\n"
              "from medians (and from 10th percentiles); est = estimated speedup, meas = measured T(orig, dis) / T(opt, dis);\n"
              "estA = estimated speedup as deployed (ORT all), errA%% against r2 from medians\n\n");
  std::printf("%-30s %-12s %17s %17s %17s %17s %13s %13s %6s %13s %11s %6s %6s\n", "model", "level", "T orig,dis", "T opt,dis",
              "T orig,all", "T opt,all", "r1", "r2", "est", "meas", "err%", "estA", "errA%");
  // |estimated / measured - 1| as deployed, per level; and whether the run took under 0.1 ms.
  std::map<std::string, std::vector<std::pair<double, bool>>> deployedErrors;

  int rows = 0, ratio1Rows = 0, estRows = 0;
  int ratio1Ok[2] = {0, 0}, ratio2Ok[2] = {0, 0}, estOk[2] = {0, 0};
  struct Plain {
    std::string model;
    bench::PlainComparison c;
    bool verified = false;
    size_t rewrites = 0;
  };
  std::vector<Plain> plain;
  // The corpus and a GPT-style decoder written the way torch exports one.
  std::vector<std::filesystem::path> models = test::corpusModels();
  QTemporaryDir tmp;
  {
    tools::GptSpec gpt;
    gpt.layers = 4;
    gpt.hidden = 256;
    gpt.heads = 4;
    gpt.ffn = 1024;
    gpt.vocab = 2048;
    gpt.maxPositions = 128;
    tools::WriteOptions wo;
    wo.storage = tools::Storage::Inline;
    wo.fill = tools::Fill::Random;
    wo.dynamicShapes = false;
    wo.sequence = 128;
    const std::filesystem::path out = tmp.filePath("gpt_decoder.onnx").toStdString();
    if (auto w = tools::writeGpt(gpt, wo, out)) models.push_back(out);
    else std::printf("gpt_decoder: %s\n", w.error().describe().c_str());
  }
  for (const auto& path : models) {
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
    po.latencyTarget = 1;  // per-node profiles; compareLatency times the runs
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
      if (oneLevel && level != only) continue;
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
      ++rows;
      double meas[2], err[2], r1[2], r2[2];
      for (int q = 0; q < 2; ++q) {
        meas[q] = lat->speedupDisabled(q == 1);
        err[q] = est ? std::fabs(est->speedup / meas[q] - 1.0) * 100.0 : -1;
        r1[q] = lat->allVsOptimizedDisabled(q == 1);
        r2[q] = lat->speedupAll(q == 1);
        if (level == OptLevel::Aggressive) ratio1Ok[q] += r1[q] >= 1.0;
        ratio2Ok[q] += r2[q] >= 0.98;
        if (est) estOk[q] += err[q] <= 15.0;
      }
      ratio1Rows += level == OptLevel::Aggressive;
      estRows += est.ok();
      auto t = [](const Stats& x) {
        char b[32];
        std::snprintf(b, sizeof b, "%7.3f (%7.3f)", x.median, x.p10);
        return std::string(b);
      };
      const double errA = est && est->deployedSpeedup > 0 ? std::fabs(est->deployedSpeedup / r2[0] - 1.0) * 100.0 : -1;
      if (errA >= 0) deployedErrors[std::string(levelName(level))].push_back({errA, lat->originalAll.median < 0.1});
      std::printf("%-30s %-12s %s %s %s %s %5.3f (%5.3f) %5.3f (%5.3f) %6.3f %5.3f (%5.3f) %4.0f (%4.0f) %6.3f %6.1f%s%s\n",
                  shortName(file).c_str(), std::string(levelName(level)).c_str(), t(lat->originalDisabled).c_str(),
                  t(lat->optimizedDisabled).c_str(), t(lat->originalAll).c_str(), t(lat->optimizedAll).c_str(), r1[0], r1[1],
                  r2[0], r2[1], est ? est->speedup : 0.0, meas[0], meas[1], err[0], err[1],
                  est ? est->deployedSpeedup : 0.0, errA, r->applied.empty() ? "  (unchanged)" : "", r->verification && r->verification->passed ? "" : "  VERIFY FAILED");
      std::fflush(stdout);
      if (level == OptLevel::Aggressive) {
        auto a = serializeModel(*model), b = serializeModel(r->model);
        std::vector<Tensor> tensors;
        for (const auto& v : inputs)
          if (v.kind == DataValue::Kind::Tensor) tensors.push_back(v.tensor);
        auto c = a && b ? bench::comparePlain(*a, *b, tensors, threads, std::max(6, iterations)) : Result<bench::PlainComparison>(Error::model("serialize"));
        if (c) plain.push_back({shortName(file), *c, r->verification && r->verification->passed, r->applied.size()});
        else std::printf("%-30s plain ONNX Runtime timing failed: %s\n", shortName(file).c_str(), c.error().describe().c_str());
      }
    }
  }
  for (int q = 0; q < 2; ++q)
    std::printf("\ntargets from %s: r1 >= 1.0 at aggressive: %d of %d; r2 >= 0.98: %d of %d; estimate within 15%%: %d of %d",
                q ? "10th percentiles" : "medians", ratio1Ok[q], ratio1Rows, ratio2Ok[q], rows, estOk[q], estRows);
  std::printf("\n\nas deployed (ORT all), |estimated / measured - 1| per level (targets: median <= 10 %%, max <= 25 %% "
              "outside runs under 0.1 ms):\n");
  for (auto& [level, errors] : deployedErrors) {
    std::vector<double> all;
    double maxOutside = 0;
    int outside = 0;
    for (const auto& [e, tiny] : errors) {
      all.push_back(e);
      if (!tiny) {
        maxOutside = std::max(maxOutside, e);
        ++outside;
      }
    }
    std::sort(all.begin(), all.end());
    const double median = all.empty() ? 0 : all.size() % 2 ? all[all.size() / 2] : (all[all.size() / 2 - 1] + all[all.size() / 2]) / 2;
    std::printf("  %-12s median %5.1f %% over %zu runs; max %5.1f %% over the %d runs of 0.1 ms or more\n", level.c_str(), median,
                all.size(), maxOutside, outside);
  }
  std::printf("\nas deployed at aggressive, plain ONNX Runtime sessions (ORT_ENABLE_ALL, %d thread(s), blocks in turn; "
              "target >= 1.0 on every model, >= 1.2 on gpt_decoder and bert_like_encoder):\n", threads);
  std::printf("%-30s %9s %9s %9s %10s %8s %s\n", "model", "T orig", "T opt", "speedup", "max|d|/max", "rewrites", "verified");
  int plainOk = 0;
  for (const auto& p : plain) {
    plainOk += p.c.speedup() >= 1.0;
    std::printf("%-30s %9.3f %9.3f %9.3f %10.2e %8zu %s\n", p.model.c_str(), p.c.originalMs, p.c.optimizedMs, p.c.speedup(),
                p.c.scale > 0 ? p.c.maxAbsDiff / p.c.scale : 0.0, p.rewrites, p.verified ? "yes" : "NO");
  }
  std::printf("never slower: %d of %zu models\n", plainOk, plain.size());
  std::printf("\nload average at the end: %s\n", loadAverage().c_str());
  return 0;
}
