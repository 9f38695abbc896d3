#pragma once
// Overlap accounting, priorities and the TOP-N for training findings, with the advisor's policy
// (core/advisor, docs/advisor.md): no time is claimed twice, impacts add up to at most the step,
// P0 ≥ 5 % of the step (or ≥ 1 % when its rule saves ≥ 10 % together), P1 ≥ 1 %, an estimated
// impact in a measured run is at most P1, findings below 0.01 % are "zero impact" and never a
// bottleneck.
//
// Training findings do not name graph nodes: each claims from named per-step budgets instead
// ("short_gaps": idle right before short work items, "idle": the rest of the idle time,
// "data_loading", "op:<name>", "kernel:<name>"; the pools are disjoint); a finding naming no
// budget claims from the step alone. The accounting mirrors the advisor's accountOverlaps() over runtime-only
// budgets (the advisor's accountOverlaps() needs a graph index; a trace has none). The policy
// thresholds and the Assessment record are the advisor's own types.
#include <map>
#include <string>
#include <vector>

#include "advisor/advisor.h"  // PriorityPolicy, Assessment: the advisor's own
#include "rules/finding.h"

namespace msa::training {

struct TrainingFinding {
  Finding finding;
  std::vector<std::string> budgets;  // what its saving is drawn from
};

struct Ranking {
  std::vector<Finding> findings;         // ranked
  std::vector<Assessment> assessments;   // aligned
  std::vector<std::vector<std::string>> budgets;  // aligned
  std::vector<std::string> bottlenecks;  // TOP-N ids
  double totalImpactMs = 0;
};

Ranking rankFindings(std::vector<TrainingFinding> findings, const std::map<std::string, double>& budgetMs, double stepMs,
                     int topN, const PriorityPolicy& policy = {});

}  // namespace msa::training
