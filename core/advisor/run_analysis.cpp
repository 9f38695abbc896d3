#include "advisor/run_analysis.h"

#include "advisor/profile_analysis.h"

#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/ge_fusion_result.h"
#include "profile/host_calibration.h"
#include "profile/ort_profiler.h"
#include "profile/profile_import.h"

namespace msa {
namespace {

// The progress of one stage as a slice [lo, hi) of the whole.
Progress slice(const Progress& progress, double lo, double hi, const std::atomic<bool>* cancel) {
  return Progress([&progress, lo, hi](std::string_view phase, double f) { progress.report(phase, lo + (hi - lo) * f); },
                  cancel);
}

bool measuresHere(const AnalysisRequest& r) { return r.device == "cpu" && r.profilePath.empty() && !r.profiles; }

}  // namespace

Result<MeasuredProfiles> measureOnCpu(const Model& model, const MeasureOptions& options, const Progress& progress) {
  CpuProfileOptions o;
  o.iterations = options.iterations;
  o.warmup = options.warmup;
  o.threads = options.threads;
  o.inputsDir = options.inputsDir;
  // Per-node traces of each level first, then both end-to-end latencies timed in interleaved
  // rounds, so that a change of load on the machine moves both alike (their ratio is the
  // runtime's own speedup, shown next to the headline).
  o.measureLatency = false;
  MeasuredProfiles p;
  const std::vector<GraphOptimization> levels{GraphOptimization::Disabled, GraphOptimization::All};
  for (size_t k = 0; k < levels.size(); ++k) {
    if (progress.cancelled()) return Error::cancelled();
    o.optimization = levels[k];
    auto r = profileOnCpu(model, o, slice(progress, 0.3 * k, 0.3 * (k + 1), progress.cancelFlag()));
    if (!r) return r.error();
    (levels[k] == GraphOptimization::Disabled ? p.disabled : p.runtime) = std::move(*r);
  }
  o.latencyTarget = options.latencyTarget;
  o.latencyBudgetSeconds = options.latencyBudgetSeconds;
  auto latencies = measureLatencies(model, levels, o, samplingPolicy(o), slice(progress, 0.6, 0.95, progress.cancelFlag()));
  if (!latencies) return latencies.error();
  p.disabled->latencyMs = (*latencies)[0].stats;
  p.disabled->measurement = (*latencies)[0].measurement;
  p.runtime->latencyMs = (*latencies)[1].stats;
  p.runtime->measurement = (*latencies)[1].measurement;
  // Whether one intra-op thread runs the deployed model faster than the default on this machine.
  auto inputs = profileInputs(model, o);
  if (!inputs) return inputs.error();
  const TimedConfig deployed{&model, *inputs, sessionSettings(o, GraphOptimization::All)};
  if (auto st = compareOneThread(deployed, samplingPolicy(o), p.runtime->latencyMs.median, p.runtime->measurement,
                                 slice(progress, 0.95, 1.0, progress.cancelFlag()));
      !st)
    return st.error();
  return p;
}

Result<DeviceProfile> analysisDevice(const AnalysisRequest& request, const Progress& progress) {
  auto device = loadDevice(request.device == "cpu" ? std::string("cpu-host") : request.device);
  if (!device) return device.error();
  if (device->kind != DeviceProfile::Kind::Cpu || request.calibration == CalibrationPolicy::Off) return device;
  CalibrationOptions co;
  co.threads = request.measure.threads;
  if (request.calibration == CalibrationPolicy::Cached) {
    if (auto cal = cachedHostCalibration(co)) return withHostCalibration(*device, *cal);
    return device;
  }
  auto cal = hostCalibration(request.calibration == CalibrationPolicy::Refresh, progress, nullptr, co);
  if (!cal) return cal.error();
  return withHostCalibration(*device, *cal);
}

Result<AnalysisOutcome> runAnalysis(std::shared_ptr<const Model> model, const AnalysisRequest& request,
                                    const Progress& progress) {
  const std::atomic<bool>* cancel = progress.cancelFlag();
  AnalysisOutcome out;
  if (!model) {
    // A device profile without its model (advisor/profile_only.h): priced kernel by kernel on
    // the device its chip maps to, unless the request names one.
    if (request.profilePath.empty())
      return Error::usage("an analysis without a model needs a profile: give the ONNX model, a profile, or both");
    auto report = analyzeProfileFile(request.profilePath, request.device == "cpu" ? std::string() : request.device,
                                     request.options, progress);
    if (!report) return report.error();
    out.report = std::move(*report);
    if (out.report.profile) out.warnings = out.report.profile->warnings;
    return out;
  }

  // The analysed model: shapes inferred with the user's dims bound, on a copy (weights shared).
  std::shared_ptr<const Model> analysed = model;
  if (request.inferShapes) {
    ShapeOptions so;
    for (const auto& [k, v] : request.dims) so.dims[k] = v;
    auto bound = std::make_shared<Model>(*model);
    progress.report("shapes", 0);
    auto shapes = inferShapes(*bound, so);
    if (!shapes) return shapes.error();
    out.warnings = shapes->warnings;
    if (measuresHere(request) && !shapes->unboundDims.empty()) {
      std::string dims;
      for (const auto& d : shapes->unboundDims) dims += (dims.empty() ? "" : ", ") + d;
      return Error::usage("bind the symbolic input dims to profile (" + dims + "): --dim NAME=VALUE");
    }
    analysed = std::move(bound);
  }
  if (progress.cancelled()) return Error::cancelled();

  // Stages on the one progress bar: the host's calibration (when it may be measured), the
  // measurement or the import, then the rules.
  const bool mayCalibrate = request.device == "cpu" && (request.calibration == CalibrationPolicy::Auto ||
                                                        request.calibration == CalibrationPolicy::Refresh);
  const double calibrated = mayCalibrate ? 0.1 : 0.0;
  const bool importing = !request.profiles && !request.profilePath.empty();
  const double measured = measuresHere(request) ? 0.85 : importing ? 0.3 : calibrated;
  std::optional<DeviceProfile> device;
  if (!importing) {
    auto d = analysisDevice(request, slice(progress, 0, calibrated, cancel));
    if (!d) return d.error();
    device = std::move(*d);
  }
  MeasuredProfiles profiles;
  if (request.profiles) {
    profiles = *request.profiles;
  } else if (importing) {
    progress.report("import", 0);
    auto imported = importProfile(request.profilePath, *analysed, slice(progress, 0, measured, cancel));
    if (!imported) return imported.error();
    // An imported profile is the only timing there is: per IR node, and, unless it was taken
    // with the runtime's optimizations disabled, also the runtime's own view (fusions, TransData).
    if (imported->optimization != "disabled") profiles.runtime = *imported;
    profiles.disabled = std::move(*imported);
    // It names where it was taken: a CPU run is priced on this host, anything else on the
    // device the request names.
    AnalysisRequest priced = request;
    if (profiles.disabled->device == "cpu") priced.device = "cpu";
    auto d = analysisDevice(priced, Progress([](std::string_view, double) {}, cancel));
    if (!d) return d.error();
    device = std::move(*d);
  } else if (request.device == "cpu") {
    const Measurer& measure = request.measurer ? request.measurer : Measurer(measureOnCpu);
    auto m = measure(*analysed, request.measure, slice(progress, calibrated, measured, cancel));
    if (!m) return m.error();
    profiles = std::move(*m);
  }
  if (progress.cancelled()) return Error::cancelled();

  // ATC's fusion_result.json: the one the request names (an error when unreadable), else one
  // found beside an imported profile (a warning when unreadable).
  std::optional<GeFusionResult> fusionResult;
  if (!request.fusionResultPath.empty()) {
    auto r = readGeFusionResult(request.fusionResultPath);
    if (!r) return r.error();
    fusionResult = std::move(*r);
  } else if (importing) {
    if (auto near = findGeFusionResultNear(request.profilePath)) {
      if (auto r = readGeFusionResult(*near)) fusionResult = std::move(*r);
      else out.warnings.push_back(r.error().describe() + " (left out)");
    }
  }

  AnalysisInputs inputs;
  inputs.fusionResult = fusionResult ? &*fusionResult : nullptr;
  inputs.profile = profiles.disabled ? &*profiles.disabled : nullptr;
  inputs.runtimeProfile = profiles.runtime ? &*profiles.runtime : nullptr;
  auto report = analyze(*analysed, *device, inputs, request.options, slice(progress, measured, 1.0, cancel));
  if (!report) return report.error();
  // A measured run faster than the optimum: the cached figures may no longer describe this host
  // (another load, a changed machine). Measure it once more; if the optimum still lies above the
  // run, the report states it as a fact about the model.
  if (report->optimumAboveLatency && device->kind == DeviceProfile::Kind::Cpu && request.recalibrateWhenOptimumAbove &&
      request.calibration == CalibrationPolicy::Auto && !importing) {
    AnalysisRequest again = request;
    again.calibration = CalibrationPolicy::Refresh;
    auto d = analysisDevice(again, slice(progress, measured, 1.0, cancel));
    if (!d) return d.error();
    device = std::move(*d);
    report = analyze(*analysed, *device, inputs, request.options, slice(progress, measured, 1.0, cancel));
    if (!report) return report.error();
    report->recalibrated = true;
  }
  out.report = std::move(*report);
  out.model = std::move(analysed);
  return out;
}

Result<AnalysisOutcome> runAnalysis(const std::filesystem::path& modelPath, const AnalysisRequest& request,
                                    const Progress& progress) {
  progress.report("loading", 0);
  auto model = loadModel(modelPath);
  if (!model) return model.error();
  return runAnalysis(std::make_shared<const Model>(std::move(*model)), request, progress);
}

}  // namespace msa
