#pragma once
// The analysis pipeline: (profile or estimate) -> rules -> a ranked report. Measuring is the
// caller's business (the CLI profiles in process, the GUI through `msadvisor-cli profile` in a
// child process); the advisor takes the resulting profiles as plain data.
//
// What the advisor adds to the rules' findings (docs/advisor.md says why each is so):
//   - overlap accounting: no node's time is claimed by two findings; the impacts add up to at
//     most the latency;
//   - local speedup (the fixed part alone) and global speedup (share of the run saved);
//   - a ranking score weighted by goal and scenario, priorities P0/P1/P2 by a fixed policy,
//     and the TOP-N bottlenecks;
//   - the theoretical optimum (every op at its roofline, ideal epilogue fusion, no launches)
//     and the estimated latency once every safe fix is applied;
//   - a per-node table and the time by op type.
#include <limits>
#include <map>
#include <memory>
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
struct ProfileOnlySummary;  // advisor/profile_only.h
struct GeFusionResult;      // profile/ge_fusion_result.h

std::string_view goalName(Goal g);          // "latency", "throughput"
std::string_view scenarioName(Scenario s);  // "edge", "datacenter"
bool parseGoal(std::string_view s, Goal& out);
bool parseScenario(std::string_view s, Scenario& out);

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
  // model decides. A priority flips only where measurement and cost model differ by more.
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

// What the advisor concluded about one finding; aligned with Report::findings.
struct Assessment {
  double score = 0;       // share × weight × confidence: what the ranking sorts by
  double weight = 1;      // goal/scenario weight of what the saving frees
  double confidence = 1;  // measured 1, estimated/illegal less (PriorityPolicy)
  // What the saving frees, as fractions of impact.rawMs (they sum to 1 when rawMs > 0).
  double overheadFraction = 0, memoryFraction = 0, computeFraction = 0;
  int launchesSaved = 0;  // kernel launches the fix removes
  int rank = 0;           // 1-based position in Report::findings
  bool bottleneck = false;  // in the TOP-N
  // Why this priority: "share" (above the threshold), "rule_share" (P0 through its rule's
  // combined share), "below_threshold", "illegal", "estimated_cap" (an estimate in a measured
  // run stays below P0), "zero_impact".
  std::string priorityReason;
  double overlapMs = 0;  // raw impact not counted because other findings claimed those nodes
  // The impact's spread over the measured iterations (p10–p90 of its nodes' times in the run the
  // headline describes); equal to impact.ms for an estimate. The priority and the ranking use
  // the score's spread so that noise between two analyses does not move a finding across a
  // boundary (docs/advisor.md, "Priorities").
  double impactP10Ms = 0, impactP90Ms = 0;
  double scoreLow = 0, scoreHigh = 0;
  // The score's 80 % confidence interval as a median (medianBound): what the priority thresholds
  // compare (the low end) and what tells two findings apart in the ranking. scoreLow/High are one
  // run's ends; the median of n runs is known far better, and a decision taken on one run's tail
  // moved with every analysis.
  double scoreMedianLow = 0, scoreMedianHigh = 0;
};

// The confidence bound, on the side of `end` (one run's p10 or p90 of the score), of a score that
// is a median over `samples` runs: the median's standard error is √(π/2)·σ/√n and a p10 or p90
// lies 1.28 σ from the median, so the bound is score + (end − score)·√(π/2)/√n (never beyond end).
double medianBound(double score, double end, int samples);

// The ranking of findings, as indices into `findings`. A finding precedes another when the
// measurement tells them apart: the low end of its score's confidence interval (scoreMedianLow)
// lies above the other's high end, both widened by `drift`. Where the intervals overlap, a fixed
// order decides: priority, then `estimatedMs` (the saving on the cost model's time for the
// finding's nodes: far steadier than a measured score), then `position` (graph order), then id —
// never the noisy scores themselves, so that two analyses of the same model give the same order
// unless one measurement separates what the other did not. Pairwise, not in chained groups: one
// finding measured badly (a wide interval) does not pull a run of findings into graph order.
std::vector<size_t> rankFindings(const std::vector<Finding>& findings, const std::vector<Assessment>& assessments,
                                 const std::vector<double>& estimatedMs, const std::vector<long>& position,
                                 double drift = PriorityPolicy{}.drift);

