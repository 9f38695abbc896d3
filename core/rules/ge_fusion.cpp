// The graph engine's fusions, simulated in the order ATC runs them: graph fusion first (it
// rewrites the graph), then the built-in UB fusion passes, then AutomaticUbFusion over what is
// left. Patterns, conditions and limits: resources/ascend/ge_fusion.json and docs/ascend-fusion.md.
#include "rules/ge_fusion.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include <nlohmann/json.hpp>

#include "cost/op_cost.h"
#include "model/graph_patterns.h"
#include "profile/ge_fusion_result.h"
#include "rules/ascend_tables.h"
#include "rules/op_sets.h"
#include "rules/rule_util.h"
#include "util/embedded.h"

namespace msa {
namespace {

struct Catalog {
  std::vector<GePassInfo> passes;
  size_t commonMax = 5, anyTypeUpTo = 3, commonMaxInputs = 2;
  std::set<std::string, std::less<>> commonWhite, matmulWhite, batchMatmulWhite;
  size_t autoMaxNodes = 28, autoMaxUsers = 6, addnMaxInputs = 6;
  std::set<DType> ubTypes;
};

const Catalog& catalog() {
  static const Catalog c = [] {
    Catalog cat;
    try {
      const auto j = nlohmann::json::parse(embedded::find("ascend/ge_fusion.json"));
      const auto& sources = j.at("sources");
      for (const auto& p : j.at("passes")) {
        GePassInfo info;
        info.name = p.at("name").get<std::string>();
        info.kind = p.at("kind").get<std::string>() == "ub" ? GeFusionKind::Ub : GeFusionKind::Graph;
        info.source = sources.at(p.at("source").get<std::string>()).get<std::string>();
        cat.passes.push_back(std::move(info));
      }
      const auto& l = j.at("limits");
      cat.commonMax = l.at("common_rules0_max_elementwise").get<size_t>();
      cat.anyTypeUpTo = l.at("common_rules0_any_type_up_to").get<size_t>();
      cat.commonMaxInputs = l.at("common_rules0_max_inputs").get<size_t>();
      for (const auto& op : l.at("common_rules0_white_list")) cat.commonWhite.insert(op.get<std::string>());
      for (const auto& op : l.at("matmul_white_list")) cat.matmulWhite.insert(op.get<std::string>());
      for (const auto& op : l.at("batch_matmul_white_list")) cat.batchMatmulWhite.insert(op.get<std::string>());
      cat.autoMaxNodes = l.at("automatic_max_nodes").get<size_t>();
      cat.autoMaxUsers = l.at("automatic_max_users").get<size_t>();
      cat.addnMaxInputs = l.at("addn_max_inputs").get<size_t>();
      for (const auto& t : l.at("ub_dtypes"))
        if (auto d = dtypeFromName(t.get<std::string>())) cat.ubTypes.insert(*d);
    } catch (const nlohmann::json::exception& e) {
      embedded::recordTableError("ascend/ge_fusion.json", e.what());
    }
    return cat;
  }();
  return c;
}

constexpr const char* kConvBn = "ConvBatchnormFusionPass";
constexpr const char* kMatMulBias = "MatMulBiasAddFusionPass";
constexpr const char* kLayerNorm = "LayerNormONNXFusionPass";
constexpr const char* kGelu = "GeluONNXFusionPass";
constexpr const char* kAttention = "FlashAttentionFusionPass";
constexpr const char* kConvSiLU = "TbeConvSigmoidMulQuantFusionPass";
constexpr const char* kCommon0 = "TbeCommonRules0FusionPass";
constexpr const char* kConvClip = "ConvClipByValueFusionPass";
constexpr const char* kMatMulElem = "ATbeMatMulElemwiseFusionPass";
constexpr const char* kBatchMatMulElem = "TbeBatchMatmulElementWiseFusionPass";
constexpr const char* kAutoUb = "AutomaticUbFusion";

// What a kernel computes, for the UB passes that extend it.
enum class Role { Conv, MatMul, Norm, Elementwise, Attention };

struct Kernel {
  std::vector<size_t> members;
  std::vector<bool> folded;
  std::vector<std::string> passes;
  Role role = Role::Elementwise;
  bool ubFused = false;  // a built-in UB pass extended it already
};

class Simulator {
 public:
  Simulator(const AnalysisContext& ctx, const GeFusionResult* result)
      : m_ctx(ctx), m_idx(*ctx.index), m_cat(catalog()), m_result(result), m_kernelOf(ctx.graph->nodes.size(), -1) {
    const auto order = ctx.graph->topologicalOrder();
    m_position.assign(ctx.graph->nodes.size(), 0);
    for (size_t p = 0; p < order.size(); ++p) m_position[order[p]] = p;
    for (const GePassInfo& p : m_cat.passes) m_counts[p.name];
  }

