#include "model/graph_index.h"

#include <algorithm>

namespace msa {
uint32_t GraphIndex::intern(std::string_view name) {
  const uint32_t v = m_valueNames.insert(name);
  if (v == m_values.size()) m_values.emplace_back();
  return v;
}

const GraphIndex::Value* GraphIndex::value(std::string_view name) const {
  const long v = m_valueNames.find(name);
  return v < 0 ? nullptr : &m_values[static_cast<size_t>(v)];
}

GraphIndex::GraphIndex(const Graph& g) : m_graph(&g) {
  const size_t n = g.nodes.size();
  size_t names = g.initializers.size() + g.valueInfo.size() + g.inputs.size() + g.outputs.size(), uses = 0;
  for (const Node& node : g.nodes) {
    names += node.outputs.size() + node.inputs.size();
    uses += node.inputs.size();
  }
  m_valueNames.reserve(names);
  m_values.reserve(names);
  m_nodeNames.reserve(n);
  m_nodeFirst.reserve(n);
  NodeId maxId = 0;
  for (const Node& node : g.nodes) maxId = std::max(maxId, node.id);
  m_byId.assign(n ? static_cast<size_t>(maxId) + 1 : 0, -1);

  // Producers (the first one counts), node ids and names, and each input's value, kept to lay
  // the consumers out contiguously per value.
  std::vector<uint32_t> inputValue;
  inputValue.reserve(uses);
  std::vector<size_t> constantNodes;
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (m_byId[node.id] < 0) m_byId[node.id] = static_cast<long>(i);
    const size_t names = m_nodeNames.size();
    if (m_nodeNames.insert(node.name) == names) m_nodeFirst.push_back(static_cast<long>(i));
    for (const auto& o : node.outputs)
      if (!o.empty()) {
        Value& v = m_values[intern(o)];
        if (v.producer < 0) v.producer = static_cast<long>(i);
      }
    for (const auto& in : node.inputs) {
      const uint32_t v = in.empty() ? UINT32_MAX : intern(in);
      inputValue.push_back(v);
      if (v != UINT32_MAX) ++m_values[v].useCount;
    }
    if (node.is("Constant") && node.outputs.size() == 1)
      if (const Attribute* a = node.attr("value"); a && !a->tensors.empty()) constantNodes.push_back(i);
  }
  uint32_t at = 0;
  for (Value& v : m_values) {
    v.firstUse = at;
    at += v.useCount;
    v.useCount = 0;
  }
  m_uses.resize(at);
  for (size_t i = 0, k = 0; i < n; ++i)
    for (size_t op = 0; op < g.nodes[i].inputs.size(); ++op, ++k)
      if (const uint32_t v = inputValue[k]; v != UINT32_MAX) {
        Value& val = m_values[v];
        m_uses[val.firstUse + val.useCount++] = {i, op};
      }

  m_initializerTypes.reserve(g.initializers.size());
  for (const Tensor& t : g.initializers) {
    m_initializerTypes.push_back(TypeInfo::tensor(t.dtype, Shape::of(t.dims)));
    Value& v = m_values[intern(t.name)];
    if (!v.initializer) v.initializer = &t;
    if (!v.type) v.type = &m_initializerTypes.back();
  }
  m_constantTypes.reserve(constantNodes.size());
  for (size_t i : constantNodes) {
    const Tensor* t = &g.nodes[i].attr("value")->tensors[0];
    Value& v = m_values[intern(g.nodes[i].outputs[0])];
    if (v.constantNode) continue;
    v.constantNode = t;
    if (!v.type) {
      m_constantTypes.push_back(TypeInfo::tensor(t->dtype, Shape::of(t->dims)));
      v.type = &m_constantTypes.back();
    }
  }
  // Later sources win: inferred value_info, then the declared graph inputs and outputs.
  for (const auto& vi : g.valueInfo) m_values[intern(vi.name)].type = &vi.type;
  for (const auto& vi : g.inputs) {
    Value& v = m_values[intern(vi.name)];
    v.input = true;
    if (vi.type.kind != TypeInfo::Kind::None) v.type = &vi.type;
  }
  for (const auto& vi : g.outputs) {
    Value& v = m_values[intern(vi.name)];
    v.output = true;
    const bool better = !v.type || !v.type->shape || (vi.type.shape && vi.type.shape->fullyKnown());
    if (vi.type.kind != TypeInfo::Kind::None && better) v.type = &vi.type;
  }
}

long GraphIndex::producer(std::string_view name) const {
  const Value* v = value(name);
  return v ? v->producer : -1;
}

const Node* GraphIndex::producerNode(std::string_view value) const {
  long p = producer(value);
  return p < 0 ? nullptr : &m_graph->nodes[static_cast<size_t>(p)];
}

std::span<const Use> GraphIndex::consumers(std::string_view name) const {
  const Value* v = value(name);
  if (!v || v->useCount == 0) return {};
  return {m_uses.data() + v->firstUse, v->useCount};
}

std::vector<size_t> GraphIndex::successors(size_t i) const {
  std::vector<size_t> out;
  for (const auto& o : m_graph->nodes[i].outputs)
    for (const Use& u : consumers(o)) out.push_back(u.node);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<size_t> GraphIndex::predecessors(size_t i) const {
  std::vector<size_t> out;
  for (const auto& in : m_graph->nodes[i].inputs)
    if (long p = producer(in); p >= 0) out.push_back(static_cast<size_t>(p));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

long GraphIndex::indexOf(NodeId id) const { return id < m_byId.size() ? m_byId[id] : -1; }

long GraphIndex::indexOfName(std::string_view name) const {
  const long k = m_nodeNames.find(name);
  return k < 0 ? -1 : m_nodeFirst[static_cast<size_t>(k)];
}

const Tensor* GraphIndex::initializer(std::string_view name) const {
  const Value* v = value(name);
  return v ? v->initializer : nullptr;
}

const Tensor* GraphIndex::constant(std::string_view name) const {
  const Value* v = value(name);
  if (!v) return nullptr;
  // An initializer that is also a graph input can be overridden at run time.
  if (v->initializer) return v->input ? nullptr : v->initializer;
  return v->constantNode;
}

bool GraphIndex::isGraphOutput(std::string_view name) const {
  const Value* v = value(name);
  return v && v->output;
}

bool GraphIndex::isGraphInput(std::string_view name) const {
  const Value* v = value(name);
  return v && v->input;
}

const TypeInfo* GraphIndex::type(std::string_view name) const {
  const Value* v = value(name);
  return v ? v->type : nullptr;
}

const Shape* GraphIndex::shape(std::string_view value) const {
  const TypeInfo* t = type(value);
  return t && t->shape ? &*t->shape : nullptr;
}

DType GraphIndex::dtype(std::string_view value) const {
  const TypeInfo* t = type(value);
  return t ? t->elem : DType::Undefined;
}

}  // namespace msa
