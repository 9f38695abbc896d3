#pragma once
// Producer/consumer and type lookups over one Graph. Build it after loading or after a rewrite;
// it holds indices into graph.nodes, so any change to the node list invalidates it.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "model/name_table.h"

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
  // Everything known about one value name, found with one lookup.
  struct Value {
    long producer = -1;
    uint32_t firstUse = 0, useCount = 0;  // a range of m_uses
    const TypeInfo* type = nullptr;
    const Tensor* initializer = nullptr;
    const Tensor* constantNode = nullptr;
    bool input = false, output = false;
  };
  uint32_t intern(std::string_view name);
  const Value* value(std::string_view name) const;

  const Graph* m_graph;
  std::vector<Value> m_values;  // by index in m_valueNames
  NameTable m_valueNames;
  std::vector<Use> m_uses;
  std::vector<long> m_byId;  // NodeId -> index
  NameTable m_nodeNames;
  std::vector<long> m_nodeFirst;  // per node name: the first node that has it
  std::vector<TypeInfo> m_initializerTypes;
  std::vector<TypeInfo> m_constantTypes;
};

}  // namespace msa
