#pragma once
// The measured and the estimated outcome of an optimization: latency of the original and the
// optimized model with ONNX Runtime's own graph optimizer disabled and at ORT_ENABLE_ALL, timed
// in blocks taken in turn so that load on the machine hits all four alike (run_timing.h); and
// the speedup the cost model predicted from the original's per-node profile (how: docs/optimizer.md, "Outcome").
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "model/data_value.h"
#include "model/graph.h"
#include "optimize/pass.h"
#include "profile/measurement.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// How the four configurations are timed: the measurement engine's settings and policy
// (profile/latency.h), as for the analysis's headline.
struct LatencyOptions {
  int iterations = 30;   // uncontended timed runs per configuration, at least
  int warmup = 3;
  int threads = 0;       // intra-op threads; 0: the runtime's default
  bool spinning = true;  // see RuntimeOptions::spinning
  double target = 0.01;  // each median known within this (relative half-width of its 90 % interval)
  double budgetSeconds = 8;
};

struct LatencyComparison {
  Stats originalDisabled, optimizedDisabled, originalAll, optimizedAll;  // ms per run
  int iterations = 0;  // timed runs of the configuration timed least
  int threads = 0;
  // How the runs were timed: the original as deployed's measurement, contended when any of the
  // four configurations was (its CPU share the lowest of the four).
  Measurement measurement;
  // Ratios of medians: original / optimized at the same runtime setting, and the target ratios.
  // With `p10`, of the 10th percentiles: on a machine whose other load preempts more than half
  // of the runs, the median measures the load and the low percentile the run.
  double speedupDisabled(bool p10 = false) const { return ratio(originalDisabled, optimizedDisabled, p10); }
  double speedupAll(bool p10 = false) const { return ratio(originalAll, optimizedAll, p10); }
  double allVsOptimizedDisabled(bool p10 = false) const { return ratio(originalAll, optimizedDisabled, p10); }
  // Half-width of the interval of speedupAll(), relative (docs/optimizer.md, "Within noise"): the
  // two medians' 90 % intervals combined. A measured speedup closer to 1 than this is noise.
  double speedupAllNoise = 0, speedupDisabledNoise = 0;
  // The speedup's interval holds 1: no change was measured (shown as "within noise (±x %)").
  bool allWithinNoise() const { return withinNoise(speedupAll(), speedupAllNoise); }
  bool disabledWithinNoise() const { return withinNoise(speedupDisabled(), speedupDisabledNoise); }
  static bool withinNoise(double speedup, double noise) { return !(std::fabs(speedup - 1.0) > noise); }

 private:
  static double ratio(const Stats& a, const Stats& b, bool p10) {
    const double x = p10 ? a.p10 : a.median, y = p10 ? b.p10 : b.median;
    return y > 0 ? x / y : 0.0;
  }
};

// Times both models under both settings with the measurement engine: the four configurations
// take turns by blocks, one session each. Cancel is checked between runs.
Result<LatencyComparison> compareLatency(const Model& original, const Model& optimized,
                                         std::span<const DataValue> inputs, const LatencyOptions& options,
                                         const Progress& progress = Progress::none());

struct SpeedupEstimate {
  double originalMs = 0;   // the original's latency, ORT disabled (the profile's end-to-end, else its node sum)
  double optimizedMs = 0;  // the optimized model's, estimated (the same terms)
  double speedup = 0;      // originalMs / optimizedMs
  // As deployed (ONNX Runtime's optimizer on): the original's ORT_ENABLE_ALL kernels (10th
  // percentiles) against those still running once the rewrites are applied — a kernel that already
  // fused what a rewrite fuses keeps its time, one whose IR nodes are all gone saves it. 0 when no
  // ORT_ENABLE_ALL profile was given.
  double deployedOriginalMs = 0, deployedOptimizedMs = 0, deployedSpeedup = 0;
  int measuredNodes = 0;   // optimized nodes timed by their original's measurement
  int estimatedNodes = 0;  // new nodes: roofline on `device` times the measured efficiency of their op type
  std::string method;
};

// Estimates T(original) / T(optimized), both with ONNX Runtime's optimizer disabled, from the
// original's per-node profile at that setting: a node that survives (by name; a fused node keeps
// its anchor's name) keeps its measured time, a removed node saves its own, a new node costs its
// roofline on `device` scaled by the efficiency the original's nodes of that op type reached. When
// `applied` contains the runtime's own graph (ort_offline_optimize), that graph costs what
// `runtimeProfile` (the original at ORT_ENABLE_ALL) measured: the sum of its node medians.
Result<SpeedupEstimate> estimateSpeedup(const Model& original, const Model& optimized,
                                        std::span<const Rewrite> applied, const ProfileData& disabledProfile,
                                        const ProfileData* runtimeProfile, const DeviceProfile& device);

}  // namespace msa
