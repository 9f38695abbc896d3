#include "edit/reanalysis.h"

#include "advisor/run_analysis.h"

namespace msa::ui {

Result<Report> reanalyze(std::shared_ptr<const Model> model, const Report& previous, const Progress& progress) {
  AnalysisRequest request;
  request.device = previous.device;
  request.calibration = previous.deviceCalibrated ? CalibrationPolicy::Cached : CalibrationPolicy::Off;
  request.inferShapes = false;
  request.options.goal = previous.goal;
  request.options.scenario = previous.scenario;
  request.options.topN = std::max<int>(request.options.topN, static_cast<int>(previous.bottlenecks.size()));
  if (previous.profile || previous.runtimeProfile) {
    MeasuredProfiles p;
    if (previous.profile) p.disabled = remapProfile(*previous.profile, model->graph);
    if (previous.runtimeProfile) p.runtime = remapProfile(*previous.runtimeProfile, model->graph);
    request.profiles = std::move(p);
  }
  auto outcome = runAnalysis(std::move(model), request, progress);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

Result<Report> analyzeEstimate(std::shared_ptr<const Model> model, const std::string& deviceId, const AnalyzeOptions& options,
                               const Progress& progress) {
  AnalysisRequest request;
  request.device = deviceId;
  request.calibration = CalibrationPolicy::Cached;
  request.inferShapes = false;
  request.options = options;
  auto outcome = runAnalysis(std::move(model), request, progress);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

}  // namespace msa::ui
