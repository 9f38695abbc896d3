#pragma once
// Producer/consumer and type lookups over one Graph. Build it after loading or after a rewrite;
// it holds indices into graph.nodes, so any change to the node list invalidates it.
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/graph.h"

namespace msa {

struct Use {
  size_t node;     // index into graph.nodes
  size_t operand;  // input position
};

class GraphIndex {
 public:
  explicit GraphIndex(const Graph& g);

  const Graph& graph() const { return *m_graph; }
  // Index of the node producing `value`, or -1 for graph inputs, initializers and outer values.
  long producer(std::string_view value) const;
  const Node* producerNode(std::string_view value) const;
  std::span<const Use> consumers(std::string_view value) const;
  size_t consumerCount(std::string_view value) const { return consumers(value).size(); }
  // Nodes consuming any output of node i, in index order, without duplicates.
  std::vector<size_t> successors(size_t i) const;
  std::vector<size_t> predecessors(size_t i) const;
  long indexOf(NodeId id) const;
  long indexOfName(std::string_view name) const;

  const Tensor* initializer(std::string_view value) const;
  // A Constant node's value or an initializer: the value when it is known at build time.
  const Tensor* constant(std::string_view value) const;
  bool isGraphOutput(std::string_view value) const;
  bool isGraphInput(std::string_view value) const;
  const TypeInfo* type(std::string_view value) const;
  const Shape* shape(std::string_view value) const;  // null when the rank is unknown
  DType dtype(std::string_view value) const;

 private:
  const Graph* m_graph;
  std::unordered_map<std::string_view, long> m_producer;
  std::unordered_map<std::string_view, std::vector<Use>> m_consumers;
  std::unordered_map<std::string_view, const Tensor*> m_initializers;
  std::unordered_map<std::string_view, const Tensor*> m_constantNodes;
  std::unordered_map<std::string_view, const TypeInfo*> m_types;
  std::unordered_map<std::string_view, bool> m_outputs, m_inputs;
  std::unordered_map<NodeId, long> m_byId;
  std::unordered_map<std::string_view, long> m_byName;
  std::vector<TypeInfo> m_initializerTypes;
  std::deque<TypeInfo> m_constantTypes;
};

}  // namespace msa
