#pragma once
// The analysis pipeline: (profile or estimate) -> rules -> a ranked report. Measuring is the
// caller's business (the CLI profiles in process, the GUI through `msadvisor-cli profile` in a
// child process); the advisor takes the resulting profiles as plain data.
//
// What the advisor adds to the rules' findings (docs/advisor.md says why each is so): the
// ranking (advisor/ranking.h: overlap accounting, scores, priorities, TOP-N), the theoretical
// optimum (every op at its roofline, ideal epilogue fusion, no launches), the estimated latency
// once every safe fix is applied, a per-node table and the time by op type (advisor/report.h).
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "advisor/report.h"
#include "profile/profile_data.h"
#include "rules/finding.h"
#include "rules/rule.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct DeviceProfile;
struct GeFusionResult;      // profile/ge_fusion_result.h

struct AnalyzeOptions {
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
  int topN = 10;
  std::vector<std::string_view> families;  // empty: every rule family
  PriorityPolicy policy;
};

struct AnalysisInputs {
  const ProfileData* profile = nullptr;         // runtime optimizations disabled: per IR node
  const ProfileData* runtimeProfile = nullptr;  // runtime optimizations on, or an imported device profile
  // ATC's fusion_result.json for this model: which graph-engine fusions really fired (Ascend).
  const GeFusionResult* fusionResult = nullptr;
};

Result<Report> analyze(const Model& model, const DeviceProfile& device, const AnalysisInputs& inputs,
                       const AnalyzeOptions& options, const Progress& progress = Progress::none());

// Whether `p` is ONNX Runtime's run of its own optimized graph (its nodes mapped to the IR).
bool describesOrtOptimizedGraph(const ProfileData& p);

// Marks the findings whose fix `runtime` already applies (Finding::appliedBy = `who`), from the
// graph it ran: every node of the finding is folded away or runs inside one runtime kernel that
// does the work of several IR nodes. Only structural findings (fusion, small ops, graph) qualify;
// findings already marked (the Ascend graph engine's) are left as they are. A finding left for
// the user whose automatic fix does only part of it (Finding::fixSpan) gets fixDoneBy = `who`
// when that part is done. Returns how many findings are applied.
int markAppliedByRuntime(std::vector<Finding>& findings, const ProfileData& runtime, const GraphIndex& index,
                         std::string_view who = "onnxruntime");

}  // namespace msa
