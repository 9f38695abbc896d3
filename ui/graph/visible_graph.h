#pragma once
// What is drawn for one collapse state: nodes outside collapsed blocks, one box per outermost
// collapsed block, edges between them (merged), and a frame per expanded block. A plain value
// computed from a ViewGraph; the layout request is built from it.
#include <QString>
#include <vector>

#include "graph/view_graph.h"

namespace msa::ui {

// Which blocks are collapsed, by block index of one ViewGraph.
// For a run (ScopeBlock::repeat) the flag means folded: drawn once, as its first member, in a
// frame saying "×N"; unfolded, its members are drawn in its parent, without a frame of its own.
using CollapseState = std::vector<bool>;

// Up to `threshold` drawn nodes everything is open and every run unfolded. Above it every run
// is folded and blocks open top-down, a whole level at a time, while at most `budget` boxes are
// visible: a 960-layer decoder opens as one layer drawn in full "×960", ResNet-18 or a 4-layer
// BERT fully open.
CollapseState defaultCollapse(const ViewGraph& g, int threshold = 800, int budget = 250);

// Opens `block` and every block around it. A folded run on the way stays folded when the way
// passes through its first member (the one drawn); otherwise it unfolds, its other members
// collapsed to one box each.
void openTowards(const ViewGraph& g, CollapseState& state, int block);

struct VisibleItem {
  enum class Kind { Node, Block };
  Kind kind = Kind::Node;
  int index = -1;    // node index or block index in the ViewGraph
  int cluster = -1;  // enclosing frame (index into VisibleGraph::clusters), -1 = top level
};

struct VisibleEdge {
  int from = -1, to = -1;  // item indices
  int edge = -1;           // first ViewGraph edge it stands for (its tensor and shape)
  int count = 0;           // how many ViewGraph edges were merged into it
  int tensors = 0;         // how many distinct tensors they carry
  // False for a long edge left out of the layout and drawn as a stub at its consumer: edges
  // spanning hundreds of ranks (an attention mask feeding every layer) become chains of
  // virtual nodes that dominate Graphviz's time and cross the whole drawing.
  bool routed = true;
};

struct VisibleCluster {
  int block = -1;   // an expanded block with something visible inside
  int parent = -1;  // enclosing cluster
};

class VisibleGraph {
 public:
  // `edges` false: the items only (countItems).
  static VisibleGraph project(const ViewGraph& g, const CollapseState& collapsed, bool frames = true, bool edges = true);
  static size_t countItems(const ViewGraph& g, const CollapseState& collapsed) {
    return project(g, collapsed, false, false).items.size();
  }

  // Leaves long edges out of the layout: far consumers of a broadcast (fan-out >= 4, > 3
  // ranks), then the longest edges while the total rank span exceeds `spanPerItem` per visible
  // item (there a consumer keeps one routed input).
  void cutLongEdges(double spanPerItem = 6.0);

  std::vector<VisibleItem> items;
  std::vector<VisibleEdge> edges;
  std::vector<VisibleCluster> clusters;
  std::vector<int> itemOfNode;   // node index -> item showing it (itself or its collapsed block)
  std::vector<int> itemOfBlock;  // block index -> item when drawn collapsed, else -1
  std::vector<int> clusterOfBlock;  // block index -> cluster when drawn as a frame, else -1

  QString itemId(const ViewGraph& g, int item) const;  // stable: node name or "block:" + path
};

}  // namespace msa::ui
