#include "profile/profile_kernels.h"

#include <algorithm>
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
    k.cost = kernelCost(sig);
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
