#include "advisor/optimum.h"

#include <algorithm>
#include <numeric>

#include "advisor/analysis_state.h"
#include "rules/op_sets.h"
#include "rules/rule_util.h"

namespace msa {

bool isEpilogueOp(const Node& n) {
  if (isElementwise(n)) return true;
  static constexpr std::string_view kNorm[] = {"BatchNormalization", "LayerNormalization", "InstanceNormalization",
                                               "GroupNormalization", "RMSNormalization", "Softmax", "LogSoftmax"};
  if (n.isDefaultDomain() && std::find(std::begin(kNorm), std::end(kNorm), n.opType) != std::end(kNorm))
    return n.opType != "BatchNormalization" || n.attrInt("training_mode", 0) == 0;
  return n.domain == "com.microsoft" &&
         (n.opType == "SimplifiedLayerNormalization" || n.opType == "SkipLayerNormalization" || n.opType == "FastGelu" ||
          n.opType == "BiasGelu" || n.opType == "Gelu");
}

namespace {

// Nothing runs: the device (or any compiler) removes it, or nothing is known about it.
bool isFree(const AnalysisContext& ctx, const NodeEstimate& e, size_t i) {
  const OpCost& c = ctx.cost->nodes[i];
  return e.elided || c.foldable || ctx.node(i).is("Constant") || (!c.movesData && c.flops == 0);
}

// Bytes on the device for `bytes` of node i's model-typed data (float32 halves under float16),
// from the node's own estimate as written: a compiled graph's kernel members no longer move all
// their bytes, so their estimate's ratio is not the element size's.
double deviceBytes(const AnalysisContext& ctx, size_t i, double bytes) {
  const OpCost& c = ctx.cost->nodes[i];
  if (c.bytes() <= 0) return bytes;
  return bytes * estimateNode(c, ctx.node(i).opType, *ctx.device).bytes / c.bytes();
}

}  // namespace

Optimum computeOptimum(const AnalysisState& state, std::vector<double>* perNodeMs) {
  const AnalysisContext& ctx = state.context();
  const auto& est = state.roofline().nodes;
  const size_t n = ctx.graph->nodes.size();
  const DeviceProfile& device = *ctx.device;
  Optimum o;

  std::vector<bool> free(n, false), unknown(n, false);
  // Each node's bytes and their time, priced by the device's one memory model
  // (DeviceProfile::memorySeconds: an L2 that holds a kernel's bytes makes time non-linear in them).
  std::vector<double> compute(n, 0), memory(n, 0), bytes(n, 0);
  for (size_t i = 0; i < n && i < est.size(); ++i) {
    const NodeEstimate& e = est[i];
    if (isFree(ctx, e, i)) {
      free[i] = true;
      ++o.freeNodes;
      continue;
    }
    if (!e.known) {
      unknown[i] = true;
      ++o.unknownNodes;
      continue;
    }
    compute[i] = e.computeSeconds;
    memory[i] = e.memorySeconds;
    bytes[i] = e.bytes;
  }
  double allMs = 0, knownMs = 0;
  for (size_t i = 0; i < n; ++i) {
    const double t = ctx.isMeasured(i) ? ctx.measuredMs[i] : i < ctx.estimatedMs.size() ? ctx.estimatedMs[i] : 0.0;
    allMs += t;
    if (!unknown[i]) knownMs += t;
  }
  if (allMs > 0) o.knownTimeShare = knownMs / allMs;

  // Ideal fusion: each epilogue joins the group of the producer of its largest eligible input.
  std::vector<size_t> parent(n);
  std::iota(parent.begin(), parent.end(), size_t(0));
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<bool> absorbed(n, false);
  // The kernels a compiler already fused (Ascend's graph engine): their members are one group, and
  // the roofline already left their on-chip intermediates out of the members' memory terms.
  // They count as absorbed like the epilogues below, with the intermediates they keep on chip.
  const GeFusion& ge = state.geFusion();
  for (const GeKernel& k : ge.kernels) {
    auto inside = [&](size_t x) { return x < ge.kernelOf.size() && ge.kernelOf[x] == ge.kernelOf[k.members.front()]; };
    for (size_t m : k.members) {
      if (m >= n) continue;
      if (m != k.members.front()) {
        parent[find(m)] = find(k.members.front());
        absorbed[m] = true;
        ++o.absorbedNodes;
      }
      for (const auto& v : ctx.node(m).outputs) {
        auto uses = ctx.index->consumers(v);
        if (v.empty() || uses.empty() || ctx.index->isGraphOutput(v) ||
            !std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return inside(u.node); }))
          continue;
        const double b = valueBytes(ctx, v);
        if (b <= 0) continue;
        o.absorbedBytes += deviceBytes(ctx, m, b);
        std::vector<size_t> readers;
        for (const Use& u : uses)
          if (std::find(readers.begin(), readers.end(), u.node) == readers.end()) readers.push_back(u.node);
        for (size_t r : readers) o.absorbedBytes += deviceBytes(ctx, r, b);
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (free[i] || unknown[i] || !isEpilogueOp(ctx.node(i)) || device.memorySeconds(1.0) <= 0) continue;
    long best = -1;
    double bestBytes = 0;
    for (const auto& in : ctx.node(i).inputs) {
      if (in.empty() || ctx.index->constant(in) || ctx.index->isGraphOutput(in)) continue;
      // The value must be read by this node alone (possibly several times) …
      auto uses = ctx.index->consumers(in);
      if (uses.empty() || std::any_of(uses.begin(), uses.end(), [&](const Use& u) { return u.node != i; })) continue;
      // … and be written by a node that does work (a metadata-only op in between is skipped
      // when it too has this single reader).
      long p = ctx.index->producer(in);
      while (p >= 0 && free[static_cast<size_t>(p)] && !ctx.node(static_cast<size_t>(p)).is("Constant")) {
        const Node& pn = ctx.node(static_cast<size_t>(p));
        const std::string& src = pn.inputs.empty() ? std::string() : pn.inputs[0];
        if (src.empty() || ctx.index->isGraphOutput(src) || ctx.index->consumerCount(src) != 1) {
          p = -1;
          break;
        }
        p = ctx.index->producer(src);
      }
      if (p < 0 || free[static_cast<size_t>(p)] || unknown[static_cast<size_t>(p)]) continue;
      if (ge.fused(i) && ge.kernelOf[i] == ge.kernelOf[static_cast<size_t>(p)]) continue;  // already on chip
      const double b = valueBytes(ctx, in);
      if (b > bestBytes) {
        bestBytes = b;
        best = p;
      }
    }
    if (best < 0) continue;
    const size_t p = static_cast<size_t>(best);
    // Neither the producer's write nor this node's read of the intermediate reaches memory.
    const double pBytes = deviceBytes(ctx, p, bestBytes);
    const double iBytes = deviceBytes(ctx, i, bestBytes);
    bytes[p] = std::max(0.0, bytes[p] - pBytes);
    bytes[i] = std::max(0.0, bytes[i] - iBytes);
    memory[p] = device.memorySeconds(bytes[p]);
    memory[i] = device.memorySeconds(bytes[i]);
    o.absorbedBytes += pBytes + iBytes;
    parent[find(i)] = find(p);
    absorbed[i] = true;
    ++o.absorbedNodes;
  }

  // A group runs as one kernel: compute and memory overlap inside it, and its bytes are priced
  // together, as the roofline prices a compiled kernel's (applyKernelGroups).
  std::vector<double> groupCompute(n, 0), groupMemory(n, 0), groupBytes(n, 0), groupWork(n, 0);
  std::vector<size_t> groupSize(n, 0);
  std::vector<double> own(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (free[i] || unknown[i]) continue;
    const size_t r = find(i);
    groupCompute[r] += compute[i];
    groupMemory[r] += memory[i];
    groupBytes[r] += bytes[i];
    ++groupSize[r];
    // Each node's part of its group's time follows its own estimate (its share of a compiled
    // kernel's time included), so no node's optimum exceeds its estimate.
    own[i] = i < est.size() ? std::max(0.0, est[i].seconds - est[i].overheadSeconds) : 0.0;
    groupWork[r] += own[i];
  }
  // Never slower than its parts one by one: those are a schedule the fused kernel can follow.
  for (size_t r = 0; r < n; ++r)
    if (groupSize[r] > 1) groupMemory[r] = std::min(groupMemory[r], device.memorySeconds(groupBytes[r]));
  if (perNodeMs) perNodeMs->assign(n, 0.0);
  for (size_t r = 0; r < n; ++r) {
    if (free[r] || unknown[r] || find(r) != r) continue;
    ++o.groups;
    o.computeMs += groupCompute[r] * 1e3;
    o.memoryMs += groupMemory[r] * 1e3;
    o.ms += std::max(groupCompute[r], groupMemory[r]) * 1e3;
  }
  if (perNodeMs)
    for (size_t i = 0; i < n; ++i) {
      if (free[i] || unknown[i]) continue;
      const size_t r = find(i);
      const double t = std::max(groupCompute[r], groupMemory[r]) * 1e3;
      (*perNodeMs)[i] = groupWork[r] > 0 ? t * own[i] / groupWork[r] : 0.0;
    }
  return o;
}

}  // namespace msa
