#include "graph/graph_widget.h"

#include <QEvent>
#include <QTimer>
#include <QSet>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "graph/find_bar.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "i18n/language.h"
#include "graph/heat_legend.h"
#include "graph/layout_cache.h"
#include "graph/layout_patch.h"
#include "graph/minimap.h"

namespace msa::ui {

GraphWidget::GraphWidget(QWidget* parent) : QWidget(parent) {
  m_scene = new GraphScene(this);
  m_view = new GraphView(this);
  m_view->setScene(m_scene);
  m_view->setPlaceholder(tr("Open an ONNX model (Ctrl+O) or drop one here"));
  m_find = new FindBar(this);
  m_find->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_find);
  layout->addWidget(m_view, 1);
  m_minimap = new Minimap(m_view, m_view);
  m_minimap->hide();
  m_legend = new HeatLegend(m_view);
  m_legend->hide();
  m_view->installEventFilter(this);
  m_view->viewport()->installEventFilter(this);  // its geometry is final only in its own resize
  m_layouter = new GraphLayouter(this);

  connect(m_layouter, &GraphLayouter::layoutFinished, this, &GraphWidget::onLayoutFinished);
  connect(m_layouter, &GraphLayouter::layoutFailed, this, [this](quint64 gen, const QString& msg) {
    if (gen != m_pendingGeneration) return;
    m_waiting = false;
    m_pendingFrame.clear();
    m_view->setPlaceholder(m_scene->hasGraph() ? QString() : tr("The graph could not be laid out."));
    emit layoutFailed(msg);
  });
  connect(m_layouter, &GraphLayouter::layoutCancelled, this, [this](quint64) {
    m_waiting = false;
    m_pendingFrame.clear();
    if (!m_scene->hasGraph())
      m_view->setPlaceholder(tr("Layout cancelled. View ▸ Collapse All Blocks draws a smaller graph."));
    emit layoutCancelled();
  });
  connect(m_scene, &GraphScene::nodeSelectionChanged, this, [this](const QStringList& names) {
    m_selection = names;
    emit selectionChanged(names);
  });
  connect(m_scene, &GraphScene::expandRequested, this, [this](int b) { setBlockCollapsed(b, false); });
  connect(m_scene, &GraphScene::collapseRequested, this, [this](int b) { setBlockCollapsed(b, true); });
  connect(m_scene, &GraphScene::jumpRequested, this, [this](const QString& node) {
    selectNodes({node});
    frameNodes({node});
  });
  connect(m_find, &FindBar::hitChanged, this, [this](const QString& node) {
    m_findHit = node;
    m_scene->setFindHit(node);
    if (node.isEmpty()) return;
    selectNodes({node});
    frameNodes({node});
  });
  connect(m_view, &GraphView::zoomChanged, this, &GraphWidget::zoomChanged);
}

GraphWidget::~GraphWidget() {
  // A layout finishing while the layouter is torn down must not feed a half-destroyed widget.
  disconnect(m_layouter, nullptr, this, nullptr);
}

void GraphWidget::setLayoutCache(std::shared_ptr<LayoutCache> cache) { m_layouter->setCache(std::move(cache)); }

void GraphWidget::stopPopulating() {
  ++m_populating;
  m_view->viewport()->setUpdatesEnabled(true);
}

void GraphWidget::setGraph(std::shared_ptr<const ViewGraph> graph) {
  stopPopulating();
  m_graph = std::move(graph);
  m_scene->clearGraph();
  m_find->setGraph(m_graph);
  m_findHit.clear();
  // Whoever shows the selection (Properties, Charts) hears that it is gone with the old graph.
  if (!std::exchange(m_selection, {}).isEmpty()) emit selectionChanged({});
  m_firstLayout = true;
  m_pendingFrame.clear();
  m_anchorBlock = -1;
  m_minimap->setEnabledOverview(false);
  m_legend->hide();
  if (!m_graph) {
    m_layouter->cancel();
    m_view->setPlaceholder(tr("Open an ONNX model (Ctrl+O) or drop one here"));
    return;
  }
  m_collapsed = defaultCollapse(*m_graph, m_threshold);
  m_view->setPlaceholder(tr("Laying out %1 nodes…").arg(m_graph->nodes().size()));
  relayout();
}

