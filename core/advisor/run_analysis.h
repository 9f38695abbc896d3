#pragma once
// The one analysis entry point. The CLI (`analyze` and its focused views), the GUI (Analyze, and
// the re-analysis after a fix) and the Python package all call runAnalysis: it assembles what an
// analysis needs — the analysed model (dims bound, shapes inferred), the device profile (this
// host's calibration on the CPU), the measured or imported profiles — and hands them to analyze().
// Nothing here knows who the caller is; callers differ only in the request they fill in.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "advisor/advisor.h"
#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct DeviceProfile;

// How the CPU measurement runs (ONNX Runtime here, twice: optimizations disabled and all).
struct MeasureOptions {
  int iterations = 10;  // traced runs per profile, and the fewest timed end-to-end runs
  int warmup = 2;
  // The end-to-end latencies are sampled in rounds (one block of runs of each configuration a
  // round) until each median is known within `latencyTarget` (relative half-width of its 90 %
  // confidence interval) or `latencyBudgetSeconds` have been spent.
  double latencyTarget = 0.01;
  double latencyBudgetSeconds = 8;
  int threads = 0;                  // intra-op threads; 0: the default (profile/latency.h, defaultThreads)
  std::filesystem::path inputsDir;  // empty: seeded random inputs
};

// What the CPU analysis does about this host's calibration (the cpu-host roofline's figures).
enum class CalibrationPolicy {
  Auto,     // the cached calibration when it is current, else measure it now (and cache it)
  Cached,   // the cached calibration if there is one; never measure
  Refresh,  // measure again whatever the cache holds
  Off,      // the uncalibrated cpu-host defaults (--no-calibrate); the report says so
};

// The two profiles of a measured CPU analysis, or one imported device profile.
struct MeasuredProfiles {
  std::optional<ProfileData> disabled;  // runtime optimizations disabled: one entry per IR node
  std::optional<ProfileData> runtime;   // the runtime's own optimizations on (what it deploys)
};

// Measures a model (the default measures in this process with ONNX Runtime; the GUI passes one
// that runs `msadvisor-cli profile` child processes so that a crashing runtime cannot take the
// window down).
using Measurer =
    std::function<Result<MeasuredProfiles>(const Model& model, const MeasureOptions& options, const Progress& progress)>;

struct AnalysisRequest {
  // "cpu": measure on this machine with ONNX Runtime and price on the calibrated cpu-host
  // profile. Anything else is a device profile id or a device JSON path: estimate only (or the
  // device an imported profile is priced on).
  std::string device = "cpu";
  std::filesystem::path profilePath;              // analyse this imported profile instead of measuring
  // ATC's fusion_result.json (Ascend): which graph-engine fusions really fired. Empty: one found
  // beside an imported profile, if any.
  std::filesystem::path fusionResultPath;
  std::map<std::string, int64_t, std::less<>> dims;  // symbolic input dims (name or "input:axis")
  MeasureOptions measure;
  CalibrationPolicy calibration = CalibrationPolicy::Auto;
  // When the calibrated optimum lies above the measured latency, measure the host once more
  // (Auto only) before stating it as a fact (Report::optimumAboveLatency).
  bool recalibrateWhenOptimumAbove = true;
  AnalyzeOptions options;
  // Profiles measured elsewhere (the GUI's child processes, an earlier analysis remapped onto an
  // edited model): used as they are, nothing is measured.
  std::optional<MeasuredProfiles> profiles;
  Measurer measurer;  // empty: measure in this process
  // False when the caller's model already has its shapes inferred with these dims (the GUI's
  // document): it is analysed as it is, without a copy.
  bool inferShapes = true;
};

struct AnalysisOutcome {
  std::shared_ptr<const Model> model;  // as analysed: dims bound, shapes inferred
  Report report;
  std::vector<std::string> warnings;   // shape inference and import warnings, for display
};

// The device a request prices on: the profile `request.device` names (cpu -> cpu-host), with
// this host's calibration applied on the CPU as the policy says (measuring it when needed).
Result<DeviceProfile> analysisDevice(const AnalysisRequest& request, const Progress& progress = Progress::none());

// Analyses `model` as the request says. The model is not modified: when dims are bound, a copy
// with its shapes inferred is analysed (and returned in the outcome). A null model with a
// `profilePath` is the profile-only analysis (a device profile without its ONNX model).
Result<AnalysisOutcome> runAnalysis(std::shared_ptr<const Model> model, const AnalysisRequest& request,
                                    const Progress& progress = Progress::none());

// Loads the model from a file first (errors name the file).
Result<AnalysisOutcome> runAnalysis(const std::filesystem::path& modelPath, const AnalysisRequest& request,
                                    const Progress& progress = Progress::none());

// The default measurer: ONNX Runtime in this process, optimizations disabled then all, each half
// of the progress.
Result<MeasuredProfiles> measureOnCpu(const Model& model, const MeasureOptions& options, const Progress& progress);

}  // namespace msa
