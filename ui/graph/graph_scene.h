#pragma once
// The graph scene: items built from a ViewGraph, its projection for one collapse state and the
// layout of that projection. Nodes are addressed by ONNX node name; a node inside a collapsed
// block is represented by the block's box.
#include <QGraphicsScene>
#include <QHash>
#include <QSet>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "graph/graph_items.h"
#include "graph/graph_layout.h"
#include "graph/graph_overlays.h"
#include "graph/graph_style.h"
#include "graph/heatmap.h"
#include "graph/view_graph.h"
#include "graph/visible_graph.h"

namespace msa::ui {

// Frames and boxes as plain rectangles in scene coordinates: what the graph looks like when every
// box is a few pixels. Plain data, so a worker can paint it while the scene changes.
struct OverviewPicture {
  QColor frameBorder, frameFill;
  std::vector<QRectF> frames;
  std::vector<std::pair<QRectF, QColor>> boxes;
  void paint(QPainter* p) const;
};

class GraphScene : public QGraphicsScene {
  Q_OBJECT
 public:
  explicit GraphScene(QObject* parent = nullptr);
  ~GraphScene() override;

  const GraphStyle& graphStyle() const { return m_style; }

  // Sizes measured here, with the fonts the items paint with.
  LayoutRequest layoutRequest(const ViewGraph& g, const VisibleGraph& v, const LayoutOptions& options = {}) const;
  void populate(std::shared_ptr<const ViewGraph> g, std::shared_ptr<const VisibleGraph> v, LayoutPtr layout);
  // The same in slices, so a 10,000-box scene never holds the event loop: begin, then step()
  // until it returns true. Until then the scene has no graph (hasGraph() is false).
  void beginPopulate(std::shared_ptr<const ViewGraph> g, std::shared_ptr<const VisibleGraph> v, LayoutPtr layout);
  bool populateStep(double sliceMs);
  void clearGraph();
  bool hasGraph() const { return m_layout != nullptr; }
  const ViewGraph* viewGraph() const { return m_graph.get(); }
  const VisibleGraph* visibleGraph() const { return m_visible.get(); }
  LayoutPtr layout() const { return m_layout; }

  void setShowShapes(bool show);
  // Colours boxes from a metric over what is visible; nullopt when the metric is empty.
  std::optional<HeatMapping> setMetric(const NodeMetric* metric, HeatScale scale);
  // Outlines are built a slice of groups per event (hundreds of findings on a large graph held
  // the event loop 17-27 ms in one); groupItems() grows until groupsComplete().
  void setGroups(const QList<NodeGroup>& groups);
  bool groupsComplete() const { return !m_pendingGroups; }
  void setMarks(const QList<NodeMark>& marks);
  // The group drawn heavier (the selected finding); the others dim. Empty: all normal.
  void setEmphasizedGroup(const QString& id);
  void setFindHit(const QString& node);  // empty clears

  QStringList selectedNodeNames() const;
  // Programmatic selection: no nodeSelectionChanged (that signal reports the user's clicks).
  void selectNodeNames(const QStringList& names);
  // Union of the boxes showing these nodes; null when none is visible.
  QRectF sceneRectOfNodes(const QStringList& names) const;
  BoxItem* boxOfNode(const QString& name) const;
  QStringList nodesOfBox(const BoxItem* box) const;

  // The whole graph as seen from far away, frames and boxes as plain rectangles: much faster to
  // paint than the items (overview, far view), and a copy another thread may paint.
  OverviewPicture overviewPicture() const;

  const std::vector<BoxItem*>& boxes() const { return m_boxes; }
  const std::vector<EdgeItem*>& edgeItems() const { return m_edges; }
  const std::vector<FrameItem*>& frames() const { return m_frames; }
  const std::vector<GroupItem*>& groupItems() const { return m_groups; }

 signals:
  void nodeSelectionChanged(const QStringList& names);
  void expandRequested(int block);
  void collapseRequested(int block);
  void jumpRequested(const QString& node);  // a stub was activated: go to its source

 protected:
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override;
  void helpEvent(QGraphicsSceneHelpEvent* e) override;
  void drawBackground(QPainter* p, const QRectF& rect) override;

 private:
  void addFrames();
  void addBox(size_t i);
  void addEdge(size_t e);
  void onSelectionChanged();
  void forgetPendingGroups();
  void continueGroups(quint64 generation);
  void addGroupItems(qsizetype count);
  void applyEmphasis(GroupItem* item) const;
  bool labelOverBoxes(const QRectF& label) const;  // an outline label there would hide a box
  void updateHighlights();
  QString tooltip(const BoxItem* box) const;
  static QString blockDetail(const ViewGraph& g, int block);

  GraphStyle m_style;
  std::shared_ptr<const ViewGraph> m_graph;
  std::shared_ptr<const VisibleGraph> m_visible;
  LayoutPtr m_layout;
  std::vector<BoxItem*> m_boxes;       // per visible item
  std::vector<EdgeItem*> m_edges;      // per visible edge (routed or stub)
  std::vector<std::vector<int>> m_boxEdges;  // visible item -> incident edge items
  std::vector<FrameItem*> m_frames;
  std::vector<GroupItem*> m_groups;
  QList<NodeGroup> m_groupData;
  QString m_emphasized;
  BoxItem* m_findHit = nullptr;
  bool m_showShapes = false;
  bool m_selecting = false;
  // A population in slices: what it is building, and how far it is.
  struct Pending {
    std::shared_ptr<const ViewGraph> graph;
    std::shared_ptr<const VisibleGraph> visible;
    LayoutPtr layout;
    std::vector<BoxItem*> boxes;
    std::vector<EdgeItem*> edges;
    std::vector<std::vector<int>> boxEdges;
    std::vector<FrameItem*> frames;
    QSet<QString> labelled;
    size_t nextBox = 0, nextEdge = 0, routed = 0;
  };
  std::unique_ptr<Pending> m_pending;
  // Group outlines still to draw: members (visible items) and the group, in drawing order.
  struct PendingGroups {
    std::deque<NodeGroup> merged;  // stable storage for the per-block summaries
    QList<std::pair<QSet<int>, const NodeGroup*>> drawn;
    qsizetype next = 0;
  };
  std::unique_ptr<PendingGroups> m_pendingGroups;
  quint64 m_groupsGeneration = 0;
  QSet<QString> m_drawnGroupIds;  // ids with an outline of their own (not folded into a count)
};

// The request for one projection, sizes measured with `style`'s fonts. A layout worker builds it
// with a style of its own (fonts are reentrant, not shared between threads).
LayoutRequest buildLayoutRequest(const GraphStyle& style, const ViewGraph& g, const VisibleGraph& v,
                                 const LayoutOptions& options = {});

}  // namespace msa::ui
