#include "model/model_check.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>

#include <onnx/onnx_pb.h>

#include "model/name_table.h"

namespace msa {
namespace {

// Views of the names in the model being checked (it outlives the check): no copy of 50,000 names.
using Names = std::unordered_set<std::string_view>;

// The values one graph defines and who defines each: a graph input, an initializer (both, when
// an initializer gives an input its default) or the node producing it.
class Defined {
 public:
  static constexpr long kInput = -1, kInitializer = -2;
  void reserve(size_t n) {
    m_names.reserve(n);
    m_entries.reserve(n);
  }
  // False when the name is already defined the same way (an input or an initializer declared
  // twice); a node output's clashes are checked by the caller, which names both nodes.
  bool add(std::string_view name, long by) {
    const uint32_t k = m_names.insert(name);
    if (k == m_entries.size()) m_entries.emplace_back();
    Entry& e = m_entries[k];
    bool& flag = by == kInput ? e.input : e.initializer;
    if (by >= 0) e.producer = by;
    else if (flag) return false;
    else flag = true;
    return true;
  }
  bool has(std::string_view name) const { return m_names.find(name) >= 0; }
  long producer(std::string_view name) const {  // the producing node's index, or -1
    const long k = m_names.find(name);
    return k < 0 ? -1 : m_entries[static_cast<size_t>(k)].producer;
  }
  size_t size() const { return m_names.size(); }
  std::string_view name(size_t k) const { return m_names.key(k); }

