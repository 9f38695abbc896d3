#pragma once
// The simulation behind simulateGeFusion (rules/ge_fusion.h), internal to it: the catalogue,
// the state the passes share (which node is in which kernel, the conditions, the near-misses),
// and the two groups of passes, in ge_graph_fusion.cpp and ge_ub_fusion.cpp.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cost/op_cost.h"
#include "profile/ge_fusion_result.h"
#include "rules/ascend_tables.h"
#include "rules/ge_fusion.h"
#include "rules/rule_util.h"

namespace msa::gesim {

struct Catalog {
  std::vector<GePassInfo> passes;
  size_t commonMax = 5, anyTypeUpTo = 3, commonMaxInputs = 2;
  std::set<std::string, std::less<>> commonWhite, matmulWhite, batchMatmulWhite;
  size_t autoMaxNodes = 28, autoMaxUsers = 6, addnMaxInputs = 6;
  std::set<DType> ubTypes;
};

// resources/ascend/ge_fusion.json, read once.
const Catalog& catalog();

// The passes by their names in ATC's logs and fusion_result.json.
inline constexpr const char* kConvBn = "ConvBatchnormFusionPass";
inline constexpr const char* kMatMulBias = "MatMulBiasAddFusionPass";
inline constexpr const char* kLayerNorm = "LayerNormONNXFusionPass";
inline constexpr const char* kGelu = "GeluONNXFusionPass";
inline constexpr const char* kAttention = "FlashAttentionFusionPass";
inline constexpr const char* kConvSiLU = "TbeConvSigmoidMulQuantFusionPass";
inline constexpr const char* kCommon0 = "TbeCommonRules0FusionPass";
inline constexpr const char* kConvClip = "ConvClipByValueFusionPass";
inline constexpr const char* kMatMulElem = "ATbeMatMulElemwiseFusionPass";
inline constexpr const char* kBatchMatMulElem = "TbeBatchMatmulElementWiseFusionPass";
inline constexpr const char* kAutoUb = "AutomaticUbFusion";

// What a kernel computes, for the UB passes that extend it.
enum class Role { Conv, MatMul, Norm, Elementwise, Attention };

struct Kernel {
  std::vector<size_t> members;
  std::vector<bool> folded;
  std::vector<std::string> passes;
  Role role = Role::Elementwise;
  bool ubFused = false;  // a built-in UB pass extended it already
};

// What the passes share: each node's kernel, the kernels, and what was fused or nearly so.
struct State {
  State(const AnalysisContext& context, const GeFusionResult* fusionResult)
      : ctx(context), index(*context.index), cat(catalog()), result(fusionResult), kernelOf(context.graph->nodes.size(), -1) {
    const auto order = context.graph->topologicalOrder();
    position.assign(context.graph->nodes.size(), 0);
    for (size_t p = 0; p < order.size(); ++p) position[order[p]] = p;
    for (const GePassInfo& p : cat.passes) counts[p.name];
  }

  const AnalysisContext& ctx;
  const GraphIndex& index;
  const Catalog& cat;
  const GeFusionResult* result;
  std::vector<long> kernelOf;
  std::vector<Kernel> kernels;
  std::vector<size_t> position;  // topological
  std::map<std::string, std::pair<int, int>> counts;  // pass -> (simulated, not fired)
  std::vector<GeNearMiss> nearMisses;
  std::vector<uint32_t> seen;  // visited marks of the UB fusion's cycle check, by stamp
  uint32_t stamp = 0;

