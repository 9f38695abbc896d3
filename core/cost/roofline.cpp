#include "cost/roofline.h"

#include <algorithm>

namespace msa {

std::string_view boundName(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Overhead: return "overhead";
    case Bound::Unknown: return "unknown";
  }
  return "unknown";
}

namespace {

DType effectiveType(DType model, const DeviceProfile& device, const RooflineOptions& o) {
  switch (o.precision) {
    case RooflineOptions::Precision::Model: return model;
    case RooflineOptions::Precision::Fp16: return model == DType::Float || model == DType::Double ? DType::Float16 : model;
    case RooflineOptions::Precision::Device: return device.computeType(model);
  }
  return model;
}

void classify(NodeEstimate& e) {
  const double work = std::max(e.computeSeconds, e.memorySeconds);
  e.seconds = work + e.overheadSeconds;
  if (e.overheadSeconds >= work) e.bound = Bound::Overhead;
  else e.bound = e.computeSeconds >= e.memorySeconds ? Bound::Compute : Bound::Memory;
}

}  // namespace

double bytesAtType(const OpCost& cost, DType type) {
  double bytes = cost.bytes();
  const double f32 = cost.float32Bytes > 0 || cost.computeType != DType::Float ? cost.float32Bytes : bytes;
  if (type == DType::Float16 && cost.computeType != DType::Float16) bytes -= f32 / 2;
  return bytes;
}

NodeEstimate estimateNode(const OpCost& cost, std::string_view opType, const DeviceProfile& device,
                          const RooflineOptions& options) {
  NodeEstimate e;
  e.unit = cost.unit;
  e.known = cost.known;
  e.computeType = effectiveType(cost.computeType, device, options);
  e.overheadSeconds = device.launchOverhead.value;
  if (opType == "Constant") {  // folded into the model's weights by every runtime
    e.overheadSeconds = 0;
    e.elided = true;
    e.bound = Bound::Overhead;
    return e;
  }
  if (cost.foldable && device.foldConstants) {  // computed once when the model is compiled
    e.overheadSeconds = 0;
    e.elided = true;
    e.bound = Bound::Overhead;
    return e;
  }
  if (!cost.known) {
    e.seconds = e.overheadSeconds;
    e.bound = Bound::Unknown;
    return e;
  }
  if (!cost.movesData && cost.flops == 0) {
    e.elided = device.elideMetadataOps;
    if (e.elided) e.overheadSeconds = 0;
    e.seconds = e.overheadSeconds;
    e.bound = Bound::Overhead;
    return e;
  }
  e.bytes = bytesAtType(cost, e.computeType);
  e.flops = cost.flops;
  e.intensity = e.bytes > 0 ? e.flops / e.bytes : 0;
  if (e.flops > 0) {
    if (auto p = device.peak(cost.unit, e.computeType)) {
      e.peak = *p;
      e.computeSeconds = e.flops / e.peak;
    }
  }
  e.memorySeconds = device.memorySeconds(e.bytes);
  classify(e);
  return e;
}

namespace {

// The estimate of a node with subgraphs: the sum over the subgraph its cost counts, times the
// trip count. The node's own launch is not counted (the runtime dispatches the body's ops).
NodeEstimate estimateControlFlow(const Graph& sub, const GraphCost& subCost, double times, const OpCost& cost,
                                 const DeviceProfile& device, const RooflineOptions& options) {
  RooflineEstimate inner = estimateRoofline(sub, subCost, device, options);
  NodeEstimate e;
  e.unit = cost.unit;
  e.known = cost.known;
  e.computeType = effectiveType(cost.computeType, device, options);
  for (const NodeEstimate& n : inner.nodes) {
    e.computeSeconds += times * n.computeSeconds;
    e.memorySeconds += times * n.memorySeconds;
    e.overheadSeconds += times * n.overheadSeconds;
    e.flops += times * n.flops;
    e.bytes += times * n.bytes;
  }
  e.seconds = times * inner.seconds;
  e.intensity = e.bytes > 0 ? e.flops / e.bytes : 0;
  // The bound that took the most time inside.
  size_t best = 0;
  for (size_t b = 1; b < 4; ++b)
    if (inner.boundSeconds[b] > inner.boundSeconds[best]) best = b;
  e.bound = cost.known ? static_cast<Bound>(best) : Bound::Unknown;
  return e;
}

const Graph* subgraphAt(const Node& n, int index) {
  int k = 0;
  for (const Attribute& a : n.attributes)
    for (const Graph& g : a.graphs)
      if (k++ == index) return &g;
  return nullptr;
}

}  // namespace

