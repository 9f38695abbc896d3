// UB fusion as ATC's graph engine runs it (rules/ge_fusion_sim.h): the built-in passes that
// extend a convolution's or a MatMul's kernel with its elementwise epilogue, then
// AutomaticUbFusion over the connected elementwise operators left.
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "model/graph_patterns.h"
#include "rules/ge_fusion_sim.h"
#include "rules/op_sets.h"

namespace msa::gesim {
namespace {

void convSigmoidMul(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    if (!st.isConvHead(i)) continue;
    const std::string v = st.outputOf(i);
    long sig = -1, mul = -1;
    for (const Use& u : st.index.consumers(v))
      if (st.node(u.node).is("Sigmoid")) sig = static_cast<long>(u.node);
    if (sig < 0) continue;
    const std::string& s = st.node(static_cast<size_t>(sig)).outputs[0];
    for (const Use& u : st.index.consumers(s))
      if (st.node(u.node).is("Mul") && otherOperand(st.node(u.node), s) == v) mul = static_cast<long>(u.node);
    if (mul < 0 || !st.free(static_cast<size_t>(sig)) || !st.free(static_cast<size_t>(mul))) continue;
    const std::vector<size_t> chain{static_cast<size_t>(sig), static_cast<size_t>(mul)};
    std::vector<std::string> why;
    if (st.index.consumerCount(v) > 2) why.push_back("multi_consumer:" + v);
    if (st.index.consumerCount(s) > 1) why.push_back("multi_consumer:" + s);
    for (const std::string& g : {v, s})
      if (st.index.isGraphOutput(g)) why.push_back("graph_output:" + g);
    for (size_t c : chain) {
      auto b = st.ubBlockers(c, false);
      why.insert(why.end(), b.begin(), b.end());
    }
    std::vector<size_t> members{i};
    members.insert(members.end(), chain.begin(), chain.end());
    if (!why.empty()) {
      st.nearMiss(kConvSiLU, members, why);
      continue;
    }
    if (st.accept(kConvSiLU, members)) st.extend(i, Role::Conv, chain, kConvSiLU);
  }
}

// Whether `other` (the second operand) broadcasts the chain value up: some dim of the chain
// is smaller than the other operand's.
bool broadcastsChain(const State& st, std::string_view chainValue, std::string_view other) {
  const Shape* a = st.index.shape(chainValue);
  const Shape* b = st.index.shape(other);
  if (!a || !b || a->rank() != b->rank()) return false;
  for (size_t d = 0; d < a->rank(); ++d)
    if (a->dims[d].known() && b->dims[d].known() && a->dims[d].value < b->dims[d].value) return true;
  return false;
}

void commonRules0(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    if (!st.isConvHead(i)) continue;
    std::string v = st.outputOf(i);
    std::vector<size_t> chain;
    std::vector<std::string> why;
    while (chain.size() < st.cat.commonMax) {
      auto uses = st.index.consumers(v);
      if (uses.empty()) break;
      const size_t c = uses[0].node;
      const Node& n = st.node(c);
      if (!isElementwise(n) || !st.free(c)) break;
      if (uses.size() > 1 || st.index.isGraphOutput(v)) {
        if (chain.empty()) why.push_back(uses.size() > 1 ? "multi_consumer:" + v : "graph_output:" + v);
        break;
      }
      // Constant operands become attributes (Clip(0, 6) is Relu6): only data inputs count.
      size_t inputs = 0;
      bool broadcast = false;
      for (const auto& in : n.inputs)
        if (!in.empty() && !st.index.constant(in)) {
          ++inputs;
          broadcast = broadcast || (in != v && broadcastsChain(st, v, in));
        }
      if (inputs > st.cat.commonMaxInputs || broadcast) break;
      auto b = st.ubBlockers(c, false);
      if (!b.empty()) {
        if (chain.empty()) why = b;
        break;
      }
      chain.push_back(c);
      v = n.outputs[0];
    }
    if (chain.size() > st.cat.anyTypeUpTo)
      for (size_t c : chain)
        if (!st.cat.commonWhite.count(st.node(c).opType)) {
          why.push_back("ge_not_whitelisted:" + st.node(c).opType);
          break;
        }
    std::vector<size_t> members{i};
    members.insert(members.end(), chain.begin(), chain.end());
    if (!why.empty()) {
      if (members.size() > 1 || st.index.consumerCount(v) > 0) {
        if (members.size() == 1)
          for (const Use& u : st.index.consumers(v))
            if (isElementwise(st.node(u.node))) members.push_back(u.node);
        if (members.size() > 1) st.nearMiss(kCommon0, members, why);
      }
      continue;
    }
    // A lone Clip (ReLU6) after a convolution has its own pass.
    const char* pass = chain.size() == 1 && st.node(chain[0]).is("Clip") ? kConvClip : kCommon0;
    if (!chain.empty() && st.accept(pass, members)) st.extend(i, Role::Conv, chain, pass);
  }
}

