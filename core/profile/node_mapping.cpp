#include "profile/node_mapping.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/graph_index.h"
#include "util/atomic_file.h"
#include "util/input_file.h"

namespace msa {
namespace {

// Nodes the runtime adds that do no work of the model's: layout reorders and copies.
bool isInsertedOp(std::string_view op) {
  return op == "ReorderInput" || op == "ReorderOutput" || op == "MemcpyToHost" || op == "MemcpyFromHost";
}
// Data-movement ops the runtime may add around a fused kernel (the Reshapes around a Gemm made
// from a 3-D MatMul+Add); inserted when their name is none of the IR's.
bool isPlumbingOp(std::string_view op) {
  return op == "Reshape" || op == "Transpose" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten" ||
         op == "Identity";
}

std::set<std::string> subgraphNodeNames(const Graph& g) {
  std::set<std::string> names;
  for (const Node& n : g.nodes)
    for (const Attribute& a : n.attributes)
      for (const Graph& sub : a.graphs)
        sub.forEachGraph([&](const Graph& s, int) {
          for (const Node& x : s.nodes) names.insert(x.name);
        });
  return names;
}

void addTo(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// `v` with `s` added once: the set remembers what is in it (a linear search per name is
// quadratic on a profile of 100k unmatched names).
void addOnce(std::vector<std::string>& v, std::unordered_set<std::string>& in, const std::string& s) {
  if (in.insert(s).second) v.push_back(s);
}

class Mapper {
 public:
  Mapper(const Graph& g0, const Graph& g1) : m_g0(g0), m_g1(g1), m_idx0(g0) {
    for (size_t i = 0; i < g0.nodes.size(); ++i) {
      m_irByName.emplace(g0.nodes[i].name, i);
      for (const auto& o : g0.nodes[i].outputs)
        if (!o.empty()) m_t0.insert(o);
      if (g0.nodes[i].is("Constant"))
        for (const auto& o : g0.nodes[i].outputs) m_constants.insert(o);
    }
    for (const auto& v : g0.inputs) m_t0.insert(v.name);
    for (const auto& t : g0.initializers) {
      m_t0.insert(t.name);
      m_constants.insert(t.name);
    }
    for (const auto& t : g1.initializers)
      if (m_t0.count(t.name)) m_constants.insert(t.name);  // folded by the runtime
    for (size_t j = 0; j < g1.nodes.size(); ++j) m_g1ByName.emplace(g1.nodes[j].name, j);
    for (const auto& t : g1.initializers) m_g1Initializers.insert(t.name);
  }

  void run() {
    const size_t n1 = m_g1.nodes.size();
    m_inserted.assign(n1, false);
    m_nodeAnchor.assign(n1, -1);
    m_tensorAnchor.assign(n1, {});
    for (size_t j = 0; j < n1; ++j) classify(j);
    translate();
    markFolded();
    collectAnchors();
    walk();
  }

  // IR node names covered by G1 node j, in IR order.
  std::vector<std::string> covered(size_t j) const {
    std::vector<std::string> out;
    for (size_t i : m_coveredBy[j]) out.push_back(m_g0.nodes[i].name);
    return out;
  }
  bool inserted(size_t j) const { return m_inserted[j]; }

  std::vector<std::string> neighbours(size_t j) const {
    std::vector<std::string> out;
    auto add = [&](const std::string& name) {
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    };
    const Node& n = m_g1.nodes[j];
    for (const auto& in : n.inputs)
      if (auto t = tr(in); !t.empty())
        if (const Node* p = m_idx0.producerNode(t)) add(p->name);
    for (const auto& o : n.outputs)
      if (auto t = tr(o); !t.empty())
        for (const Use& u : m_idx0.consumers(t)) add(m_g0.nodes[u.node].name);
    return out;
  }

  // A runtime node that writes only tensors of its own making and covers nothing, such as the
  // HardSigmoid of an inlined HardSwish function (HardSigmoid -> Mul): it shares the IR nodes of
  // the runtime nodes that read what it writes.
  std::vector<std::string> sharedWith(size_t j) const {
    std::vector<std::string> out;
    const Node& n = m_g1.nodes[j];
    for (const auto& o : n.outputs) {
      if (o.empty() || !tr(o).empty()) return {};
      for (size_t k = 0; k < m_g1.nodes.size(); ++k) {
        if (k == j || m_inserted[k]) continue;
        const auto& ins = m_g1.nodes[k].inputs;
        if (std::find(ins.begin(), ins.end(), o) == ins.end()) continue;
        for (const auto& c : covered(k)) addTo(out, c);
      }
    }
    return out;
  }

  std::vector<std::string> notRun() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < m_cover.size(); ++i)
      if (m_cover[i] < 0) out.push_back(m_g0.nodes[i].name);
    return out;
  }