void GraphWidget::updateGraph(std::shared_ptr<const ViewGraph> graph) {
  if (!m_graph || !graph || m_waiting) {  // nothing drawn yet to keep: a plain new graph...
    // ...but the selection stays where its nodes do (drawn when the layout lands): a Redo
    // clicked while the Undo's layout ran once left Properties showing nodes no longer selected.
    const QStringList kept = graph ? selectionIn(*graph) : QStringList();
    const QStringList before = m_selection;
    m_selection.clear();  // setGraph has nothing to announce: the outcome is announced below
    setGraph(std::move(graph));
    m_selection = kept;
    if (kept != before) emit selectionChanged(kept);
    return;
  }
  stopPopulating();
  const std::shared_ptr<const ViewGraph> old = std::exchange(m_graph, std::move(graph));
  CollapseState state = defaultCollapse(*m_graph, m_threshold);
  for (size_t b = 0; b < m_graph->blocks().size(); ++b) {
    const int was = old->blockIndex(m_graph->blocks()[b].path);
    if (was >= 0 && static_cast<size_t>(was) < m_collapsed.size()) state[b] = m_collapsed[static_cast<size_t>(was)];
  }
  m_collapsed = std::move(state);
  m_find->setGraph(m_graph);
  m_findHit.clear();
  const QStringList kept = selectionIn(*m_graph);
  if (kept != m_selection) {
    m_selection = kept;
    emit selectionChanged(kept);
  }
  m_pendingFrame.clear();
  m_anchorBlock = -1;
  if (m_incrementalBoxes >= 0 && m_scene->layout() && m_scene->viewGraph() && m_scene->visibleGraph()) {
    auto visible = std::make_shared<VisibleGraph>(VisibleGraph::project(*m_graph, m_collapsed, true));
    visible->cutLongEdges();
    const LayoutRequest request = m_scene->layoutRequest(*m_graph, *visible, m_options);
    if (static_cast<int>(request.nodes.size()) >= m_incrementalBoxes) {
      const LayoutRequest before = m_scene->layoutRequest(*m_scene->viewGraph(), *m_scene->visibleGraph(), m_options);
      if (LayoutPtr patched = patchLayout(before, *m_scene->layout(), request)) {
        m_pendingVisible = visible;
        m_waiting = true;
        onLayoutFinished(m_pendingGeneration, patched);
        return;
      }
    }
  }
  relayout();
}

void GraphWidget::clear() { setGraph(nullptr); }

QStringList GraphWidget::selectionIn(const ViewGraph& graph) const {
  QStringList kept;
  for (const QString& n : std::as_const(m_selection))
    if (graph.nodeIndex(n) >= 0) kept << n;
  return kept;
}

void GraphWidget::relayout() {
  if (!m_graph) return;
  stopPopulating();
  // The projection and the measured request are built on the layout worker: at 10,000 boxes
  // they take longer than the event loop may be held. The worker measures with a style of its own.
  auto visible = std::make_shared<VisibleGraph>();
  m_pendingVisible = visible;
  const int items = static_cast<int>(VisibleGraph::countItems(*m_graph, m_collapsed));
  m_pendingGeneration = m_layouter->start(
      [graph = m_graph, state = m_collapsed, options = m_options, visible] {
        *visible = VisibleGraph::project(*graph, state, true);
        visible->cutLongEdges();
        thread_local const GraphStyle style;
        return buildLayoutRequest(style, *graph, *visible, options);
      },
      items);
  m_waiting = true;
  emit layoutStarted(items);
}

void GraphWidget::onLayoutFinished(quint64 generation, LayoutPtr layout) {
  if (generation != m_pendingGeneration || !m_graph || !m_pendingVisible) return;
  // The scene is built in slices of 5 ms, the view left as it was drawn until it is complete.
  // The scene indexes and polishes what a slice added in the next event, about twice the slice's
  // time: 15 ms slices held the event loop 40-58 ms at 10,000 boxes, 5 ms ones 17-24 ms.
  const quint64 populating = ++m_populating;
  m_scene->beginPopulate(m_graph, m_pendingVisible, layout);
  m_view->viewport()->setUpdatesEnabled(false);
  populateSlice(populating, layout);
}