void matmulElemwise(State& st) {
  for (size_t i = 0; i < st.kernelOf.size(); ++i) {
    if (!st.isMatMulHead(i)) continue;
    const std::string v = st.outputOf(i);
    const Shape* s = st.index.shape(st.node(i).input(0));
    const bool batched = st.node(i).is("MatMul") && s && s->rank() > 2;
    const char* pass = batched ? kBatchMatMulElem : kMatMulElem;
    const auto& white = batched ? st.cat.batchMatmulWhite : st.cat.matmulWhite;
    auto uses = st.index.consumers(v);
    if (uses.empty()) continue;
    // The epilogue: a GELU the graph fusion made one operator (it reads the value twice), or an
    // elementwise op of the white list.
    std::vector<size_t> chain;
    long ck = -1;
    for (const Use& u : uses)
      if (const long k = st.kernelOf[u.node];
          k >= 0 && st.kernels[static_cast<size_t>(k)].passes == std::vector<std::string>{kGelu})
        ck = k;
    if (ck >= 0 && batched) {  // the batched pass takes no GELU epilogue: the user's to fuse
      std::vector<size_t> members{i};
      const auto& gelu = st.kernels[static_cast<size_t>(ck)].members;
      members.insert(members.end(), gelu.begin(), gelu.end());
      st.nearMiss(pass, members, {"ge_bmm_epilogue:Gelu"});
      continue;
    }
    if (ck >= 0) chain = st.kernels[static_cast<size_t>(ck)].members;
    else if (const size_t c = uses[0].node; st.free(c) && isElementwise(st.node(c)) && white.count(st.node(c).opType))
      chain = {c};
    if (chain.empty()) continue;
    std::vector<std::string> why;
    if (std::any_of(uses.begin(), uses.end(),
                    [&](const Use& u) { return std::find(chain.begin(), chain.end(), u.node) == chain.end(); }))
      why.push_back("multi_consumer:" + v);
    if (st.index.isGraphOutput(v)) why.push_back("graph_output:" + v);
    if (!st.staticShape(v)) why.push_back("ge_dynamic_shape:" + v);
    for (size_t m : chain) {
      auto b = st.ubBlockers(m, true);
      why.insert(why.end(), b.begin(), b.end());
    }
    std::vector<size_t> members{i};
    members.insert(members.end(), chain.begin(), chain.end());
    if (!why.empty()) {
      st.nearMiss(pass, members, why);
      continue;
    }
    if (!st.accept(pass, members)) continue;
    if (ck >= 0) {  // the GELU kernel joins the MatMul's
      const long k = st.kernelWith(i, Role::MatMul);
      st.merge(k, ck);
      st.note(k, pass);
      st.kernels[static_cast<size_t>(k)].ubFused = true;
    } else {
      st.extend(i, Role::MatMul, chain, pass);
    }
  }
}

// Merging set `a` (producer side) with set `b` would create a cycle: a path from a's nodes to
// b's leaves both sets on the way. Nodes after b's last one cannot lead back into it.
template <typename Find>
bool cycleIfMerged(State& st, const std::vector<size_t>& a, const std::vector<size_t>& b, Find& find) {
  const size_t ra = find(a.front()), rb = find(b.front());
  size_t limit = 0;
  for (size_t i : b) limit = std::max(limit, st.position[i]);
  if (st.seen.size() != st.position.size()) st.seen.assign(st.position.size(), 0);
  ++st.stamp;
  std::vector<size_t> frontier;
  for (size_t i : a)
    for (size_t s : st.index.successors(i))
      if (find(s) != ra && find(s) != rb) frontier.push_back(s);
  while (!frontier.empty()) {
    const size_t x = frontier.back();
    frontier.pop_back();
    if (st.seen[x] == st.stamp || st.position[x] > limit) continue;
    st.seen[x] = st.stamp;
    for (size_t s : st.index.successors(x)) {
      const size_t r = find(s);
      if (r == rb) return true;
      if (r != ra) frontier.push_back(s);
    }
  }
  return false;
}

