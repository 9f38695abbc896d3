#pragma once
// The one graph IR: small value types imported once from onnx::ModelProto and exported once.
// Copying a Model deep-copies nodes and subgraphs but shares weight bytes.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/dtype.h"
#include "model/tensor.h"

namespace msa {

struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string param;   // symbolic name ("batch") when the file gave one
  bool known() const { return value >= 0; }
  friend bool operator==(const Dim&, const Dim&) = default;
};

struct Shape {
  std::vector<Dim> dims;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d) { for (int64_t v : d) dims.push_back({v, {}}); }
  static Shape of(std::span<const int64_t> d) {
    Shape s;
    for (int64_t v : d) s.dims.push_back({v, {}});
    return s;
  }
  size_t rank() const { return dims.size(); }
  bool fullyKnown() const;
  int64_t numElements() const;  // -1 when any dim is unknown
  std::vector<int64_t> values() const;  // unknown dims as -1
  std::string str() const;  // "[1,3,224,224]", unknown dims by name or "?"
  friend bool operator==(const Shape&, const Shape&) = default;
};

struct TypeInfo {
  enum class Kind { None, Tensor, SparseTensor, Sequence, Map, Optional, Other };
  Kind kind = Kind::None;
  DType elem = DType::Undefined;
  std::optional<Shape> shape;  // absent: rank unknown
  std::string raw;             // serialized onnx::TypeProto for kinds the IR does not model
  std::string denotation;

  bool isTensor() const { return kind == Kind::Tensor; }
  static TypeInfo tensor(DType e, Shape s) {
    TypeInfo t;
    t.kind = Kind::Tensor;
    t.elem = e;
    t.shape = std::move(s);
    return t;
  }
};

struct ValueInfo {
  std::string name;
  TypeInfo type;
  std::string docString;
  std::string unknownFields;
};

class Graph;

enum class AttrType : int32_t {
  Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5, Floats = 6, Ints = 7,
  Strings = 8, Tensors = 9, Graphs = 10, SparseTensor = 11, SparseTensors = 12, TypeProto = 13,
  TypeProtos = 14,
};

struct Attribute {
  std::string name;
  AttrType type = AttrType::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;  // Tensor: one element
  std::vector<Graph> graphs;    // Graph: one element
  std::string refAttrName;      // attribute reference inside a function body
  std::string docString;
  std::string raw;  // serialized onnx::AttributeProto for sparse tensors and type protos

  static Attribute makeInt(std::string name, int64_t v);
  static Attribute makeFloat(std::string name, float v);
  static Attribute makeString(std::string name, std::string v);
  static Attribute makeInts(std::string name, std::vector<int64_t> v);
  static Attribute makeFloats(std::string name, std::vector<float> v);
  static Attribute makeTensor(std::string name, Tensor t);
};

using NodeId = uint32_t;

struct Node {
  NodeId id = 0;             // stable within its graph: never reused after a node is removed
  std::string name;          // unique within its graph; generated when the file had none
  bool generatedName = false;
  std::string opType;
  std::string domain;        // "" and "ai.onnx" both mean the default domain
  std::vector<std::string> inputs;   // "" = omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
  std::string docString;
  std::string unknownFields;

  const Attribute* attr(std::string_view n) const;
  Attribute* attr(std::string_view n);
  int64_t attrInt(std::string_view n, int64_t dflt) const;
  float attrFloat(std::string_view n, float dflt) const;
  std::string attrString(std::string_view n, std::string dflt = {}) const;
  std::vector<int64_t> attrInts(std::string_view n) const;  // empty when absent
  void setAttr(Attribute a);  // replaces an attribute of the same name
  bool removeAttr(std::string_view n);
  bool isDefaultDomain() const { return domain.empty() || domain == "ai.onnx"; }
  bool is(std::string_view op) const { return opType == op && isDefaultDomain(); }
  std::string_view input(size_t i) const { return i < inputs.size() ? std::string_view(inputs[i]) : std::string_view(); }
  std::string_view output(size_t i) const { return i < outputs.size() ? std::string_view(outputs[i]) : std::string_view(); }
  bool hasSubgraphs() const;
};

class Graph {
 public:
  std::string name;
  std::string docString;
  std::vector<Node> nodes;  // file order; topologicalOrder() gives an execution order
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> valueInfo;  // intermediate value types: from the file, then inferred
  std::vector<std::string> sparseInitializers;       // serialized, kept verbatim
  std::vector<std::string> quantizationAnnotations;  // serialized, kept verbatim
  std::string unknownFields;
  NodeId nextNodeId = 0;

  // Appends a node with a fresh id; a unique name is generated from the op type when empty.
  Node& addNode(Node n);
  // Removes nodes by id (their outputs become dangling until rewired).
  void removeNodes(std::span<const NodeId> ids);
  const Node* findNode(NodeId id) const;
  Node* findNode(NodeId id);
  const Node* findNodeByName(std::string_view n) const;
  const Tensor* findInitializer(std::string_view n) const;
  bool isGraphOutput(std::string_view value) const;
  bool isGraphInput(std::string_view value) const;
  std::string uniqueName(std::string_view base) const;  // a value/node name not used yet

  // Node indices in an execution order (stable: file order among ready nodes). Names consumed
  // but produced nowhere (outer-scope values of a subgraph) count as available.
  std::vector<size_t> topologicalOrder() const;
  bool isTopologicallySorted() const;
  void sortTopologically();

  // Calls f(graph, depth) for this graph and every subgraph below it, depth-first.
  template <typename F>
  void forEachGraph(F&& f, int depth = 0) const;
  size_t totalNodeCount() const;  // including subgraphs
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

struct Model {
  int64_t irVersion = 8;
  std::vector<OpsetImport> opsets;
  std::string producerName, producerVersion, domain, docString;
  int64_t modelVersion = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::string> functions;     // serialized onnx::FunctionProto, kept verbatim
  std::vector<std::string> trainingInfo;  // serialized onnx::TrainingInfoProto, kept verbatim
  std::string unknownFields;
  Graph graph;
  std::filesystem::path path;  // where it was loaded from; empty for models built in memory

  int64_t opset(std::string_view domain = {}) const;  // 0 when not imported
  void setOpset(std::string_view domain, int64_t version);
  std::string metadataValue(std::string_view key) const;
};

template <typename F>
void Graph::forEachGraph(F&& f, int depth) const {
  f(*this, depth);
  for (const Node& n : nodes)
    for (const Attribute& a : n.attributes)
      for (const Graph& g : a.graphs) g.forEachGraph(f, depth + 1);
}

}  // namespace msa
