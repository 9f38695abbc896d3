#pragma once
// Overlap accounting, priorities and the TOP-N for training findings, with the advisor's policy
// (core/advisor, docs/advisor.md): no time is claimed twice, impacts add up to at most the step,
// P0 ≥ 5 % of the step (or ≥ 1 % when its rule saves ≥ 10 % together), P1 ≥ 1 %, an estimated
// impact in a measured run is at most P1, findings below 0.01 % are "zero impact" and never a
// bottleneck.
//
// Training findings do not name graph nodes: each claims from named per-step budgets instead
// ("idle", "data_loading", "op:<name>", "kernel:<name>"); a finding naming no budget claims from
// the step alone. The accounting mirrors the advisor's accountOverlaps() over runtime-only
// budgets — this file is the one place to switch to the advisor's own code once it is on main.
#include <map>
#include <string>
#include <vector>

#include "rules/finding.h"

namespace msa::training {

struct TrainingFinding {
  Finding finding;
  std::vector<std::string> budgets;  // what its saving is drawn from
};

struct PriorityPolicy {  // the advisor's PriorityPolicy defaults
  double p0Score = 0.05;
  double p1Score = 0.01;
  double p0RuleScore = 0.10;
  double minShare = 1e-4;
  double estimatedConfidence = 0.7;
  double illegalConfidence = 0.5;
};

struct Assessment {
  double score = 0;       // share × confidence
  double confidence = 1;
  double overlapMs = 0;   // raw impact not counted because other findings claimed that time
  int rank = 0;           // 1-based
  bool bottleneck = false;
  std::string priorityReason;  // "share", "rule_share", "below_threshold", "estimated_cap", "zero_impact", "illegal"
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
