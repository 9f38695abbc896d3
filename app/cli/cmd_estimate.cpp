// msadvisor-cli estimate: a per-node roofline estimate of a model on a device profile.
#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "cli.h"
#include "cost/device_profile.h"
#include "cost/kernel_predict.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/onnx_io.h"
#include "util/units.h"
#include "model/shape_inference.h"
#include "profile/host_calibration.h"
#include "rules/ge_fusion.h"

namespace msa::cli {
namespace {

int listDevices() {
  std::printf("built-in devices:\n");
  for (const std::string& id : builtinDevices()) {
    auto d = loadDevice(id);
    if (!d) return fail(d.error());
    auto peak = d->peak(ComputeUnit::Cube, DType::Float16);
    std::printf("  %-12s %s\n  %12s float16 %.3g TFLOP/s, %.0f GB/s, launch %.1f µs, default precision %s\n", id.c_str(),
                d->displayName.c_str(), "", peak.value_or(0) / 1e12, d->memoryBandwidth.value / 1e9,
                d->launchOverhead.value * 1e6,
                d->precision == PrecisionPolicy::Fp32ToFp16 ? "float32 -> float16" : "the model's");
  }
  std::printf("\nA path to a JSON profile (same format as resources/devices/*.json) works too.\n");
  return kOk;
}


// One estimate, computed once and then written as JSON or printed.
struct Estimate {
  std::string modelArg;
  std::string precision;  // --precision as given: device, model or fp16
  RooflineOptions options;
  DeviceProfile device;
  Model model;
  ShapeReport shapes;
  GraphCost cost;
  GeFusion ge;  // ran: the graph-engine fusions the compiled graph was priced with
  RooflineEstimate roofline;
  std::vector<double> predicted;  // the kernel-time model's seconds per node (empty: not covered)
  double predictedSeconds = 0, writtenMs = 0;
  size_t elided = 0;  // nodes folded or removed by the compiler: no time

