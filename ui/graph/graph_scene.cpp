#include "graph/graph_scene.h"

#include <QCoreApplication>
#include <QGraphicsSceneHelpEvent>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QSet>
#include <QTimer>
#include <QToolTip>
#include <QElapsedTimer>
#include <limits>
#include <algorithm>
#include <deque>

namespace msa::ui {
namespace {

// The scene around a layout: a margin for selection rings and edges leaving the boxes.
QRectF sceneRectAround(const QRectF& bounds) { return bounds.adjusted(-40, -40, 40, 40); }

// Convex hull of a few points (monotone chain), for the bridge between two grouped boxes.
QPolygonF hull(std::vector<QPointF> pts) {
  std::sort(pts.begin(), pts.end(), [](QPointF a, QPointF b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  auto cross = [](QPointF o, QPointF a, QPointF b) { return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x()); };
  std::vector<QPointF> h(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross(h[k - 2], h[k - 1], pts[i]) <= 0) --k;
    h[k++] = pts[i];
  }
  h.resize(k > 0 ? k - 1 : 0);
  return QPolygonF(QList<QPointF>(h.begin(), h.end()));
}

std::vector<QPointF> corners(const QRectF& r) { return {r.topLeft(), r.topRight(), r.bottomLeft(), r.bottomRight()}; }

QString countText(int n) { return QCoreApplication::translate("msa::ui::GraphScene", "%n node(s)", nullptr, n); }

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setItemIndexMethod(BspTreeIndex);
  connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene() {
  // Deleting selected items emits selectionChanged: not into a half-destroyed scene.
  disconnect(this, &QGraphicsScene::selectionChanged, this, nullptr);
  clearGraph();
}

QString GraphScene::blockDetail(const ViewGraph& g, int block) {
  return countText(g.blocks()[static_cast<size_t>(block)].totalNodes);
}

LayoutRequest GraphScene::layoutRequest(const ViewGraph& g, const VisibleGraph& v, const LayoutOptions& options) const {
  return buildLayoutRequest(m_style, g, v, options);
}

LayoutRequest buildLayoutRequest(const GraphStyle& style, const ViewGraph& g, const VisibleGraph& v, const LayoutOptions& options) {
  LayoutRequest r;
  r.options = options;
  r.nodes.reserve(v.items.size());
  for (size_t i = 0; i < v.items.size(); ++i) {
    const VisibleItem& it = v.items[i];
    QSizeF size;
    if (it.kind == VisibleItem::Kind::Block) {
      const ScopeBlock& b = g.blocks()[static_cast<size_t>(it.index)];
      // Room for "N nodes · 12.3 ms" so showing a metric never needs a new layout.
      size = style.blockSize(b.label, countText(b.totalNodes) + QStringLiteral("  ·  000.0\u202fms"));
    } else {
      const ViewNode& n = g.nodes()[static_cast<size_t>(it.index)];
      size = n.kind == ViewNode::Kind::Op ? style.opSize(n.opType, n.label) : style.ioSize(n.label, n.detail);
    }
    r.nodes.push_back({v.itemId(g, static_cast<int>(i)), size, it.cluster});
  }
  for (const VisibleEdge& e : v.edges)
    if (e.routed) r.edges.push_back({e.from, e.to});
  for (const VisibleCluster& c : v.clusters)
    r.clusters.push_back({g.blocks()[static_cast<size_t>(c.block)].path, c.parent});
  return r;
}

void GraphScene::clearGraph() {
  m_pending.reset();
  m_selecting = true;
  clear();
  m_selecting = false;
  m_boxes.clear();
  m_edges.clear();
  m_boxEdges.clear();
  m_frames.clear();
  m_groups.clear();
  forgetPendingGroups();
  m_findHit = nullptr;
  m_layout.reset();
  m_visible.reset();
  m_graph.reset();
}

void GraphScene::populate(std::shared_ptr<const ViewGraph> g, std::shared_ptr<const VisibleGraph> v, LayoutPtr layout) {
  beginPopulate(std::move(g), std::move(v), std::move(layout));
  populateStep(std::numeric_limits<double>::infinity());
}

void GraphScene::beginPopulate(std::shared_ptr<const ViewGraph> g, std::shared_ptr<const VisibleGraph> v, LayoutPtr layout) {
  clearGraph();
  auto p = std::make_unique<Pending>();
  p->graph = std::move(g);
  p->visible = std::move(v);
  p->layout = std::move(layout);
  m_pending = std::move(p);
  if (m_pending->layout->nodeCentres.size() != m_pending->visible->items.size()) return;  // a layout of another projection
  m_pending->boxes.resize(m_pending->visible->items.size(), nullptr);
  m_pending->boxEdges.assign(m_pending->visible->items.size(), {});
  // The final scene rectangle first: the item index is sized once, not rebuilt as items arrive.
  setSceneRect(sceneRectAround(m_pending->layout->bounds));
  addFrames();
}

bool GraphScene::populateStep(double sliceMs) {
  if (!m_pending) return true;
  Pending& p = *m_pending;
  const bool valid = p.layout->nodeCentres.size() == p.visible->items.size();
  QElapsedTimer t;
  t.start();
  auto spent = [&] { return static_cast<double>(t.nsecsElapsed()) / 1e6 >= sliceMs; };
  // Boxes first (stubs are placed from them), then edges; the clock is read every 64 items.
  // The index takes the new items at the next query: make it now, in this slice, rather than
  // all 20,000 at once on the first paint.
  auto sliceDone = [&] {
    (void)items(QPointF(-1e9, -1e9));
    return false;
  };
  while (valid && p.nextBox < p.boxes.size()) {
    addBox(p.nextBox++);
    if (p.nextBox % 64 == 0 && spent()) return sliceDone();
  }
  while (valid && p.nextEdge < p.visible->edges.size()) {
    addEdge(p.nextEdge++);
    if (p.nextEdge % 64 == 0 && spent()) return sliceDone();
  }
  m_graph = std::move(p.graph);
  m_visible = std::move(p.visible);
  m_layout = std::move(p.layout);
  if (valid) {
    m_boxes = std::move(p.boxes);
    m_edges = std::move(p.edges);
    m_boxEdges = std::move(p.boxEdges);
    m_frames = std::move(p.frames);
    setSceneRect(sceneRectAround(m_layout->bounds));
  }
  m_pending.reset();
  return true;
}

void GraphScene::addFrames() {
  Pending& p = *m_pending;
  const ViewGraph& vg = *p.graph;
  const VisibleGraph& vis = *p.visible;
  const Layout& l = *p.layout;
  for (size_t c = 0; c < vis.clusters.size() && c < l.clusterRects.size(); ++c) {
    const ScopeBlock& b = vg.blocks()[static_cast<size_t>(vis.clusters[c].block)];
    auto* f = new FrameItem(&m_style, vis.clusters[c].block, b.depth, l.clusterRects[c], b.label, countText(b.totalNodes));
    addItem(f);
    p.frames.push_back(f);
  }
}

void GraphScene::addBox(size_t i) {
  Pending& p = *m_pending;
  const ViewGraph& vg = *p.graph;
  const VisibleItem& it = p.visible->items[i];
  const Layout& l = *p.layout;
  BoxItem* box = nullptr;
  if (it.kind == VisibleItem::Kind::Block) {
    const ScopeBlock& b = vg.blocks()[static_cast<size_t>(it.index)];
    box = new BoxItem(&m_style, BoxItem::Kind::Block, static_cast<int>(i), l.nodeSizes[i], b.label, blockDetail(vg, it.index),
                      categoryColors(OpCategory::Other));
  } else {
    const ViewNode& n = vg.nodes()[static_cast<size_t>(it.index)];
    const auto kind = n.kind == ViewNode::Kind::Op      ? BoxItem::Kind::Op
                      : n.kind == ViewNode::Kind::Input ? BoxItem::Kind::Input
                                                        : BoxItem::Kind::Output;
    // A name that only repeats the op type ("Mul", "Relu_1") says nothing the title does not.
    QString sub = kind == BoxItem::Kind::Op ? n.label : n.detail;
    bool numbered = false;
    if (sub.startsWith(n.opType + QLatin1Char('_'))) (void)sub.mid(n.opType.size() + 1).toInt(&numbered);
    if (kind == BoxItem::Kind::Op && (sub == n.opType || numbered)) sub.clear();
    box = new BoxItem(&m_style, kind, static_cast<int>(i), l.nodeSizes[i], kind == BoxItem::Kind::Op ? n.opType : n.label,
                      sub, categoryColors(n.category));
  }
  box->setPos(l.nodeCentres[i]);
  addItem(box);
  p.boxes[i] = box;
}

void GraphScene::addEdge(size_t e) {
  Pending& p = *m_pending;
  const ViewGraph& vg = *p.graph;
  const VisibleEdge& ve = p.visible->edges[e];
  const Layout& l = *p.layout;
  const ViewEdge& first = vg.edges()[static_cast<size_t>(ve.edge)];
  QString label = ve.tensors > 1 ? QStringLiteral("%1 tensors").arg(ve.tensors) : first.shape;
  if (ve.tensors == 1) {  // a tensor feeding several boxes is labelled once
    const QString key = QString::number(ve.from) + QLatin1Char('/') + first.tensor;
    if (p.labelled.contains(key)) label.clear();
    else p.labelled.insert(key);
  }
  EdgeItem* item = nullptr;
  if (ve.routed) {
    if (p.routed >= l.edges.size()) return;
    const Layout::Edge& le = l.edges[p.routed++];
    item = new EdgeItem(&m_style, static_cast<int>(e), le.points, le.hasArrow ? std::optional<QPointF>(le.arrowTip) : std::nullopt,
                        label);
  } else {
    const BoxItem* head = p.boxes[static_cast<size_t>(ve.to)];
    // Stubs into one box are spread over its top edge.
    const int k = static_cast<int>(p.boxEdges[static_cast<size_t>(ve.to)].size());
    const double dx = std::min(head->rect().width() / 2 - 12, 14.0 * k) * (k % 2 ? 1 : -1) + head->rect().width() * 0.3;
    const BoxItem* tail = p.boxes[static_cast<size_t>(ve.from)];
    item = new EdgeItem(&m_style, static_cast<int>(e), head->pos() + QPointF(dx, head->rect().top()), tail->title(), label);
  }
  item->setShowLabel(m_showShapes);
  addItem(item);
  p.edges.push_back(item);
  p.boxEdges[static_cast<size_t>(ve.from)].push_back(static_cast<int>(p.edges.size() - 1));
  p.boxEdges[static_cast<size_t>(ve.to)].push_back(static_cast<int>(p.edges.size() - 1));
}

void GraphScene::setShowShapes(bool show) {
  m_showShapes = show;
  for (EdgeItem* e : m_edges) e->setShowLabel(show);
}

std::optional<HeatMapping> GraphScene::setMetric(const NodeMetric* metric, HeatScale scale) {
  if (!m_graph || !metric || metric->isEmpty()) {
    for (BoxItem* b : m_boxes) b->setHeat(std::nullopt, false);
    return std::nullopt;
  }
  const ViewGraph& vg = *m_graph;
  if (metric->diverging) scale = HeatScale::Diverging;
  // Values of what is visible: a collapsed block shows its members' aggregate.
  std::vector<std::optional<double>> values(m_boxes.size());
  for (size_t i = 0; i < m_boxes.size(); ++i) {
    const VisibleItem& it = m_visible->items[i];
    if (it.kind == VisibleItem::Kind::Node) {
      auto f = metric->values.constFind(vg.nodes()[static_cast<size_t>(it.index)].id);
      if (f != metric->values.constEnd() && std::isfinite(*f)) values[i] = *f;
      continue;
    }
    double acc = 0;
    int n = 0;
    for (int m : vg.nodesInBlock(it.index)) {
      auto f = metric->values.constFind(vg.nodes()[static_cast<size_t>(m)].id);
      if (f == metric->values.constEnd() || !std::isfinite(*f)) continue;
      acc = n == 0 ? *f : metric->aggregate == NodeMetric::Aggregate::Max ? std::max(acc, *f) : acc + *f;
      ++n;
    }
    if (n > 0) values[i] = metric->aggregate == NodeMetric::Aggregate::Mean ? acc / n : acc;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& v : values) {
    if (!v || (scale == HeatScale::Log && *v <= 0)) continue;
    lo = std::min(lo, *v);
    hi = std::max(hi, *v);
  }
  if (!std::isfinite(lo)) {
    lo = 0;
    hi = 1;
  }
  HeatMapping mapping(lo, hi, scale);
  for (size_t i = 0; i < m_boxes.size(); ++i) {
    const bool block = m_boxes[i]->kind() == BoxItem::Kind::Block;
    if (values[i]) {
      const QString text = block ? formatMetric(*values[i], metric->unit) : QString();
      m_boxes[i]->setHeat(mapping.color(*values[i]), true, text);
    } else {
      m_boxes[i]->setHeat(std::nullopt, true);
    }
  }
  return mapping;
}

void GraphScene::setGroups(const QList<NodeGroup>& groups) {
  for (GroupItem* g : m_groups) {
    removeItem(g);
    delete g;
  }
  m_groups.clear();
  forgetPendingGroups();
  m_groupData = groups;
  if (!m_graph) return;
  if (m_layout) setSceneRect(sceneRectAround(m_layout->bounds));  // the old labels' room
  auto pending = std::make_unique<PendingGroups>();
  // Groups hidden inside one collapsed block are outlined once, on the block, with a count.
  QHash<int, QList<const NodeGroup*>> insideBlock;
  for (const NodeGroup& group : m_groupData) {
    QSet<int> members;
    for (const QString& name : group.nodes) {
      const int n = m_graph->nodeIndex(name);
      if (n >= 0) members.insert(m_visible->itemOfNode[static_cast<size_t>(n)]);
    }
    if (members.isEmpty()) continue;
    if (members.size() == 1 && m_boxes[static_cast<size_t>(*members.begin())]->kind() == BoxItem::Kind::Block)
      insideBlock[*members.begin()].push_back(&group);
    else
      pending->drawn.push_back({members, &group});
  }
  for (auto it = insideBlock.cbegin(); it != insideBlock.cend(); ++it) {
    if (it.value().size() == 1) {
      pending->drawn.push_back({{it.key()}, it.value().front()});
      continue;
    }
    pending->merged.push_back({QString(), tr("%n groups", nullptr, static_cast<int>(it.value().size())), {}, it.value().front()->color});
    pending->drawn.push_back({{it.key()}, &pending->merged.back()});
  }
  for (const auto& entry : pending->drawn) m_drawnGroupIds.insert(entry.second->id);
  m_drawnGroupIds.remove(QString());
  m_pendingGroups = std::move(pending);
  // The first slice now (a small model's groups all fit in it), the rest one slice per event.
  continueGroups(m_groupsGeneration);
}

void GraphScene::forgetPendingGroups() {
  m_pendingGroups.reset();
  m_drawnGroupIds.clear();
  ++m_groupsGeneration;
}

void GraphScene::continueGroups(quint64 generation) {
  if (generation != m_groupsGeneration || !m_pendingGroups) return;  // superseded, or done
  constexpr qsizetype kSlice = 96;
  addGroupItems(kSlice);
  if (m_pendingGroups) QTimer::singleShot(0, this, [this, generation] { continueGroups(generation); });
}

void GraphScene::addGroupItems(qsizetype count) {
  PendingGroups& p = *m_pendingGroups;
  QRectF drawn;  // the labels hang left of the layout: the scene grows to hold them
  for (const qsizetype end = std::min(p.drawn.size(), p.next + count); p.next < end; ++p.next) {
    const auto& [members, groupPtr] = p.drawn[p.next];
    const NodeGroup& group = *groupPtr;
    constexpr double kMargin = 7;
    QPainterPath outline;
    outline.setFillRule(Qt::WindingFill);
    for (int m : members) {
      const BoxItem* b = m_boxes[static_cast<size_t>(m)];
      outline.addRoundedRect(b->mapRectToScene(b->rect()).adjusted(-kMargin, -kMargin, kMargin, kMargin), 9, 9);
    }
    // Connected members are bridged so a chain reads as one group.
    for (int m : members) {
      for (int e : m_boxEdges[static_cast<size_t>(m)]) {
        const VisibleEdge& ve = m_visible->edges[static_cast<size_t>(m_edges[static_cast<size_t>(e)]->edgeIndex())];
        if (ve.from != m || !members.contains(ve.to)) continue;
        const BoxItem* a = m_boxes[static_cast<size_t>(ve.from)];
        const BoxItem* b = m_boxes[static_cast<size_t>(ve.to)];
        // The hull of both (inflated) boxes: a chain reads as one smooth shape.
        auto pts = corners(a->mapRectToScene(a->rect()).adjusted(-kMargin, -kMargin, kMargin, kMargin));
        auto pb = corners(b->mapRectToScene(b->rect()).adjusted(-kMargin, -kMargin, kMargin, kMargin));
        pts.insert(pts.end(), pb.begin(), pb.end());
        outline.addPolygon(hull(std::move(pts)));
        outline.closeSubpath();
      }
    }
    // The label sits left of the first member, clear of frame titles above the group.
    const BoxItem* first = nullptr;
    for (int m : members)
      if (!first || m_boxes[static_cast<size_t>(m)]->pos().y() < first->pos().y()) first = m_boxes[static_cast<size_t>(m)];
    auto* item = new GroupItem(&m_style, outline, group.label,
                               group.color.isValid() ? group.color : QColor(0x0b, 0x8a, 0x4f), first->pos().y());
    item->setToolTip(group.label);
    item->setId(group.id);
    // Side by side groups (a Fire module's two branches): a label left of the right one would
    // lie over the left one's boxes; it goes right where that side is free.
    if (labelOverBoxes(item->labelRect())) {
      item->setLabelOnRight(true);
      if (labelOverBoxes(item->labelRect())) item->setLabelOnRight(false);
    }
    applyEmphasis(item);
    addItem(item);
    m_groups.push_back(item);
    drawn |= item->sceneBoundingRect();
  }
  if (!sceneRect().contains(drawn)) setSceneRect(sceneRect() | drawn.adjusted(-12, 0, 12, 0));
  if (p.next >= p.drawn.size()) m_pendingGroups.reset();
}

bool GraphScene::labelOverBoxes(const QRectF& label) const {
  const QList<QGraphicsItem*> under = items(label.adjusted(-8, -2, 8, 2), Qt::IntersectsItemBoundingRect);
  return std::any_of(under.cbegin(), under.cend(), [](const QGraphicsItem* i) { return i->type() == BoxItem::Type; });
}

void GraphScene::applyEmphasis(GroupItem* item) const {
  const bool found = !m_emphasized.isEmpty() && m_drawnGroupIds.contains(m_emphasized);
  item->setEmphasis(!found ? GroupItem::Emphasis::Normal
                           : item->id() == m_emphasized ? GroupItem::Emphasis::Emphasised : GroupItem::Emphasis::Dimmed);
}

void GraphScene::setEmphasizedGroup(const QString& id) {
  m_emphasized = id;
  for (GroupItem* g : m_groups) applyEmphasis(g);
}

void GraphScene::setMarks(const QList<NodeMark>& marks) {
  for (BoxItem* b : m_boxes) b->setMark(std::nullopt);
  if (!m_graph) return;
  for (const NodeMark& mark : marks) {
    BoxItem* b = boxOfNode(mark.node);
    if (b && !b->mark()) b->setMark(mark.kind);
  }
}

void GraphScene::setFindHit(const QString& node) {
  if (m_findHit) m_findHit->setFindHit(false);
  m_findHit = node.isEmpty() ? nullptr : boxOfNode(node);
  if (m_findHit) m_findHit->setFindHit(true);
}

BoxItem* GraphScene::boxOfNode(const QString& name) const {
  if (!m_graph || !m_visible) return nullptr;
  const int n = m_graph->nodeIndex(name);
  if (n < 0) return nullptr;
  const int item = m_visible->itemOfNode[static_cast<size_t>(n)];
  return item >= 0 && static_cast<size_t>(item) < m_boxes.size() ? m_boxes[static_cast<size_t>(item)] : nullptr;
}

QStringList GraphScene::nodesOfBox(const BoxItem* box) const {
  QStringList out;
  const VisibleItem& it = m_visible->items[static_cast<size_t>(box->itemIndex())];
  if (it.kind == VisibleItem::Kind::Node) return {m_graph->nodes()[static_cast<size_t>(it.index)].id};
  for (int n : m_graph->nodesInBlock(it.index)) out << m_graph->nodes()[static_cast<size_t>(n)].id;
  return out;
}

QStringList GraphScene::selectedNodeNames() const {
  QStringList out;
  if (!m_graph) return out;
  for (BoxItem* b : m_boxes)
    if (b->isSelected()) out << nodesOfBox(b);
  return out;
}

void GraphScene::selectNodeNames(const QStringList& names) {
  m_selecting = true;
  clearSelection();
  for (const QString& n : names)
    if (BoxItem* b = boxOfNode(n)) b->setSelected(true);
  m_selecting = false;
  updateHighlights();
}

void GraphScene::updateHighlights() {
  for (EdgeItem* e : m_edges) e->setHighlighted(false);
  for (size_t i = 0; i < m_boxes.size(); ++i)
    if (m_boxes[i]->isSelected())
      for (int e : m_boxEdges[i]) m_edges[static_cast<size_t>(e)]->setHighlighted(true);
}

QRectF GraphScene::sceneRectOfNodes(const QStringList& names) const {
  QRectF r;
  for (const QString& n : names)
    if (const BoxItem* b = boxOfNode(n)) r |= b->mapRectToScene(b->rect());
  return r;
}

void GraphScene::onSelectionChanged() {
  if (m_selecting) return;
  updateHighlights();
  emit nodeSelectionChanged(selectedNodeNames());
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
  if (!m_visible) return QGraphicsScene::mouseDoubleClickEvent(e);  // being populated
  for (QGraphicsItem* item : items(e->scenePos())) {
    if (item->type() == BoxItem::Type) {
      auto* box = static_cast<BoxItem*>(item);
      if (box->kind() == BoxItem::Kind::Block) {
        emit expandRequested(m_visible->items[static_cast<size_t>(box->itemIndex())].index);
        return;
      }
      break;
    }
    if (item->type() == FrameItem::Type && static_cast<FrameItem*>(item)->titleRect().contains(e->scenePos())) {
      const int block = static_cast<FrameItem*>(item)->block();
      // A folded run's frame unfolds (every member drawn); any other frame collapses.
      if (m_graph->blocks()[static_cast<size_t>(block)].repeat > 0) emit expandRequested(block);
      else emit collapseRequested(block);
      return;
    }
    if (item->type() == EdgeItem::Type && static_cast<EdgeItem*>(item)->isStub()) {
      const VisibleEdge& ve = m_visible->edges[static_cast<size_t>(static_cast<EdgeItem*>(item)->edgeIndex())];
      emit jumpRequested(nodesOfBox(m_boxes[static_cast<size_t>(ve.from)]).value(0));
      return;
    }
  }
  QGraphicsScene::mouseDoubleClickEvent(e);
}

QString GraphScene::tooltip(const BoxItem* box) const {
  const VisibleItem& it = m_visible->items[static_cast<size_t>(box->itemIndex())];
  if (it.kind == VisibleItem::Kind::Block) {
    const ScopeBlock& b = m_graph->blocks()[static_cast<size_t>(it.index)];
    return QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>").arg(b.path.toHtmlEscaped(), countText(b.totalNodes), tr("double-click to expand"));
  }
  const ViewNode& n = m_graph->nodes()[static_cast<size_t>(it.index)];
  QString t = QStringLiteral("<b>%1</b> <span style='color:#6b7280'>%2</span><br>%3")
                  .arg(n.opType.toHtmlEscaped(), opCategoryName(n.category), n.id.toHtmlEscaped());
  if (!n.detail.isEmpty()) t += QStringLiteral("<br>") + n.detail.toHtmlEscaped();
  return t;
}

void GraphScene::helpEvent(QGraphicsSceneHelpEvent* e) {
  if (!m_visible) return QGraphicsScene::helpEvent(e);  // being populated
  for (QGraphicsItem* item : items(e->scenePos())) {
    if (item->type() == BoxItem::Type) {
      QToolTip::showText(e->screenPos(), tooltip(static_cast<BoxItem*>(item)));
      e->accept();
      return;
    }
  }
  QGraphicsScene::helpEvent(e);
}

void GraphScene::drawBackground(QPainter* p, const QRectF& rect) { p->fillRect(rect, m_style.background); }

OverviewPicture GraphScene::overviewPicture() const {
  OverviewPicture o;
  o.frameBorder = m_style.frameBorder;
  o.frameFill = m_style.frameFill;
  o.frames.reserve(m_frames.size());
  for (const FrameItem* f : m_frames) o.frames.push_back(f->rect());
  o.boxes.reserve(m_boxes.size());
  for (const BoxItem* b : m_boxes) o.boxes.emplace_back(b->mapRectToScene(b->rect()), b->fillColor());
  return o;
}

void OverviewPicture::paint(QPainter* p) const {
  p->save();
  p->setRenderHint(QPainter::Antialiasing, false);
  p->setPen(QPen(frameBorder, 0));
  p->setBrush(frameFill);
  for (const QRectF& f : frames) p->drawRect(f);
  p->setPen(Qt::NoPen);
  for (const auto& [rect, fill] : boxes) p->fillRect(rect, fill);
  p->restore();
}

}  // namespace msa::ui