  GeFusion run() {
    convBatchnorm();
    matmulBiasAdd();
    layerNorm();
    gelu();
    flashAttention();
    convSigmoidMul();
    commonRules0();
    matmulElemwise();
    automaticUb();
    return finish();
  }

 private:
  const AnalysisContext& m_ctx;
  const GraphIndex& m_idx;
  const Catalog& m_cat;
  const GeFusionResult* m_result;
  std::vector<long> m_kernelOf;
  std::vector<Kernel> m_kernels;
  std::vector<size_t> m_position;
  std::map<std::string, std::pair<int, int>> m_counts;  // pass -> (simulated, not fired)
  std::vector<GeNearMiss> m_nearMisses;
  std::vector<uint32_t> m_seen;  // cycleIfMerged's visited marks, by stamp
  uint32_t m_stamp = 0;

  // --- conditions
  const Node& node(size_t i) const { return m_ctx.node(i); }
  bool runs(size_t i) const { return !notRunOnDevice(m_ctx, i) && m_ctx.cost->nodes[i].known; }
  // Free for a UB fusion: in no kernel yet, with a known cost (UB fusion wants static shapes).
  bool free(size_t i) const { return m_kernelOf[i] < 0 && runs(i); }
  // Free for a graph fusion, which rewrites the graph whatever the shapes (ConvBatchnormFusionPass
  // supports dynamic data inputs).
  bool graphFree(size_t i) const { return m_kernelOf[i] < 0 && !notRunOnDevice(m_ctx, i); }
  bool staticShape(std::string_view v) const {
    const Shape* s = m_idx.shape(v);
    return s && s->fullyKnown();
  }
  // Why node i cannot join a UB-fused kernel: an element type the AI Core has no vector kernel
  // for, the AI CPU, or (`needStatic`) a dynamic shape. Empty when it can.
  std::vector<std::string> ubBlockers(size_t i, bool needStatic) const {
    std::vector<std::string> b;
    const Node& n = node(i);
    for (const auto* values : {&n.inputs, &n.outputs})
      for (const auto& v : *values) {
        if (v.empty() || m_idx.constant(v)) continue;
        const DType t = m_idx.dtype(v);
        if (t != DType::Undefined && !m_cat.ubTypes.count(t))
          b.push_back("ge_dtype:" + v + " (" + std::string(dtypeName(t)) + ")");
        if (needStatic && !staticShape(v)) b.push_back("ge_dynamic_shape:" + v);
      }
    if (b.empty() && aicpuVerdictFor(m_ctx, i)) b.push_back("ge_aicpu:" + n.name);
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
  }
  bool enabled(const std::string& pass) const {
    if (!m_result) return true;
    const GeFusionResult::Pass* p = m_result->find(pass);
    return p && p->effectTimes > 0;
  }
  void nearMiss(const std::string& pass, std::vector<size_t> members, std::vector<std::string> blockers) {
    m_nearMisses.push_back({pass, std::move(members), std::move(blockers)});
  }
  // A match whose conditions hold: applied when fusion_result.json (if any) says the pass fired.
  bool accept(const std::string& pass, const std::vector<size_t>& members) {
    if (!enabled(pass)) {
      ++m_counts[pass].second;
      nearMiss(pass, members, {"ge_not_fired:" + pass});
      return false;
    }
    ++m_counts[pass].first;
    return true;
  }

  // --- kernels
  long kernelWith(size_t anchor, Role role) {
    if (m_kernelOf[anchor] >= 0) return m_kernelOf[anchor];
    m_kernels.push_back({{anchor}, {false}, {}, role, false});
    return m_kernelOf[anchor] = static_cast<long>(m_kernels.size() - 1);
  }
  void add(long k, size_t i, bool folded = false) {
    m_kernels[static_cast<size_t>(k)].members.push_back(i);
    m_kernels[static_cast<size_t>(k)].folded.push_back(folded);
    m_kernelOf[i] = k;
  }
  void note(long k, const std::string& pass) {
    auto& p = m_kernels[static_cast<size_t>(k)].passes;
    if (std::find(p.begin(), p.end(), pass) == p.end()) p.push_back(pass);
  }
  // The value a kernel (or a lone node) hands on: its last member's first output.
  std::string outputOf(size_t head) const {
    const long k = m_kernelOf[head];
    const size_t last = k < 0 ? head : m_kernels[static_cast<size_t>(k)].members.back();
    return std::string(node(last).output(0));
  }
  bool isConvHead(size_t i) const {
    const long k = m_kernelOf[i];
    if (k < 0) return (node(i).is("Conv") || node(i).is("ConvTranspose")) && runs(i);
    const Kernel& kk = m_kernels[static_cast<size_t>(k)];
    return kk.role == Role::Conv && kk.members.front() == i && !kk.ubFused;
  }
  bool isMatMulHead(size_t i) const {
    const long k = m_kernelOf[i];
    if (k < 0) return (node(i).is("MatMul") || node(i).is("Gemm")) && runs(i);
    const Kernel& kk = m_kernels[static_cast<size_t>(k)];
    return kk.role == Role::MatMul && kk.members.front() == i && !kk.ubFused;
  }

