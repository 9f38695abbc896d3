#pragma once
// The one analysis of a profile: whatever a device or a framework wrote (msprof and torch_npu
// folders and files, PyTorch/Kineto traces, ONNX Runtime and TensorRT profiles), inference or
// training, one rank or a whole job. `analyze --profile P`, `training P`, File ▸ Open Profile and
// Python's TrainingAdvisor are views of it: the same step, the same rank, the same findings.
//   1. the run: a job's ranks (profile/job.h) and the one analysed in full (the slowest: the
//      others wait for it); its kernel table (profile/profile_import.h) and, where the format has
//      one, its timeline (profile/run_trace.h) analysed step by step (profile/trace_analysis.h);
//   2. one device: the one asked for, else the chip the kernel table tells (advisor/profile_only.h);
//   3. one step: the profiler's own step record, else the timeline's steps, else the kernels' span;
//   4. the findings of the kernel rules (rules/profile_rules.h), the step rules
//      (rules/training_rules.h) and the job's (rules/training_job.h); where two families speak of
//      one cause, one of them does (profile_analysis.cpp says which);
//   5. one ranking (advisor/ranking.h) over the budgets of both, within the step.
// Renderings: report/report_json.h and report/training_report.h (the "training" block, the text).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "advisor/advisor.h"
#include "profile/communication.h"
#include "profile/job.h"
#include "profile/trace_analysis.h"
#include "profile/trace_pricing.h"
#include "rules/texts.h"
#include "rules/training_job.h"
#include "rules/training_rules.h"

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
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
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
  double latencyMs = 0;  // the median step
  std::vector<std::string> notes;  // text keys (note.<key> in the catalog's _ui)
  // The same findings as an advisor Report: what the JSON and GUI consume. Several ranks (a folder
  // of *_ascend_pt folders or Kineto traces): report.job is the view across them, the rest the
  // slow rank's, with the job's findings ranked among its own.
  Report report;
  // The kernels priced, per op type (the kernel table's pricing; a trace without one priced from
  // its own rows when a device is given): the report's optimum is theirs.
  std::optional<TrainingPricing> pricing;
  // The analysed rank's communication, by operator and what it is for, and the job's layout
  // (torch_npu's communication.json, communication_matrix.json, profiler_metadata.json).
  std::optional<CommRecord> communication;
};

// A timeline alone (a trace in memory, no kernel table). Cancelled: ErrorKind::Cancelled, never a
// partial report.
Result<TrainingReport> buildTrainingReport(const TrainingTrace& trace, const TrainingOptions& options = {},
                                           const Progress& progress = Progress::none());
// The whole analysis of a file or folder (a job's folder: rank by rank, profile/job.h).
Result<TrainingReport> analyzeTraining(const std::filesystem::path& trace, const TrainingOptions& options = {},
                                       const Progress& progress = Progress::none());

// The device a trace names, as the report says it ("Ascend NPU", "CUDA GPU", "CPU").
std::string trainingDeviceName(const std::string& device, Lang lang);

}  // namespace msa::training

namespace msa {

// The report of analyzeTraining: what runAnalysis gives for a profile without its model.
// `requestedDevice` empty or "cpu": the chip the profile tells.
Result<Report> analyzeProfileFile(const std::filesystem::path& profile, const std::string& requestedDevice,
                                  const AnalyzeOptions& options, const Progress& progress = Progress::none());

}  // namespace msa
