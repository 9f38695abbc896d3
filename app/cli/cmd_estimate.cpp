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
    std::printf("  %-12s %s\n  %12s float16 %.3g TFLOP/s, %.0f GB/s, launch %.1f us, default precision %s\n", id.c_str(),
                d->displayName.c_str(), "", peak.value_or(0) / 1e12, d->memoryBandwidth.value / 1e9,
                d->launchOverhead.value * 1e6,
                d->precision == PrecisionPolicy::Fp32ToFp16 ? "float32 -> float16" : "the model's");
  }
  std::printf("\nA path to a JSON profile (same format as resources/devices/*.json) works too.\n");
  return kOk;
}

std::string fmtShare(double share) {
  char b[32];
  std::snprintf(b, sizeof b, "%5.1f%%", share * 100);
  return b;
}

int runEstimate(const Args& args) {
  const std::string deviceArg = args.valueOr("device", "ascend910b");
  if (deviceArg == "list") return listDevices();
  if (args.positional.size() != 1) return fail(Error::usage("estimate expects one MODEL"));
  RooflineOptions ro;
  const std::string precision = args.valueOr("precision", "device");
  if (precision == "device") ro.precision = RooflineOptions::Precision::Device;
  else if (precision == "model") ro.precision = RooflineOptions::Precision::Model;
  else if (precision == "fp16") ro.precision = RooflineOptions::Precision::Fp16;
  else return fail(Error::usage("--precision expects device, model or fp16, got '" + precision + "'"));
  auto top = args.intValue("top", 15, 0, 1000000);
  if (!top) return fail(top.error());
  ShapeOptions so;
  for (const auto& d : args.values("dim"))
    if (auto s = parseDimBinding(d, so); !s) return fail(s.error());

  auto device = loadDevice(deviceArg);
  if (!device) return fail(device.error());
  if (args.has("calibrate")) {
    if (device->kind != DeviceProfile::Kind::Cpu)
      return fail(Error::usage("--calibrate measures this machine's CPU: use it with a CPU profile such as cpu-host"));
    bool cached = false;
    auto measured = hostCalibration(false, makeProgress(args), &cached);
    if (!measured) return fail(measured.error());
    device = withHostCalibration(*device, *measured);
  }
  auto model = loadInput(args.positional[0]);
  if (!model) return fail(model.error());
  auto shapes = inferShapes(*model, so);
  if (!shapes) return fail(shapes.error());
  const Graph& g = model->graph;
  const std::atomic<bool>* cancel = installCancelHandler();
  const Progress progress = makeProgress(args, cancel);
  const GraphCost cost = computeCosts(g, progress);
  if (progress.cancelled()) return fail(Error::cancelled());
  // On Ascend the graph ATC compiles (graph-engine fusions, docs/ascend-fusion.md) unless asked
  // for the graph as written.
  const GraphIndex index(g);
  GeFusion ge;
  const RooflineEstimate est = args.has("as-written")
                                   ? estimateRoofline(g, cost, *device, ro)
                                   : compiledRoofline(*model, index, cost, *device, ro, nullptr, &ge);
  double writtenMs = 0;
  for (double ms : ge.writtenMs) writtenMs += ms;
  // The kernel-time model's prediction per kernel (empty where it does not cover the device).
  const std::vector<double> predicted = predictGraphKernels(g, index, cost, est, *device);
  double predictedTotal = 0;
  for (double s : predicted) predictedTotal += s;

  std::vector<size_t> order(g.nodes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return est.nodes[a].seconds > est.nodes[b].seconds; });
  const double total = est.seconds;
  auto share = [&](double s) { return total > 0 ? s / total : 0.0; };

  if (auto path = args.value("json")) {
    nlohmann::json j;
    j["model"] = args.positional[0];
    j["device"] = {{"id", device->id},
                   {"name", device->displayName},
                   {"kind", device->kind == DeviceProfile::Kind::Npu ? "npu" : "cpu"},
                   {"memory_bandwidth_gbps", device->memoryBandwidth.value / 1e9},
                   {"launch_overhead_us", device->launchOverhead.value * 1e6},
                   {"elide_metadata_ops", device->elideMetadataOps},
                   {"calibrated", device->memoryBandwidth.origin == FigureOrigin::Calibrated}};
    j["precision"] = precision == "device"
                         ? (device->precision == PrecisionPolicy::Fp32ToFp16 ? "fp32_to_fp16" : "keep_model")
                         : precision == "fp16" ? "fp32_to_fp16" : "keep_model";
    j["flops_per_mac"] = 2;
    j["macs"] = cost.macs;
    j["flops"] = cost.flops;
    j["bytes"] = cost.bytes();
    j["costs_saturated"] = cost.totalsSaturated || !cost.saturated.empty();
    j["saturated_nodes"] = cost.saturated;
    j["total_ms"] = total * 1e3;
    if (!predicted.empty()) j["predicted_ms"] = predictedTotal * 1e3;
    nlohmann::json bound = nlohmann::json::object(), counts = nlohmann::json::object();
    for (int b = 0; b < 4; ++b) {
      bound[std::string(boundName(static_cast<Bound>(b)))] = est.boundSeconds[b] * 1e3;
      counts[std::string(boundName(static_cast<Bound>(b)))] = est.boundCount[b];
    }
    j["bound_ms"] = bound;
    j["bound_nodes"] = counts;
    size_t elided = 0;
    for (const NodeEstimate& e : est.nodes) elided += e.elided;
    j["elided_nodes"] = elided;  // folded or removed by the compiler: no time
    nlohmann::json ridge = nlohmann::json::object();
    for (const auto& [key, f] : device->peaks) {
      (void)f;
      if (auto r = device->ridgePoint(key.first == ComputeUnit::None ? ComputeUnit::Vector : key.first, key.second))
        ridge[key.first == ComputeUnit::None ? "all" : std::string(unitName(key.first))][std::string(dtypeName(key.second))] = *r;
    }
    j["ridge_flops_per_byte"] = ridge;
    nlohmann::json nodes = nlohmann::json::array();
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const NodeEstimate& e = est.nodes[i];
      const OpCost& c = cost.nodes[i];
      nlohmann::json n{{"name", g.nodes[i].name},         {"op_type", g.nodes[i].opType},
                       {"unit", unitName(e.unit)},         {"dtype", dtypeName(e.computeType)},
                       {"flops", e.flops},                 {"macs", c.macs},
                       {"bytes", e.bytes},                 {"intensity", e.intensity},
                       {"time_ms", e.seconds * 1e3},       {"compute_ms", e.computeSeconds * 1e3},
                       {"memory_ms", e.memorySeconds * 1e3}, {"overhead_ms", e.overheadSeconds * 1e3},
                       {"bound", boundName(e.bound)},      {"share", share(e.seconds)},
                       {"known", e.known},                 {"elided", e.elided}};
      if (!c.known) n["reason"] = c.reason;
      if (!predicted.empty()) n["predicted_ms"] = predicted[i] * 1e3;
      nodes.push_back(std::move(n));
    }
    j["nodes"] = std::move(nodes);
    if (ge.ran) {
      for (size_t i = 0; i < g.nodes.size(); ++i)
        if (est.nodes[i].kernelAnchor >= 0)
          j["nodes"][i]["kernel"] = g.nodes[static_cast<size_t>(est.nodes[i].kernelAnchor)].name;
      j["compiled_graph"] = {{"compiler", "ascend-ge"},
                             {"launches_written", ge.launchesWritten},
                             {"launches", ge.launchesCompiled},
                             {"fused_kernels", ge.kernels.size()},
                             {"written_ms", writtenMs}};
    }
    j["unknown_cost_ops"] = nlohmann::json::array();
    for (const UnknownCost& u : cost.unknown)
      j["unknown_cost_ops"].push_back({{"name", u.path}, {"op_type", u.opType}, {"domain", u.domain}, {"reason", u.reason}});
    j["unbound_dims"] = shapes->unboundDims;
    return writeJson(j, *path);
  }

  std::printf("%s on %s (%s)\n", shown(args.positional[0]).c_str(), shown(device->id).c_str(), shown(device->displayName).c_str());
  const bool fp16 = ro.precision == RooflineOptions::Precision::Fp16 ||
                    (ro.precision == RooflineOptions::Precision::Device && device->precision == PrecisionPolicy::Fp32ToFp16);
  if (device->memoryBandwidth.origin == FigureOrigin::Calibrated)
    std::printf("  calibrated %s\n", shown(device->sources["calibration"]).c_str());
  std::printf("  precision  %s\n", fp16 ? "float32 ops computed in float16" : "the model's element types");
  std::printf("  work       %.4f GMACs = %.4f GFLOPs (a multiply-add counts 2 FLOPs), %.2f MB moved\n", cost.macs / 1e9,
              cost.flops / 1e9, cost.bytes() / 1e6);
  if (cost.totalsSaturated || !cost.saturated.empty())
    std::printf("  saturated  figures held at 2^63 (%zu node(s) with shapes whose product overflows, e.g. %s)\n",
                cost.saturated.size(), cost.saturated.empty() ? "-" : shown(cost.saturated.front()).c_str());
  std::printf("  estimate   %.4f ms (roofline: max(FLOPs/peak, bytes/bandwidth) + %.1f us launch per op)\n", total * 1e3,
              device->launchOverhead.value * 1e6);
  if (!predicted.empty())
    std::printf("  predicted  %.4f ms of kernel time (the roofline scaled by the efficiency fitted on real kernels of each "
                "class, docs/cost-model.md; launches not included)\n",
                predictedTotal * 1e3);
  if (ge.ran)
    std::printf(
        "  compiled   %zu kernels fused by ATC's graph engine (simulated): %d -> %d launches; %.4f ms as written "
        "(--as-written prices that)\n",
        ge.kernels.size(), ge.launchesWritten, ge.launchesCompiled, writtenMs);
  std::printf("  bound by   ");
  for (int b = 0; b < 4; ++b)
    if (est.boundCount[b])
      std::printf("%s %zu ops %.4f ms (%s)  ", std::string(boundName(static_cast<Bound>(b))).c_str(), est.boundCount[b],
                  est.boundSeconds[b] * 1e3, fmtShare(share(est.boundSeconds[b])).c_str());
  std::printf("\n");
  size_t elided = 0;
  for (const NodeEstimate& e : est.nodes) elided += e.elided;
  if (elided)
    std::printf("  elided     %zu ops cost nothing: constants, shape arithmetic and%s folded when the model is compiled\n",
                elided, device->elideMetadataOps ? " Reshape-like ops" : "");
  if (auto r = device->ridgePoint(ComputeUnit::Cube, fp16 ? DType::Float16 : DType::Float))
    std::printf("  ridge      %.0f FLOP/byte (matrix unit), ", *r);
  if (auto r = device->ridgePoint(ComputeUnit::Vector, fp16 ? DType::Float16 : DType::Float))
    std::printf("%.1f FLOP/byte (vector unit)\n", *r);

  const size_t rows = std::min<size_t>(static_cast<size_t>(*top), order.size());
  if (rows) {
    std::printf("\n  %-4s %-40s %-20s %-8s %10s %10s %7s %9s %9s %8s\n", "#", "node", "op", "bound", "time ms", "pred. ms",
                "share", "MFLOPs", "KB", "FLOP/B");
    for (size_t k = 0; k < rows; ++k) {
      const size_t i = order[k];
      const NodeEstimate& e = est.nodes[i];
      std::string name = shown(g.nodes[i].name);
      if (name.size() > 40) name = "..." + name.substr(name.size() - 37);
      const std::string pred = predicted.empty() ? "-" : std::to_string(predicted[i] * 1e3).substr(0, 9);
      std::printf("  %-4zu %-40s %-20s %-8s %10.4f %10s %7s %9.2f %9.1f %8.1f\n", k + 1, name.c_str(), shown(g.nodes[i].opType).c_str(),
                  std::string(boundName(e.bound)).c_str(), e.seconds * 1e3, pred.c_str(), fmtShare(share(e.seconds)).c_str(),
                  e.flops / 1e6, e.bytes / 1e3, e.intensity);
    }
    if (rows < order.size()) std::printf("  ... %zu more nodes (--top N shows more)\n", order.size() - rows);
  }
  std::map<std::string, std::pair<double, int>> byOp;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto& [t, count] = byOp[g.nodes[i].opType];
    t += est.nodes[i].seconds;
    ++count;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> ops(byOp.begin(), byOp.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::printf("\n  by operator type:\n");
  for (size_t k = 0; k < ops.size() && k < 10; ++k)
    std::printf("    %-22s %4d ops %10.4f ms %7s\n", shown(ops[k].first).c_str(), ops[k].second.second, ops[k].second.first * 1e3,
                fmtShare(share(ops[k].second.first)).c_str());
  if (!cost.unknown.empty()) {
    std::printf("\n  %zu node(s) with unknown cost (counted as launch overhead only):\n", cost.unknown.size());
    for (const auto& [op, n] : cost.unknownByOp) std::printf("    %-22s %d\n", shown(op).c_str(), n);
    std::printf("    e.g. %s: %s\n", shown(cost.unknown.front().path).c_str(), shown(cost.unknown.front().reason).c_str());
    if (!shapes->unboundDims.empty()) {
      std::printf("    unbound input dims:");
      for (const auto& d : shapes->unboundDims) std::printf(" %s", shown(d).c_str());
      std::printf(" (bind them with --dim NAME=VALUE)\n");
    }
  }
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
