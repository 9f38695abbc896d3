#include "advisor/profile_analysis.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "advisor/profile_only.h"
#include "rules/run_rule.h"
#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "model/dtype.h"
#include "profile/profile_import.h"
#include "rules/texts.h"
#include "rules/training_rule_helpers.h"
#include "util/embedded.h"

namespace msa::training {

std::string trainingDeviceName(const std::string& d, Lang lang) {
  if (d == "npu" || d == "cuda") return uiText("training.device." + d, lang);
  return uiText(d == "gpu" ? "training.device.cuda" : "training.device.cpu", lang);
}

namespace {

// The step every view states: the profiler's own step record (step_trace_time.csv, a step trace)
// first, then the rows' own time for an excerpt, then the timeline's steps (ProfilerStep ranges,
// the rows' Step Id), then the kernel table's span. Says which in `source`.
double decideStep(const ProfileData* kernels, const TrainingProfile* steps, std::string& source) {
  if (kernels && kernels->stepSource == "step_trace" && kernels->latencyMs.median > 0) {
    source = "step_trace";
    return kernels->latencyMs.median;
  }
  // Rows kept from a longer run: their timeline's gaps are rows left out, not a step.
  if (kernels && kernels->stepSource == "excerpt") {
    source = "excerpt";
    return kernels->latencyMs.median;
  }
  if (steps && steps->stepMs > 0) {
    source = "timeline";
    return steps->stepMs;
  }
  source = "kernels";
  return kernels ? kernels->latencyMs.median : 0.0;
}

// What shows a run is a training step, "" when nothing does: a backward or optimizer kernel (its
// op type or name: ...Grad, ...Backprop..., ...Backward, the Apply<optimizer> kernels; MindSpore's
// "Gradients/" scopes), else the timeline's backward or optimizer phase. Not every Apply is an
// optimizer: ApplyRotaryPosEmb serves inference.
std::string trainingEvidence(const ProfileData* kernels, const TrainingProfile* steps) {
  auto backward = [](const std::string& s) {
    static constexpr std::string_view kOptimizers[] = {"ApplyAdam", "ApplyAda", "ApplyMomentum", "ApplyKerasMomentum",
                                                       "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyLamb",
                                                       "ApplyProximal", "ApplyPowerSign", "ApplyAddSign"};
    return s.find("Grad") != std::string::npos || s.find("Backprop") != std::string::npos ||
           s.find("Backward") != std::string::npos ||
           std::any_of(std::begin(kOptimizers), std::end(kOptimizers), [&](std::string_view o) { return s.starts_with(o); });
  };
  if (kernels) {
    for (const NodeProfile& n : kernels->nodes)
      if (backward(n.opType)) return n.opType;
    for (const NodeProfile& n : kernels->nodes)
      if (backward(n.name)) return n.name;
  }
  if (steps && steps->median.backwardMs > 0) return "backward";
  if (steps && steps->median.optimizerMs > 0) return "optimizer";
  return {};
}

// The time by op type of a run without a kernel table: the timeline's kernels (device) or
// operators (host).
void timeByOpTypeFromTimeline(Report& r, const TrainingProfile& p, double stepMs) {
  if (!p.kernels.empty()) {
    std::map<std::string, OpTypeTime> byType;
    for (const KernelTime& k : p.kernels) {
      const std::string type = !k.opType.empty() ? k.opType : k.name;
      OpTypeTime& t = byType[type];
      t.opType = type;
      t.count += static_cast<int>(std::lround(k.calls));
      t.ms += k.ms;
    }
    for (auto& [type, t] : byType) r.timeByOpType.push_back(t);
  } else {
    for (const OpTime& op : p.ops)
      if (op.selfMs > 0) r.timeByOpType.push_back({op.name, static_cast<int>(std::lround(op.calls)), op.selfMs, 0});
  }
  for (OpTypeTime& t : r.timeByOpType) t.share = stepMs > 0 ? std::min(1.0, t.ms / stepMs) : 0;
  std::stable_sort(r.timeByOpType.begin(), r.timeByOpType.end(), [](const OpTypeTime& a, const OpTypeTime& b) { return a.ms > b.ms; });
}

// A trace's pricing (the "training" block's per-step detail) as the report's optimum, when no
// kernel table priced the run: the priced kernels at their roofline, and the gap once they hold
// at least half of the compute kernels' time.
void optimumFromTracePricing(Report& r, const TrainingPricing& pr) {
  r.optimum.ms = r.optimumMs = pr.rooflineMs;
  r.optimum.groups = static_cast<int>(std::lround(pr.pricedKernels));
  r.optimum.unknownNodes = static_cast<int>(std::lround(pr.computeKernels - pr.pricedKernels));
  r.optimum.knownTimeShare = pr.knownTimeShare();
  if (r.optimum.knownTimeShare >= 0.5) {
    r.gapRatio = pr.pricedMs / pr.rooflineMs;
    r.percentOfOptimum = 100.0 / r.gapRatio;
  }
}

// The kernel table's pricing in the "training" block's terms (per step: compute, priced and
// roofline time, the op types by their time, the unpriced ones).
TrainingPricing pricingOf(const PricedProfile& priced, const ProfileData& kernels, const DeviceProfile& device) {
  TrainingPricing p;
  p.device = device.id;
  p.computeMs = priced.computeMs;
  p.pricedMs = priced.pricedMs;
  p.rooflineMs = priced.rooflineMs;
  p.unpriced = priced.unpriced;
  std::map<std::string, TrainingPricing::OpType> byType;
  for (const PricedKernel& k : priced.kernels) {
    if (!isComputeCore(k.core)) continue;
    p.computeKernels += k.calls;
    if (!k.priced()) continue;
    p.pricedKernels += k.calls;
    const std::string& type = kernels.nodes[k.entry].opType;
    TrainingPricing::OpType& t = byType[type];
    t.opType = type;
    t.calls += k.calls;
    t.measuredMs += k.measuredMs;
    t.rooflineMs += k.rooflineMs;
  }
  for (auto& [type, t] : byType) p.byType.push_back(t);
  std::stable_sort(p.byType.begin(), p.byType.end(), [](const auto& a, const auto& b) {
    return a.measuredMs - a.rooflineMs > b.measuredMs - b.rooflineMs;
  });
  return p;
}

// What one rank's analysis is made of: its kernel table and its timeline, either may be absent.
struct RunParts {
  std::optional<ProfileData> kernels;
  std::optional<TrainingTrace> trace;
  std::optional<TrainingProfile> steps;  // the trace analysed
  std::optional<CommRecord> communication;
};

// torch_npu's communication record beside a rank's kernels, when there is one.
Status readCommunicationInto(RunParts& parts, const std::filesystem::path& rank) {
  auto comm = readCommunication(rank);
  if (!comm) return comm.error();
  parts.communication = std::move(*comm);
  return Ok{};
}

// The analysis of one rank (with the job's view and findings when it is one of several).
Result<TrainingReport> assemble(RunParts parts, const TrainingOptions& options, const ClusterView* job,
                                const Progress& progress) {
  TrainingReport r;
  const ProfileData* kernels = parts.kernels ? &*parts.kernels : nullptr;
  const TrainingTrace* trace = parts.trace ? &*parts.trace : nullptr;
  if (trace) {
    r.path = trace->path;
    r.format = trace->format;
    r.device = trace->device;
    r.stepSource = trace->stepSource;
    r.files = trace->files;
    r.stepTrace = trace->stepTrace;
    for (const TraceEvent& e : trace->events) ++r.eventCounts[std::string(eventKindName(e.kind))];
    progress.report("analysing steps", 0.6);
    if (!parts.steps) parts.steps = analyzeTrace(*trace, options.analysis, progress);
    r.profile = *parts.steps;
  } else if (kernels) {
    r.path = kernels->files.empty() ? std::string() : kernels->files.front();
    r.format = kernels->importer;
    r.device = kernels->device;
    r.files = kernels->files;
  }
  if (progress.cancelled()) return Error::cancelled();

  // One device for every view: the one asked for, else the chip the kernel table tells. A GPU's
  // run (CUDA, ROCm, TensorRT) has no device profile here, nor a framework trace's host operators
  // (a Kineto trace's entries carry no shapes to price): those are not priced unless asked.
  std::optional<DeviceProfile> detected;
  std::string deviceChoice = "requested";
  const DeviceProfile* device = options.device;
  if (!device && kernels && kernels->importer != "kineto" && (kernels->caps.ascend || kernels->device == "cpu")) {
    auto d = profileDevice(*kernels, "", deviceChoice);
    if (!d) return d.error();
    detected = std::move(*d);
    device = &*detected;
  }
  std::string stepSource;
  r.latencyMs = decideStep(kernels, parts.steps ? &*parts.steps : nullptr, stepSource);
  const RankStep* jobSlowRank = job && job->slowRank >= 0 ? &job->ranks[static_cast<size_t>(job->slowRank)] : nullptr;
  if (!kernels && !trace && jobSlowRank) {  // a job's summary alone: the slow rank's step record
    r.latencyMs = jobSlowRank->stepMs;
    stepSource = "step_trace";
  }

  progress.report("rules", 0.8);
  std::shared_ptr<ProfileOnlySummary> priced;
  if (kernels && device) priced = priceKernelTable(*kernels, *device, deviceChoice, r.latencyMs);
  RunContext ctx;
  ctx.kernels = priced ? kernels : nullptr;
  ctx.priced = priced ? &priced->priced : nullptr;
  ctx.device = device;
  if (kernels) {
    auto info = [&](const char* k) { return kernels->deviceInfo.count(k) ? kernels->deviceInfo.at(k) : 0.0; };
    ctx.aiCores = info("ai_core_num");
    ctx.vectorCores = info("aiv_num");
  }
  ctx.trace = trace;
  ctx.steps = trace ? &r.profile : nullptr;
  ctx.thresholds = &options.rules;
  ctx.communication = parts.communication ? &*parts.communication : nullptr;
  ctx.job = job;
  ctx.stepMs = r.latencyMs;
  RunFindings found = runRunRules(ctx);
  if (auto s = embedded::tableStatus(); !s) return s.error();  // a rule ran without its table
  // The per-op-type detail of the "training" block: the kernel table's pricing when there is
  // one (the report's optimum is the same), else the trace's own rows priced.
  if (priced && priced->priced.pricedMs > 0) r.pricing = pricingOf(priced->priced, *kernels, *device);
  else if (trace && device) r.pricing = priceTrainingKernels(*trace, *device);
  if (progress.cancelled()) return Error::cancelled();
  r.communication = std::move(parts.communication);

  Report& rep = r.report;
  rep.model = options.modelPath.empty() ? r.path : options.modelPath;
  rep.inputs = options.modelInputs;
  rep.goal = options.goal;
  rep.scenario = options.scenario;
  const std::string evidence = trainingEvidence(kernels, parts.steps ? &*parts.steps : nullptr);
  if (!evidence.empty()) rep.goal = Goal::Training, rep.scenario = Scenario::Datacenter;
  rep.latencyMs = r.latencyMs;
  rep.latencySource = "measured";
  rep.latencyRun = "deployed";  // the device's own run, as it ran
  rep.latencyP10Ms = rep.latencyP90Ms = rep.latencyMs;
  rep.estimatedOptimizedMs = r.latencyMs;  // no automatic fix applies to a run without its model
  RankingInputs in;
  for (const auto& [name, ms] : found.budgets) in.budgetMs[name] = ms;
  in.latencyMs = in.limitMs = r.latencyMs;
  in.topN = options.topN;
  in.policy = options.policy;
  in.weights = resourceWeights(rep.goal, rep.scenario);
  applyRanking(rep, rank(std::move(found.findings), {}, in));
  if (priced) {
    describeKernelRun(rep, *kernels, *device, priced);
  } else {
    if (device) {
      const DType precision = device->computeType(DType::Float);
      describeDevice(rep, *device, std::span<const DType>(&precision, 1));
    } else {
      rep.device = r.device.empty() ? "cpu" : r.device;
      rep.deviceName = trainingDeviceName(rep.device, Lang::En);
      rep.deviceNameZh = trainingDeviceName(rep.device, Lang::Zh);
    }
    rep.optimum.knownTimeShare = 0;  // no operator of the trace has a known cost
    if (r.pricing && r.pricing->rooflineMs > 0) optimumFromTracePricing(rep, *r.pricing);
    timeByOpTypeFromTimeline(rep, r.profile, r.latencyMs);
  }
  if (!options.modelPath.empty()) rep.nodeCount = options.modelNodes;
  // The step's split: the rank's step record (its own, else the one beside its kernel table), else its timeline's.
  static const std::map<std::string, double> kNoSplit;
  const auto& split = kernels && stepSource == "step_trace" ? kernels->stepBreakdownMs : kNoSplit;
  if (trace || !split.empty()) {
    const int rankNo = r.communication && r.communication->layout.world > 1 ? r.communication->layout.rank : -1;
    rep.step = training::rankStep(rankNo, trace ? std::filesystem::path(trace->path) : std::filesystem::path(),
                                  trace ? &r.profile : nullptr, trace ? trace->stepTrace : std::vector<StepTraceRow>{}, split);
    if (r.communication && r.communication->layout.pp > 1) rep.step->stage = r.communication->layout.stage();
  } else if (jobSlowRank && !kernels) {
    rep.step = *jobSlowRank;
  }

  // Notes: what the run is and what its numbers rest on.
  if (trace) r.notes.push_back("training_per_step");
  if (trace || !priced) r.notes.push_back(rep.optimumMs > 0 ? "training_optimum" : "optimum_unknown");
  if (stepSource == "step_trace") r.notes.push_back("step_from_step_trace");
  if (!trace || stepSource == "step_trace") r.stepSource = stepSource;
  if (!evidence.empty()) {
    r.notes.push_back("training_goal");
    rep.noteParams["evidence"] = evidence;
  }
  if (stepSource == "excerpt") {  // rows taken from a longer run: no step, no idle time
    r.notes.push_back("excerpt");
    rep.noteParams["covered"] = formatSignificant(r.latencyMs);
    rep.noteParams["span"] = formatSignificant(kernels->rowsSpanMs);
    rep.noteParams["share"] = formatPercent(r.latencyMs / kernels->rowsSpanMs);
    rep.noteParams["rows"] = std::to_string(kernels->tasks);
  }
  if (kernels && kernels->warmupSteps > 0) {
    r.notes.push_back("warmup_left_out");
    rep.noteParams["warmup"] = std::to_string(kernels->warmupSteps);
  }
  if (kernels && kernels->rowsFromWarmup) r.notes.push_back("rows_from_warmup");
  // Which rank of which job this is, and what one rank cannot see.
  if (r.communication && r.communication->layout.world > 1 && !job) {
    const ParallelLayout& l = r.communication->layout;
    r.notes.push_back("rank_of_job");
    rep.noteParams["rank"] = std::to_string(l.rank);
    rep.noteParams["world"] = std::to_string(l.world);
    rep.noteParams["layout"] = "TP " + std::to_string(std::max(1, l.tp)) + " × PP " + std::to_string(std::max(1, l.pp)) +
                               " × DP " + std::to_string(std::max(1, l.dp));
    rep.noteParams["stage"] = l.stage() >= 0 ? std::to_string(l.stage() + 1) : std::string("?");
    rep.noteParams["stages"] = std::to_string(std::max(1, l.pp));
    rep.noteParams["replica"] = l.replica() >= 0 ? std::to_string(l.replica() + 1) : std::string("?");
    rep.noteParams["replicas"] = std::to_string(std::max(1, l.dp));
  }
  if (trace) {
    for (const auto& n : trace->notes) r.notes.push_back(n);
    if (r.profile.timeline == "host") r.notes.push_back("host_timeline");
    if (r.profile.steps.size() == 1 && trace->stepSource != "whole_trace") r.notes.push_back("single_step");
  }
  for (const auto& n : r.notes)
    if (std::find(rep.notes.begin(), rep.notes.end(), n) == rep.notes.end()) rep.notes.push_back(n);
  progress.report("rules", 1);
  return r;
}

// The importers whose files our trace reader reads as a timeline too.
bool hasTimeline(const ProfileData& kernels) { return kernels.importer == "ascend" || kernels.importer == "kineto"; }

// One rank: its kernel table (any importer) and, where the format has one, its timeline.
Result<RunParts> readRank(const std::filesystem::path& path, const Progress& progress) {
  RunParts parts;
  auto kernels = importProfile(path, nullptr, progress);
  if (progress.cancelled()) return Error::cancelled();
  if (kernels) parts.kernels = std::move(*kernels);
  // An excerpt's timeline is mostly rows left out: its steps and idle time would be fiction.
  if (!parts.kernels || (hasTimeline(*parts.kernels) && parts.kernels->stepSource != "excerpt")) {
    auto trace = loadTrainingTrace(path, progress);
    if (progress.cancelled()) return Error::cancelled();
    if (trace) parts.trace = std::move(*trace);
    else if (!parts.kernels) return kernels.error();
  }
  if (auto s = readCommunicationInto(parts, path); !s) return s.error();
  return parts;
}

}  // namespace

Result<TrainingReport> buildTrainingReport(const TrainingTrace& trace, const TrainingOptions& options, const Progress& progress) {
  RunParts parts;
  parts.trace = trace;
  return assemble(std::move(parts), options, nullptr, progress);
}

// A job known from msprof-analyze's cluster summary alone: the job's view and findings, no rank's
// kernels or timeline.
Result<TrainingReport> analyzeClusterSummary(const std::filesystem::path& csv, const TrainingOptions& options,
                                             const Progress& progress) {
  progress.report("reading the cluster summary", 0.2);
  auto view = readClusterSummary(csv);
  if (!view) return view.error();
  // msprof-analyze's cluster analysis serves distributed training: ranked with that goal.
  TrainingOptions o = options;
  o.goal = Goal::Training;
  o.scenario = Scenario::Datacenter;
  auto r = assemble(RunParts{}, o, &*view, progress);
  if (!r) return r.error();
  r->report.job = std::move(*view);
  r->path = csv.parent_path().string();
  r->format = "msprof-analyze";
  r->device = "npu";
  r->stepSource = "step_trace";
  r->files = {csv.string()};
  std::error_code ec;
  if (const auto matrix = csv.parent_path() / "cluster_communication_matrix.json"; std::filesystem::is_regular_file(matrix, ec))
    r->files.push_back(matrix.string());
  Report& rep = r->report;
  rep.device = "npu";
  rep.deviceName = trainingDeviceName("npu", Lang::En);
  rep.deviceNameZh = trainingDeviceName("npu", Lang::Zh);
  // Its notes: what it was read from; the optimum and step notes of a rank's run do not apply.
  r->notes = {"cluster_summary"};
  rep.notes = r->notes;
  if (options.modelPath.empty()) rep.model = r->path;
  return r;
}

Result<TrainingReport> analyzeTraining(const std::filesystem::path& path, const TrainingOptions& options, const Progress& progress) {
  auto members = clusterMembers(path);
  if (!members) return members.error();
  if (members->size() < 2) {
    // No rank folders, but msprof-analyze's summary of the job they were.
    if (const auto csv = clusterSummaryCsv(path); !csv.empty()) return analyzeClusterSummary(csv, options, progress);
    auto parts = readRank(path, progress);
    if (!parts) return parts.error();
    return assemble(std::move(*parts), options, nullptr, progress);
  }
  // A job: every rank's timeline analysed, then the rank the others wait for (the slowest) in
  // full, with the job's findings among its own.
  std::vector<RunParts> ranks;
  std::vector<TrainingProfile> profiles;
  std::vector<std::vector<StepTraceRow>> stepTraces;
  std::vector<std::filesystem::path> matrices;
  const double n = static_cast<double>(members->size());
  for (size_t i = 0; i < members->size(); ++i) {
    const ClusterMember& m = (*members)[i];
    progress.report("rank " + std::to_string(m.rank), static_cast<double>(i) / n);
    auto trace = loadTrainingTrace(m.path, progress);
    if (!trace) return trace.error();
    if (progress.cancelled()) return Error::cancelled();
    RunParts parts;
    parts.steps = analyzeTrace(*trace, options.analysis, progress);
    if (progress.cancelled()) return Error::cancelled();
    profiles.push_back(*parts.steps);
    stepTraces.push_back(trace->stepTrace);
    parts.trace = std::move(*trace);
    ranks.push_back(std::move(parts));
    std::error_code ec;
    for (const char* name : {"ASCEND_PROFILER_OUTPUT/communication_matrix.json"})
      if (std::filesystem::is_regular_file(m.path / name, ec)) matrices.push_back(m.path / name);
  }
  ClusterView view = buildClusterView(*members, profiles, stepTraces, matrices);
  const size_t slow = static_cast<size_t>(view.slowRank);
  RunParts& chosen = ranks[slow];
  if (auto kernels = importProfile((*members)[slow].path, nullptr, progress)) chosen.kernels = std::move(*kernels);
  if (progress.cancelled()) return Error::cancelled();
  if (auto s = readCommunicationInto(chosen, (*members)[slow].path); !s) return s.error();
  auto r = assemble(std::move(chosen), options, &view, progress);
  if (!r) return r.error();
  r->report.job = std::move(view);
  r->path = path.string();
  r->files.clear();
  for (const auto& m : *members) r->files.push_back(m.path.string());
  r->notes.push_back("cluster");
  r->report.notes.push_back("cluster");
  if (options.modelPath.empty()) r->report.model = r->path;
  return r;
}

}  // namespace msa::training

namespace msa {

Result<Report> analyzeProfileFile(const std::filesystem::path& path, const std::string& requestedDevice,
                                  const AnalyzeOptions& options, const Progress& progress) {
  training::TrainingOptions o;
  o.topN = options.topN;
  o.goal = options.goal;
  o.scenario = options.scenario;
  o.policy = options.policy;
  std::optional<DeviceProfile> device;
  if (!requestedDevice.empty() && requestedDevice != "cpu") {
    auto d = loadDevice(requestedDevice);
    if (!d) return d.error();
    device = std::move(*d);
    o.device = &*device;
  }
  auto r = training::analyzeTraining(path, o, progress);
  if (!r) return r.error();
  Report report = std::move(r->report);
  report.model = "";
  report.profilePath = path.string();
  return report;
}

}  // namespace msa