// --- AutomaticUbFusion: connected elementwise units (lone elementwise nodes, and the GELU
// kernels graph fusion made) no built-in UB pass took.
void automaticUb(State& st) {
  const size_t n = st.kernelOf.size();
  // Unit of each node: its kernel (as -(k+2)) or itself; only elementwise units take part.
  auto unitKernel = [&](size_t i) -> long {
    const long k = st.kernelOf[i];
    if (k < 0) return -1;
    const Kernel& kk = st.kernels[static_cast<size_t>(k)];
    return kk.role == Role::Elementwise && !kk.ubFused ? k : -2;
  };
  std::vector<bool> candidate(n, false);
  std::vector<std::vector<std::string>> blocked(n);
  for (size_t i = 0; i < n; ++i) {
    // Nodes of unknown cost (a dynamic shape) take part: they are the near-misses to explain.
    if (notRunOnDevice(st.ctx, i) || !isElementwise(st.node(i))) continue;
    const long k = unitKernel(i);
    if (k == -2) continue;
    candidate[i] = true;
    blocked[i] = st.ubBlockers(i, true);
    if (blocked[i].empty() && !st.ctx.cost->nodes[i].known)
      blocked[i].push_back("unknown_shape:" + st.node(i).outputs[0]);
    if ((st.node(i).is("Sum") || st.node(i).is("Mean")) && st.node(i).inputs.size() > st.cat.addnMaxInputs)
      blocked[i].push_back("ge_addn_inputs:" + std::to_string(st.node(i).inputs.size()));
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
    if (st.position[a] > st.position[b]) std::swap(a, b);
    parent[b] = a;
    members[a].insert(members[a].end(), members[b].begin(), members[b].end());
    members[b].clear();
  };
  for (const Kernel& k : st.kernels)
    if (!k.members.empty() && k.role == Role::Elementwise && !k.ubFused)
      for (size_t m : k.members) unite(k.members.front(), m);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return st.position[a] < st.position[b]; });
  for (size_t p : order) {
    if (!candidate[p]) continue;
    for (const auto& out : st.node(p).outputs) {
      if (out.empty()) continue;
      auto uses = st.index.consumers(out);
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
        if (uses.size() > st.cat.autoMaxUsers) why.push_back("ge_fanout:" + out);
        if (!allInside) why.push_back("multi_consumer:" + out);
        if (st.index.isGraphOutput(out)) why.push_back("graph_output:" + out);
        if (!why.empty()) {
          std::sort(why.begin(), why.end());
          why.erase(std::unique(why.begin(), why.end()), why.end());
          st.nearMiss(kAutoUb, {p, c}, why);
          continue;
        }
        if (members[find(p)].size() + members[find(c)].size() > st.cat.autoMaxNodes) {
          st.nearMiss(kAutoUb, {p, c}, {"ge_scope_size:" + std::to_string(st.cat.autoMaxNodes)});
          continue;
        }
        if (cycleIfMerged(st, members[find(p)], members[find(c)], find)) continue;
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
      if (st.kernelOf[m] >= 0) k = st.kernelOf[m];
    const bool grew = k < 0 || st.kernels[static_cast<size_t>(k)].members.size() < members.size();
    if (!grew) continue;
    if (!st.accept(kAutoUb, members)) continue;
    if (k < 0) k = st.kernelWith(members.front(), Role::Elementwise);
    for (size_t m : members) {
      if (st.kernelOf[m] == k) continue;
      if (st.kernelOf[m] >= 0) st.merge(k, st.kernelOf[m]);
      else st.add(k, m);
    }
    st.note(k, kAutoUb);
  }
}

}  // namespace

void ubFusion(State& st) {
  convSigmoidMul(st);
  commonRules0(st);
  matmulElemwise(st);
  automaticUb(st);
}

}  // namespace msa::gesim
