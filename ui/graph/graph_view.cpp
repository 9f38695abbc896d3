#include "graph/graph_view.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <cmath>

namespace msa::ui {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
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
  z = std::clamp(z, kMinZoom, kMaxZoom);
  const double f = z / zoom();
  if (std::abs(f - 1) < 1e-9) return;
  scale(f, f);
  emit zoomChanged(zoom());
  emit viewportChanged();
}

void GraphView::zoomBy(double factor) { setZoom(zoom() * factor); }

void GraphView::fitAll() {
  const QRectF r = contentRect();
  if (r.isEmpty()) return;
  const QRectF vp = viewport()->rect();
  const double z = std::min(vp.width() / r.width(), vp.height() / r.height());
  setZoom(std::min(z, 1.0));
  centerOn(r.center());
  emit viewportChanged();
}

void GraphView::homeView(const QRectF& focus, QSizeF keepClear) {
  const QRectF r = contentRect();
  if (r.isEmpty()) return;
  const QRectF vp = viewport()->rect();
  const double W = vp.width(), H = vp.height();
  constexpr double kReadable = 0.55;
  // All of it when that stays readable: the overview then hides, nothing to keep clear of.
  if (std::min(W / r.width(), H / r.height()) >= kReadable) {
    fitAll();
    return;
  }
  // Tall graphs, from the top (the inputs): as wide as fits at a readable zoom (55 to 100 %).
  // Narrower than the view, the view centres it: a margin of the overview's width on both sides
  // keeps it clear of the overview's corner. Wider even so: centred on the inputs.
  double z = std::clamp((W - 2 * keepClear.width()) / r.width(), kReadable, 1.0);
  if (r.width() * z > W) z = std::clamp(W / r.width(), kReadable, 1.0);
  setZoom(z);
  const double halfW = W / z / 2, halfH = H / z / 2;
  double x = r.center().x();
  if (r.width() * z > W) {
    const double want = focus.isValid() ? focus.center().x() : r.left() + halfW;
    x = std::clamp(want, r.left() + halfW, r.right() - halfW);
  }
  centerOn(QPointF(x, r.top() + halfH));
  emit viewportChanged();
}

void GraphView::frameRect(const QRectF& rect) {
  if (rect.isNull()) return;
  const QRectF target = rect.adjusted(-60, -60, 60, 60);
  const QRectF vp = viewport()->rect();
  const double fit = std::min(vp.width() / target.width(), vp.height() / target.height());
  // Keep the zoom when the target already fits at a readable size; otherwise fit it.
  if (!(zoom() <= fit && zoom() >= 0.5)) setZoom(std::min(fit, 1.0));
  centerOn(rect.center());
  emit viewportChanged();
}

void GraphView::setPlaceholder(const QString& text) {
  m_placeholder = text;
  viewport()->update();
}

void GraphView::wheelEvent(QWheelEvent* e) {
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
  QGraphicsView::keyPressEvent(e);
}

void GraphView::mousePressEvent(QMouseEvent* e) {
  // Shift-drag selects a rectangle; a plain drag pans.
  setDragMode((e->modifiers() & Qt::ShiftModifier) ? RubberBandDrag : ScrollHandDrag);
  QGraphicsView::mousePressEvent(e);
}

void GraphView::mouseReleaseEvent(QMouseEvent* e) {
  QGraphicsView::mouseReleaseEvent(e);
  setDragMode(ScrollHandDrag);
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  emit viewportChanged();
}

void GraphView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  emit viewportChanged();
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