  long g1Index(const std::string& name) const {
    auto it = m_g1ByName.find(name);
    return it == m_g1ByName.end() ? -1 : static_cast<long>(it->second);
  }

 private:
  std::string tr(const std::string& t) const {
    auto it = m_tr.find(t);
    return it == m_tr.end() ? std::string() : it->second;
  }

  // The IR node a runtime name refers to: the name itself, or its longest "/"-prefix that is an
  // IR node name ("/enc/MatMul/MatMulAddFusion" -> "/enc/MatMul"), after the "_token_<n>" the
  // layout transformer appends to a node it moves to NHWC ("/conv/Conv_token_4" -> "/conv/Conv").
  long irNodeForName(std::string name) const {
    if (const size_t t = name.rfind("_token_");
        t != std::string::npos && t > 0 && t + 7 < name.size() &&
        std::all_of(name.begin() + static_cast<long>(t) + 7, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      name.resize(t);
    if (auto it = m_irByName.find(name); it != m_irByName.end()) return static_cast<long>(it->second);
    for (size_t pos = name.rfind('/'); pos != std::string::npos && pos > 0; pos = name.rfind('/', pos - 1))
      if (auto it = m_irByName.find(name.substr(0, pos)); it != m_irByName.end()) return static_cast<long>(it->second);
    return -1;
  }

  // A QLinear* node the runtime made of a DQ → op → (activation) → Q group writes what the
  // group's QuantizeLinear wrote: from the op's output, through an activation it absorbed, to the Q.
  std::string extendQdq(size_t j, std::string a) const {
    const Node& n = m_g1.nodes[j];
    if (n.opType.rfind("QLinear", 0) != 0 && n.opType != "QGemm") return a;
    std::string at = a;
    for (int step = 0; step < 2; ++step) {
      const auto uses = m_idx0.consumers(at);
      if (uses.size() != 1) return a;
      const Node& c = m_g0.nodes[uses.front().node];
      if (c.outputs.empty()) return a;
      if (c.opType == "QuantizeLinear") return c.outputs[0];
      if (step > 0 || (c.opType != "Relu" && c.opType != "Clip")) return a;  // the activations the Q's range absorbs
      at = c.outputs[0];
    }
    return a;
  }

  void classify(size_t j) {
    const Node& n = m_g1.nodes[j];
    m_nodeAnchor[j] = irNodeForName(n.name);
    if (n.name.size() > 6 && n.name.ends_with("_nchwc")) {
      std::string t = n.name.substr(0, n.name.size() - 6);
      if (m_t0.count(t)) m_tensorAnchor[j] = t;
    }
    if (isInsertedOp(n.opType)) m_inserted[j] = true;
    else if (isPlumbingOp(n.opType) && m_nodeAnchor[j] < 0 && m_tensorAnchor[j].empty()) m_inserted[j] = true;
  }

  // An NCHWc Conv named after the tensor it replaced may also have absorbed the Add (its 4th,
  // "Sum" input) and the activation that followed; its real output is further down.
  std::string extendNchwc(size_t j, std::string a) const {
    const Node& n = m_g1.nodes[j];
    if (n.opType != "Conv" || n.domain != "com.microsoft.nchwc") return a;
    if (n.inputs.size() >= 4 && !n.inputs[3].empty()) {
      std::string sum = tr(n.inputs[3]);
      for (const Use& u : m_idx0.consumers(a)) {
        const Node& c = m_g0.nodes[u.node];
        if (!c.is("Add") || c.inputs.size() != 2 || c.outputs.empty()) continue;
        if (sum.empty() || c.inputs[1 - u.operand] == sum) {
          a = c.outputs[0];
          break;
        }
      }
    }
    std::string act = n.attrString("activation");
    if (!act.empty()) {
      const Node* p = m_idx0.producerNode(a);
      if (!p || p->opType != act)
        for (const Use& u : m_idx0.consumers(a))
          if (m_g0.nodes[u.node].opType == act && !m_g0.nodes[u.node].outputs.empty()) {
            a = m_g0.nodes[u.node].outputs[0];
            break;
          }
    }
    return a;
  }

  // G1 tensor -> the IR tensor it stands for. Aliases through inserted nodes are settled before a
  // name says anything: the Gemm between two inserted Reshapes writes what the second one writes.
  void translate() {
    for (const Node& n : m_g1.nodes) {
      for (const auto& t : n.inputs)
        if (m_t0.count(t)) m_tr[t] = t;
      for (const auto& t : n.outputs)
        if (m_t0.count(t)) m_tr[t] = t;
    }
    bool changed = true;
    auto set = [&](const std::string& k, const std::string& v) {
      if (k.empty() || v.empty() || m_tr.count(k)) return;
      m_tr[k] = v;
      changed = true;
    };
    while (changed) {
      changed = false;
      for (bool aliased = true; aliased;) {
        changed = false;
        for (size_t j = 0; j < m_g1.nodes.size(); ++j) {
          const Node& n = m_g1.nodes[j];
          if (!m_inserted[j] || n.inputs.empty() || n.outputs.size() != 1) continue;
          set(n.outputs[0], tr(n.inputs[0]));
          set(n.inputs[0], tr(n.outputs[0]));
        }
        aliased = changed;
      }
      for (size_t j = 0; j < m_g1.nodes.size() && !changed; ++j) {
        const Node& n = m_g1.nodes[j];
        if (m_inserted[j] || n.outputs.size() != 1 || m_tr.count(n.outputs[0])) continue;
        if (!m_tensorAnchor[j].empty()) {
          set(n.outputs[0], extendNchwc(j, m_tensorAnchor[j]));
        } else if (m_nodeAnchor[j] >= 0) {
          const Node& ir = m_g0.nodes[static_cast<size_t>(m_nodeAnchor[j])];
          if (ir.outputs.size() == 1) set(n.outputs[0], extendQdq(j, ir.outputs[0]));
        }
      }
    }
  }

  // IR nodes the runtime folded into constants: Shape/Size of static shapes and everything
  // computed from constants alone, unless the runtime still runs them under their own names.
  void markFolded() {
    std::unordered_set<std::string> producedInG1;
    for (const Node& n : m_g1.nodes)
      for (const auto& o : n.outputs) producedInG1.insert(o);
    for (size_t i : m_g0.topologicalOrder()) {
      const Node& n = m_g0.nodes[i];
      if (m_g1ByName.count(n.name)) continue;
      if (std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) { return producedInG1.count(o) != 0; }))
        continue;
      bool folded = n.opType == "Shape" || n.opType == "Size" ||
                    std::all_of(n.inputs.begin(), n.inputs.end(),
                                [&](const std::string& in) { return in.empty() || m_constants.count(in) != 0; });
      if (!folded || n.hasSubgraphs()) continue;
      for (const auto& o : n.outputs) m_constants.insert(o);
    }
  }