 private:
  struct Entry {
    long producer = -1;
    bool input = false, initializer = false;
  };
  NameTable m_names;
  std::vector<Entry> m_entries;
};

bool isDefault(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// Attributes ONNX requires positive that ONNX Runtime (and libonnx) divide by: a zero there is a
// SIGFPE in the runtime, not an error. Returns why, or empty.
std::string nonPositiveDivisor(const Node& n) {
  static const std::set<std::string, std::less<>> convPool{
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "MaxUnpool"};
  if (!n.isDefaultDomain()) return {};
  std::vector<const char*> lists, scalars;
  if (convPool.count(n.opType)) lists = {"strides", "dilations", "kernel_shape"}, scalars = {"group"};
  else if (n.opType == "DepthToSpace" || n.opType == "SpaceToDepth") scalars = {"blocksize"};
  for (const char* a : lists)
    if (const Attribute* at = n.attr(a))
      for (int64_t v : at->ints)
        if (v <= 0) return std::string("'") + a + "' holds " + std::to_string(v) + "; ONNX requires it positive";
  for (const char* a : scalars)
    if (const Attribute* at = n.attr(a); at && at->i <= 0)
      return std::string("'") + a + "' is " + std::to_string(at->i) + "; ONNX requires it positive";
  return {};
}

// Elements of a declared shape, saturating just above the limit (no signed overflow).
int64_t declaredElements(const Shape& s) {
  int64_t n = 1;
  for (const Dim& d : s.dims) {
    if (!d.known()) return 0;
    if (d.value == 0) return 0;
    if (__builtin_mul_overflow(n, d.value, &n) || n > ModelLimits::kMaxElements) return ModelLimits::kMaxElements + 1;
  }
  return n;
}

class Checker {
 public:
  Checker(const Model& m, const std::string& label) : m_label(label) {
    for (const OpsetImport& o : m.opsets)
      m_domains.insert(isDefault(o.domain) ? std::string_view() : std::string_view(o.domain));
    if (m.opsets.empty()) m_domains.insert(std::string_view());  // IR version 1-2 files: the default domain at opset 1
  }

  std::optional<Error> error;

  void opsets(const Model& m) {
    std::set<std::string> seen;
    for (const OpsetImport& o : m.opsets) {
      const std::string shown = o.domain.empty() ? "the default domain" : "domain '" + o.domain + "'";
      if (o.version < 1) return fail("the opset import of " + shown + " has version " + std::to_string(o.version));
      if (!seen.insert(o.domain).second) return fail("the opset of " + shown + " is imported twice");
    }
  }

  void graph(const Graph& g, const Names& outer, int depth, const std::string& owner) {
    if (error) return;
    if (depth > ModelLimits::kMaxSubgraphDepth)
      return fail("subgraphs nest more than " + std::to_string(ModelLimits::kMaxSubgraphDepth) +
                      " levels deep (If/Loop/Scan bodies inside each other); msadvisor refuses deeper nesting",
                  owner);
    // Values defined in this graph: inputs, initializers (which may repeat an input), node outputs,
    // in one open-addressed table (a hash set per kind grew and rehashed its way through a
    // 100k-node graph's names).
    Defined defined;
    size_t names = g.inputs.size() + g.initializers.size() + g.sparseInitializers.size();
    for (const Node& n : g.nodes) names += n.outputs.size();
    defined.reserve(names);
    for (const ValueInfo& v : g.inputs) {
      if (v.name.empty()) return fail("a graph input has no name", owner);
      if (!defined.add(v.name, Defined::kInput)) return fail("graph input '" + v.name + "' is declared twice", owner);
      shape(v, owner);
    }
    for (const Tensor& t : g.initializers)
      if (!defined.add(t.name, Defined::kInitializer)) return fail("initializer '" + t.name + "' is declared twice", owner);
    // Sparse initializers are values too (kept verbatim; the runtime makes them dense at load).
    for (const std::string& raw : g.sparseInitializers) {
      onnx::SparseTensorProto sp;
      if (!sp.ParseFromString(raw) || !sp.has_values() || sp.values().name().empty())
        return fail("a sparse initializer has no values tensor or no name (sparse initializers are supported; this one is "
                    "malformed)",
                    owner);
      // Parsed here, not held by the model: kept alive for the views the checker holds (a deque:
      // its strings never move).
      const std::string& name = m_sparseNames.emplace_back(sp.values().name());
      for (int64_t d : sp.dims())
        if (d < 0) return fail("sparse initializer '" + name + "' has a negative dimension", owner);
      if (!defined.add(name, Defined::kInitializer)) return fail("initializer '" + name + "' is declared twice", owner);
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const std::string& o : n.outputs) {
        if (o.empty()) continue;
        if (const long p = defined.producer(o); p >= 0)
          return fail("output '" + o + "' is also produced by node '" + g.nodes[static_cast<size_t>(p)].name +
                          "' (ONNX values are assigned once)",
                      n.name);
        if (defined.has(o)) return fail("output '" + o + "' is already a graph input or initializer", n.name);
        defined.add(o, static_cast<long>(i));
      }
    }
    for (const Node& n : g.nodes) {
      const std::string_view d = isDefault(n.domain) ? std::string_view() : std::string_view(n.domain);
      if (!m_domains.count(d))
        return fail(d.empty()
                        ? "uses the default ONNX domain, which the model does not import (no opset)"
                        : "uses domain '" + n.domain + "', which the model does not import (no opset_import for it)",
                    n.name);
      if (auto why = nonPositiveDivisor(n); !why.empty()) return fail(n.opType + ": " + why, n.name);
      for (const std::string& in : n.inputs)
        if (!in.empty() && !defined.has(in) && !outer.count(in))
          return fail("input '" + in + "' names no value: no node produces it and it is no graph input or initializer",
                      n.name);
    }
    Names outputs;
    for (const ValueInfo& v : g.outputs) {
      if (!outputs.insert(v.name).second) return fail("graph output '" + v.name + "' is listed twice", owner);
      if (!defined.has(v.name) && !outer.count(v.name))
        return fail("graph output '" + v.name + "' is produced by no node", owner);
      shape(v, owner);
    }
    for (const ValueInfo& v : g.valueInfo) shape(v, owner);
    if (error) return;
    cycles(g, defined);
    if (error) return;
    // A subgraph sees this graph's values and everything its parents see.
    std::optional<Names> visible;
    for (const Node& n : g.nodes)
      for (const Attribute& a : n.attributes)
        for (const Graph& sub : a.graphs) {
          if (!visible) {
            visible = outer;
            for (size_t k = 0; k < defined.size(); ++k) visible->insert(defined.name(k));
          }
          graph(sub, *visible, depth + 1, n.name);
        }
  }

 private:
  void fail(std::string msg, std::string node = {}) {
    if (!error) error = Error::model(std::move(msg), m_label, std::move(node));
  }

  void shape(const ValueInfo& v, const std::string& owner) {
    if (!v.type.shape) return;
    if (declaredElements(*v.type.shape) > ModelLimits::kMaxElements)
      fail("value '" + v.name + "' declares the shape " + v.type.shape->str() + ", more than 2^50 elements: no device holds it",
           owner);
  }

  // Kahn's algorithm over the edges inside this graph; what is left is on a cycle.
  void cycles(const Graph& g, const Defined& defined) {
    const size_t n = g.nodes.size();
    std::vector<int> pending(n, 0);
    std::vector<std::vector<size_t>> consumers(n);
    for (size_t i = 0; i < n; ++i)
      for (const std::string& in : g.nodes[i].inputs)
        if (const long p = in.empty() ? -1 : defined.producer(in); p >= 0) {
          ++pending[i];
          consumers[static_cast<size_t>(p)].push_back(i);
        }
    std::vector<size_t> ready;
    for (size_t i = 0; i < n; ++i)
      if (pending[i] == 0) ready.push_back(i);
    size_t done = 0;
    while (!ready.empty()) {
      size_t i = ready.back();
      ready.pop_back();
      ++done;
      for (size_t c : consumers[i])
        if (--pending[c] == 0) ready.push_back(c);
    }
    if (done == n) return;
    for (size_t i = 0; i < n; ++i)
      if (pending[i] > 0)
        return fail("is on a cycle: its inputs depend on its own outputs (" + std::to_string(n - done) +
                        " nodes can never run)",
                    g.nodes[i].name);
  }

  const std::string& m_label;
  Names m_domains;
  std::deque<std::string> m_sparseNames;  // names of sparse initializers, parsed from their bytes
};

// Domains ONNX Runtime 1.21's CPU build registers kernels for.
bool runtimeKnowsDomain(const std::string& d) {
  static const std::set<std::string> known{"",
                                           "ai.onnx.ml",
                                           "com.microsoft",
                                           "com.microsoft.nchwc",
                                           "com.microsoft.experimental",
                                           "com.ms.internal.nhwc",
                                           "ai.onnx.training",
                                           "ai.onnx.preview.training",
                                           "org.pytorch.aten"};
  return known.count(d) != 0;
}

}  // namespace

Status checkModel(const Model& model, const std::string& label) {
  Checker c(model, label);
  c.opsets(model);
  if (!c.error) c.graph(model.graph, {}, 0, {});
  if (c.error) return *c.error;
  return Ok{};
}

std::optional<std::string> runtimeCannotRun(const Model& model) {
  const std::string estimate =
      "; estimation needs no runtime: 'msadvisor-cli estimate' or 'analyze --device <profile id>' still work";
  for (const OpsetImport& o : model.opsets) {
    const std::string d = isDefault(o.domain) ? std::string() : o.domain;
    if (d.empty() && o.version > kRuntimeMaxOpset)
      return "the model uses ONNX opset " + std::to_string(o.version) + ", newer than ONNX Runtime 1.21 runs (opset " +
             std::to_string(kRuntimeMaxOpset) + " at most)" + estimate;
    if (d == "ai.onnx.ml" && o.version > kRuntimeMaxMlOpset)
      return "the model uses ai.onnx.ml opset " + std::to_string(o.version) + ", newer than ONNX Runtime 1.21 runs (" +
             std::to_string(kRuntimeMaxMlOpset) + " at most)" + estimate;
  }
  std::optional<std::string> unknown;
  model.graph.forEachGraph([&](const Graph& g, int) {
    for (const Node& n : g.nodes) {
      const std::string d = isDefault(n.domain) ? std::string() : n.domain;
      if (!unknown && !runtimeKnowsDomain(d))
        unknown = "node '" + n.name + "' is in domain '" + d + "', which ONNX Runtime 1.21 has no operators for" + estimate;
    }
  });
  return unknown;
}

}  // namespace msa
