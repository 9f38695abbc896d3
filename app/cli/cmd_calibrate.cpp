// msadvisor-cli calibrate: what this CPU achieves through ONNX Runtime (fp32 GFLOP/s, int8 GOP/s, GB/s), measured
// once and cached for the cpu-host device profile.
#include <cstdio>

#include "cli.h"
#include "profile/host_calibration.h"
#include "util/units.h"

namespace msa::cli {
namespace {

int runCalibrate(const Args& args) {
  if (!args.positional.empty()) return fail(Error::usage("calibrate takes no positional arguments"));
  auto threads = args.intValue("threads", 0, 0, 1024);
  if (!threads) return fail(threads.error());
  CalibrationOptions o;
  o.threads = static_cast<int>(*threads);
  Progress progress = makeProgress(args, installCancelHandler());
  bool cached = false;
  auto c = hostCalibration(args.has("refresh"), progress, &cached, o);
  if (!c) return fail(c.error());
  nlohmann::json j = toJson(*c);
  j["cache"] = calibrationCachePath().string();
  j["from_cache"] = cached;
  if (auto out = args.value("json")) return writeJson(j, *out);
  std::printf("%s, %d threads, %s\n", c->cpu.c_str(), c->threads, c->runtime.c_str());
  std::printf("  compute   %8.1f GFLOP/s fp32 (MatMul %d×%d×%d: best %.2f ms, median %.2f ms)\n", c->gflops, c->matmulN,
              c->matmulN, c->matmulN, c->matmulMs, c->matmulMedianMs);
  std::printf("  int8      %8.1f GOP/s (MatMulInteger %d×%d×%d: %.2f ms of CPU on one thread, float32 %.2f ms beside it)\n",
              c->int8Gops, c->matmulN, c->matmulN, c->matmulN, c->int8MatmulMs, c->int8MatmulMedianMs);
  if (!c->int8KernelSpeedup.empty()) {
    std::printf("  int8 kernels");
    const char* sep = " ";
    for (const auto& [kind, x] : c->int8KernelSpeedup) {
      std::printf("%s%s ×%.2f", sep, kind.c_str(), x);
      sep = ", ";
    }
    std::printf(" (QLinearConv, QLinearAdd, QLinearConcat against the float kernels: CPU time on one thread)\n");
  }
  std::printf("  bandwidth %8.1f GB/s (Adds of %lld floats: best %.2f ms, median %.2f ms)\n", c->bandwidthGBs,
              c->addElements, c->addMs, c->addMedianMs);
  std::printf("  %s %s (measured %s)\n", cached ? "cached in" : "saved to", calibrationCachePath().c_str(),
              c->measuredAt.c_str());
  // A record taken while other processes held the cores is a floor, and says so.
  if (c->contended)
    std::printf("  measured while the machine was busy: the runtime's threads got %s of the CPU; the figures are a floor "
                "(measured again on the next analysis)\n", formatPercent(c->cpuShare).c_str());
  return kOk;
}

}  // namespace

extern const Verb kCalibrateVerb{
    "calibrate",
    "calibrate [--refresh] [--threads N] [--json PATH]",
    "measure this CPU's achievable GFLOP/s and memory bandwidth through ONNX Runtime (cached)",
    {kJsonOption,
     kProgressOption,
     {"refresh", 0, false, false, "measure again even when a cached result exists"},
     {"threads", 0, true, false, "intra-op threads (default: the runtime's, one per physical core)"}},
    runCalibrate,
};

}  // namespace msa::cli