  // --- graph fusion
  void convBatchnorm() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      const Node& c = node(i);
      if ((!c.is("Conv") && !c.is("ConvTranspose")) || !graphFree(i) || c.outputs.empty()) continue;
      const std::string& v = c.outputs[0];
      long bn = -1;
      for (const Use& u : m_idx.consumers(v))
        if (node(u.node).is("BatchNormalization") && u.operand == 0) bn = static_cast<long>(u.node);
      if (bn < 0 || !graphFree(static_cast<size_t>(bn))) continue;
      const Node& b = node(static_cast<size_t>(bn));
      std::vector<std::string> why;
      if (b.attrInt("training_mode", 0) != 0) why.push_back("training_mode");
      for (size_t k = 1; k < b.inputs.size() && k < 5; ++k)
        if (!m_idx.constant(b.inputs[k])) why.push_back("not_constant:" + b.inputs[k]);
      for (size_t k = 1; k < c.inputs.size(); ++k)
        if (!c.inputs[k].empty() && !m_idx.constant(c.inputs[k])) why.push_back("not_constant:" + c.inputs[k]);
      if (m_idx.consumerCount(v) > 1) why.push_back("multi_consumer:" + v);
      if (m_idx.isGraphOutput(v)) why.push_back("graph_output:" + v);
      const int64_t group = c.attrInt("group", 1);
      const Shape* in = m_idx.shape(c.input(0));
      const bool depthwise = group > 1 && in && in->rank() >= 2 && in->dims[1].known() && in->dims[1].value == group;
      if (c.is("ConvTranspose") && group != 1) why.push_back("ge_conv_groups:" + std::to_string(group));
      if (c.is("Conv") && depthwise) why.push_back("ge_depthwise_bn:" + c.name);
      const std::vector<size_t> members{i, static_cast<size_t>(bn)};
      if (!why.empty()) {
        nearMiss(kConvBn, members, why);
        continue;
      }
      if (!accept(kConvBn, members)) continue;
      const long k = kernelWith(i, Role::Conv);
      add(k, static_cast<size_t>(bn), true);
      note(k, kConvBn);
    }
  }

  // A constant bias over the last dim of `v`: [N] or [1, …, 1, N].
  bool isBias(std::string_view bias, std::string_view v) const {
    const Tensor* t = m_idx.constant(bias);
    const Shape* out = m_idx.shape(v);
    if (!t || !out || out->rank() == 0 || !out->dims.back().known()) return false;
    const int64_t n = out->dims.back().value;
    if (t->dims.empty() || t->dims.back() != n) return false;
    for (size_t k = 0; k + 1 < t->dims.size(); ++k)
      if (t->dims[k] != 1) return false;
    return true;
  }