// One slice, then the next in a later event (a member, not a closure holding itself: that one
// kept every layout alive).
void GraphWidget::populateSlice(quint64 populating, LayoutPtr layout) {
  if (populating != m_populating) return;  // a newer layout took over
  if (!m_scene->populateStep(5)) {
    QTimer::singleShot(0, this, [this, populating, layout] { populateSlice(populating, layout); });
    return;
  }
  m_view->viewport()->setUpdatesEnabled(true);
  finishLayout(layout);
}

void GraphWidget::finishLayout(LayoutPtr layout) {
  m_waiting = false;
  m_scene->selectNodeNames(m_selection);
  m_view->setPlaceholder({});
  applyOverlays();
  m_minimap->setEnabledOverview(true);
  m_legend->show();
  placeOverlays();
  if (m_firstLayout) {
    QRectF inputs;
    for (const BoxItem* b : m_scene->boxes())
      if (b->kind() == BoxItem::Kind::Input) inputs |= b->sceneBoundingRect();
    // The overview shows whenever part of the graph is off screen, the legend always: keep
    // clear of both bottom corners.
    m_view->homeView(inputs, overlayCorners());
    m_firstLayout = false;
  }
  if (!m_pendingFrame.isEmpty()) {
    frameNow(m_pendingFrame);
    m_pendingFrame.clear();
  } else if (m_anchorBlock >= 0) {
    // Keep the block the user expanded or collapsed under the mouse: its frame or box top
    // goes where the old box or frame top was.
    const VisibleGraph& v = *m_scene->visibleGraph();
    QPointF top;
    bool found = false;
    const int c = v.clusterOfBlock[static_cast<size_t>(m_anchorBlock)];
    const int it = v.itemOfBlock[static_cast<size_t>(m_anchorBlock)];
    if (c >= 0 && static_cast<size_t>(c) < layout->clusterRects.size()) {
      const QRectF r = layout->clusterRects[static_cast<size_t>(c)];
      top = QPointF(r.center().x(), r.top());
      found = true;
    } else if (it >= 0) {
      const BoxItem* b = m_scene->boxes()[static_cast<size_t>(it)];
      top = QPointF(b->pos().x(), b->mapRectToScene(b->rect()).top());
      found = true;
    }
    if (found) {
      const QPointF centreVp = QRectF(m_view->viewport()->rect()).center();
      m_view->centerOn(top + (centreVp - m_anchorViewportPos) / m_view->zoom());
    }
  }
  m_anchorBlock = -1;
  // A large graph's overview is drawn on its own timer, not in this event as well.
  if (m_scene->boxes().size() > 2000) m_minimap->contentChanged();
  else m_minimap->renderNow();
  emit layoutFinished(layout->seconds, layout->fromCache, layout->patched);
  emit contentReady();
}

void GraphWidget::applyOverlays() {
  m_scene->setShowShapes(m_showShapes);
  applyMetric();
  m_scene->setGroups(m_groups);
  m_scene->setMarks(m_marks);
  m_scene->setFindHit(m_findHit);
}

QString GraphWidget::noValueText() const {
  if (!m_metric || !m_graph || m_metric->unboundDims.isEmpty()) return {};
  int missing = 0;
  for (const ViewNode& n : m_graph->nodes()) missing += n.kind == ViewNode::Kind::Op && !m_metric->values.contains(n.id);
  if (missing == 0) return {};
  return tr("no value: %n node(s) whose shapes depend on %1 (Analyze ▸ Run… binds them)", "", missing)
      .arg(m_metric->unboundDims.join(QStringLiteral(", ")));
}