  // --- conditions
  const Node& node(size_t i) const { return ctx.node(i); }
  bool runs(size_t i) const { return !notRunOnDevice(ctx, i) && ctx.cost->nodes[i].known; }
  // Free for a UB fusion: in no kernel yet, with a known cost (UB fusion wants static shapes).
  bool free(size_t i) const { return kernelOf[i] < 0 && runs(i); }
  // Free for a graph fusion, which rewrites the graph whatever the shapes (ConvBatchnormFusionPass
  // supports dynamic data inputs).
  bool graphFree(size_t i) const { return kernelOf[i] < 0 && !notRunOnDevice(ctx, i); }
  bool staticShape(std::string_view v) const {
    const Shape* s = index.shape(v);
    return s && s->fullyKnown();
  }
  // Why node i cannot join a UB-fused kernel: an element type the AI Core has no vector kernel
  // for, the AI CPU, or (`needStatic`) a dynamic shape. Empty when it can.
  std::vector<std::string> ubBlockers(size_t i, bool needStatic) const {
    std::vector<std::string> b;
    const Node& n = node(i);
    for (const auto* values : {&n.inputs, &n.outputs})
      for (const auto& v : *values) {
        if (v.empty() || index.constant(v)) continue;
        const DType t = index.dtype(v);
        if (t != DType::Undefined && !cat.ubTypes.count(t))
          b.push_back("ge_dtype:" + v + " (" + std::string(dtypeName(t)) + ")");
        if (needStatic && !staticShape(v)) b.push_back("ge_dynamic_shape:" + v);
      }
    if (b.empty() && aicpuVerdictFor(ctx, i)) b.push_back("ge_aicpu:" + n.name);
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
  }
  bool enabled(const std::string& pass) const {
    if (!result) return true;
    const GeFusionResult::Pass* p = result->find(pass);
    return p && p->effectTimes > 0;
  }
  void nearMiss(const std::string& pass, std::vector<size_t> members, std::vector<std::string> blockers) {
    nearMisses.push_back({pass, std::move(members), std::move(blockers)});
  }
  // A match whose conditions hold: applied when fusion_result.json (if any) says the pass fired.
  bool accept(const std::string& pass, const std::vector<size_t>& members) {
    if (!enabled(pass)) {
      ++counts[pass].second;
      nearMiss(pass, members, {"ge_not_fired:" + pass});
      return false;
    }
    ++counts[pass].first;
    return true;
  }

  // --- kernels
  long kernelWith(size_t anchor, Role role) {
    if (kernelOf[anchor] >= 0) return kernelOf[anchor];
    kernels.push_back({{anchor}, {false}, {}, role, false});
    return kernelOf[anchor] = static_cast<long>(kernels.size() - 1);
  }
  void add(long k, size_t i, bool folded = false) {
    kernels[static_cast<size_t>(k)].members.push_back(i);
    kernels[static_cast<size_t>(k)].folded.push_back(folded);
    kernelOf[i] = k;
  }
  void note(long k, const std::string& pass) {
    auto& p = kernels[static_cast<size_t>(k)].passes;
    if (std::find(p.begin(), p.end(), pass) == p.end()) p.push_back(pass);
  }
  // The value a kernel (or a lone node) hands on: its last member's first output.
  std::string outputOf(size_t head) const {
    const long k = kernelOf[head];
    const size_t last = k < 0 ? head : kernels[static_cast<size_t>(k)].members.back();
    return std::string(node(last).output(0));
  }
  bool isConvHead(size_t i) const {
    const long k = kernelOf[i];
    if (k < 0) return (node(i).is("Conv") || node(i).is("ConvTranspose")) && runs(i);
    const Kernel& kk = kernels[static_cast<size_t>(k)];
    return kk.role == Role::Conv && kk.members.front() == i && !kk.ubFused;
  }
  bool isMatMulHead(size_t i) const {
    const long k = kernelOf[i];
    if (k < 0) return (node(i).is("MatMul") || node(i).is("Gemm")) && runs(i);
    const Kernel& kk = kernels[static_cast<size_t>(k)];
    return kk.role == Role::MatMul && kk.members.front() == i && !kk.ubFused;
  }

  // --- UB fusion
  // Extends the kernel of `head` (created when the head runs alone) with `chain`.
  void extend(size_t head, Role role, const std::vector<size_t>& chain, const char* pass) {
    const long k = kernelWith(head, role);
    for (size_t c : chain) add(k, c);
    note(k, pass);
    kernels[static_cast<size_t>(k)].ubFused = true;
  }

  void merge(long into, long from) {
    if (into == from) return;
    Kernel& a = kernels[static_cast<size_t>(into)];
    Kernel& b = kernels[static_cast<size_t>(from)];
    for (size_t j = 0; j < b.members.size(); ++j) {
      a.members.push_back(b.members[j]);
      a.folded.push_back(b.folded[j]);
      kernelOf[b.members[j]] = into;
    }
    for (const auto& p : b.passes)
      if (std::find(a.passes.begin(), a.passes.end(), p) == a.passes.end()) a.passes.push_back(p);
    a.ubFused = a.ubFused || b.ubFused;
    b.members.clear();
    b.folded.clear();
  }
};

// In the order ATC runs them: graph fusion rewrites the graph, then the UB fusion passes and
// AutomaticUbFusion fuse kernels of what is left.
void graphFusion(State& s);
void ubFusion(State& s);

}  // namespace msa::gesim