  void matmulBiasAdd() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      const Node& mm = node(i);
      const bool gemmWithC = mm.is("Gemm") && mm.inputs.size() > 2 && !mm.inputs[2].empty();
      if ((!mm.is("MatMul") && !mm.is("Gemm")) || gemmWithC || !graphFree(i) || mm.outputs.empty()) continue;
      const std::string& v = mm.outputs[0];
      long bias = -1;
      for (const Use& u : m_idx.consumers(v))
        if (node(u.node).is("Add") && isBias(otherOperand(node(u.node), v), v)) bias = static_cast<long>(u.node);
      if (bias < 0 || !graphFree(static_cast<size_t>(bias))) continue;
      std::vector<std::string> why;
      if (m_idx.consumerCount(v) > 1) why.push_back("multi_consumer:" + v);
      if (m_idx.isGraphOutput(v)) why.push_back("graph_output:" + v);
      const std::vector<size_t> members{i, static_cast<size_t>(bias)};
      if (!why.empty()) {
        nearMiss(kMatMulBias, members, why);
        continue;
      }
      if (!accept(kMatMulBias, members)) continue;
      const long k = kernelWith(i, Role::MatMul);
      add(k, static_cast<size_t>(bias), true);
      note(k, kMatMulBias);
    }
  }

  // A decomposed pattern replaced by one operator: every member must still be free.
  void replace(const PatternMatch& m, const char* pass, Role role, std::vector<std::string> why) {
    if (!std::all_of(m.members.begin(), m.members.end(), [&](size_t i) { return graphFree(i); })) return;
    why.insert(why.end(), m.blockers.begin(), m.blockers.end());
    if (!why.empty()) {
      nearMiss(pass, m.members, why);
      return;
    }
    if (!accept(pass, m.members)) return;
    const long k = kernelWith(m.members.front(), role);
    for (size_t j = 1; j < m.members.size(); ++j) add(k, m.members[j]);
    note(k, pass);
  }

  void layerNorm() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (!node(i).is("ReduceMean")) continue;
      if (auto m = matchLayerNorm(m_idx, i)) {
        std::vector<std::string> why;
        if (!m->input.empty() && !staticShape(m->input)) why.push_back("ge_dynamic_shape:" + m->input);
        replace(*m, kLayerNorm, Role::Norm, why);
      }
    }
  }

  void gelu() {
    const auto gelus = matchGeluAll(m_idx);
    for (const auto& m : gelus)
      if (m) replace(*m, kGelu, Role::Elementwise, {});
  }

  // MatMul(q, k) → [Mul|Div by a constant] → [Add mask] → Softmax(last axis) → MatMul(·, v).
  void flashAttention() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (!node(i).is("MatMul") || !free(i)) continue;
      std::vector<size_t> members{i};
      std::string v(node(i).output(0));
      std::vector<std::string> why;
      auto step = [&](std::initializer_list<const char*> ops) -> long {
        auto uses = m_idx.consumers(v);
        if (uses.empty()) return -1;
        for (const Use& u : uses)
          for (const char* op : ops)
            if (node(u.node).is(op)) {
              if (uses.size() > 1) why.push_back("multi_consumer:" + v);
              if (m_idx.isGraphOutput(v)) why.push_back("graph_output:" + v);
              return static_cast<long>(u.node);
            }
        return -1;
      };
      long n = step({"Mul", "Div"});
      if (n >= 0 && m_idx.constant(otherOperand(node(static_cast<size_t>(n)), v))) {
        members.push_back(static_cast<size_t>(n));
        v = node(static_cast<size_t>(n)).outputs[0];
      }
      if ((n = step({"Add"})) >= 0) {
        members.push_back(static_cast<size_t>(n));
        v = node(static_cast<size_t>(n)).outputs[0];
      }
      n = step({"Softmax"});
      if (n < 0) continue;
      const Shape* s = m_idx.shape(v);
      const int64_t axis = node(static_cast<size_t>(n)).attrInt("axis", -1);
      if (!s || s->rank() != 4 || (axis != -1 && axis != 3)) continue;
      members.push_back(static_cast<size_t>(n));
      v = node(static_cast<size_t>(n)).outputs[0];
      n = step({"MatMul"});
      if (n < 0 || node(static_cast<size_t>(n)).input(0) != v) continue;
      members.push_back(static_cast<size_t>(n));
      if (!std::all_of(members.begin(), members.end(), [&](size_t m) { return free(m); })) continue;
      for (size_t m : members) {
        auto b = ubBlockers(m, true);
        why.insert(why.end(), b.begin(), b.end());
      }
      PatternMatch match;
      match.members = members;
      replace(match, kAttention, Role::Attention, why);
    }
  }

  // --- UB fusion
  // Extends the kernel of `head` (created when the head runs alone) with `chain`.
  void extend(size_t head, Role role, const std::vector<size_t>& chain, const char* pass) {
    const long k = kernelWith(head, role);
    for (size_t c : chain) add(k, c);
    note(k, pass);
    m_kernels[static_cast<size_t>(k)].ubFused = true;
  }

  void convSigmoidMul() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (!isConvHead(i)) continue;
      const std::string v = outputOf(i);
      long sig = -1, mul = -1;
      for (const Use& u : m_idx.consumers(v))
        if (node(u.node).is("Sigmoid")) sig = static_cast<long>(u.node);
      if (sig < 0) continue;
      const std::string& s = node(static_cast<size_t>(sig)).outputs[0];
      for (const Use& u : m_idx.consumers(s))
        if (node(u.node).is("Mul") && otherOperand(node(u.node), s) == v) mul = static_cast<long>(u.node);
      if (mul < 0 || !free(static_cast<size_t>(sig)) || !free(static_cast<size_t>(mul))) continue;
      const std::vector<size_t> chain{static_cast<size_t>(sig), static_cast<size_t>(mul)};
      std::vector<std::string> why;
      if (m_idx.consumerCount(v) > 2) why.push_back("multi_consumer:" + v);
      if (m_idx.consumerCount(s) > 1) why.push_back("multi_consumer:" + s);
      for (const std::string& g : {v, s})
        if (m_idx.isGraphOutput(g)) why.push_back("graph_output:" + g);
      for (size_t c : chain) {
        auto b = ubBlockers(c, false);
        why.insert(why.end(), b.begin(), b.end());
      }
      std::vector<size_t> members{i};
      members.insert(members.end(), chain.begin(), chain.end());
      if (!why.empty()) {
        nearMiss(kConvSiLU, members, why);
        continue;
      }
      if (accept(kConvSiLU, members)) extend(i, Role::Conv, chain, kConvSiLU);
    }
  }

  // Whether `other` (the second operand) broadcasts the chain value up: some dim of the chain
  // is smaller than the other operand's.
  bool broadcastsChain(std::string_view chainValue, std::string_view other) const {
    const Shape* a = m_idx.shape(chainValue);
    const Shape* b = m_idx.shape(other);
    if (!a || !b || a->rank() != b->rank()) return false;
    for (size_t d = 0; d < a->rank(); ++d)
      if (a->dims[d].known() && b->dims[d].known() && a->dims[d].value < b->dims[d].value) return true;
    return false;
  }

  void commonRules0() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (!isConvHead(i)) continue;
      std::string v = outputOf(i);
      std::vector<size_t> chain;
      std::vector<std::string> why;
      while (chain.size() < m_cat.commonMax) {
        auto uses = m_idx.consumers(v);
        if (uses.empty()) break;
        const size_t c = uses[0].node;
        const Node& n = node(c);
        if (!isElementwise(n) || !free(c)) break;
        if (uses.size() > 1 || m_idx.isGraphOutput(v)) {
          if (chain.empty()) why.push_back(uses.size() > 1 ? "multi_consumer:" + v : "graph_output:" + v);
          break;
        }
        // Constant operands become attributes (Clip(0, 6) is Relu6): only data inputs count.
        size_t inputs = 0;
        bool broadcast = false;
        for (const auto& in : n.inputs)
          if (!in.empty() && !m_idx.constant(in)) {
            ++inputs;
            broadcast = broadcast || (in != v && broadcastsChain(v, in));
          }
        if (inputs > m_cat.commonMaxInputs || broadcast) break;
        auto b = ubBlockers(c, false);
        if (!b.empty()) {
          if (chain.empty()) why = b;
          break;
        }
        chain.push_back(c);
        v = n.outputs[0];
      }
      if (chain.size() > m_cat.anyTypeUpTo)
        for (size_t c : chain)
          if (!m_cat.commonWhite.count(node(c).opType)) {
            why.push_back("ge_not_whitelisted:" + node(c).opType);
            break;
          }
      std::vector<size_t> members{i};
      members.insert(members.end(), chain.begin(), chain.end());
      if (!why.empty()) {
        if (members.size() > 1 || m_idx.consumerCount(v) > 0) {
          if (members.size() == 1)
            for (const Use& u : m_idx.consumers(v))
              if (isElementwise(node(u.node))) members.push_back(u.node);
          if (members.size() > 1) nearMiss(kCommon0, members, why);
        }
        continue;
      }
      // A lone Clip (ReLU6) after a convolution has its own pass.
      const char* pass = chain.size() == 1 && node(chain[0]).is("Clip") ? kConvClip : kCommon0;
      if (!chain.empty() && accept(pass, members)) extend(i, Role::Conv, chain, pass);
    }
  }

  void matmulElemwise() {
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (!isMatMulHead(i)) continue;
      const std::string v = outputOf(i);
      const Shape* s = m_idx.shape(node(i).input(0));
      const bool batched = node(i).is("MatMul") && s && s->rank() > 2;
      const char* pass = batched ? kBatchMatMulElem : kMatMulElem;
      const auto& white = batched ? m_cat.batchMatmulWhite : m_cat.matmulWhite;
      auto uses = m_idx.consumers(v);
      if (uses.empty()) continue;
      // The epilogue: a GELU the graph fusion made one operator (it reads the value twice), or an
      // elementwise op of the white list.
      std::vector<size_t> chain;
      long ck = -1;
      for (const Use& u : uses)
        if (const long k = m_kernelOf[u.node];
            k >= 0 && m_kernels[static_cast<size_t>(k)].passes == std::vector<std::string>{kGelu})
          ck = k;
      if (ck >= 0 && batched) {  // the batched pass takes no GELU epilogue: the user's to fuse
        std::vector<size_t> members{i};
        const auto& gelu = m_kernels[static_cast<size_t>(ck)].members;
        members.insert(members.end(), gelu.begin(), gelu.end());
        nearMiss(pass, members, {"ge_bmm_epilogue:Gelu"});
        continue;
      }
      if (ck >= 0) chain = m_kernels[static_cast<size_t>(ck)].members;
      else if (const size_t c = uses[0].node; free(c) && isElementwise(node(c)) && white.count(node(c).opType))
        chain = {c};
      if (chain.empty()) continue;
      std::vector<std::string> why;
      if (std::any_of(uses.begin(), uses.end(),
                      [&](const Use& u) { return std::find(chain.begin(), chain.end(), u.node) == chain.end(); }))
        why.push_back("multi_consumer:" + v);
      if (m_idx.isGraphOutput(v)) why.push_back("graph_output:" + v);
      if (!staticShape(v)) why.push_back("ge_dynamic_shape:" + v);
      for (size_t m : chain) {
        auto b = ubBlockers(m, true);
        why.insert(why.end(), b.begin(), b.end());
      }
      std::vector<size_t> members{i};
      members.insert(members.end(), chain.begin(), chain.end());
      if (!why.empty()) {
        nearMiss(pass, members, why);
        continue;
      }
      if (!accept(pass, members)) continue;
      if (ck >= 0) {  // the GELU kernel joins the MatMul's
        const long k = kernelWith(i, Role::MatMul);
        merge(k, ck);
        note(k, pass);
        m_kernels[static_cast<size_t>(k)].ubFused = true;
      } else {
        extend(i, Role::MatMul, chain, pass);
      }
    }
  }

  void merge(long into, long from) {
    if (into == from) return;
    Kernel& a = m_kernels[static_cast<size_t>(into)];
    Kernel& b = m_kernels[static_cast<size_t>(from)];
    for (size_t j = 0; j < b.members.size(); ++j) {
      a.members.push_back(b.members[j]);
      a.folded.push_back(b.folded[j]);
      m_kernelOf[b.members[j]] = into;
    }
    for (const auto& p : b.passes)
      if (std::find(a.passes.begin(), a.passes.end(), p) == a.passes.end()) a.passes.push_back(p);
    a.ubFused = a.ubFused || b.ubFused;
    b.members.clear();
    b.folded.clear();
  }

  // --- AutomaticUbFusion: connected elementwise units (lone elementwise nodes, and the GELU
  // kernels graph fusion made) no built-in UB pass took.
  void automaticUb() {
    const size_t n = m_kernelOf.size();
    // Unit of each node: its kernel (as -(k+2)) or itself; only elementwise units take part.
    auto unitKernel = [&](size_t i) -> long {
      const long k = m_kernelOf[i];
      if (k < 0) return -1;
      const Kernel& kk = m_kernels[static_cast<size_t>(k)];
      return kk.role == Role::Elementwise && !kk.ubFused ? k : -2;
    };
    std::vector<bool> candidate(n, false);
    std::vector<std::vector<std::string>> blocked(n);
    for (size_t i = 0; i < n; ++i) {
      // Nodes of unknown cost (a dynamic shape) take part: they are the near-misses to explain.
      if (notRunOnDevice(m_ctx, i) || !isElementwise(node(i))) continue;
      const long k = unitKernel(i);
      if (k == -2) continue;
      candidate[i] = true;
      blocked[i] = ubBlockers(i, true);
      if (blocked[i].empty() && !m_ctx.cost->nodes[i].known)
        blocked[i].push_back("unknown_shape:" + node(i).outputs[0]);
      if ((node(i).is("Sum") || node(i).is("Mean")) && node(i).inputs.size() > m_cat.addnMaxInputs)
        blocked[i].push_back("ge_addn_inputs:" + std::to_string(node(i).inputs.size()));
    }
    // Union-find over nodes, each set's members listed at its root (the earliest node); existing
    // elementwise kernels start as one set.
    std::vector<size_t> parent(n);
    std::iota(parent.begin(), parent.end(), size_t(0));
    std::vector<std::vector<size_t>> members(n);
    for (size_t i = 0; i < n; ++i) members[i] = {i};
    auto find = [&](size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto unite = [&](size_t a, size_t b) {
      a = find(a);
      b = find(b);
      if (a == b) return;
      if (m_position[a] > m_position[b]) std::swap(a, b);
      parent[b] = a;
      members[a].insert(members[a].end(), members[b].begin(), members[b].end());
      members[b].clear();
    };
    for (const Kernel& k : m_kernels)
      if (!k.members.empty() && k.role == Role::Elementwise && !k.ubFused)
        for (size_t m : k.members) unite(k.members.front(), m);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_position[a] < m_position[b]; });
    for (size_t p : order) {
      if (!candidate[p]) continue;
      for (const auto& out : node(p).outputs) {
        if (out.empty()) continue;
        auto uses = m_idx.consumers(out);
        // Only edges to other elementwise candidates are fusion candidates.
        std::vector<size_t> inside;
        bool allInside = true;
        for (const Use& u : uses) {
          if (find(u.node) == find(p)) continue;
          if (candidate[u.node]) inside.push_back(u.node);
          else allInside = false;
        }
        if (inside.empty()) continue;
        for (size_t c : inside) {
          std::vector<std::string> why = blocked[p];
          why.insert(why.end(), blocked[c].begin(), blocked[c].end());
          if (uses.size() > m_cat.autoMaxUsers) why.push_back("ge_fanout:" + out);
          if (!allInside) why.push_back("multi_consumer:" + out);
          if (m_idx.isGraphOutput(out)) why.push_back("graph_output:" + out);
          if (!why.empty()) {
            std::sort(why.begin(), why.end());
            why.erase(std::unique(why.begin(), why.end()), why.end());
            nearMiss(kAutoUb, {p, c}, why);
            continue;
          }
          if (members[find(p)].size() + members[find(c)].size() > m_cat.autoMaxNodes) {
            nearMiss(kAutoUb, {p, c}, {"ge_scope_size:" + std::to_string(m_cat.autoMaxNodes)});
            continue;
          }
          if (cycleIfMerged(members[find(p)], members[find(c)], find)) continue;
          unite(p, c);
        }
      }
    }
    // Sets of two or more nodes become kernels (absorbing the GELU kernels inside them).
    std::map<size_t, std::vector<size_t>> sets;
    for (size_t i : order)
      if (candidate[i]) sets[find(i)].push_back(i);
    for (auto& [root, members] : sets) {
      if (members.size() < 2) continue;
      long k = -1;
      for (size_t m : members)
        if (m_kernelOf[m] >= 0) k = m_kernelOf[m];
      const bool grew = k < 0 || m_kernels[static_cast<size_t>(k)].members.size() < members.size();
      if (!grew) continue;
      if (!accept(kAutoUb, members)) continue;
      if (k < 0) k = kernelWith(members.front(), Role::Elementwise);
      for (size_t m : members) {
        if (m_kernelOf[m] == k) continue;
        if (m_kernelOf[m] >= 0) merge(k, m_kernelOf[m]);
        else add(k, m);
      }
      note(k, kAutoUb);
    }
  }

  // Merging set `a` (producer side) with set `b` would create a cycle: a path from a's nodes to
  // b's leaves both sets on the way. Nodes after b's last one cannot lead back into it.
  template <typename Find>
  bool cycleIfMerged(const std::vector<size_t>& a, const std::vector<size_t>& b, Find& find) {
    const size_t ra = find(a.front()), rb = find(b.front());
    size_t limit = 0;
    for (size_t i : b) limit = std::max(limit, m_position[i]);
    if (m_seen.size() != m_position.size()) m_seen.assign(m_position.size(), 0);
    ++m_stamp;
    std::vector<size_t> frontier;
    for (size_t i : a)
      for (size_t s : m_idx.successors(i))
        if (find(s) != ra && find(s) != rb) frontier.push_back(s);
    while (!frontier.empty()) {
      const size_t x = frontier.back();
      frontier.pop_back();
      if (m_seen[x] == m_stamp || m_position[x] > limit) continue;
      m_seen[x] = m_stamp;
      for (size_t s : m_idx.successors(x)) {
        const size_t r = find(s);
        if (r == rb) return true;
        if (r != ra) frontier.push_back(s);
      }
    }
    return false;
  }

  GeFusion finish() {
    GeFusion g;
    g.ran = true;
    if (m_result) g.fusionResultPath = m_result->path.string();
    g.kernelOf.assign(m_kernelOf.size(), -1);
    for (const Kernel& k : m_kernels) {
      if (k.members.size() < 2) continue;
      GeKernel out;
      std::vector<size_t> idx(k.members.size());
      std::iota(idx.begin(), idx.end(), size_t(0));
      std::sort(idx.begin(), idx.end(),
                [&](size_t x, size_t y) { return m_position[k.members[x]] < m_position[k.members[y]]; });
      for (size_t j : idx) {
        out.members.push_back(k.members[j]);
        out.folded.push_back(k.folded[j]);
        g.kernelOf[k.members[j]] = static_cast<long>(g.kernels.size());
      }
      out.passes = k.passes;
      g.kernels.push_back(std::move(out));
    }
    g.nearMisses = std::move(m_nearMisses);
    for (const GePassInfo& p : m_cat.passes) {
      GePassSummary s{p.name, p.kind, m_counts[p.name].first, m_counts[p.name].second, -1, -1, true};
      if (m_result)
        if (const auto* r = m_result->find(p.name)) {
          s.matchTimes = r->matchTimes;
          s.effectTimes = r->effectTimes;
        }
      g.passes.push_back(std::move(s));
    }
    if (m_result)
      for (const auto& r : m_result->passes)
        if (std::none_of(m_cat.passes.begin(), m_cat.passes.end(),
                         [&](const GePassInfo& p) { return p.name == r.name; }))
          g.passes.push_back(
              {r.name, r.ub ? GeFusionKind::Ub : GeFusionKind::Graph, 0, 0, r.matchTimes, r.effectTimes, false});
    for (size_t i = 0; i < m_kernelOf.size(); ++i) {
      if (notRunOnDevice(m_ctx, i)) continue;
      ++g.launchesWritten;
      if (g.kernelOf[i] < 0 || g.kernels[static_cast<size_t>(g.kernelOf[i])].members.front() == i) ++g.launchesCompiled;
    }
    return g;
  }
};

}  // namespace