struct NodeReport {
  std::string name, opType;
  double estimatedMs = 0;  // roofline on the device, launch included
  double measuredMs = -1;  // -1: not measured (the per-node run: the runtime's optimizer off)
  // In the deployed run (the headline): this node's part of the runtime kernel that ran it (a
  // kernel named after one of its IR nodes is that node's; others split by estimates); 0:
  // folded away or into another node's kernel; -1: no such run.
  double deployedMs = -1;
  double optimumMs = 0;    // this node's part of the theoretical optimum
  double flops = 0, bytes = 0, intensity = 0;
  double efficiency = -1;  // roofline time / measured time; -1 without a measurement
  std::string bound;       // "compute", "memory", "overhead", "unknown"
  double share = 0;        // of the summed node time
  std::vector<std::string> findings;  // ids of the findings naming the node
  std::string kernel;      // on a compiled graph: the node whose fused kernel runs it (empty: alone)
};

struct OpTypeTime {
  std::string opType;
  int count = 0;
  double ms = 0;  // best time (measured where measured)
  double share = 0;
};

struct CategorySummary {
  Category category = Category::Fusion;
  int findings = 0, legal = 0, withFix = 0;
  int byPriority[3] = {0, 0, 0};
  double impactMs = 0;  // after overlap accounting
  double share = 0;     // of the latency
  std::string top;      // id of its highest-ranked finding
};

// Findings of one rule together: "decomposed LayerNorm ×25, 0.42 ms".
struct RuleSummary {
  std::string rule;
  Category category = Category::Fusion;
  int findings = 0;
  double impactMs = 0;  // after overlap accounting
  double share = 0;     // of the latency
  Priority best = Priority::P2;
  std::string top;      // id of its highest-ranked finding
};

// The theoretical optimum (docs/advisor.md, "Theoretical optimum").
struct Optimum {
  double ms = 0;
  double computeMs = 0;     // sum over fused groups of their compute time
  double memoryMs = 0;      // sum over fused groups of their memory time
  double absorbedBytes = 0; // intermediate traffic ideal fusion removes (written + read)
  int groups = 0;           // kernels left after ideal fusion (ops that do work)
  int absorbedNodes = 0;    // epilogues absorbed into their producer
  int freeNodes = 0;        // metadata-only, constant or foldable: no time at all
  int unknownNodes = 0;     // no cost formula / unknown shapes: counted as 0 (a lower bound)
  double knownTimeShare = 1; // share of the run's time spent in nodes of known cost
};

// The graph the device's compiler runs when the estimate prices it (Ascend: ATC's graph engine
// with its graph and UB fusions, rules/ge_fusion.h).
struct CompiledGraph {
  std::string compiler;          // "ascend-ge"
  std::string source;            // "simulated", or "fusion_result" when fusion_result.json filtered it
  std::string fusionResultPath;
  int launchesWritten = 0;       // kernels launched as the graph is written
  int launchesCompiled = 0;      // after fusion
  int fusedKernels = 0;          // kernels that run two or more nodes
  int nearMisses = 0;            // fusions a condition keeps the compiler from applying
  double writtenMs = 0;          // the estimate of the graph as written
  double compiledMs = 0;         // and as compiled
  struct Pass {
    std::string name, kind;      // kind: "graph" or "ub"
    int simulated = 0, notFired = 0;
    long matchTimes = -1, effectTimes = -1;  // fusion_result.json's, -1 when not listed
    bool modelled = true;
  };
  std::vector<Pass> passes;
};

struct Report {
  static constexpr int kSchemaVersion = 1;
  std::string model;       // file path
  std::string device;      // device profile id
  std::string deviceName;  // display name
  std::string deviceNameZh;  // in Chinese, where the profile gives one (report::deviceDetail picks)
  bool deviceCalibrated = false;  // host calibration applied to the profile
  // The roofs of the device at its default precision, for the roofline chart.
  struct Roof {
    std::string label;  // "cube float16", "all float32"
    double flopsPerSecond = 0;
  };
  std::vector<Roof> roofs;
  double bandwidthBytesPerSecond = 0;
  double launchOverheadMs = 0;
  std::map<std::string, std::string> inputs;  // input name -> shape
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
  size_t nodeCount = 0;

