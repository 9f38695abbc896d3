#pragma once
// The renderings of a profile's analysis seen as a training run (advisor/profile_analysis.h): the
// JSON (the `analyze` schema, docs/report-schema.json, written by the shared report writer, plus
// a "training" block) and the CLI's text summary; and two runs of one training side by side.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "advisor/profile_analysis.h"
#include "report/compare.h"
#include "rules/texts.h"

namespace msa::training {

struct TrainingReportFormat {
  Lang lang = Lang::En;
  std::string generator = "msadvisor";
  int topN = 10;  // rows of the text tables and of "hotspots"
};

nlohmann::json trainingReportToJson(const TrainingReport& r, const TrainingReportFormat& f = {});
std::string trainingReportText(const TrainingReport& r, const TrainingReportFormat& f = {});
// A report's job (Report::job): its ranks side by side (per step: step, computing, communication
// exposed, idle), the slow one marked with its cause when the report finds it slow enough to say
// so, and its pipeline stages' compute: lines of text.
std::string jobRanksText(const Report& r, Lang lang);
bool slowRankReported(const Report& r);  // a training.slow_rank(_host) finding is in the report
// Step statistics, breakdown, phases, communication, copies, hot operators and kernels: the
// "training" block of the JSON.
nlohmann::json trainingBlockJson(const TrainingReport& r, int topN);

// Two runs of the same training (two epochs, before and after a change): the median step and the
// per-operator (device: per-kernel) times side by side. A regression is a median step slower by
// more than `threshold` of the previous one and above the previous run's p90 (beyond its own
// step-to-step spread); per-operator regressions use compareTimings' rule.
struct TrainingComparison {
  double previousMs = 0, currentMs = 0, ratio = 0;  // ratio = current / previous
  double previousP90Ms = 0;
  double threshold = 0.05;
  bool regression = false;
  TimingComparison items;  // A = previous, B = current
};
TrainingComparison compareTraining(const TrainingReport& previous, const TrainingReport& current, double threshold = 0.05);
nlohmann::json toJson(const TrainingComparison& c);

}  // namespace msa::training