  double share(double seconds) const { return roofline.seconds > 0 ? seconds / roofline.seconds : 0.0; }
  bool fp16() const {
    return options.precision == RooflineOptions::Precision::Fp16 ||
           (options.precision == RooflineOptions::Precision::Device && device.precision == PrecisionPolicy::Fp32ToFp16);
  }
};

Result<Estimate> computeEstimate(const Args& args, const std::string& deviceArg) {
  Estimate e;
  e.modelArg = args.positional[0];
  e.precision = args.valueOr("precision", "device");
  if (e.precision == "device") e.options.precision = RooflineOptions::Precision::Device;
  else if (e.precision == "model") e.options.precision = RooflineOptions::Precision::Model;
  else if (e.precision == "fp16") e.options.precision = RooflineOptions::Precision::Fp16;
  else return Error::usage("--precision expects device, model or fp16, got '" + e.precision + "'");
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return s.error();
  auto device = loadDevice(deviceArg);
  if (!device) return device.error();
  if (args.has("calibrate")) {
    if (device->kind != DeviceProfile::Kind::Cpu)
      return Error::usage("--calibrate measures this machine's CPU: use it with a CPU profile such as cpu-host");
    bool cached = false;
    auto measured = hostCalibration(false, makeProgress(args), &cached);
    if (!measured) return measured.error();
    device = withHostCalibration(*device, *measured);
  }
  e.device = std::move(*device);
  auto model = loadInput(e.modelArg);
  if (!model) return model.error();
  e.model = std::move(*model);
  auto shapes = inferShapes(e.model, so);
  if (!shapes) return shapes.error();
  e.shapes = std::move(*shapes);
  const Graph& g = e.model.graph;
  const Progress progress = makeProgress(args, installCancelHandler());
  const GraphIndex index(g);
  e.cost = computeCosts(index, progress);
  if (progress.cancelled()) return Error::cancelled();
  // On Ascend the graph ATC compiles (graph-engine fusions, docs/ascend-fusion.md) unless asked
  // for the graph as written.
  e.roofline = args.has("as-written") ? estimateRoofline(g, e.cost, e.device, e.options)
                                      : compiledRoofline(e.model, index, e.cost, e.device, e.options, nullptr, &e.ge);
  e.writtenMs = std::accumulate(e.ge.writtenMs.begin(), e.ge.writtenMs.end(), 0.0);
  e.predicted = predictGraphKernels(g, index, e.cost, e.roofline, e.device);
  e.predictedSeconds = std::accumulate(e.predicted.begin(), e.predicted.end(), 0.0);
  for (const NodeEstimate& n : e.roofline.nodes) e.elided += n.elided;
  return e;
}

nlohmann::json estimateJson(const Estimate& e) {
  const Graph& g = e.model.graph;
  const DeviceProfile& device = e.device;
  const RooflineEstimate& est = e.roofline;
  nlohmann::json j;
  j["model"] = e.modelArg;
  j["device"] = {{"id", device.id},
                 {"name", device.displayName},
                 {"kind", device.kind == DeviceProfile::Kind::Npu ? "npu" : "cpu"},
                 {"memory_bandwidth_gbps", device.memoryBandwidth.value / 1e9},
                 {"launch_overhead_us", device.launchOverhead.value * 1e6},
                 {"elide_metadata_ops", device.elideMetadataOps},
                 {"calibrated", device.memoryBandwidth.origin == FigureOrigin::Calibrated}};
  j["precision"] = e.fp16() ? "fp32_to_fp16" : "keep_model";
  j["flops_per_mac"] = 2;
  j["macs"] = e.cost.macs;
  j["flops"] = e.cost.flops;
  j["bytes"] = e.cost.bytes();
  j["costs_saturated"] = e.cost.totalsSaturated || !e.cost.saturated.empty();
  j["saturated_nodes"] = e.cost.saturated;
  j["total_ms"] = est.seconds * 1e3;
  if (!e.predicted.empty()) j["predicted_ms"] = e.predictedSeconds * 1e3;
  nlohmann::json bound = nlohmann::json::object(), counts = nlohmann::json::object();
  for (int b = 0; b < 4; ++b) {
    bound[std::string(boundName(static_cast<Bound>(b)))] = est.boundSeconds[b] * 1e3;
    counts[std::string(boundName(static_cast<Bound>(b)))] = est.boundCount[b];
  }
  j["bound_ms"] = bound;
  j["bound_nodes"] = counts;
  j["elided_nodes"] = e.elided;
  nlohmann::json ridge = nlohmann::json::object();
  for (const auto& [key, f] : device.peaks) {
    (void)f;
    if (auto r = device.ridgePoint(key.first == ComputeUnit::None ? ComputeUnit::Vector : key.first, key.second))
      ridge[key.first == ComputeUnit::None ? "all" : std::string(unitName(key.first))][std::string(dtypeName(key.second))] = *r;
  }
  j["ridge_flops_per_byte"] = ridge;
  nlohmann::json nodes = nlohmann::json::array();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const NodeEstimate& n = est.nodes[i];
    const OpCost& c = e.cost.nodes[i];
    nlohmann::json row{{"name", g.nodes[i].name},         {"op_type", g.nodes[i].opType},
                       {"unit", unitName(n.unit)},         {"dtype", dtypeName(n.computeType)},
                       {"flops", n.flops},                 {"macs", c.macs},
                       {"bytes", n.bytes},                 {"intensity", n.intensity},
                       {"time_ms", n.seconds * 1e3},       {"compute_ms", n.computeSeconds * 1e3},
                       {"memory_ms", n.memorySeconds * 1e3}, {"overhead_ms", n.overheadSeconds * 1e3},
                       {"bound", boundName(n.bound)},      {"share", e.share(n.seconds)},
                       {"known", n.known},                 {"elided", n.elided}};
    if (!c.known) row["reason"] = c.reason;
    if (!e.predicted.empty()) row["predicted_ms"] = e.predicted[i] * 1e3;
    if (e.ge.ran && n.kernelAnchor >= 0) row["kernel"] = g.nodes[static_cast<size_t>(n.kernelAnchor)].name;
    nodes.push_back(std::move(row));
  }
  j["nodes"] = std::move(nodes);
  if (e.ge.ran)
    j["compiled_graph"] = {{"compiler", "ascend-ge"},
                           {"launches_written", e.ge.launchesWritten},
                           {"launches", e.ge.launchesCompiled},
                           {"fused_kernels", e.ge.kernels.size()},
                           {"written_ms", e.writtenMs}};
  j["unknown_cost_ops"] = nlohmann::json::array();
  for (const UnknownCost& u : e.cost.unknown)
    j["unknown_cost_ops"].push_back({{"name", u.path}, {"op_type", u.opType}, {"domain", u.domain}, {"reason", u.reason}});
  j["unbound_dims"] = e.shapes.unboundDims;
  return j;
}

void printSummary(const Estimate& e) {
  const DeviceProfile& device = e.device;
  const RooflineEstimate& est = e.roofline;
  const GraphCost& cost = e.cost;
  std::printf("%s on %s (%s)\n", shown(e.modelArg).c_str(), shown(device.id).c_str(), shown(device.displayName).c_str());
  if (auto it = device.sources.find("calibration"); device.memoryBandwidth.origin == FigureOrigin::Calibrated && it != device.sources.end())
    std::printf("  calibrated %s\n", shown(it->second).c_str());
  std::printf("  precision  %s\n", e.fp16() ? "float32 ops computed in float16" : "the model's element types");
  std::printf("  work       %.4f GMACs = %.4f GFLOPs (a multiply-add counts 2 FLOPs), %.2f MB moved\n", cost.macs / 1e9,
              cost.flops / 1e9, cost.bytes() / 1e6);
  if (cost.totalsSaturated || !cost.saturated.empty())
    std::printf("  saturated  figures held at 2^63 (%zu node(s) with shapes whose product overflows, e.g. %s)\n",
                cost.saturated.size(), cost.saturated.empty() ? "-" : shown(cost.saturated.front()).c_str());
  std::printf("  estimate   %.4f ms (roofline: max(FLOPs/peak, bytes/bandwidth) + %.1f µs launch per op)\n", est.seconds * 1e3,
              device.launchOverhead.value * 1e6);
  if (!e.predicted.empty())
    std::printf("  predicted  %.4f ms of kernel time (the roofline scaled by the efficiency fitted on real kernels of each "
                "class, docs/cost-model.md; launches not included)\n",
                e.predictedSeconds * 1e3);
  if (e.ge.ran)
    std::printf(
        "  compiled   %zu kernels fused by ATC's graph engine (simulated): %d -> %d launches; %.4f ms as written "
        "(--as-written prices that)\n",
        e.ge.kernels.size(), e.ge.launchesWritten, e.ge.launchesCompiled, e.writtenMs);
  std::printf("  bound by   ");
  for (int b = 0; b < 4; ++b)
    if (est.boundCount[b])
      std::printf("%s %zu ops %.4f ms (%s)  ", std::string(boundName(static_cast<Bound>(b))).c_str(), est.boundCount[b],
                  est.boundSeconds[b] * 1e3, percentColumn(e.share(est.boundSeconds[b])).c_str());
  std::printf("\n");
  if (e.elided)
    std::printf("  elided     %zu ops cost nothing: constants, shape arithmetic and%s folded when the model is compiled\n",
                e.elided, device.elideMetadataOps ? " Reshape-like ops" : "");
  if (auto r = device.ridgePoint(ComputeUnit::Cube, e.fp16() ? DType::Float16 : DType::Float))
    std::printf("  ridge      %.0f FLOP/byte (matrix unit), ", *r);
  if (auto r = device.ridgePoint(ComputeUnit::Vector, e.fp16() ? DType::Float16 : DType::Float))
    std::printf("%.1f FLOP/byte (vector unit)\n", *r);
}

void printSlowestNodes(const Estimate& e, size_t top) {
  const Graph& g = e.model.graph;
  const RooflineEstimate& est = e.roofline;
  std::vector<size_t> order(g.nodes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return est.nodes[a].seconds > est.nodes[b].seconds; });
  const size_t rows = std::min(top, order.size());
  if (!rows) return;
  std::printf("\n  %-4s %-40s %-20s %-8s %10s %10s %7s %9s %9s %8s\n", "#", "node", "op", "bound", "time ms", "pred. ms",
              "share", "MFLOPs", "KB", "FLOP/B");
  for (size_t k = 0; k < rows; ++k) {
    const size_t i = order[k];
    const NodeEstimate& n = est.nodes[i];
    std::string name = shown(g.nodes[i].name);
    if (name.size() > 40) name = "..." + name.substr(name.size() - 37);
    const std::string pred = e.predicted.empty() ? "-" : std::to_string(e.predicted[i] * 1e3).substr(0, 9);
    std::printf("  %-4zu %-40s %-20s %-8s %10.4f %10s %7s %9.2f %9.1f %8.1f\n", k + 1, name.c_str(), shown(g.nodes[i].opType).c_str(),
                std::string(boundName(n.bound)).c_str(), n.seconds * 1e3, pred.c_str(), percentColumn(e.share(n.seconds)).c_str(),
                n.flops / 1e6, n.bytes / 1e3, n.intensity);
  }
  if (rows < order.size()) std::printf("  ... %zu more nodes (--top N shows more)\n", order.size() - rows);
}

