#include "model/rewrite.h"

#include <algorithm>
#include <unordered_set>

namespace msa {
namespace {

template <typename F>
void forEachNodeDeep(Graph& g, F&& f) {
  for (Node& n : g.nodes) {
    f(n);
    for (Attribute& a : n.attributes)
      for (Graph& sub : a.graphs) forEachNodeDeep(sub, f);
  }
}

void collectReads(const Graph& g, std::unordered_set<std::string>& reads) {
  for (const Node& n : g.nodes) {
    for (const auto& in : n.inputs)
      if (!in.empty()) reads.insert(in);
    for (const Attribute& a : n.attributes)
      for (const Graph& sub : a.graphs) {
        collectReads(sub, reads);
        for (const auto& o : sub.outputs) reads.insert(o.name);
      }
  }
}

}  // namespace

void replaceAllUses(Graph& g, std::string_view from, std::string_view to) {
  forEachNodeDeep(g, [&](Node& n) {
    for (auto& in : n.inputs)
      if (in == from) in = std::string(to);
  });
}

bool isUsed(const Graph& g, std::string_view value) {
  if (g.isGraphOutput(value)) return true;
  bool used = false;
  g.forEachGraph([&](const Graph& sub, int) {
    for (const Node& n : sub.nodes)
      for (const auto& in : n.inputs)
        if (in == value) used = true;
  });
  return used;
}

bool bypassNode(Graph& g, NodeId id, size_t inputIdx, size_t outputIdx) {
  Node* n = g.findNode(id);
  if (!n || inputIdx >= n->inputs.size() || outputIdx >= n->outputs.size()) return false;
  const std::string in = n->inputs[inputIdx];
  const std::string out = n->outputs[outputIdx];
  if (in.empty()) return false;
  if (!g.isGraphOutput(out)) {
    replaceAllUses(g, out, in);
  } else {
    // Keep the output's name: the upstream value takes it, if nothing else depends on its name.
    if (g.isGraphInput(in) || g.isGraphOutput(in) || g.findInitializer(in)) return false;
    Node* producer = nullptr;
    for (Node& p : g.nodes)
      if (std::find(p.outputs.begin(), p.outputs.end(), in) != p.outputs.end()) producer = &p;
    if (!producer) return false;  // an outer-scope value
    size_t readers = 0;
    g.forEachGraph([&](const Graph& sub, int) {
      for (const Node& x : sub.nodes)
        for (const auto& i : x.inputs) readers += i == in;
    });
    if (readers != 1) return false;  // only this node may read it, or renaming changes others
    for (auto& o : producer->outputs)
      if (o == in) o = out;
    // The output may already have its own entry: one entry per value.
    if (std::any_of(g.valueInfo.begin(), g.valueInfo.end(), [&](const ValueInfo& v) { return v.name == out; }))
      std::erase_if(g.valueInfo, [&](const ValueInfo& v) { return v.name == in; });
    for (auto& v : g.valueInfo)
      if (v.name == in) v.name = out;
  }
  NodeId drop[] = {id};
  g.removeNodes(drop);
  return true;
}

size_t removeDeadCode(Graph& g) {
  size_t removed = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<std::string> reads;
    collectReads(g, reads);
    for (const auto& o : g.outputs) reads.insert(o.name);
    std::vector<NodeId> dead;
    for (const Node& n : g.nodes) {
      bool live = std::any_of(n.outputs.begin(), n.outputs.end(),
                              [&](const std::string& o) { return !o.empty() && reads.count(o); });
      if (!live) dead.push_back(n.id);
    }
    if (!dead.empty()) {
      g.removeNodes(dead);
      removed += dead.size();
      changed = true;
    }
  }
  std::unordered_set<std::string> reads;
  collectReads(g, reads);
  for (const auto& o : g.outputs) reads.insert(o.name);
  std::erase_if(g.initializers, [&](const Tensor& t) { return !reads.count(t.name) && !g.isGraphInput(t.name); });
  std::unordered_set<std::string> exists(reads.begin(), reads.end());
  for (const Node& n : g.nodes)
    for (const auto& o : n.outputs) exists.insert(o);
  std::erase_if(g.valueInfo, [&](const ValueInfo& v) { return !exists.count(v.name); });
  return removed;
}

std::string addInitializer(Graph& g, Tensor t, std::string_view base) {
  std::string name(base);
  for (int k = 1; g.findInitializer(name) || isUsed(g, name); ++k) name = std::string(base) + "_" + std::to_string(k);
  t.name = name;
  t.external.reset();
  g.initializers.push_back(std::move(t));
  return name;
}

}  // namespace msa
