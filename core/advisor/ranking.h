#pragma once
// The one ranking of findings, whatever found them: graph rules over a model, profile rules over a
// device's kernels, step rules over a training or inference trace, a job's ranks. docs/advisor.md
// gives the policy and why; keep the two in step.
//   - overlap accounting: a finding's saving is drawn from named budgets, named shares of the run
//     (a graph node, a runtime-only reorder, a kernel, the idle time, the data-loading stall, …),
//     so that no time is claimed twice; the impacts together stay within the time there is to gain;
//   - local speedup (the fixed part alone) and global speedup (share of the run saved);
//   - a score weighted by what the saving frees for the goal and scenario, its confidence interval
//     when the run was measured (live, with a spread), priorities P0/P1/P2 by a fixed policy;
//   - the order (measured where the measurement separates findings, a fixed order where it cannot)
//     and the TOP-N.
#include <climits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.h"
#include "rules/rule.h"

namespace msa {

// Thresholds of the priority policy (docs/advisor.md, "Priorities"). Shares are fractions of
// the latency, after the goal/scenario weight and the confidence factor.
struct PriorityPolicy {
  double p0Score = 0.05;  // P0 (must fix): the weighted saving is at least 5 % of the run
  double p1Score = 0.01;  // P1 (strongly advised): at least 1 %
  // One pass fixes every instance of a pattern: a P1-worthy finding whose rule's findings save
  // at least this much together (weighted) is P0 too.
  double p0RuleScore = 0.10;
  // A finding saving less than this share of the run is "zero impact": never a bottleneck.
  double minShare = 1e-4;
  // Confidence of an impact that was only estimated when the run itself was measured.
  double estimatedConfidence = 0.7;
  // Confidence of a finding whose rewrite is not legal as the graph stands (it needs a change
  // the user must make first); such a finding is never above P2.
  double illegalConfidence = 0.5;
  // How far a score moves between two analyses beyond its own interval, relative to it (the
  // latency's median moved 2–3 % between analyses of one model on a quiet machine, several
  // times its interval's half-width; a rule's summed low end 7 %). A threshold or another
  // finding is cleared only by an interval widened by this; what it does not clear, the cost
  // model decides. A priority flips only where measurement and cost model differ by more. Only
  // a live measurement drifts: a profile read from a file and an estimate are ranked with 0.
  double drift = 0.20;
};

// How much a millisecond saved on each resource is worth for a goal and scenario: the ranking
// weight of a finding is the mix of these over what its saving frees (docs/advisor.md).
struct ResourceWeights {
  double overhead = 1.0;  // launch/dispatch overhead (ops removed)
  double memory = 1.0;    // memory traffic (bytes no longer moved)
  double compute = 1.0;   // arithmetic (FLOPs no longer done, or done at a faster rate)
};
ResourceWeights resourceWeights(Goal goal, Scenario scenario);

// What the ranking concluded about one finding; aligned with the ranked findings.
struct Assessment {
  double score = 0;       // share × weight × confidence: what the ranking sorts by
  double weight = 1;      // goal/scenario weight of what the saving frees
  double confidence = 1;  // measured 1, estimated/illegal less (PriorityPolicy)
  // What the saving frees, as fractions of impact.rawMs (they sum to 1 when rawMs > 0).
  double overheadFraction = 0, memoryFraction = 0, computeFraction = 0;
  int launchesSaved = 0;  // kernel launches the fix removes
  int rank = 0;           // 1-based position in the ranked findings
  bool bottleneck = false;  // in the TOP-N
  // Why this priority: "share" (above the threshold), "rule_share" (P0 through its rule's
  // combined share), "below_threshold", "illegal", "estimated_cap" (an estimate in a measured
  // run stays below P0), "zero_impact", "applied" (the runtime already does it).
  std::string priorityReason;
  // The score's interval (widened by the drift) straddles a threshold next to this priority, so
  // its median decided it: another analysis of the same model may give the neighbouring
  // priority (a median 20-80 % above the P1 line went to P2 in one of two analyses on CI).
  bool priorityBorderline = false;
  double overlapMs = 0;  // raw impact not counted because other findings claimed the same time
  // The impact's spread over the measured iterations (p10–p90 of the time it is drawn from in the
  // run the headline describes); equal to impact.ms for an estimate or a file. The priority and
  // the order use the score's spread so that noise between two analyses does not move a finding
  // across a boundary (docs/advisor.md, "Priorities").
  double impactP10Ms = 0, impactP90Ms = 0;
  double scoreLow = 0, scoreHigh = 0;
  // The score's 80 % confidence interval as a median (medianBound): what the priority thresholds
  // compare (the low end) and what tells two findings apart in the order. scoreLow/High are one
  // run's ends; the median of n runs is known far better, and a decision taken on one run's tail
  // moved with every analysis.
  double scoreMedianLow = 0, scoreMedianHigh = 0;
  // On a TOP-N finding: the other findings that are the same problem elsewhere (alikeKey), in
  // rank order, and their impacts together. They take no slot of their own in the TOP list.
  std::vector<std::string> alike;
  double alikeMs = 0;
};

// What makes two findings the same problem in different places (a Conv→BatchNormalization→HardSwish
// in each of ten blocks): the rule, the fix, and the title with the place masked. Empty: the
// finding stands alone (already applied by the runtime).
std::string alikeKey(const Finding& f);

// The confidence bound, on the side of `end` (one run's p10 or p90 of the score), of a score that
// is a median over `samples` runs: the median's standard error is √(π/2)·σ/√n and a p10 or p90
// lies 1.28 σ from the median, so the bound is score + (end − score)·√(π/2)/√n (never beyond end).
double medianBound(double score, double end, int samples);

// A score as its median's confidence interval, and the median.
struct ScoreBounds {
  double low = 0, high = 0, median = 0;
};

// Whether a score clears a priority threshold, so that run-to-run noise does not move a finding
// across it: yes when the low end of its median's interval does, no when the high end does not,
// both widened by the drift between analyses; straddling, the median decides. (The cost model's
// value decided before, but for a measured finding it is not fixed either — it scales the
// roofline by the measured efficiency — and it disagreed with the measurement: the BERT-like
// encoder's launch-bound small_ops.sequence@/Add_1, median score 0.012–0.018 against the P1 line
// of 0.01, went to P2 whenever its low end straddled: 5 pairs of analyses in 8 disagreed on a
// quiet machine.)
bool clears(const ScoreBounds& s, double threshold, double drift);
// Whether the interval, widened by the drift, straddles the threshold (the median decides).
bool straddles(const ScoreBounds& s, double threshold, double drift);

// What the ranking needs of a finding besides the finding: where its saving comes from in the
// measured run and on the cost model. Filled by the analysis that found it.
struct RankingFacts {
  // The spread of the time its saving is drawn from (p10 and p90 over the median) and the runs
  // behind that median; 1, 1, 0 for a point value (an estimate, a profile read from a file).
  double spreadLow = 1, spreadHigh = 1;
  int samples = 0;
  // Its saving on the cost model's time (steadier than a measured score): the priority decides
  // with it where the measured interval straddles a threshold, and the fixed order uses it.
  // Negative: no cost model (the finding's own impact stands in).
  double costModelMs = -1;
  long position = LONG_MAX;  // graph or timeline order of its anchor
  // What the saving frees, as Assessment's fractions; `decomposed` false: weight 1.
  bool decomposed = false;
  double overheadFraction = 0, memoryFraction = 0, computeFraction = 0;
  int launchesSaved = 0;
  // Instances of the same pattern in identical places (a transformer's repeated layers) share
  // this key: each is a measurement of one thing, and their scores are pooled. Empty: alone.
  std::string poolKey;
};

struct RankingInputs {
  // Each named budget's time in the run the latency describes (ms); what Finding::budgets (or,
  // when empty, a graph finding's nodes and runtime-only nodes: budgetKeys) name.
  std::map<std::string, double, std::less<>> budgetMs;
  double budgetScale = 1.0;  // budget times -> shares of the latency (a profiled run's node sum exceeds it)
  double latencyMs = 0;      // what shares are of
  double limitMs = 0;        // the impacts together at most this (latency − optimum where known, else the latency)
  bool runMeasured = true;        // an estimated impact in a measured run is capped at P1
  double drift = 0;               // PriorityPolicy::drift for a live measurement; 0 for a file or an estimate
  ResourceWeights weights;
  int topN = 10;
  PriorityPolicy policy;
};

struct Ranking {
  std::vector<Finding> findings;        // ranked
  std::vector<Assessment> assessments;  // aligned
  std::vector<std::string> bottlenecks;  // TOP-N ids, ranked; zero-impact and runtime-applied excluded
  double totalImpactMs = 0;
  int appliedByRuntime = 0;
  double safeFixSavingMs = 0;  // what the safe fixes left to the user save together
};

// The budgets a finding draws from, in the order it draws on them: Finding::budgets when it names
// any; else its runtime-only nodes ("runtime:<name>", what a fix removes outright, first) then
// its nodes ("node:<name>"). `first` is set to how many of them are drawn on before the rest.
std::vector<std::string> budgetKeys(const Finding& f, size_t* first = nullptr);
std::string nodeBudget(std::string_view node);       // "node:<name>"
std::string runtimeBudget(std::string_view node);    // "runtime:<name>"

// Overlap accounting on its own (rank() calls it): findings claim in `order` (indices into
// `findings`); a finding's impact = min(rawMs × scale, what is left of its budgets), taken from
// each budget in proportion to what is left of it (its first budgets before the others); a
// finding naming no budget claims from the run alone. All together shrink alike to `limitMs`.
std::vector<double> accountOverlaps(const std::vector<Finding>& findings, const std::vector<size_t>& order,
                                    const RankingInputs& in);
// Impacts that add up to more than `limitMs` all shrink alike to fit it (each saving is an
// estimate of the same optimism): the last claimers are not the ones left with nothing.
void shrinkToFit(std::vector<double>& impactsMs, double limitMs);

// The order of findings, as indices into `findings`. A finding precedes another when the
// measurement tells them apart: the low end of its score's confidence interval (scoreMedianLow)
// lies above the other's high end, both widened by `drift`. Where the intervals overlap, a fixed
// order decides: priority, then `orderMs` (the saving on the cost model's time, else the impact),
// then `position`, then id — never the noisy scores themselves, so that two analyses of the same
// model give the same order unless one measurement separates what the other did not. Pairwise,
// not in chained groups: one finding measured badly does not pull a run of findings into graph order.
std::vector<size_t> rankFindings(const std::vector<Finding>& findings, const std::vector<Assessment>& assessments,
                                 const std::vector<double>& orderMs, const std::vector<long>& position,
                                 double drift = PriorityPolicy{}.drift);

// The whole ranking: accounting, scores, priorities, order, TOP-N. `facts` is aligned with
// `findings` (empty: point values, no cost model). A finding the runtime already applies
// (Finding::appliedBy) claims nothing and is never a bottleneck.
Ranking rank(std::vector<Finding> findings, std::vector<RankingFacts> facts, const RankingInputs& in);

}  // namespace msa