void printByOpType(const Estimate& e) {
  const Graph& g = e.model.graph;
  std::map<std::string, std::pair<double, int>> byOp;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto& [t, count] = byOp[g.nodes[i].opType];
    t += e.roofline.nodes[i].seconds;
    ++count;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> ops(byOp.begin(), byOp.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::printf("\n  by operator type:\n");
  for (size_t k = 0; k < ops.size() && k < 10; ++k)
    std::printf("    %-22s %4d ops %10.4f ms %7s\n", shown(ops[k].first).c_str(), ops[k].second.second, ops[k].second.first * 1e3,
                percentColumn(e.share(ops[k].second.first)).c_str());
}

void printUnknownCosts(const Estimate& e) {
  const GraphCost& cost = e.cost;
  if (cost.unknown.empty()) return;
  std::printf("\n  %zu node(s) with unknown cost (counted as launch overhead only):\n", cost.unknown.size());
  for (const auto& [op, n] : cost.unknownByOp) std::printf("    %-22s %d\n", shown(op).c_str(), n);
  std::printf("    e.g. %s: %s\n", shown(cost.unknown.front().path).c_str(), shown(cost.unknown.front().reason).c_str());
  if (!e.shapes.unboundDims.empty()) {
    std::printf("    unbound input dims:");
    for (const auto& d : e.shapes.unboundDims) std::printf(" %s", shown(d).c_str());
    std::printf(" (bind them with --dim NAME=VALUE)\n");
  }
}

int runEstimate(const Args& args) {
  const std::string deviceArg = args.valueOr("device", "ascend910b");
  if (deviceArg == "list") return listDevices();
  if (args.positional.size() != 1) return fail(Error::usage("estimate expects one MODEL"));
  auto top = args.intValue("top", 15, 0, 1000000);
  if (!top) return fail(top.error());
  auto estimate = computeEstimate(args, deviceArg);
  if (!estimate) return fail(estimate.error());
  if (auto path = args.value("json")) return writeJson(estimateJson(*estimate), *path);
  printSummary(*estimate);
  printSlowestNodes(*estimate, static_cast<size_t>(*top));
  printByOpType(*estimate);
  printUnknownCosts(*estimate);
  return kOk;
}

}  // namespace

extern const Verb kEstimateVerb{
    "estimate",
    "estimate MODEL [--device ID|PATH] [--calibrate] [--dim NAME=VALUE]... [--precision device|model|fp16] "
    "[--as-written] [--top N] "
    "[--json PATH]",
    "roofline estimate per node on a device profile ('--device list' lists the built-in ones)",
    {kJsonOption,
     kDimOption,
     {"device", 0, true, false, "device profile: a built-in id (default ascend910b), a JSON file, or 'list'", PathUse::Reads},
     {"precision", 0, true, false, "device (its default), model (keep the model's types) or fp16"},
     {"top", 0, true, false, "rows of the text table (default 15)"},
     {"as-written", 0, false, false,
      "Ascend: price the graph as written, without the fusions ATC's graph engine applies when it compiles"},
     {"calibrate", 0, false, false, "CPU profiles: use this machine's measured GFLOP/s and bandwidth (cached)"},
     kProgressOption},
    runEstimate,
};

}  // namespace msa::cli