  void collectAnchors() {
    m_anchors.assign(m_g1.nodes.size(), {});
    for (size_t j = 0; j < m_g1.nodes.size(); ++j) {
      if (m_inserted[j]) continue;
      const Node& n = m_g1.nodes[j];
      auto& a = m_anchors[j];
      for (const auto& o : n.outputs)
        if (auto t = tr(o); !t.empty()) a.push_back(t);
      if (!m_tensorAnchor[j].empty()) a.push_back(m_tensorAnchor[j]);
      if (m_nodeAnchor[j] >= 0)
        for (const auto& o : m_g0.nodes[static_cast<size_t>(m_nodeAnchor[j])].outputs)
          if (!o.empty()) a.push_back(o);
      for (const auto& t : a) m_owner.emplace(t, static_cast<long>(j));  // first owner wins
    }
  }

  // Each runtime node covers the IR nodes reached backwards from its anchors, stopping at tensors
  // another runtime node produces, graph inputs and constants; and only those reached forwards
  // from what it reads, so a computation the runtime merged with an identical one elsewhere
  // (common subexpression elimination) is not charged to the node that reads the survivor.
  void walk() {
    m_cover.assign(m_g0.nodes.size(), -1);
    for (size_t j = 0; j < m_g1.nodes.size(); ++j) {
      if (m_inserted[j]) continue;
      const long self = static_cast<long>(j);
      std::vector<size_t> candidates;
      std::unordered_set<size_t> inC;
      std::vector<std::string> stack(m_anchors[j].begin(), m_anchors[j].end());
      std::unordered_set<std::string> seen;
      while (!stack.empty()) {
        std::string t = std::move(stack.back());
        stack.pop_back();
        if (!seen.insert(t).second) continue;
        long p = m_idx0.producer(t);
        if (p < 0 || (m_cover[static_cast<size_t>(p)] >= 0 && m_cover[static_cast<size_t>(p)] != self)) continue;
        if (!inC.insert(static_cast<size_t>(p)).second) continue;
        candidates.push_back(static_cast<size_t>(p));
        for (const auto& in : m_g0.nodes[static_cast<size_t>(p)].inputs) {
          if (in.empty()) continue;
          auto own = m_owner.find(in);
          if (own != m_owner.end()) {
            if (own->second == self) stack.push_back(in);
            continue;
          }
          if (m_constants.count(in) || m_idx0.isGraphInput(in)) continue;
          stack.push_back(in);
        }
      }
      // What the runtime node reads, as IR tensors; unknown when any read cannot be translated.
      std::vector<std::string> reads;
      bool readsKnown = true;
      for (const auto& in : m_g1.nodes[j].inputs) {
        if (in.empty() || m_g1Initializers.count(in) || m_constants.count(in)) continue;
        std::string t = tr(in);
        if (t.empty()) readsKnown = false;
        else reads.push_back(t);
      }
      std::unordered_set<size_t> keep;
      if (readsKnown && !reads.empty()) {
        std::vector<std::string> frontier = reads;
        std::unordered_set<std::string> reached(reads.begin(), reads.end());
        while (!frontier.empty()) {
          std::string t = std::move(frontier.back());
          frontier.pop_back();
          for (const Use& u : m_idx0.consumers(t)) {
            if (!inC.count(u.node) || !keep.insert(u.node).second) continue;
            for (const auto& o : m_g0.nodes[u.node].outputs)
              if (!o.empty() && reached.insert(o).second) frontier.push_back(o);
          }
        }
      } else {
        keep.insert(candidates.begin(), candidates.end());
      }
      if (m_nodeAnchor[j] >= 0) keep.insert(static_cast<size_t>(m_nodeAnchor[j]));
      for (size_t i : keep)
        if (m_cover[i] < 0) m_cover[i] = self;
    }
    m_coveredBy.assign(m_g1.nodes.size(), {});
    for (size_t i = 0; i < m_cover.size(); ++i)
      if (m_cover[i] >= 0) m_coveredBy[static_cast<size_t>(m_cover[i])].push_back(i);
  }

