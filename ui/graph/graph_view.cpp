#include "graph/graph_view.h"

#include <QKeyEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QScopeGuard>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

#include "graph/graph_scene.h"
#include "graph/overview_render.h"

namespace msa::ui {
namespace {

constexpr double kFarZoom = 0.12;        // boxes are 4 px tall and carry no text below this
constexpr size_t kFarBoxes = 3000;       // smaller graphs paint item by item at any zoom
constexpr double kFarPixels = 8.0e6;     // the image's size limit (32 MB)
constexpr double kFarMaxUpscale = 2.0;   // beyond this the image would blur: items again

}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), m_farRenderer(new OverviewRenderer(this)) {
  connect(m_farRenderer, &OverviewRenderer::rendered, this, &GraphView::farImageRendered);
  setDragMode(ScrollHandDrag);
  setTransformationAnchor(AnchorUnderMouse);
  setResizeAnchor(AnchorViewCenter);
  setViewportUpdateMode(SmartViewportUpdate);
  // Items leave margins in their bounding rects for antialiasing and selection rings, and every
  // paint() sets the pen, brush, font and hints it uses: no per-item save/restore.
  setOptimizationFlags(DontAdjustForAntialiasing | DontSavePainterState);
  setFrameShape(QFrame::NoFrame);
  // The overview replaces scrollbars; drag, wheel and keys move the view.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setFocusPolicy(Qt::StrongFocus);
  setRenderHint(QPainter::TextAntialiasing, true);
}

QRectF GraphView::contentRect() const { return scene() ? scene()->sceneRect() : QRectF(); }

void GraphView::setZoom(double z) {
  if (!m_homing) m_atHome = false;
  z = std::clamp(z, kMinZoom, kMaxZoom);
  const double f = z / zoom();
  if (std::abs(f - 1) < 1e-9) return;
  scale(f, f);
  emit zoomChanged(zoom());
  emit viewportChanged();
}

void GraphView::zoomBy(double factor) { setZoom(zoom() * factor); }

void GraphView::fitAll() {
  if (!m_homing) m_atHome = false;
  const QRectF r = contentRect();
  if (r.isEmpty()) return;
  const QRectF vp = viewport()->rect();
  const double z = std::min(vp.width() / r.width(), vp.height() / r.height());
  setZoom(std::min(z, 1.0));
  centerOn(r.center());
  emit viewportChanged();
}

void GraphView::homeView(const QRectF& focus, OverlayCorners corners) {
  const QRectF r = contentRect();
  if (r.isEmpty()) return;
  m_homing = true;
  const auto home = qScopeGuard([&] {
    m_homing = false;
    m_atHome = true;
    m_homeFocus = focus;
    m_homeCorners = corners;
  });
  const QRectF vp = viewport()->rect();
  const double W = vp.width(), H = vp.height();
  // All of it when that stays readable: the overview then hides, nothing to keep clear of.
  if (std::min(W / r.width(), H / r.height()) >= kReadableZoom) {
    fitAll();
    return;
  }
  // Tall graphs, from the top (the inputs): as wide as fits at a readable zoom (55 to 100 %)
  // in the band between the bottom corners' overlays. What does not fit in the band goes under
  // the shorter overlay, which covers fewer boxes. Wider than the view even so: centred on the
  // inputs.
  const double left = corners.left.width(), right = corners.right.width();
  const double band = std::max(W - left - right, 0.0);
  double z = std::clamp(band / r.width(), kReadableZoom, 1.0);
  if (r.width() * z > W) z = std::clamp(W / r.width(), kReadableZoom, 1.0);
  setZoom(z);
  const double halfW = W / z / 2, halfH = H / z / 2, drawnW = r.width() * z;
  const double overflow = std::max(drawnW - band, 0.0);
  const double drawnLeft = corners.left.height() <= corners.right.height() ? std::max(left - overflow, 0.0) : left;
  double x = r.center().x() - (drawnLeft + drawnW / 2 - W / 2) / z;
  if (drawnW > W) {
    // The view may pass the graph's edge by an overlay's width: a column of boxes along the
    // edge then lies beside the overlay, not under it.
    const double want = focus.isValid() ? focus.center().x() : r.left() + halfW;
    x = std::clamp(want, r.left() + halfW - left / z, r.right() - halfW + right / z);
  }
  centreWithRoom(QPointF(x, r.top() + halfH));
  emit viewportChanged();
}

