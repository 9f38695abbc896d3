#include "profile/trace_pricing.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "profile/trace_analysis.h"

namespace msa::training {

namespace {

NodeProfile kernelEntry(const TrainingTrace& t, const TraceEvent& e) {
  NodeProfile n;
  n.name = e.name;
  n.opType = e.opType;
  n.kernel = e.taskType;
  n.timeMs.median = e.durUs / 1000.0;
  n.inputShapes = e.inputDims;
  n.inputDtypes = e.inputTypes;
  if (e.io >= 0) {
    const KernelIo& io = t.kernelIo[static_cast<size_t>(e.io)];
    n.inputFormats = io.inputFormats;
    n.outputShapes = io.outputDims;
    n.outputDtypes = io.outputTypes;
    n.outputFormats = io.outputFormats;
  }
  return n;
}

}  // namespace

std::optional<TrainingPricing> priceTrainingKernels(const TrainingTrace& t, const DeviceProfile& device) {
  if (device.kind != DeviceProfile::Kind::Npu || t.steps.empty()) return std::nullopt;
  std::vector<ProfileData> steps(t.steps.size());
  bool shapes = false;
  for (const TraceEvent& e : t.events) {
    if (e.kind != EventKind::Kernel || e.step < 0 || static_cast<size_t>(e.step) >= steps.size()) continue;
    shapes = shapes || !e.inputDims.empty() || e.io >= 0;
    steps[static_cast<size_t>(e.step)].nodes.push_back(kernelEntry(t, e));
  }
  if (!shapes) return std::nullopt;

  TrainingPricing out;
  out.device = device.id;
  std::vector<double> compute, priced, roofline, pricedN, computeN;
  std::map<std::string, UnpricedType> unpriced;
  std::map<std::string, TrainingPricing::OpType> byType;
  const double n = static_cast<double>(steps.size());
  for (const ProfileData& step : steps) {
    const PricedProfile p = priceKernels(step, device);
    compute.push_back(p.computeMs);
    priced.push_back(p.pricedMs);
    roofline.push_back(p.rooflineMs);
    double k = 0, c = 0;
    for (const PricedKernel& pk : p.kernels) {
      if (!isComputeCore(pk.core)) continue;
      ++c;
      if (!pk.priced()) continue;
      ++k;
      const NodeProfile& e = step.nodes[pk.entry];
      TrainingPricing::OpType& row = byType[e.opType];
      row.opType = e.opType;
      row.calls += 1 / n;
      row.measuredMs += pk.measuredMs / n;
      row.rooflineMs += pk.rooflineMs / n;
    }
    pricedN.push_back(k);
    computeN.push_back(c);
    for (const UnpricedType& u : p.unpriced) {
      UnpricedType& sum = unpriced[u.opType];
      sum.opType = u.opType;
      sum.kernels += u.kernels;
      sum.ms += u.ms / n;
      if (sum.reason.empty()) sum.reason = u.reason;
    }
  }
  out.computeMs = median(compute);
  out.pricedMs = median(priced);
  out.rooflineMs = median(roofline);
  out.pricedKernels = median(pricedN);
  out.computeKernels = median(computeN);
  for (auto& [type, u] : unpriced) {
    u.kernels = static_cast<int>(std::lround(u.kernels / n));
    u.share = out.computeMs > 0 ? u.ms / out.computeMs : 0;
    out.unpriced.push_back(std::move(u));
  }
  std::sort(out.unpriced.begin(), out.unpriced.end(), [](const UnpricedType& a, const UnpricedType& b) { return a.ms > b.ms; });
  for (auto& [type, row] : byType) out.byType.push_back(std::move(row));
  std::sort(out.byType.begin(), out.byType.end(), [](const auto& a, const auto& b) {
    return a.measuredMs - a.rooflineMs > b.measuredMs - b.rooflineMs;
  });
  return out;
}

}  // namespace msa::training