  const Graph& m_g0;
  const Graph& m_g1;
  GraphIndex m_idx0;
  std::unordered_map<std::string, size_t> m_irByName, m_g1ByName;
  std::unordered_set<std::string> m_t0, m_constants, m_g1Initializers;
  std::vector<bool> m_inserted;
  std::vector<long> m_nodeAnchor;
  std::vector<std::string> m_tensorAnchor;
  std::unordered_map<std::string, std::string> m_tr;
  std::vector<std::vector<std::string>> m_anchors;
  std::unordered_map<std::string, long> m_owner;
  std::vector<long> m_cover;
  std::vector<std::vector<size_t>> m_coveredBy;  // g1 node -> the IR nodes it covers, in IR order
};

// Nodes the runtime made without a name (inlined functions) are saved nameless, while its trace
// calls them "<op>_<index>". Both list them in execution order, so they pair up per op type
// when the counts agree.
std::unordered_map<const NodeProfile*, long> pairNameless(const ProfileData& p, const Graph& g1, const Mapper& m) {
  std::map<std::string, std::vector<const NodeProfile*>> traced;
  for (const NodeProfile& n : p.nodes)
    if (n.parent.empty() && m.g1Index(n.name) < 0) traced[n.opType].push_back(&n);
  std::map<std::string, std::vector<long>> saved;
  std::unordered_set<std::string_view> entries;
  for (const NodeProfile& n : p.nodes) entries.insert(n.name);
  for (size_t j = 0; j < g1.nodes.size(); ++j)
    if (g1.nodes[j].generatedName && !entries.count(g1.nodes[j].name)) saved[g1.nodes[j].opType].push_back(static_cast<long>(j));
  std::unordered_map<const NodeProfile*, long> out;
  for (const auto& [op, entries] : traced) {
    auto it = saved.find(op);
    if (it == saved.end() || it->second.size() != entries.size()) continue;
    for (size_t k = 0; k < entries.size(); ++k) out.emplace(entries[k], it->second[k]);
  }
  return out;
}

}  // namespace