RooflineEstimate estimateRoofline(const Graph& graph, const GraphCost& cost, const DeviceProfile& device,
                                  const RooflineOptions& options) {
  RooflineEstimate r;
  const size_t n = std::min(graph.nodes.size(), cost.nodes.size());
  r.nodes.resize(graph.nodes.size());
  for (size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    const OpCost& c = cost.nodes[i];
    NodeEstimate& e = r.nodes[i];
    const GraphCost::SubgraphUse use = i < cost.subgraphUse.size() ? cost.subgraphUse[i] : GraphCost::SubgraphUse{};
    const Graph* sub = use.index >= 0 ? subgraphAt(node, use.index) : nullptr;
    if (sub && i < cost.subgraphs.size() && use.index < static_cast<int>(cost.subgraphs[i].size()))
      e = estimateControlFlow(*sub, cost.subgraphs[i][static_cast<size_t>(use.index)], use.times, c, device, options);
    else
      e = estimateNode(c, node.opType, device, options);
    r.seconds += e.seconds;
    r.boundSeconds[static_cast<size_t>(e.bound)] += e.seconds;
    ++r.boundCount[static_cast<size_t>(e.bound)];
    if (!e.known) ++r.unknownNodes;
  }
  return r;
}

}  // namespace msa

namespace msa {

void applyKernelGroups(RooflineEstimate& r, const GraphCost& cost, const DeviceProfile& device,
                       const std::vector<KernelGroup>& groups) {
  for (const KernelGroup& g : groups) {
    if (g.members.size() < 2) continue;
    double compute = 0, bytes = 0, work = 0;
    std::vector<double> own(g.members.size(), 0.0);
    for (size_t k = 0; k < g.members.size(); ++k) {
      const size_t m = g.members[k];
      if (m >= r.nodes.size() || m >= cost.nodes.size()) continue;
      NodeEstimate& e = r.nodes[m];
      const OpCost& c = cost.nodes[m];
      const bool folded = k < g.folded.size() && g.folded[k];
      // The member's bytes at the compute type: float32 data halves when the device computes in float16.
      const double modelBytes = k < g.memberBytes.size() ? g.memberBytes[k] : c.bytes();
      e.bytes = c.bytes() > 0 ? modelBytes * e.bytes / c.bytes() : 0.0;
      e.memorySeconds = device.memorySeconds(e.bytes);
      if (folded) {
        e.computeSeconds = 0;
        e.flops = 0;
      }
      e.intensity = e.bytes > 0 ? e.flops / e.bytes : 0;
      e.overheadSeconds = k == 0 ? device.launchOverhead.value : 0.0;
      e.kernelAnchor = static_cast<long>(g.members.front());
      compute += e.computeSeconds;
      bytes += e.bytes;
      own[k] = std::max(e.computeSeconds, e.memorySeconds);
      work += own[k];
    }
    const double memory = device.memorySeconds(bytes);  // the kernel's bytes, priced together
    const double busy = std::max(compute, memory);
    const Bound bound = device.launchOverhead.value >= busy ? Bound::Overhead
                        : compute >= memory                 ? Bound::Compute
                                                            : Bound::Memory;
    for (size_t k = 0; k < g.members.size(); ++k) {
      const size_t m = g.members[k];
      if (m >= r.nodes.size()) continue;
      NodeEstimate& e = r.nodes[m];
      // The launch is the anchor's; the kernel's busy time is shared by the members' own work.
      e.seconds = e.overheadSeconds + (work > 0 ? busy * own[k] / work : (k == 0 ? busy : 0.0));
      e.bound = bound;
    }
  }
  r.seconds = 0;
  for (double& s : r.boundSeconds) s = 0;
  for (size_t& c : r.boundCount) c = 0;
  for (const NodeEstimate& e : r.nodes) {
    r.seconds += e.seconds;
    r.boundSeconds[static_cast<size_t>(e.bound)] += e.seconds;
    ++r.boundCount[static_cast<size_t>(e.bound)];
  }
}

}  // namespace msa
