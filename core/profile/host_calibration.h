#pragma once
// What this CPU actually achieves through ONNX Runtime: fp32 GFLOP/s on a large MatMul and memory
// bandwidth on large elementwise Adds (best of several runs). Measured once and cached under the user's config folder
// ($XDG_CONFIG_HOME/msadvisor/ or ~/.config/msadvisor/), so the cpu-host roofline is this
// machine's. Plain numbers: the cost model turns them into its DeviceProfile.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "cost/device_profile.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct HostCalibration {
  double gflops = 0;        // fp32, multiply-add counted as 2 FLOPs
  // int8 (uint8 × int8 → int32, VNNI where the CPU has it), multiply-add counted as 2 operations:
  // the rate the int8 variants (whatif/) run at, so "% of the optimum" reads per precision.
  double int8Gops = 0;
  double bandwidthGBs = 0;  // bytes read + written per second, GB = 1e9 bytes
  int threads = 0;
  std::string runtime;      // "onnxruntime 1.21.1"
  std::string cpu;          // model name from /proc/cpuinfo
  std::string measuredAt;   // ISO 8601, UTC
  int matmulN = 0;          // N×N · N×N
  long long addElements = 0;  // per operand of the chain of Adds
  double matmulMs = 0, addMs = 0;              // best runs: the figures above come from these
  double matmulMedianMs = 0, addMedianMs = 0;  // for context: how much the machine's load moved them
  // The same N×N product as MatMulInteger and in float32, CPU time on one thread (best runs, in
  // alternation): int8Gops = gflops × their ratio.
  double int8MatmulMs = 0, int8MatmulMedianMs = 0;
  // How many times faster ONNX Runtime (all optimizations) runs each kind of int8 kernel than its
  // float32 counterpart: a chain of equal layers as QLinearConv against Conv per int8ConvKind,
  // and as QLinearAdd against Add ("elementwise"); CPU time on one thread, in alternation. On this
  // Zen 5: dense 3×3 about 3.5, pointwise 3.0, depthwise 0.9, elementwise about 1, against 3.5
  // for the large product above.
  std::map<std::string, double, std::less<>> int8KernelSpeedup;
  // Of the CPU time the runtime's threads were ready to use, the part they got (profile/cpu_share.h):
  // about 1 on a quiet machine, about 0.5 with both cores busy elsewhere.
  double cpuShare = 1;
  // Measured while other processes held the cores: too few uncontended blocks of runs (the
  // measurement engine's judgement, profile/latency.h); the figures are then too low.
  bool contended = false;
  // Contended measurements in a row whose best figures this record keeps (0 when it is not).
  int contendedMeasurements = 0;
};

// Measured while other processes held the cores: the figures are too low.
bool contended(const HostCalibration& c);
// A record the cache may serve: not contended, or contended in three measurements in a row (a
// host that is always this busy; its best figures stand rather than a calibration per analysis).
bool reusable(const HostCalibration& c);

struct CalibrationOptions {
  int threads = 0;  // 0: the measurement engine's default (profile/latency.h, defaultThreads)
  int matmulN = 1024;
  long long addElements = 1LL << 23;  // 32 MiB per fp32 operand: far beyond any cache
  int repeats = 9;
};

Result<HostCalibration> measureHost(const CalibrationOptions& options = {}, const Progress& progress = Progress::none());

std::filesystem::path calibrationCachePath();  // …/msadvisor/host_calibration.json
// The cached numbers when they were measured on this CPU, runtime and thread count and are not
// stale, contended or not: the figures the last measured analysis used, for the re-estimates
// that follow it (an edited model); nothing otherwise (never measures).
std::optional<HostCalibration> cachedHostCalibration(const CalibrationOptions& options = {});
// The cached numbers when they were measured on this CPU, runtime and thread count; measured
// (and cached) otherwise or when `refresh` is set. A contended measurement never replaces an
// uncontended record: that record is returned (and kept). `fromCache` tells which.
Result<HostCalibration> hostCalibration(bool refresh, const Progress& progress = Progress::none(),
                                        bool* fromCache = nullptr, const CalibrationOptions& options = {});

// The largest of this CPU's cache levels, in bytes over all its instances (a per-core L2 counts
// once per core), that holds less than `workingSetBytes`; 0 when sysfs does not say. With the
// calibration's working set: data of that size runs from cache, faster than the calibrated
// bandwidth.
double cacheBelow(double workingSetBytes);
// The bytes the bandwidth calibration streams through (the operands of one Add of the chain).
double calibrationWorkingSetBytes(const CalibrationOptions& options = {});

// The kind of convolution whose int8 speedup a calibration measures: "dense",
// "dense_few_channels" (8–31 input channels: a short reduction), "pointwise", "depthwise",
// "grouped" or "narrow_input" (a first layer on fewer than 8 channels).
std::string_view int8ConvKind(int64_t inputChannelsPerGroup, int64_t group, int64_t kernelElements);

nlohmann::json toJson(const HostCalibration& c);
Result<HostCalibration> calibrationFromJson(const nlohmann::json& j, const std::string& label);

// `profile` (cpu-host) with this machine's measured float32 GFLOP/s, int8 GOP/s and bandwidth as
// calibrated figures; the other element types' peaks keep their ratio to float32 and become
// derived from the measurement.
DeviceProfile withHostCalibration(const DeviceProfile& profile, const HostCalibration& measured);

}  // namespace msa
