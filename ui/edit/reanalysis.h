#pragma once
// Re-deriving the findings after an edit: the analysis that produced a report runs again on the
// edited model with the same device, goal and scenario, and its profiles mapped onto the nodes
// that survived — a removed node's measured time is saved, a kept node keeps its time. No new
// measurement: Verify measures.
#include <memory>
#include <string>

#include "advisor/advisor.h"
#include "model/graph.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa::ui {

// The profile restricted to IR nodes that still exist in `g`: an entry whose IR nodes are all
// gone is dropped and the end-to-end latency shrinks by its share of the summed node time; an
// entry that keeps some of its IR nodes keeps its time for them. Inserted entries (layout reorders, TransData) stay.
ProfileData remapProfile(const ProfileData& p, const Graph& g);

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