void mapToIr(ProfileData& p, const Model& original, const Model* optimized) {
  const Graph& g0 = original.graph;
  const std::set<std::string> nested = subgraphNodeNames(g0);
  std::unordered_map<std::string, size_t> irByName;
  for (size_t i = 0; i < g0.nodes.size(); ++i) irByName.emplace(g0.nodes[i].name, i);
  p.unmatched.clear();
  p.irNodesNotRun.clear();
  std::unordered_set<std::string> unmatched;

  if (!optimized) {
    std::vector<bool> run(g0.nodes.size(), false);
    for (NodeProfile& n : p.nodes) {
      n.irNodes.clear();
      n.neighbours.clear();
      n.inserted = false;
      auto it = irByName.find(n.name);
      if (it != irByName.end() && n.parent.empty()) {
        n.irNodes = {n.name};
        run[it->second] = true;
      } else if (nested.count(n.name)) {
        n.irNodes = {n.name};
      } else if (isInsertedOp(n.opType)) {
        n.inserted = true;
      } else {
        addOnce(p.unmatched, unmatched, n.name);
      }
    }
    for (size_t i = 0; i < g0.nodes.size(); ++i)
      if (!run[i]) p.irNodesNotRun.push_back(g0.nodes[i].name);
    return;
  }

  Mapper m(g0, optimized->graph);
  m.run();
  const std::unordered_map<const NodeProfile*, long> byOrder = pairNameless(p, optimized->graph, m);
  std::set<std::string> coveredNames;
  for (NodeProfile& n : p.nodes) {
    n.irNodes.clear();
    n.neighbours.clear();
    n.inserted = false;
    long j = n.parent.empty() ? m.g1Index(n.name) : -1;
    if (auto it = byOrder.find(&n); j < 0 && it != byOrder.end()) j = it->second;
    if (j >= 0) {
      const Node& rn = optimized->graph.nodes[static_cast<size_t>(j)];
      if (!rn.isDefaultDomain() && !n.kernel.empty() && n.kernel.find(':') == std::string::npos)
        n.kernel += ":" + rn.domain;
      if (m.inserted(static_cast<size_t>(j))) {
        n.inserted = true;
        n.neighbours = m.neighbours(static_cast<size_t>(j));
        continue;
      }
      n.irNodes = m.covered(static_cast<size_t>(j));
      if (n.irNodes.empty()) n.irNodes = m.sharedWith(static_cast<size_t>(j));
      for (const auto& s : n.irNodes) coveredNames.insert(s);
      if (n.irNodes.empty()) addOnce(p.unmatched, unmatched, n.name);
      continue;
    }
    if (nested.count(n.name)) n.irNodes = {n.name};
    else if (isInsertedOp(n.opType)) n.inserted = true;
    else addOnce(p.unmatched, unmatched, n.name);
  }
  // IR nodes whose runtime node never ran (an If branch, say) are not covered either.
  for (const Node& n : g0.nodes)
    if (!coveredNames.count(n.name)) p.irNodesNotRun.push_back(n.name);
}

