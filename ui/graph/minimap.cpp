#include "graph/minimap.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <utility>

#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/overview_render.h"

namespace msa::ui {
namespace {
constexpr double kPad = 6;
constexpr double kMinContentWidth = 60;  // a tall graph stays at least this wide
}  // namespace

Minimap::Minimap(GraphView* view, QWidget* parent) : QWidget(parent), m_view(view), m_renderer(new OverviewRenderer(this)) {
  setFixedSize(190, 230);
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
  connect(m_renderer, &OverviewRenderer::rendered, this,
          [this](const QImage& image, const QRectF& sceneRect, quint64) { imageRendered(image, sceneRect); });
  m_timer.setSingleShot(true);
  m_timer.setInterval(60);
  connect(&m_timer, &QTimer::timeout, this, &Minimap::renderNow);
  connect(view, &GraphView::viewportChanged, this, &Minimap::followView);
}

void Minimap::contentChanged() { m_timer.start(); }

void Minimap::followView() {
  // Nothing to navigate when the whole graph is in view.
  if (m_enabled && !m_sceneRect.isEmpty()) {
    const QRectF vis = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    setVisible(m_room && !vis.contains(m_sceneRect));
    if (!isHidden() && m_stale) renderNow();
  }
  update();
}

void Minimap::setRoom(bool room) {
  if (std::exchange(m_room, room) == room) return;
  if (!room) hide();
  else followView();
}

void Minimap::setEnabledOverview(bool on) {
  m_enabled = on;
  if (!on) hide();
  else followView();
}

double Minimap::scale() const {
  if (m_sceneRect.isEmpty()) return 1;
  const double w = width() - 2 * kPad, h = height() - 2 * kPad;
  const double fit = std::min(w / m_sceneRect.width(), h / m_sceneRect.height());
  return std::max(fit, std::min(w, kMinContentWidth) / m_sceneRect.width());
}

double Minimap::offsetY() const {  // scroll of a content taller than the widget
  const double contentH = m_sceneRect.height() * scale();
  const double h = height() - 2 * kPad;
  if (contentH <= h) return 0;
  const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
  const double y = (centre.y() - m_sceneRect.top()) * scale() - h / 2;
  return std::clamp(y, 0.0, contentH - h);
}

QPointF Minimap::toWidget(QPointF p) const {
  const double s = scale();
  const double contentW = m_sceneRect.width() * s;
  const double x0 = kPad + (width() - 2 * kPad - contentW) / 2;
  const double contentH = m_sceneRect.height() * s;
  const double y0 = kPad + std::max(0.0, (height() - 2 * kPad - contentH) / 2) - offsetY();
  return {x0 + (p.x() - m_sceneRect.left()) * s, y0 + (p.y() - m_sceneRect.top()) * s};
}

QPointF Minimap::sceneAt(QPointF w) const {
  const QPointF origin = toWidget(m_sceneRect.topLeft());
  const double s = scale();
  return {m_sceneRect.left() + (w.x() - origin.x()) / s, m_sceneRect.top() + (w.y() - origin.y()) / s};
}

void Minimap::renderNow() {
  QGraphicsScene* scene = m_view->scene();
  // The scene rectangle is the layout's bounds (GraphScene sets it); itemsBoundingRect() visits every item.
  const auto* graphScene = qobject_cast<const GraphScene*>(scene);
  m_sceneRect = !scene ? QRectF() : graphScene ? (graphScene->hasGraph() ? scene->sceneRect() : QRectF()) : scene->itemsBoundingRect();
  if (m_sceneRect.isEmpty()) {
    m_pixmap = QPixmap();
    update();
    return;
  }
  // Hidden (the whole graph in view), only the bounds are needed: at 10,000 boxes a render
  // takes 20-40 ms of the event loop, done when the overview shows again.
  m_stale = isHidden();
  if (m_stale) {
    followView();
    return;
  }
  const double s = scale();
  const QSize size(std::max(1, static_cast<int>(std::ceil(m_sceneRect.width() * s))),
                   std::max(1, static_cast<int>(std::ceil(m_sceneRect.height() * s))));
  const qreal dpr = devicePixelRatioF();
  if (const auto* gs = qobject_cast<const GraphScene*>(scene)) {
    // Plain rectangles, on a worker: 20-40 ms at 10,000 boxes. The previous image stays until then.
    m_renderAgain = !m_renderer->request(*gs, m_sceneRect, size * dpr, 0);
  } else {
    QPixmap pixmap(size * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    scene->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), m_sceneRect, Qt::IgnoreAspectRatio);
    p.end();
    m_pixmap = pixmap;
    m_pixmapScene = m_sceneRect;
  }
  followView();
}

void Minimap::imageRendered(const QImage& image, const QRectF& sceneRect) {
  if (m_sceneRect.isEmpty()) return;  // the graph went away meanwhile
  m_pixmap = QPixmap::fromImage(image);
  m_pixmap.setDevicePixelRatio(devicePixelRatioF());
  m_pixmapScene = sceneRect;
  update();
  if (std::exchange(m_renderAgain, false)) renderNow();  // the content changed while it was painted
}

QRectF Minimap::viewportInMinimap() const {
  const QRectF vis = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  return QRectF(toWidget(vis.topLeft()), toWidget(vis.bottomRight()));
}

void Minimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(QColor(0xc9, 0xce, 0xd6), 1));
  p.setBrush(QColor(255, 255, 255, 235));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
  if (m_pixmap.isNull()) return;
  p.setClipRect(QRectF(rect()).adjusted(kPad / 2, kPad / 2, -kPad / 2, -kPad / 2));
  // The image of the scene as it was painted, where that rectangle is now.
  p.drawPixmap(QRectF(toWidget(m_pixmapScene.topLeft()), toWidget(m_pixmapScene.bottomRight())), m_pixmap, QRectF(m_pixmap.rect()));
  const QRectF vp = viewportInMinimap();
  p.setPen(QPen(QColor(0x1a, 0x73, 0xe8), 1.5));
  p.setBrush(QColor(0x1a, 0x73, 0xe8, 28));
  p.drawRect(vp.adjusted(0, 0, -1, -1));
}

void Minimap::navigate(QPointF w) {
  if (m_sceneRect.isEmpty()) return;
  m_view->leaveHome();
  m_view->centerOn(sceneAt(w));
}

void Minimap::mousePressEvent(QMouseEvent* e) { navigate(e->position()); }
void Minimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) navigate(e->position());
}

}  // namespace msa::ui