const std::vector<GePassInfo>& gePasses() { return catalog().passes; }

GeFusion simulateGeFusion(const AnalysisContext& ctx, const GeFusionResult* result) {
  if (!ctx.device || !isAscendDevice(*ctx.device)) return {};
  return Simulator(ctx, result).run();
}

RooflineEstimate compiledRoofline(const Model& model, const GraphIndex& index, const GraphCost& cost,
                                  const DeviceProfile& device, const RooflineOptions& options,
                                  const GeFusionResult* result, GeFusion* fusion) {
  RooflineEstimate est = estimateRoofline(model.graph, cost, device, options);
  if (!isAscendDevice(device)) return est;
  AnalysisContext ctx;
  ctx.model = &model;
  ctx.graph = &model.graph;
  ctx.index = &index;
  ctx.cost = &cost;
  ctx.device = &device;
  for (const NodeEstimate& e : est.nodes) ctx.estimatedMs.push_back(e.seconds * 1e3);
  GeFusion ge = simulateGeFusion(ctx, result);
  applyKernelGroups(est, cost, device, ge.kernelGroups(ctx));
  ge.writtenMs = ctx.estimatedMs;
  for (GeKernel& k : ge.kernels)
    for (size_t m : k.members) {
      k.writtenMs += ge.writtenMs[m];
      k.compiledMs += est.nodes[m].seconds * 1e3;
    }
  if (fusion) *fusion = std::move(ge);
  return est;
}

