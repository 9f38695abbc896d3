#pragma once
// The analysis pipeline: (profile or estimate) -> rules -> a ranked report. Measuring is the
// caller's business (the CLI profiles in process, the GUI through `msadvisor-cli profile` in a
// child process); the advisor takes the resulting profiles as plain data.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/profile_data.h"
#include "rules/finding.h"
#include "rules/rule.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct DeviceProfile;

struct AnalyzeOptions {
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
  int topN = 10;
  std::vector<std::string_view> families;  // empty: every rule family
};

struct AnalysisInputs {
  const ProfileData* profile = nullptr;         // runtime optimizations disabled: per IR node
  const ProfileData* runtimeProfile = nullptr;  // runtime optimizations on, or an imported device profile
};

struct NodeReport {
  std::string name, opType;
  double estimatedMs = 0;
  double measuredMs = -1;  // -1: not measured
  double flops = 0, bytes = 0, intensity = 0;
  double efficiency = -1;  // roofline time / measured time; -1 without a measurement
  std::string bound;       // "compute", "memory", "overhead"
  double share = 0;        // of the total time
};

struct Report {
  static constexpr int kSchemaVersion = 1;
  std::string model;       // file path
  std::string device;      // device profile id
  std::string deviceName;  // display name
  std::map<std::string, std::string> inputs;  // input name -> shape
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;

  double latencyMs = 0;
  std::string latencySource;  // "measured" | "estimated"
  double optimumMs = 0;       // theoretical optimum (see docs/advisor.md)
  double gapRatio = 0;        // latency / optimum
  double estimatedOptimizedMs = 0;  // latency after every safe fix

  std::vector<Finding> findings;         // ranked, highest impact first
  std::vector<std::string> bottlenecks;  // TOP-N finding ids
  std::vector<NodeReport> nodes;         // aligned with the graph's nodes
  std::map<std::string, double> timeByOpType;
  std::optional<ProfileData> profile, runtimeProfile;
};

Result<Report> analyze(const Model& model, const DeviceProfile& device, const AnalysisInputs& inputs,
                       const AnalyzeOptions& options, const Progress& progress = Progress::none());

}  // namespace msa
