#pragma once
// What an analysis concludes, whatever it analysed (a model measured or estimated, a device
// profile, a training or inference trace, a job): the headline, the optimum, the ranked findings
// and their summaries, the per-node (or per-kernel) table. Every writer, chart and dock reads it.
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/ranking.h"
#include "model/dtype.h"
#include "profile/job.h"
#include "profile/profile_data.h"
#include "rules/finding.h"
#include "rules/rule.h"

namespace msa {

struct DeviceProfile;
struct ProfileOnlySummary;  // advisor/profile_only.h

std::string_view goalName(Goal g);          // "latency", "throughput"
std::string_view scenarioName(Scenario s);  // "edge", "datacenter"
bool parseGoal(std::string_view s, Goal& out);
bool parseScenario(std::string_view s, Scenario& out);

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
  // What the kernel-time model predicts (cost/kernel_predict.h: the roofline scaled by the
  // efficiency fitted on real kernels of its class); 0: no prediction (not an Ascend kernel the
  // model covers).
  double predictedMs = 0;
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

// A rate the measured run reached above the device's peak for its element type
// (advisor/rates_from_run.h): the optimum is priced at it.
struct RateFromRun {
  DType type = DType::Float;
  double flopsPerSecond = 0;      // the run's best: its kernel's members' FLOPs / its median time
  double peakFlopsPerSecond = 0;  // the device's figure it replaced (the calibration's on a host)
  std::string kernel;             // the run's entry that reached it
  std::string node;               // its IR node of most FLOPs
  std::string opType;             // that node's op type
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
  std::string model;       // file path; empty for a profile analysed without its model
  std::string profilePath;  // the profile analysed (file or folder), when the report is a profile's
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
  // Peaks the run itself showed too low, raised before the optimum was priced; highest first.
  std::vector<RateFromRun> ratesFromRun;

  std::vector<Finding> findings;         // ranked, highest score first
  std::vector<Assessment> assessments;   // aligned with findings
  std::vector<std::string> bottlenecks;  // TOP-N finding ids, ranked; zero-impact excluded
  std::vector<NodeReport> nodes;         // aligned with the graph's nodes
  std::vector<OpTypeTime> timeByOpType;  // highest time first
  std::vector<CategorySummary> categories;  // categories with findings, in their families' order
  std::vector<RuleSummary> rules;           // per rule, highest impact first
  std::optional<ProfileData> profile, runtimeProfile;
  // A job of several ranks (profile/job.h): its ranks side by side; the rest of the report is the
  // slow rank's (the one the others wait for).
  std::optional<training::ClusterView> job;
  // The analysed run's step split (a profile's: its step record, else its timeline; a job's: its
  // slow rank's). Unset without either (a model's analysis, a kernel table alone).
  std::optional<training::RankStep> step;
  std::optional<CompiledGraph> compiled;  // set when the estimate prices a compiled graph
  std::vector<std::string> notes;        // caveats as text keys ("uncalibrated_host", …)
  std::map<std::string, std::string> noteParams;  // values a note's text names ({rank}, {stage}, …)
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

// Fills Report::categories and Report::rules from its ranked findings.
void summarizeFindings(Report& r);

// The device part of a report's header: id, names, calibration, bandwidth, launch overhead and
// the roofs at each of `precisions` the device has (the chart's lines).
void describeDevice(Report& r, const DeviceProfile& device, std::span<const DType> precisions);

// Puts a ranking into the report (findings, assessments, TOP-N, impacts) and summarises it.
void applyRanking(Report& r, Ranking ranking);

}  // namespace msa
