#pragma once
// The training analysis end to end: trace -> per-step analysis -> training rules -> ranked
// findings, and its two renderings: JSON (the `analyze` contract of DESIGN.md plus a
// "training" block) and the CLI's text summary. Finding texts come from the rule catalog.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/texts.h"
#include "training/training_analysis.h"
#include "training/training_ranking.h"
#include "training/training_rules.h"

namespace msa::training {

struct TrainingOptions {
  int topN = 10;
  AnalysisThresholds analysis;
  RuleThresholds rules;
  PriorityPolicy policy;
};

struct TrainingReport {
  std::string path, format, device, stepSource;
  std::vector<std::string> files;
  std::map<std::string, size_t> eventCounts;  // by kind
  std::vector<StepTraceRow> stepTrace;
  TrainingProfile profile;
  Ranking ranking;
  double latencyMs = 0;  // the median step
  std::vector<std::string> notes;  // text keys (trainingNoteText)
};

TrainingReport buildTrainingReport(const TrainingTrace& trace, const TrainingOptions& options = {},
                                   const Progress& progress = Progress::none());
// Load + build; the CLI's path.
Result<TrainingReport> analyzeTraining(const std::filesystem::path& trace, const TrainingOptions& options = {},
                                       const Progress& progress = Progress::none());

struct TrainingReportFormat {
  Lang lang = Lang::En;
  std::string generator = "msadvisor";
  int topN = 10;  // rows of the text tables and of "hotspots"
};

nlohmann::json trainingReportToJson(const TrainingReport& r, const TrainingReportFormat& f = {});
std::string trainingReportText(const TrainingReport& r, const TrainingReportFormat& f = {});
std::string trainingNoteText(std::string_view key, Lang lang);

}  // namespace msa::training