void GraphWidget::applyMetric() {
  const auto mapping = m_scene->setMetric(m_metric ? &*m_metric : nullptr, m_scale);
  if (mapping && m_metric) {
    m_legend->setHeatmap(metricTitle(m_metric->name), m_metric->unit, *mapping, metricDescription(*m_metric), noValueText());
  } else if (m_graph) {
    QSet<OpCategory> present;
    for (const ViewNode& n : m_graph->nodes())
      if (n.kind == ViewNode::Kind::Op) present.insert(n.category);
    QList<OpCategory> ordered;
    for (int c = 0; c <= static_cast<int>(OpCategory::Other); ++c)
      if (present.contains(static_cast<OpCategory>(c))) ordered << static_cast<OpCategory>(c);
    m_legend->setCategories(ordered);
  }
  placeOverlays();
  m_minimap->contentChanged();
}

void GraphWidget::placeOverlays() {
  const QRect vp = m_view->viewport()->geometry();
  m_legend->resize(m_legend->sizeHint());
  // The overview shrinks with the view (a fifth of its width, 120 to 190 px) and steps aside
  // when it would meet the legend: on a small window they covered most of the canvas.
  const int w = std::clamp(vp.width() / 5, 120, 190);
  const QSize overview(w, w * 230 / 190);
  if (m_minimap->size() != overview) {
    m_minimap->setFixedSize(overview);
    m_minimap->contentChanged();
  }
  const bool legendShown = !m_legend->isHidden();
  m_minimap->setRoom(vp.width() >= (legendShown ? m_legend->width() : 0) + overview.width() + 36 &&
                     vp.height() >= 2 * overview.height());
  m_minimap->move(vp.right() - m_minimap->width() - 12, vp.bottom() - m_minimap->height() - 12);
  // Bottom left: graphs start at the top, and the overview holds the bottom right.
  m_legend->move(vp.left() + 12, vp.bottom() - m_legend->height() - 12);
  // Framed nodes and find results land above the overlays, never under them.
  m_view->setBottomOverlay(std::max(legendShown ? m_legend->height() : 0, m_minimap->hasRoom() ? overview.height() : 0) + 24);
  m_view->keepHome(overlayCorners());
}

GraphView::OverlayCorners GraphWidget::overlayCorners() const {
  const QSize margin(24, 24);
  return {m_legend->isHidden() ? QSize() : m_legend->size() + margin, m_minimap->size() + margin};
}

void GraphWidget::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::LanguageChange && m_graph) applyMetric();
}

bool GraphWidget::eventFilter(QObject* watched, QEvent* event) {
  if ((watched == m_view || watched == m_view->viewport()) && event->type() == QEvent::Resize) placeOverlays();
  return QWidget::eventFilter(watched, event);
}

void GraphWidget::setMetric(const NodeMetric& metric) {
  if (metric.isEmpty()) {
    clearMetric();
    return;
  }
  m_metric = metric;
  applyMetric();
}

void GraphWidget::clearMetric() {
  m_metric.reset();
  applyMetric();
}

void GraphWidget::setHeatScale(HeatScale scale) {
  m_scale = scale;
  applyMetric();
}

void GraphWidget::setGroups(const QList<NodeGroup>& groups) {
  m_groups = groups;
  m_scene->setGroups(groups);
  m_minimap->contentChanged();
}

void GraphWidget::setMarks(const QList<NodeMark>& marks) {
  m_marks = marks;
  m_scene->setMarks(marks);
  m_minimap->contentChanged();
}

void GraphWidget::setEmphasizedGroup(const QString& id) { m_scene->setEmphasizedGroup(id); }

void GraphWidget::setShowShapes(bool show) {
  m_showShapes = show;
  m_scene->setShowShapes(show);
}

void GraphWidget::setCollapseState(CollapseState state) {
  if (!m_graph) return;
  state.resize(m_graph->blocks().size(), false);
  if (state == m_collapsed) return;
  m_collapsed = std::move(state);
  emit collapseStateChanged();
  relayout();
}