std::vector<KernelGroup> GeFusion::kernelGroups(const AnalysisContext& ctx) const {
  std::vector<KernelGroup> groups;
  const GraphIndex& idx = *ctx.index;
  for (size_t k = 0; k < kernels.size(); ++k) {
    const GeKernel& kernel = kernels[k];
    auto inside = [&](size_t i) { return i < kernelOf.size() && kernelOf[i] == static_cast<long>(k); };
    // A value the kernel keeps on chip: written by a member, read only by members, not an output.
    auto internal = [&](std::string_view v) {
      const long p = idx.producer(v);
      if (p < 0 || !inside(static_cast<size_t>(p)) || idx.isGraphOutput(v)) return false;
      auto uses = idx.consumers(v);
      return !uses.empty() && std::all_of(uses.begin(), uses.end(), [&](const Use& u) { return inside(u.node); });
    };
    KernelGroup g;
    g.members = kernel.members;
    g.folded = kernel.folded;
    for (size_t j = 0; j < kernel.members.size(); ++j) {
      const Node& n = ctx.node(kernel.members[j]);
      double bytes = ctx.cost->nodes[kernel.members[j]].bytes();
      std::set<std::string_view> seen;
      for (const auto& in : n.inputs) {
        if (in.empty() || !seen.insert(in).second) continue;
        const double b = valueBytes(ctx, in);
        // Folded away: a BatchNormalization's statistics and a bias join the weights at build time.
        if (b > 0 && (internal(in) || (kernel.folded[j] && idx.constant(in)))) bytes -= b;
      }
      for (const auto& o : n.outputs)
        if (!o.empty() && internal(o))
          if (const double b = valueBytes(ctx, o); b > 0) bytes -= b;
      g.memberBytes.push_back(std::max(0.0, bytes));
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

// rule_util.h's view of a node's kernel, on the graph the Ascend graph engine compiles: a fused
// kernel is launched by its first member and runs the others.
namespace {
const GeKernel* kernelLaunchedBy(const AnalysisContext& ctx, size_t i) {
  if (!ctx.geFusion || !ctx.geFusion->fused(i)) return nullptr;
  const GeKernel& k = ctx.geFusion->kernels[static_cast<size_t>(ctx.geFusion->kernelOf[i])];
  return k.members.front() == i ? &k : nullptr;
}
}  // namespace

bool launchesKernel(const AnalysisContext& ctx, size_t i) {
  return !ctx.geFusion || !ctx.geFusion->fused(i) || kernelLaunchedBy(ctx, i) != nullptr;
}

double kernelTimeMs(const AnalysisContext& ctx, size_t i) {
  const GeKernel* k = kernelLaunchedBy(ctx, i);
  return k ? groupTimeMs(ctx, k->members) : ctx.timeMs(i);
}

double kernelEstimateMs(const AnalysisContext& ctx, size_t i) {
  const GeKernel* k = kernelLaunchedBy(ctx, i);
  if (!k) return i < ctx.estimatedMs.size() ? ctx.estimatedMs[i] : 0.0;
  double t = 0;
  for (size_t m : k->members) t += ctx.estimatedMs[m];
  return t;
}

}  // namespace msa