RuntimeNames::RuntimeNames(const Model& model) : m_model(model) {
  std::function<void(Graph&)> rename = [&](Graph& g) {
    for (Node& n : g.nodes) {
      m_names.push_back(n.name);
      n.name = "__msa" + std::to_string(m_names.size() - 1) + "__";
      for (Attribute& a : n.attributes)
        for (Graph& sub : a.graphs) rename(sub);
    }
  };
  rename(m_model.graph);
}

std::string RuntimeNames::replaced(std::string_view name, bool jsonEscaped) const {
  static constexpr std::string_view kOpen = "__msa", kClose = "__";
  std::string out;
  size_t from = 0;
  for (size_t at = name.find(kOpen); at != std::string_view::npos; at = name.find(kOpen, at + 1)) {
    size_t end = at + kOpen.size();
    uint64_t k = 0;
    while (end < name.size() && end - at - kOpen.size() < 10 && name[end] >= '0' && name[end] <= '9')
      k = k * 10 + static_cast<uint64_t>(name[end++] - '0');
    if (end == at + kOpen.size() || name.substr(end, kClose.size()) != kClose || k >= m_names.size()) continue;
    out.append(name.substr(from, at - from));
    if (!jsonEscaped) {
      out += m_names[k];
    } else {
      for (const char c : m_names[k]) {
        if (c == '"' || c == '\\') {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          char buf[7];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
      }
    }
    from = end + kClose.size();
    at = from - 1;
  }
  out.append(name.substr(from));
  return out;
}

Status RuntimeNames::restoreTraceFile(const std::filesystem::path& from, const std::filesystem::path& to) const {
  auto in = InputStream::open(from);
  if (!in) return in.error();
  AtomicFile out(to);
  if (auto s = out.open(); !s) return s.error();
  for (std::string line; std::getline((*in)->stream(), line);)
    if (auto s = out.write(replaced(line, true) + "\n"); !s) return s.error();
  if ((*in)->error()) return *(*in)->error();
  return out.commit();
}

void RuntimeNames::restore(ProfileData& p) const {
  auto all = [&](std::vector<std::string>& v) {
    for (std::string& s : v) s = original(s);
  };
  for (NodeProfile& n : p.nodes) {
    n.name = original(n.name);
    n.parent = original(n.parent);
    all(n.irNodes);
    all(n.neighbours);
    n.producerIrNode = original(n.producerIrNode);
    n.consumerIrNode = original(n.consumerIrNode);
  }
  all(p.unmatched);
  all(p.irNodesNotRun);
}

}  // namespace msa