  // The headline: what the runtime deploys. For ONNX Runtime that is the run with its graph
  // optimizer on (what InferenceSession does by default); the unoptimized run is secondary.
  double latencyMs = 0;
  std::string latencySource;        // "measured" | "estimated"
  // Which run latencyMs is: "deployed" (the runtime's own optimizations on: ORT `all`, an
  // imported device profile), "unoptimized" (only a run with them disabled), "estimated".
  std::string latencyRun;
  double latencyP10Ms = 0, latencyP90Ms = 0;  // spread of the headline run (= latencyMs when estimated)
  int latencySamples = 0;                     // timed runs behind it
  double unoptimizedLatencyMs = 0;  // ORT with graph optimizations disabled (one entry per IR node), 0 without
  double unoptimizedP10Ms = 0, unoptimizedP90Ms = 0;
  // Who runs the headline's graph optimizations: "onnxruntime", "" when none is known.
  std::string deployedBy;
  double estimatedLatencyMs = 0;    // the roofline sum, whatever the source of latencyMs
  double measuredNodeSumMs = 0;     // sum of the measured node times (0 without a profile)
  double deployedNodeSumMs = 0;     // the deployed run's kernels, runtime-only ones included, reconciled with the headline (0: none)
  // The headline's time no operator accounts for: between operators, in the framework (measured only).
  double betweenOperatorsMs = 0;
  double runtimeLatencyMs = 0;      // the runtime-optimized run (ORT `all`, msprof), 0 without
  Optimum optimum;
  double optimumMs = 0;             // = optimum.ms
  // The gap compares the time of the nodes of known cost with their optimum; 0 (not computed)
  // when less than half of the run is in such nodes.
  double gapRatio = 0;              // latency / optimum (×-factor); 0 when not computed
  double percentOfOptimum = 0;      // optimum / latency × 100
  double estimatedOptimizedMs = 0;  // latency after every safe fix (overlap-accounted)
  double safeFixSavingMs = 0;
  double totalImpactMs = 0;         // sum of every finding's accounted impact (≤ latency − optimum)
  // The device figures put the optimum above the measured latency (after one recalibration on
  // the CPU): no gap is computed; the report states it as a fact (cache effects).
  bool optimumAboveLatency = false;
  bool recalibrated = false;        // the host was recalibrated because of it

  std::vector<Finding> findings;         // ranked, highest score first
  std::vector<Assessment> assessments;   // aligned with findings
  std::vector<std::string> bottlenecks;  // TOP-N finding ids, ranked; zero-impact excluded
  std::vector<NodeReport> nodes;         // aligned with the graph's nodes
  std::vector<OpTypeTime> timeByOpType;  // highest time first
  std::vector<CategorySummary> categories;  // categories with findings, in their families' order
  std::vector<RuleSummary> rules;           // per rule, highest impact first
  std::optional<ProfileData> profile, runtimeProfile;
  std::optional<CompiledGraph> compiled;  // set when the estimate prices a compiled graph
  std::vector<std::string> notes;        // caveats as text keys ("uncalibrated_host", …)
  int fasterThanRoofline = 0;            // measured nodes (≥ 0.1 % of the time) above 120 % efficiency
  // Of the nodes above 120 %, on this host's calibrated CPU: memory-bound ones whose bytes fit in
  // a cache smaller than the calibration's working set. They ran from that cache, which the
  // calibrated bandwidth does not bound: counted here, not in fasterThanRoofline (whose note asks
  // to recalibrate).
  int fasterFromCache = 0;
  double cacheBytes = 0;  // that cache (cacheBelow), 0 when not on this host
  int appliedByRuntime = 0;              // findings the runtime (or the graph engine) already applies
  // The profile-only analysis (no model; advisor/profile_only.h): per-kernel facts the node
  // table does not hold. Null for a model's analysis.
  std::shared_ptr<const ProfileOnlySummary> profileOnly;

  const Finding* finding(std::string_view id) const;
  const Assessment* assessment(std::string_view id) const;
};

// Fills Report::categories and Report::rules from its ranked findings (analyze() calls it; the
// training analysis builds a Report from a trace and calls it too).
void summarizeFindings(Report& r);

Result<Report> analyze(const Model& model, const DeviceProfile& device, const AnalysisInputs& inputs,
                       const AnalyzeOptions& options, const Progress& progress = Progress::none());

// The overlap accounting on its own (analyze() calls it), exposed for tests and the GUI's
// "what if I apply these" view. Each node i has a budget of `nodeMs[i] × scale`; runtime-only
// nodes (Finding::runtimeNodes) have `runtimeMs`. Findings claim in `order` (indices into
// `findings`); a finding's impact.ms = min(rawMs × scale, what is left of its nodes' budgets,
// what is left of `latencyMs`); a finding naming no node claims from the latency alone.
// Returns the impacts (ms) aligned with `findings`.
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

struct OverlapBudget {
  std::vector<double> nodeMs;                 // per IR node (graph order)
  std::map<std::string, double> runtimeMs;    // per runtime-only node name
  double scale = 1.0;                         // node times -> share of the end-to-end latency
  double latencyMs = 0;
};
std::vector<double> accountOverlaps(const std::vector<Finding>& findings, const std::vector<size_t>& order,
                                    const GraphIndex& index, const OverlapBudget& budget);
// Impacts that add up to more than `limitMs` all shrink alike to fit it (each saving is an
// estimate of the same optimism): the last claimers are not the ones left with nothing.
void shrinkToFit(std::vector<double>& impactsMs, double limitMs);

}  // namespace msa
