#pragma once
// The graph view as one widget: scene, view, overview, find bar, legend, and the layout jobs.
// Everything it is told is plain data addressed by node name: the graph, a metric, groups to
// outline and nodes to mark; selection goes in and out as node names.
#include <QWidget>
#include <memory>
#include <optional>

#include "graph/graph_layout.h"
#include "graph/graph_overlays.h"
#include "graph/graph_view.h"
#include "graph/view_graph.h"
#include "graph/visible_graph.h"

namespace msa::ui {

class FindBar;
class GraphScene;
class HeatLegend;
class LayoutCache;
class Minimap;

class GraphWidget : public QWidget {
  Q_OBJECT
 public:
  explicit GraphWidget(QWidget* parent = nullptr);
  ~GraphWidget() override;

  // A new graph: default collapse state, then a layout (asynchronous; contentReady follows).
  void setGraph(std::shared_ptr<const ViewGraph> graph);
  // The same model after an edit: blocks keep their collapse state (by scope path; new blocks
  // get the default), the selection keeps the nodes that still exist, the view stays where it is,
  // and the old drawing stays until the new layout arrives (a cached one for undo/redo).
  // From `incrementalLayoutBoxes` drawn boxes up, a graph that only lost boxes is not laid out
  // again: the old layout is patched (layout_patch.h). Negative: always a full layout.
  void updateGraph(std::shared_ptr<const ViewGraph> graph);
  void setIncrementalLayoutBoxes(int boxes) { m_incrementalBoxes = boxes; }
  void clear();
  // What the empty canvas says (no graph: before a model is open, or a profile alone).
  void setPlaceholder(const QString& text);
  std::shared_ptr<const ViewGraph> graph() const { return m_graph; }

  void setLayoutCache(std::shared_ptr<LayoutCache> cache);
  void setCollapseThreshold(int nodes) { m_threshold = nodes; }
  void setLayoutOptions(const LayoutOptions& o) { m_options = o; }

  // Overlays. A metric with no values switches the heatmap off.
  void setMetric(const NodeMetric& metric);
  void clearMetric();
  std::optional<NodeMetric> metric() const { return m_metric; }
  void setHeatScale(HeatScale scale);
  HeatScale heatScale() const { return m_scale; }
  void setGroups(const QList<NodeGroup>& groups);
  void setMarks(const QList<NodeMark>& marks);
  // Draws one group (by NodeGroup::id, e.g. the selected finding) heavier; empty: none.
  void setEmphasizedGroup(const QString& id);
  QList<NodeGroup> groups() const { return m_groups; }
  QList<NodeMark> marks() const { return m_marks; }
  void setShowShapes(bool show);
  bool showShapes() const { return m_showShapes; }

  // Collapsible blocks, by block index of the current ViewGraph.
  const CollapseState& collapseState() const { return m_collapsed; }
  void setCollapseState(CollapseState state);
  void setBlockCollapsed(int block, bool collapsed);
  void expandAll();
  void collapseAll();
  void resetCollapse();

  QStringList selectedNodes() const;
  bool layoutRunning() const;  // the layout of the current state is still to come
  GraphScene* scene() const { return m_scene; }
  GraphView* view() const { return m_view; }
  Minimap* minimap() const { return m_minimap; }
  FindBar* findBar() const { return m_find; }
  HeatLegend* legend() const { return m_legend; }
  GraphLayouter* layouter() const { return m_layouter; }

 public slots:
  void selectNodes(const QStringList& names);
  // Frames the nodes, first expanding any collapsed block that hides one of them.
  void frameNodes(const QStringList& names);
  void zoomIn();
  void zoomOut();
  void fitToWindow();
  void showFind();
  void cancelLayout();

 signals:
  void selectionChanged(const QStringList& names);
  void layoutStarted(int items);
  void layoutFinished(double seconds, bool fromCache, bool patched);
  void layoutFailed(const QString& message);
  void layoutCancelled();
  void contentReady();  // the scene shows the current graph and collapse state
  void collapseStateChanged();
  void zoomChanged(double zoom);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;  // a new UI language: the legend's texts in it

 private:
  QStringList selectionIn(const ViewGraph& graph) const;  // the selected nodes `graph` still has
  void relayout();
  void onLayoutFinished(quint64 generation, LayoutPtr layout);
  void populateSlice(quint64 populating, LayoutPtr layout);
  void finishLayout(LayoutPtr layout);
  void stopPopulating();
  void applyOverlays();
  void placeOverlays();
  // What the first view keeps clear of: the legend's and the overview's corners, with margins.
  GraphView::OverlayCorners overlayCorners() const;
  void applyMetric();
  // The legend's "no value" line when symbolic dims leave nodes unpriced: how many, and which dims.
  QString noValueText() const;
  void frameNow(const QStringList& names);

  GraphScene* m_scene;
  GraphView* m_view;
  Minimap* m_minimap;
  FindBar* m_find;
  HeatLegend* m_legend;
  GraphLayouter* m_layouter;

  std::shared_ptr<const ViewGraph> m_graph;
  std::shared_ptr<const VisibleGraph> m_pendingVisible;
  CollapseState m_collapsed;
  LayoutOptions m_options;
  int m_threshold = 800;
  int m_incrementalBoxes = 200;
  quint64 m_pendingGeneration = 0;
  quint64 m_populating = 0;  // the scene population in progress (a newer one stops it)
  bool m_waiting = false;  // the current collapse state's layout has not arrived yet
  bool m_firstLayout = true;
  QStringList m_pendingFrame;
  int m_anchorBlock = -1;       // the block just expanded or collapsed: keep it where it was
  QPointF m_anchorViewportPos;  // where its box or frame top was on screen

  std::optional<NodeMetric> m_metric;
  HeatScale m_scale = HeatScale::Linear;
  QList<NodeGroup> m_groups;
  QList<NodeMark> m_marks;
  bool m_showShapes = false;
  QString m_findHit;
  QStringList m_selection;  // as last chosen (by name), restored after every relayout
};

}  // namespace msa::ui
