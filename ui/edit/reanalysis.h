#pragma once
// Re-deriving the findings after an edit: the analysis that produced a report runs again on the
// edited model with the same device, goal and scenario, and its profiles mapped onto the nodes
// that survived — a removed node's measured time is saved, a kept node keeps its time. No new
// measurement: Verify measures.
#include <memory>
#include <string>

#include "advisor/advisor.h"
#include "model/graph.h"
#include "profile/profile_remap.h"  // remapProfile: the profiles carried onto the edited model
#include "util/error.h"
#include "util/progress.h"

namespace msa::ui {

// Analyses `model` as `previous` was analysed: the device by id (with this host's cached
// calibration when `previous` had one), goal and scenario, the profiles remapped. Both go
// through core's runAnalysis, as every analysis does; the model's shapes are already inferred.
Result<Report> reanalyze(std::shared_ptr<const Model> model, const Report& previous,
                         const Progress& progress = Progress::none());

// An analysis without a profile: the roofline estimate on a device profile id ("cpu-host",
// "ascend910b"…). The session's tests and an "estimate only" analysis use it.
Result<Report> analyzeEstimate(std::shared_ptr<const Model> model, const std::string& deviceId, const AnalyzeOptions& options = {},
                               const Progress& progress = Progress::none());

}  // namespace msa::ui
