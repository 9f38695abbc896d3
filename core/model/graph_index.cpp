#include "model/graph_index.h"

#include <algorithm>

namespace msa {

GraphIndex::GraphIndex(const Graph& g) : m_graph(&g) {
  const size_t n = g.nodes.size();
  m_producer.reserve(n * 2);
  m_consumers.reserve(n * 2);
  m_byId.reserve(n);
  m_byName.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    m_byId.emplace(node.id, static_cast<long>(i));
    m_byName.emplace(node.name, static_cast<long>(i));
    for (const auto& o : node.outputs)
      if (!o.empty()) m_producer.emplace(o, static_cast<long>(i));
    for (size_t k = 0; k < node.inputs.size(); ++k)
      if (!node.inputs[k].empty()) m_consumers[node.inputs[k]].push_back({i, k});
    if (node.is("Constant") && node.outputs.size() == 1)
      if (const Attribute* a = node.attr("value"); a && !a->tensors.empty())
        m_constantNodes.emplace(node.outputs[0], &a->tensors[0]);
  }
  m_initializerTypes.reserve(g.initializers.size());
  for (const Tensor& t : g.initializers) {
    m_initializers.emplace(t.name, &t);
    m_initializerTypes.push_back(TypeInfo::tensor(t.dtype, Shape::of(t.dims)));
  }
  for (size_t i = 0; i < g.initializers.size(); ++i)
    m_types.emplace(g.initializers[i].name, &m_initializerTypes[i]);
  for (const auto& [name, t] : m_constantNodes) {
    m_constantTypes.push_back(TypeInfo::tensor(t->dtype, Shape::of(t->dims)));
    m_types.emplace(name, &m_constantTypes.back());
  }
  // Later sources win: inferred value_info, then the declared graph inputs and outputs.
  for (const auto& v : g.valueInfo) m_types[v.name] = &v.type;
  for (const auto& v : g.inputs) {
    m_inputs[v.name] = true;
    if (v.type.kind != TypeInfo::Kind::None) m_types[v.name] = &v.type;
  }
  for (const auto& v : g.outputs) {
    m_outputs[v.name] = true;
    auto it = m_types.find(v.name);
    bool better = it == m_types.end() || !it->second->shape || (v.type.shape && v.type.shape->fullyKnown());
    if (v.type.kind != TypeInfo::Kind::None && better) m_types[v.name] = &v.type;
  }
}

long GraphIndex::producer(std::string_view value) const {
  auto it = m_producer.find(value);
  return it == m_producer.end() ? -1 : it->second;
}

const Node* GraphIndex::producerNode(std::string_view value) const {
  long p = producer(value);
  return p < 0 ? nullptr : &m_graph->nodes[static_cast<size_t>(p)];
}

std::span<const Use> GraphIndex::consumers(std::string_view value) const {
  auto it = m_consumers.find(value);
  if (it == m_consumers.end()) return {};
  return it->second;
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

long GraphIndex::indexOf(NodeId id) const {
  auto it = m_byId.find(id);
  return it == m_byId.end() ? -1 : it->second;
}

long GraphIndex::indexOfName(std::string_view name) const {
  auto it = m_byName.find(name);
  return it == m_byName.end() ? -1 : it->second;
}

const Tensor* GraphIndex::initializer(std::string_view value) const {
  auto it = m_initializers.find(value);
  return it == m_initializers.end() ? nullptr : it->second;
}

const Tensor* GraphIndex::constant(std::string_view value) const {
  if (const Tensor* t = initializer(value)) {
    // An initializer that is also a graph input can be overridden at run time.
    return isGraphInput(value) ? nullptr : t;
  }
  auto it = m_constantNodes.find(value);
  return it == m_constantNodes.end() ? nullptr : it->second;
}

bool GraphIndex::isGraphOutput(std::string_view value) const { return m_outputs.count(value) != 0; }
bool GraphIndex::isGraphInput(std::string_view value) const { return m_inputs.count(value) != 0; }

const TypeInfo* GraphIndex::type(std::string_view value) const {
  if (auto it = m_types.find(value); it != m_types.end()) return it->second;
  return nullptr;
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