void GraphWidget::setBlockCollapsed(int block, bool collapsed) {
  if (!m_graph || block < 0 || static_cast<size_t>(block) >= m_collapsed.size()) return;
  CollapseState s = m_collapsed;
  if (collapsed) s[static_cast<size_t>(block)] = true;
  else openTowards(*m_graph, s, block);  // expanding opens the way to it too
  // Remember where the block is on screen to keep it there after the new layout.
  if (m_scene->hasGraph()) {
    const VisibleGraph& v = *m_scene->visibleGraph();
    const int it = v.itemOfBlock[static_cast<size_t>(block)];
    const int c = v.clusterOfBlock[static_cast<size_t>(block)];
    if (it >= 0) {
      const BoxItem* b = m_scene->boxes()[static_cast<size_t>(it)];
      m_anchorViewportPos = m_view->mapFromScene(QPointF(b->pos().x(), b->mapRectToScene(b->rect()).top()));
      m_anchorBlock = block;
    } else if (c >= 0) {
      const QRectF r = m_scene->layout()->clusterRects[static_cast<size_t>(c)];
      m_anchorViewportPos = m_view->mapFromScene(QPointF(r.center().x(), r.top()));
      m_anchorBlock = block;
    }
  }
  setCollapseState(std::move(s));
}

void GraphWidget::expandAll() {
  if (m_graph) setCollapseState(CollapseState(m_graph->blocks().size(), false));
}

void GraphWidget::collapseAll() {
  if (m_graph) setCollapseState(CollapseState(m_graph->blocks().size(), true));
}

void GraphWidget::resetCollapse() {
  if (m_graph) setCollapseState(defaultCollapse(*m_graph, m_threshold));
}

QStringList GraphWidget::selectedNodes() const { return m_selection; }

bool GraphWidget::layoutRunning() const { return m_waiting; }

void GraphWidget::selectNodes(const QStringList& names) {
  if (names == m_selection) return;
  m_selection = names;
  m_scene->selectNodeNames(names);
  emit selectionChanged(names);
}

void GraphWidget::frameNodes(const QStringList& names) {
  if (!m_graph || names.isEmpty()) return;
  // Open every collapsed block on the way to a requested node.
  CollapseState s = m_collapsed;
  for (const QString& name : names) {
    const int n = m_graph->nodeIndex(name);
    if (n >= 0) openTowards(*m_graph, s, m_graph->nodes()[static_cast<size_t>(n)].block);
  }
  const bool changed = s != m_collapsed;
  if (changed) {
    m_pendingFrame = names;
    m_collapsed = std::move(s);
    emit collapseStateChanged();
    relayout();
    return;
  }
  if (m_waiting) {  // frame in the layout that is coming
    m_pendingFrame = names;
    return;
  }
  frameNow(names);
}

void GraphWidget::frameNow(const QStringList& names) {
  QRectF r = m_scene->sceneRectOfNodes(names);
  if (r.isNull()) return;
  // Hundreds of nodes across the graph fit only at a zoom where nothing reads (a format finding's
  // 241 nodes at 2 %): the first of them is framed with the others near it, at a readable zoom;
  // all of them stay selected.
  auto readable = [&](const QRectF& x) { return m_view->zoomToFit(x) >= GraphView::kReadableZoom; };
  if (names.size() > 1 && !readable(r)) {
    std::vector<QRectF> boxes;
    for (const QString& n : names)
      if (const BoxItem* b = m_scene->boxOfNode(n)) boxes.push_back(b->mapRectToScene(b->rect()));
    if (!boxes.empty()) {
      const QPointF first = boxes.front().center();
      std::stable_sort(boxes.begin() + 1, boxes.end(), [&](const QRectF& a, const QRectF& b) {
        return QLineF(first, a.center()).length() < QLineF(first, b.center()).length();
      });
      r = boxes.front();
      for (size_t k = 1; k < boxes.size() && readable(r | boxes[k]); ++k) r |= boxes[k];
    }
  }
  m_view->frameRect(r);
}

void GraphWidget::zoomIn() { m_view->zoomIn(); }
void GraphWidget::zoomOut() { m_view->zoomOut(); }
void GraphWidget::fitToWindow() { m_view->fitAll(); }
void GraphWidget::showFind() { m_find->activate(); }
void GraphWidget::cancelLayout() { m_layouter->cancel(); }

}  // namespace msa::ui

namespace msa::ui {
void GraphWidget::setPlaceholder(const QString& text) {
  if (!m_graph) m_view->setPlaceholder(text);
}
}  // namespace msa::ui