QRect GraphView::freeViewport() const {
  const QRect vp = viewport()->rect();
  // A view too short to give the overlays their band frames in all of it.
  return m_bottomOverlay > 0 && vp.height() - m_bottomOverlay >= vp.height() / 3 ? vp.adjusted(0, 0, 0, -m_bottomOverlay) : vp;
}

double GraphView::zoomToFit(const QRectF& rect) const {
  const QRectF target = rect.adjusted(-60, -60, 60, 60);
  const QRect free = freeViewport();
  return std::min(free.width() / target.width(), free.height() / target.height());
}

void GraphView::frameRect(const QRectF& rect) {
  if (rect.isNull()) return;
  m_atHome = false;
  const QRectF vp = viewport()->rect(), free = freeViewport();
  const double fit = zoomToFit(rect);
  // Keep the zoom when the target already fits at a readable size; otherwise fit it.
  if (!(zoom() <= fit && zoom() >= 0.5)) setZoom(std::min(fit, 1.0));
  // The target's centre on the free part's centre: centerOn puts it at the viewport's. A target
  // at the graph's bottom edge needs room below the graph to get there: the view scrolls past
  // the scene by as much, until the scene changes.
  centreWithRoom(rect.center() + (vp.center() - free.center()) / zoom());
  emit viewportChanged();
}

void GraphView::centreWithRoom(QPointF centre) {
  const QRectF vp = viewport()->rect();
  const QRectF visible(centre - QPointF(vp.width(), vp.height()) / (2 * zoom()), vp.size() / zoom());
  if (scene()) {
    connect(scene(), &QGraphicsScene::sceneRectChanged, this, &GraphView::followSceneRect, Qt::UniqueConnection);
    if (!scene()->sceneRect().contains(visible)) setSceneRect(scene()->sceneRect() | visible);
  }
  centerOn(centre);
}

void GraphView::followSceneRect() {
  setSceneRect(QRectF());
  if (m_atHome) homeView(m_homeFocus, m_homeCorners);  // outline labels widened the scene
}

void GraphView::setPlaceholder(const QString& text) {
  m_placeholder = text;
  viewport()->update();
}

void GraphView::wheelEvent(QWheelEvent* e) {
  m_atHome = false;  // the user moves the view
  if (e->modifiers() & Qt::ShiftModifier) {  // Shift+wheel pans sideways
    QGraphicsView::wheelEvent(e);
    return;
  }
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  setTransformationAnchor(AnchorUnderMouse);
  zoomBy(std::pow(1.2, steps));
  e->accept();
}

void GraphView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: setTransformationAnchor(AnchorViewCenter); zoomIn(); return;
    case Qt::Key_Minus: setTransformationAnchor(AnchorViewCenter); zoomOut(); return;
    case Qt::Key_0: fitAll(); return;
    case Qt::Key_1: setTransformationAnchor(AnchorViewCenter); actualSize(); return;
    default: break;
  }
  const QPoint before = scrollPosition();
  QGraphicsView::keyPressEvent(e);
  if (scrollPosition() != before) m_atHome = false;  // arrows, pages; not a shortcut's modifier
}

void GraphView::mousePressEvent(QMouseEvent* e) {
  m_pressScroll = scrollPosition();
  // Shift-drag selects a rectangle; a plain drag pans.
  setDragMode((e->modifiers() & Qt::ShiftModifier) ? RubberBandDrag : ScrollHandDrag);
  QGraphicsView::mousePressEvent(e);
}

void GraphView::mouseReleaseEvent(QMouseEvent* e) {
  QGraphicsView::mouseReleaseEvent(e);
  setDragMode(ScrollHandDrag);
  if (scrollPosition() != m_pressScroll) m_atHome = false;  // dragged, not a click on a node
}

QPoint GraphView::scrollPosition() const { return {horizontalScrollBar()->value(), verticalScrollBar()->value()}; }

