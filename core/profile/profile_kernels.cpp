#include "profile/profile_kernels.h"

#include "cost/kernel_predict.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>

namespace msa {

std::string_view coreTypeName(CoreType c) {
  switch (c) {
    case CoreType::Cube: return "AI_CORE";
    case CoreType::Vector: return "AI_VECTOR_CORE";
    case CoreType::MixCube: return "MIX_AIC";
    case CoreType::MixVector: return "MIX_AIV";
    case CoreType::AiCpu: return "AI_CPU";
    case CoreType::Communication: return "COMMUNICATION";
    case CoreType::Dma: return "DMA";
    case CoreType::Other: return "OTHER";
  }
  return "OTHER";
}

CoreType coreTypeOf(std::string_view t, std::string_view opType) {
  if (t == "AI_CORE") return CoreType::Cube;
  if (t == "AI_VECTOR_CORE") return CoreType::Vector;
  if (t == "MIX_AIC") return CoreType::MixCube;
  if (t == "MIX_AIV") return CoreType::MixVector;
  if (t == "AI_CPU") return CoreType::AiCpu;
  if (t == "HCCL" || t == "COMMUNICATION" || t.starts_with("REDUCE_") || t.starts_with("NOTIFY") || opType.starts_with("hcom_"))
    return CoreType::Communication;
  if (t.find("DMA") != std::string_view::npos || t.starts_with("MEMCPY") || t == "SDMA" || t.starts_with("SDMA_"))
    return CoreType::Dma;
  return CoreType::Other;
}

bool isComputeCore(CoreType c) {
  return c == CoreType::Cube || c == CoreType::Vector || c == CoreType::MixCube || c == CoreType::MixVector ||
         c == CoreType::AiCpu;
}

KernelCounters kernelCounters(const NodeProfile& n) {
  auto get = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (auto it = n.metrics.find(name); it != n.metrics.end() && std::isfinite(it->second) && it->second >= 0)
        return it->second;
    return -1.0;
  };
  KernelCounters c;
  c.cubeCycles = get({"aic_total_cycles", "total_cycles"});
  c.macRatio = get({"aic_mac_ratio", "mac_ratio"});
  c.vectorCycles = get({"aiv_total_cycles", "total_cycles"});
  c.vecRatio = get({"aiv_vec_ratio", "vec_ratio"});
  if (const double hf32 = get({"hf32_eligible"}); hf32 >= 0) c.hf32 = hf32 > 0 ? 1 : 0;
  return c;
}

PricedProfile priceKernels(const ProfileData& p, const DeviceProfile& device) {
  PricedProfile out;
  out.kernels.resize(p.nodes.size());
  std::map<std::string, UnpricedType> unpriced;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const NodeProfile& n = p.nodes[i];
    PricedKernel& k = out.kernels[i];
    k.entry = i;
    k.core = coreTypeOf(n.kernel, n.opType);
    k.calls = n.calls > 0 ? n.calls : 1.0;  // fewer than one per iteration: it skips iterations
    k.measuredMs = n.timeMs.median;
    k.callMs = k.measuredMs / k.calls;
    out.deviceMs += k.measuredMs;
    if (!isComputeCore(k.core)) continue;
    out.computeMs += k.measuredMs;
    const KernelSignature sig = parseKernelSignature(n.opType, n.inputShapes, n.inputDtypes, n.inputFormats,
                                                     n.outputShapes, n.outputDtypes, n.outputFormats);
    k.formula = kernelCost(sig);
    k.counters = kernelCounters(n);
    k.cost = withExecutedWork(k.formula, k.counters);
    k.roofline = kernelRoofline(k.cost.cost, device);
    if (!k.priced()) {
      UnpricedType& u = unpriced[n.opType.empty() ? n.name : n.opType];
      u.opType = n.opType.empty() ? n.name : n.opType;
      ++u.kernels;
      u.ms += k.measuredMs;
      if (u.reason.empty()) u.reason = k.cost.cost.reason;
      continue;
    }
    k.rooflineMs = k.roofline.seconds * 1e3 * k.calls;
    k.efficiency = k.rooflineMs / k.measuredMs;
    const bool mix = k.core == CoreType::MixCube || k.core == CoreType::MixVector;
    k.predictedMs = predictKernel(k.formula, kernelRoofline(k.formula.cost, device), device, mix).seconds * 1e3 * k.calls;
    out.pricedMs += k.measuredMs;
    out.rooflineMs += k.rooflineMs;
    out.fasterThanRoofline += k.efficiency > 1.0;
  }
  for (auto& [type, u] : unpriced) {
    u.share = out.computeMs > 0 ? u.ms / out.computeMs : 0;
    out.unpriced.push_back(std::move(u));
  }
  std::sort(out.unpriced.begin(), out.unpriced.end(), [](const UnpricedType& a, const UnpricedType& b) { return a.ms > b.ms; });
  return out;
}

}  // namespace msa
