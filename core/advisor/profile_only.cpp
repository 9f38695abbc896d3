#include "advisor/profile_only.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "profile/profile_import.h"
#include "rules/profile_rules.h"
#include "training/training_ranking.h"

namespace msa {

namespace {

constexpr const char* kDefaultAscend = "ascend910b";

// What one entry costs per iteration, in the node table's terms.
NodeReport kernelRow(const NodeProfile& n, const PricedKernel& k, double deviceMs) {
  NodeReport r;
  r.name = n.name;
  r.opType = n.opType.empty() ? n.kernel : n.opType;
  r.measuredMs = k.measuredMs;
  r.share = deviceMs > 0 ? k.measuredMs / deviceMs : 0;
  if (!k.priced()) {
    r.bound = "unknown";
    return r;
  }
  r.estimatedMs = r.optimumMs = k.rooflineMs;
  r.flops = k.cost.cost.flops * k.calls;
  r.bytes = k.cost.cost.bytes() * k.calls;
  r.intensity = k.cost.cost.intensity();
  r.efficiency = k.efficiency;
  r.bound = std::string(boundName(k.roofline.bound));
  return r;
}

}  // namespace

Result<DeviceProfile> profileDevice(const ProfileData& p, const std::string& requested, std::string& choice) {
  if (!requested.empty() && requested != "cpu") {
    choice = "requested";
    return loadDevice(requested);
  }
  if (!p.device.empty() && p.device != "ascend" && p.device != "npu" && p.device != "gpu" && p.device != "cpu" &&
      p.device != "cuda") {
    if (auto d = loadDevice(p.device)) {
      choice = "detected";
      return d;
    }
  }
  if (p.caps.ascend) {
    choice = "default";
    return loadDevice(kDefaultAscend);
  }
  // A CPU or GPU trace: the host's profile prices a CPU run; a GPU has no built-in profile.
  choice = "default";
  return loadDevice(p.device == "cpu" ? "cpu-host" : kDefaultAscend);
}

Result<Report> analyzeProfileOnly(const ProfileData& p, const DeviceProfile& device, const AnalyzeOptions& options,
                                  const std::string& deviceChoice, const Progress& progress) {
  progress.report("analysis", 0);
  auto summary = std::make_shared<ProfileOnlySummary>();
  ProfileOnlySummary& s = *summary;
  s.priced = priceKernels(p, device);
  s.chip = p.chipBasis;
  s.deviceChoice = deviceChoice;
  s.importer = p.importer;
  s.warnings = p.warnings;
  s.computeMs = s.priced.computeMs;
  s.pricedMs = s.priced.pricedMs;
  s.rooflineMs = s.priced.rooflineMs;
  s.fasterThanRoofline = s.priced.fasterThanRoofline;
  // The step: the profiler's measured one, else the entries' sum (no timeline to span).
  s.stepMs = p.latencyMs.median > 0 ? p.latencyMs.median : s.priced.deviceMs;
  if (s.rooflineMs > 0) s.gapRatio = s.pricedMs / s.rooflineMs;
  if (progress.cancelled()) return Error::cancelled();

  Report r;
  r.model = "";
  r.device = device.id;
  r.deviceName = device.displayName;
  r.deviceNameZh = device.displayNameZh;
  r.deviceCalibrated = device.memoryBandwidth.origin == FigureOrigin::Calibrated;
  r.bandwidthBytesPerSecond = device.memoryBandwidth.value;
  r.launchOverheadMs = device.launchOverhead.value * 1e3;
  for (ComputeUnit u : {ComputeUnit::Cube, ComputeUnit::Vector})
    for (DType t : {DType::Float16, DType::Float})
      if (auto peak = device.peak(u, t))
        if (std::none_of(r.roofs.begin(), r.roofs.end(), [&](const Report::Roof& x) { return x.flopsPerSecond == *peak; }))
          r.roofs.push_back({std::string(unitName(u)) + " " + std::string(dtypeName(t)), *peak});
  r.goal = options.goal;
  r.scenario = options.scenario;
  r.nodeCount = p.nodes.size();
  r.latencyMs = s.stepMs;
  r.latencySource = "measured";
  r.latencyRun = "deployed";  // the device's own run, as it ran
  r.latencyP10Ms = r.latencyP90Ms = r.latencyMs;
  r.measuredNodeSumMs = s.priced.deviceMs;
  r.estimatedLatencyMs = s.rooflineMs;

  // Findings, ranked with the advisor's policy over per-kernel, idle and communication budgets.
  ProfileRuleContext ctx;
  ctx.profile = &p;
  ctx.priced = &s.priced;
  ctx.device = &device;
  ctx.stepMs = s.stepMs;
  auto info = [&](const char* k) { return p.deviceInfo.count(k) ? p.deviceInfo.at(k) : 0.0; };
  ctx.aiCores = info("ai_core_num");
  ctx.vectorCores = info("aiv_num");
  std::vector<ProfileFinding> found = runProfileRules(ctx);
  progress.report("ranking", 0.8);
  std::vector<training::TrainingFinding> in;
  for (auto& f : found) in.push_back({std::move(f.finding), std::move(f.budgets)});
  training::Ranking ranking = training::rankFindings(std::move(in), profileBudgets(ctx), s.stepMs, options.topN, options.policy);
  r.findings = std::move(ranking.findings);
  r.assessments = std::move(ranking.assessments);
  r.bottlenecks = std::move(ranking.bottlenecks);
  r.totalImpactMs = ranking.totalImpactMs;
  // No rewrite exists for a model we do not have: every finding is advice.
  r.estimatedOptimizedMs = r.latencyMs;

  // The optimum: every priced kernel at its roofline (a lower bound: unpriced kernels count 0).
  r.optimum.ms = r.optimumMs = s.rooflineMs;
  r.optimum.groups = 0;
  for (const PricedKernel& k : s.priced.kernels) {
    r.optimum.groups += k.priced();
    r.optimum.computeMs += k.priced() ? k.roofline.computeSeconds * 1e3 * k.calls : 0;
    r.optimum.memoryMs += k.priced() ? k.roofline.memorySeconds * 1e3 * k.calls : 0;
  }
  for (const UnpricedType& u : s.priced.unpriced) r.optimum.unknownNodes += u.kernels;
  r.optimum.knownTimeShare = s.computeMs > 0 ? s.pricedMs / s.computeMs : 0;
  // The gap of the priced kernels (half of the compute time at least): the step's other parts
  // (communication, idle) have no roofline.
  if (s.rooflineMs > 0 && r.optimum.knownTimeShare >= 0.5) {
    r.gapRatio = s.gapRatio;
    r.percentOfOptimum = 100.0 / s.gapRatio;
  }

  std::map<std::string, size_t> opIndex;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    r.nodes.push_back(kernelRow(p.nodes[i], s.priced.kernels[i], s.priced.deviceMs));
    const NodeReport& n = r.nodes.back();
    auto [it, added] = opIndex.emplace(n.opType, r.timeByOpType.size());
    if (added) r.timeByOpType.push_back({n.opType, 0, 0, 0});
    OpTypeTime& t = r.timeByOpType[it->second];
    t.count += static_cast<int>(std::lround(s.priced.kernels[i].calls));
    t.ms += n.measuredMs;
  }
  for (OpTypeTime& t : r.timeByOpType) t.share = s.priced.deviceMs > 0 ? t.ms / s.priced.deviceMs : 0;
  std::stable_sort(r.timeByOpType.begin(), r.timeByOpType.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  std::map<std::string, size_t> rowOf;
  for (size_t i = 0; i < r.nodes.size(); ++i) rowOf.emplace(r.nodes[i].name, i);
  for (const Finding& f : r.findings)
    for (const auto& name : f.nodes)
      if (auto it = rowOf.find(name); it != rowOf.end()) r.nodes[it->second].findings.push_back(f.id);
  summarizeFindings(r);

  r.profile = p;
  r.fasterThanRoofline = s.fasterThanRoofline;
  r.notes.push_back("profile_only");
  if (deviceChoice == "default") r.notes.push_back("chip_unknown");
  if (r.optimum.unknownNodes > 0) r.notes.push_back("unknown_cost");
  if (s.fasterThanRoofline > 0) r.notes.push_back("faster_than_roofline");
  if (!p.warnings.empty()) r.notes.push_back("import_warnings");
  r.profileOnly = std::move(summary);
  progress.report("ranking", 1);
  return r;
}

Result<Report> analyzeProfileFile(const std::filesystem::path& path, const std::string& requestedDevice,
                                  const AnalyzeOptions& options, const Progress& progress) {
  Progress importing([&progress](std::string_view phase, double f) { progress.report(phase, 0.6 * f); },
                     progress.cancelFlag());
  auto p = importProfile(path, nullptr, importing);
  if (!p) return p.error();
  if (progress.cancelled()) return Error::cancelled();
  std::string choice;
  auto device = profileDevice(*p, requestedDevice == "cpu" ? std::string() : requestedDevice, choice);
  if (!device) return device.error();
  Progress analysing([&progress](std::string_view phase, double f) { progress.report(phase, 0.6 + 0.4 * f); },
                     progress.cancelFlag());
  auto r = analyzeProfileOnly(*p, *device, options, choice, analysing);
  if (r) r->model = "";
  return r;
}

nlohmann::json profileOnlyJson(const ProfileOnlySummary& s, const ProfileData& p) {
  using nlohmann::json;
  json kernels = json::array();
  for (const PricedKernel& k : s.priced.kernels) {
    const NodeProfile& n = p.nodes[k.entry];
    json e{{"name", n.name},
           {"op_type", n.opType},
           {"core_type", coreTypeName(k.core)},
           {"calls", k.calls},
           {"measured_ms", k.measuredMs},
           {"input_shapes", n.inputShapes},
           {"output_shapes", n.outputShapes},
           {"input_dtypes", n.inputDtypes},
           {"input_formats", n.inputFormats}};
    if (k.priced()) {
      e["roofline_ms"] = k.rooflineMs;
      e["efficiency"] = k.efficiency;
      e["bound"] = boundName(k.roofline.bound);
      e["flops_per_call"] = k.cost.cost.flops;
      e["logical_flops_per_call"] = k.cost.logicalFlops;
      e["bytes_per_call"] = k.cost.cost.bytes();
      e["family"] = k.cost.family;
      if (!k.cost.note.empty()) e["note"] = k.cost.note;
    } else if (isComputeCore(k.core)) {
      e["unpriced"] = k.cost.cost.reason;
    }
    if (!n.origin.from.empty())
      e["origin"] = {{"framework_op", n.origin.frameworkOp}, {"launch_op", n.origin.launchOp}, {"module", n.origin.module},
                     {"source_line", n.origin.sourceLine}, {"from", n.origin.from}};
    kernels.push_back(std::move(e));
  }
  json unpriced = json::array();
  for (const UnpricedType& u : s.priced.unpriced)
    unpriced.push_back({{"op_type", u.opType}, {"kernels", u.kernels}, {"ms", u.ms}, {"share", u.share}, {"reason", u.reason}});
  return {{"chip", s.chip},
          {"device_choice", s.deviceChoice},
          {"importer", s.importer},
          {"warnings", s.warnings},
          {"step_ms", s.stepMs},
          {"compute_ms", s.computeMs},
          {"priced_ms", s.pricedMs},
          {"roofline_ms", s.rooflineMs},
          {"gap_ratio", s.gapRatio},
          {"faster_than_roofline", s.fasterThanRoofline},
          {"step_breakdown_ms", p.stepBreakdownMs},
          {"kernels", kernels},
          {"unpriced", unpriced}};
}

}  // namespace msa