void GraphView::keepHome(OverlayCorners corners) {
  if (m_atHome) homeView(m_homeFocus, corners);
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  emit viewportChanged();
}

void GraphView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  emit viewportChanged();
}

bool GraphView::farView() const {
  const auto* s = qobject_cast<const GraphScene*>(scene());
  return s && s->boxes().size() >= kFarBoxes && zoom() < kFarZoom;
}

bool GraphView::ensureFarImage() {
  if (m_watched != scene()) {
    if (m_watched) disconnect(m_watched, nullptr, this, nullptr);
    m_watched = scene();
    connect(m_watched, &QGraphicsScene::changed, this, [this] { ++m_sceneVersion; });
    m_far = QImage();  // another scene's
    m_sceneShownSince = ++m_sceneVersion;
  }
  const QRectF sceneRect = scene()->sceneRect();
  const double z = zoom() * devicePixelRatioF();
  // At the current zoom, or coarser when that would exceed the size limit.
  const double fitLimit = std::sqrt(kFarPixels / std::max(1.0, sceneRect.width() * sceneRect.height()));
  const double want = std::min(z, fitLimit);
  if (z / want > kFarMaxUpscale) return false;
  const QSize size(std::max(1, static_cast<int>(std::ceil(sceneRect.width() * want))),
                   std::max(1, static_cast<int>(std::ceil(sceneRect.height() * want))));
  const auto* graphScene = qobject_cast<const GraphScene*>(scene());
  const bool drawable = !m_far.isNull() && m_farScene == sceneRect && z / m_farScale <= kFarMaxUpscale;
  if (!drawable) {  // nothing to show meanwhile: made now
    m_far = renderOverview(graphScene->overviewPicture(), sceneRect, size);
    m_farScene = sceneRect;
    m_farScale = want;
    m_farVersion = m_sceneVersion;
    ++m_farStats.onGuiThread;
    return true;
  }
  // Reused while the zoom stays within a factor of 1.5 of the image's and the scene is unchanged.
  const bool inRange = want / m_farScale < 1.5 && m_farScale / want < 1.5;
  if (!inRange || m_farVersion != m_sceneVersion) (void)m_farRenderer->request(*graphScene, sceneRect, size, m_sceneVersion);
  return true;
}

bool GraphView::farImageRendering() const { return m_farRenderer->busy(); }

void GraphView::farImageRendered(const QImage& image, const QRectF& sceneRect, quint64 version) {
  if (version < m_sceneShownSince || !scene()) return;  // painted for a scene no longer shown
  m_far = image;
  m_farScene = sceneRect;
  m_farScale = static_cast<double>(image.width()) / sceneRect.width();
  m_farVersion = version;
  ++m_farStats.inBackground;
  viewport()->update();  // the next frame shows it, and asks for another if the view moved on
}

void GraphView::paintEvent(QPaintEvent* e) {
  if (!farView() || !ensureFarImage()) {
    QGraphicsView::paintEvent(e);
    return;
  }
  QPainter p(viewport());
  const auto* gs = qobject_cast<const GraphScene*>(scene());
  p.fillRect(e->rect(), gs->graphStyle().background);
  p.setRenderHint(QPainter::SmoothPixmapTransform, true);
  const QRectF target(mapFromScene(m_farScene.topLeft()), mapFromScene(m_farScene.bottomRight()));
  p.drawImage(target, m_far, QRectF(m_far.rect()));
  if (dragMode() == RubberBandDrag && !rubberBandRect().isEmpty()) {
    p.setPen(QPen(palette().highlight().color(), 1));
    QColor fill = palette().highlight().color();
    fill.setAlpha(40);
    p.setBrush(fill);
    p.drawRect(rubberBandRect());
  }
  p.setTransform(viewportTransform());
  drawForeground(&p, mapToScene(viewport()->rect()).boundingRect());
}

void GraphView::drawForeground(QPainter* p, const QRectF&) {
  if (m_placeholder.isEmpty()) return;
  p->save();
  p->resetTransform();
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 1.25);
  p->setFont(f);
  p->setPen(QColor(0x6b, 0x72, 0x80));
  p->drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
  p->restore();
}

}  // namespace msa::ui
