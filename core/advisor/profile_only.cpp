#include "advisor/profile_only.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "rules/texts.h"


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
  r.predictedMs = k.predictedMs;
  r.bound = std::string(boundName(k.roofline.bound));
  return r;
}

// `d` with its compute peaks scaled from the clock `tableMhz` to `mhz` (memory is not clocked with
// the cores), and its name saying so.
DeviceProfile atClock(DeviceProfile d, double mhz, double tableMhz) {
  const double ratio = mhz / tableMhz;
  char formula[160];
  std::snprintf(formula, sizeof formula, "the %.0f\u202fMHz figure x %.0f/%.0f: the clock the kernels' cycle counts give", tableMhz,
                mhz, tableMhz);
  for (auto& [key, f] : d.peaks) {
    f.value *= ratio;
    f.origin = FigureOrigin::Derived;
    f.formula = formula;
  }
  const std::map<std::string, std::string> clocks{{"mhz", std::to_string(std::lround(mhz))},
                                                  {"table", std::to_string(std::lround(tableMhz))}};
  d.displayName += uiText("device.at_clock", Lang::En, clocks);
  if (!d.displayNameZh.empty()) d.displayNameZh += uiText("device.at_clock", Lang::Zh, clocks);
  return d;
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
      // A clock between the table's chips (the cycle counts say 1650 MHz where the nearest chip
      // runs at 1800): the nearest chip's compute peaks scaled to the measured clock.
      auto info = [&](const char* k) { return p.deviceInfo.count(k) ? p.deviceInfo.at(k) : 0.0; };
      const double mhz = info("aic_frequency_mhz"), table = info("chip_table_mhz");
      if (mhz > 0 && table > 0 && std::fabs(mhz - table) > 30) *d = atClock(*d, mhz, table);
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

std::shared_ptr<ProfileOnlySummary> priceKernelTable(const ProfileData& p, const DeviceProfile& device,
                                                     const std::string& deviceChoice, double stepMs) {
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
  for (const PricedKernel& k : s.priced.kernels) s.predictedMs += k.predictedMs;
  s.fasterThanRoofline = s.priced.fasterThanRoofline;
  // The step the caller decided, else the profiler's measured one, else the entries' sum.
  s.stepMs = stepMs > 0 ? stepMs : p.latencyMs.median > 0 ? p.latencyMs.median : s.priced.deviceMs;
  if (s.rooflineMs > 0) s.gapRatio = s.pricedMs / s.rooflineMs;
  return summary;
}

void describeKernelRun(Report& r, const ProfileData& p, const DeviceProfile& device,
                       std::shared_ptr<const ProfileOnlySummary> summary) {
  const ProfileOnlySummary& s = *summary;
  // An imported run's kernels ran in several precisions: the roofs of each the device has.
  const DType precisions[] = {DType::Float16, DType::Float};
  describeDevice(r, device, precisions);
  r.nodeCount = p.nodes.size();
  r.measuredNodeSumMs = s.priced.deviceMs;
  r.estimatedLatencyMs = s.rooflineMs;
  // The optimum: every priced kernel at its roofline (a lower bound: unpriced kernels count 0).
  r.optimum = Optimum{};
  r.optimum.ms = r.optimumMs = s.rooflineMs;
  for (const PricedKernel& k : s.priced.kernels) {
    r.optimum.groups += k.priced();
    r.optimum.computeMs += k.priced() ? k.roofline.computeSeconds * 1e3 * k.calls : 0;
    r.optimum.memoryMs += k.priced() ? k.roofline.memorySeconds * 1e3 * k.calls : 0;
  }
  for (const UnpricedType& u : s.priced.unpriced) r.optimum.unknownNodes += u.kernels;
  r.optimum.knownTimeShare = s.computeMs > 0 ? s.pricedMs / s.computeMs : 0;
  // The gap of the priced kernels (half of the compute time at least): the step's other parts
  // (communication, idle) have no roofline.
  r.gapRatio = r.percentOfOptimum = 0;
  if (s.rooflineMs > 0 && r.optimum.knownTimeShare >= 0.5) {
    r.gapRatio = s.gapRatio;
    r.percentOfOptimum = 100.0 / s.gapRatio;
  }
  r.nodes.clear();
  r.timeByOpType.clear();
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
  r.profile = p;
  r.fasterThanRoofline = s.fasterThanRoofline;
  r.notes.push_back("profile_only");
  if (s.deviceChoice == "default") r.notes.push_back("chip_unknown");
  if (r.optimum.unknownNodes > 0) r.notes.push_back("unknown_cost");
  if (s.fasterThanRoofline > 0) r.notes.push_back("faster_than_roofline");
  if (!p.warnings.empty()) r.notes.push_back("import_warnings");
  r.profileOnly = std::move(summary);
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
      if (k.predictedMs > 0) e["predicted_ms"] = k.predictedMs;
      e["bound"] = boundName(k.roofline.bound);
      e["flops_per_call"] = k.cost.cost.flops;
      e["logical_flops_per_call"] = k.cost.logicalFlops;
      e["bytes_per_call"] = k.cost.cost.bytes();
      e["family"] = k.cost.family;
      if (!k.cost.note.empty()) e["note"] = k.cost.note;
      // The formula's work where the counters replaced it (cube MACs, vector operations).
      if (k.formula.cost.flops != k.cost.cost.flops) e["formula_flops_per_call"] = k.formula.cost.flops;
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
          {"predicted_ms", s.predictedMs},
          {"gap_ratio", s.gapRatio},
          {"faster_than_roofline", s.fasterThanRoofline},
          {"step_breakdown_ms", p.stepBreakdownMs},
          {"kernels", kernels},
          {"unpriced", unpriced}};
}

}  // namespace msa
