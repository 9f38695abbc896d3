#pragma once
// The training analysis end to end: trace -> per-step analysis -> training rules -> ranked
// findings -> an advisor Report (core/advisor), and its two renderings: JSON (the `analyze`
// schema, docs/report-schema.json, written by the shared report writer, plus a "training"
// block) and the CLI's text summary. Finding texts come from the rule catalog.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advisor/advisor.h"
#include "report/compare.h"
#include "rules/texts.h"
#include "training/training_analysis.h"
#include "training/training_cluster.h"
#include "training/training_cost.h"
#include "training/training_ranking.h"
#include "training/training_rules.h"

namespace msa::training {

struct TrainingOptions {
  int topN = 10;
  // What the report names as its model and device. Without a model the trace is the "model";
  // with one (--model) its path, node count and inputs are reported (findings still name the
  // trace's operators: a trace does not say which graph node an aten op came from). Without a
  // device the trace's own ("cuda", "npu", "cpu"); with a profile (--device) its id, name and
  // figures, and its launch overhead is the default short-item threshold.
  std::string modelPath;
  size_t modelNodes = 0;
  std::map<std::string, std::string> modelInputs;
  const DeviceProfile* device = nullptr;
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
  std::vector<std::string> notes;  // text keys (note.<key> in the catalog's _ui)
  Report report;  // the same findings as an advisor Report: what the JSON and GUI consume
  // Several ranks (a folder of *_ascend_pt folders or Kineto traces): the view across them; the
  // report itself is then the slow rank's, with the cluster findings ranked among its own.
  std::optional<ClusterView> cluster;
  // With an Ascend device (--device, TrainingAdvisor(device=)): the kernels priced from their
  // kernel_details shapes (training_cost.h); the report's optimum is theirs.
  std::optional<TrainingPricing> pricing;
};

TrainingReport buildTrainingReport(const TrainingTrace& trace, const TrainingOptions& options = {},
                                   const Progress& progress = Progress::none(), std::vector<TrainingFinding> extra = {});
// Load + build; the CLI's path. A folder of several ranks is analysed rank by rank
// (training_cluster.h).
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
