#pragma once
// The drawable graph of a model: plain values built once from the IR (off the GUI thread) and
// shared read-only as std::shared_ptr<const ViewGraph>. Nodes are addressed by their ONNX node
// name (stable, unique in a graph); indices are only valid inside one ViewGraph.
#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>
#include <vector>

#include "model/graph.h"

namespace msa::ui {

enum class OpCategory {
  Convolution,    // Conv, ConvTranspose
  Linear,         // MatMul, Gemm, Einsum
  Activation,     // Relu, Gelu, Sigmoid, Erf, HardSwish…
  Normalization,  // BatchNormalization, LayerNormalization…
  Pooling,        // MaxPool, AveragePool, GlobalAveragePool…
  Elementwise,    // Add, Mul, Div, Pow, Sqrt…
  Reduction,      // ReduceMean, Softmax, ArgMax…
  Shape,          // Reshape, Transpose, Concat, Gather, Slice, Shape…: data movement and shape arithmetic
  Conversion,     // Cast, QuantizeLinear, DequantizeLinear
  Control,        // If, Loop, Scan
  Io,             // graph inputs and outputs (pseudo nodes)
  Other,
};
OpCategory opCategory(const QString& opType);
QString opCategoryName(OpCategory c);

struct ViewNode {
  enum class Kind { Op, Input, Output };
  QString id;       // the ONNX node name; for graph inputs/outputs the tensor name
  Kind kind = Kind::Op;
  QString opType;   // op type, or "Input"/"Output"
  QString domain;
  QString label;    // the name relative to the node's block ("self_attn/MatMul_1")
  OpCategory category = OpCategory::Other;
  int block = -1;   // innermost scope block, -1 = top level
  int irIndex = -1; // index into Graph::nodes (Op nodes) of the top level, or of its body
  QString detail;   // Input/Output: "float32 [1,3,224,224]"
  // A node inside a control-flow body (If branch, Loop/Scan body): where that body sits,
  // outermost first, as (node index in the enclosing graph, attribute index); irIndex is then
  // its index in the innermost body. Empty for nodes of the top level.
  std::vector<std::pair<int, int>> bodyPath;
};

// The IR node a view node stands for, top level or inside a body; null for inputs and outputs.
const Node* irNodeOf(const Graph& top, const ViewNode& n);

struct ViewEdge {
  int from = -1, to = -1;  // node indices
  QString tensor;
  QString shape;  // "1×64×56×56", empty when unknown
};

// A name scope ("/encoder/layers.3/attention") that can be drawn collapsed as one box.
struct ScopeBlock {
  QString path;   // full scope path as in the names, stable id of the block
  QString label;  // what to print: the last component(s)
  int parent = -1;
  int depth = 0;  // 0 = child of the top level
  std::vector<int> children;  // child blocks
  std::vector<int> nodes;     // direct member nodes
  int totalNodes = 0;         // members including nested blocks
  bool body = false;          // the body of an If/Loop/Scan ("If_0 ▸ then_branch"): collapsed by default
  // > 0: not a scope but a run of this many structurally identical sibling blocks (its
  // children, in order: the layers of a language model), which can be drawn once ("×28").
  int repeat = 0;
};

class ViewGraph {
 public:
  // Builds the drawable graph of `graph`. The bodies of If/Loop/Scan nodes are blocks of their
  // own ("If_0 ▸ then_branch"), placed before the node that runs them: their nodes read values
  // of the enclosing graphs, their outputs feed that node. Constant nodes and initializers are
  // not drawn (their values show in Properties).
  static ViewGraph build(const Graph& graph);

  const std::vector<ViewNode>& nodes() const { return m_nodes; }
  const std::vector<ViewEdge>& edges() const { return m_edges; }
  const std::vector<ScopeBlock>& blocks() const { return m_blocks; }
  const std::vector<int>& topBlocks() const { return m_topBlocks; }
  const std::vector<int>& topNodes() const { return m_topNodes; }
  int hiddenNodeCount() const { return m_hidden; }
  int bodyNodeCount() const { return m_bodyNodes; }  // nodes inside control-flow bodies

  int nodeIndex(const QString& id) const { return m_byId.value(id, -1); }
  int blockIndex(const QString& path) const { return m_blockByPath.value(path, -1); }
  // Every node index inside block b, nested blocks included, in node order.
  std::vector<int> nodesInBlock(int b) const;
  // True when block a is b or an ancestor of b.
  bool blockContains(int a, int b) const;
  // For a member of a run: its place in the run (0: the one drawn while the run is folded);
  // -1 for any other block.
  int memberIndex(int block) const { return m_memberIndex[static_cast<size_t>(block)]; }
  // For a node inside `member` (a member of a run): the node at the same place in the run's
  // first member (the run's members are alike node for node, in node order).
  int twinInFirstMember(int node, int member) const;

 private:
  void add(ViewNode n, const QSet<QString>& reserved);
  void buildScopes(const std::vector<QStringList>& scopes, const QSet<QString>& bodyParts);
  void indexRuns();

  std::vector<ViewNode> m_nodes;
  std::vector<ViewEdge> m_edges;
  std::vector<ScopeBlock> m_blocks;
  std::vector<int> m_topBlocks, m_topNodes;
  QHash<QString, int> m_byId;
  QHash<QString, int> m_blockByPath;
  std::vector<int> m_memberIndex;               // per block
  std::vector<std::vector<int>> m_memberNodes;  // per run member: its nodes in node order
  int m_hidden = 0;
  int m_bodyNodes = 0;
};

// The scope of a node name: "/encoder/layers.3/attention/MatMul" -> {encoder, layers.3, attention};
// "encoder.layers.3.fc.MatMul" -> {encoder, layers.3, fc} (numeric parts stay with their parent).
QStringList nameScope(const QString& name);
// "1×64×56×56"; unknown dims by name or "?"; "" when the rank is unknown.
QString formatShape(const Shape* shape);

}  // namespace msa::ui
