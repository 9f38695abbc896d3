#pragma once
// The graph's viewport: drag to pan, wheel to zoom at the cursor, keys for zoom and fit, and
// framing of scene rectangles. Level-of-detail drawing lives in the items.
#include <QGraphicsView>
#include <QImage>
#include <QPointer>
#include <QSize>
#include <algorithm>

namespace msa::ui {

class OverviewRenderer;

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);

  double zoom() const { return transform().m11(); }
  void setZoom(double zoom);
  void zoomBy(double factor);
  void zoomIn() { zoomBy(1.25); }
  void zoomOut() { zoomBy(1 / 1.25); }
  void fitAll();
  void actualSize() { setZoom(1.0); }
  // The bottom corners the overlays hold: the legend on the left, the overview on the right.
  struct OverlayCorners {
    QSize left, right;
  };
  // The first view of a graph: all of it when that stays readable, else the top at a readable
  // zoom in the band between the overlays' corners and, when wider than the view, centred on
  // `focus` (the graph inputs).
  void homeView(const QRectF& focus = {}, OverlayCorners corners = {});
  // The first view again for the viewport's new size or overlays (docks appearing after an
  // analysis shrink it), as long as the user has not zoomed, scrolled or framed since.
  void keepHome(OverlayCorners corners);
  void leaveHome() { m_atHome = false; }  // the user moved the view by other means (the overview)
  // Brings a scene rectangle into view, zooming out if it does not fit, in at most to 100 %,
  // inside the part of the viewport the overlays leave free.
  void frameRect(const QRectF& rect);
  // The band along the viewport's bottom edge the overlays (legend, overview) may cover: framed
  // targets are placed above it.
  void setBottomOverlay(int pixels) { m_bottomOverlay = std::max(0, pixels); }
  // The viewport's free part, in viewport coordinates.
  QRect freeViewport() const;
  // The zoom at which frameRect shows all of `rect` (with its margin) in the free part.
  double zoomToFit(const QRectF& rect) const;
  void setPlaceholder(const QString& text);

  // How the far view's images were made: on the GUI thread (nothing to show meanwhile) or by a
  // worker while the previous one was shown.
  struct FarImageStats {
    int onGuiThread = 0, inBackground = 0;
  };
  const FarImageStats& farImageStats() const { return m_farStats; }
  bool farImageRendering() const;

  static constexpr double kMinZoom = 0.002, kMaxZoom = 4.0;
  static constexpr double kReadableZoom = 0.55;  // box labels still read

 signals:
  void zoomChanged(double zoom);
  void viewportChanged();

 protected:
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* e) override;
  void drawForeground(QPainter* p, const QRectF& rect) override;
  void paintEvent(QPaintEvent* e) override;

 private:
  QRectF contentRect() const;
  // Centres the view on `centre`, the view's scene rectangle widened when the scene alone is
  // too small to scroll there (a target at the graph's edge, a graph narrower than the view).
  void centreWithRoom(QPointF centre);
  void followSceneRect();  // the scene's own rectangle again (centreWithRoom may have widened it)
  int m_bottomOverlay = 0;
  // The view is the first view, set by homeView and left by the user's zoom, scroll or frame
  // (not by the scrolls Qt makes when the viewport or the scene changes size).
  bool m_atHome = false, m_homing = false;
  QPoint scrollPosition() const;
  QPoint m_pressScroll;
  QRectF m_homeFocus;
  OverlayCorners m_homeCorners;
  // Far out on a large graph every box is a few pixels: the frame is drawn from one image of the
  // whole scene instead of item by item, so panning and zooming stay within a frame's time at
  // 10,000 boxes. The image is made on this thread only when there is none to show (or it would
  // blur); when the zoom leaves its range or the scene changes, the one there is keeps being
  // shown while a worker paints the next (a whole-scene image costs 20-40 ms at 10,000 boxes).
  bool farView() const;
  bool ensureFarImage();
  void farImageRendered(const QImage& image, const QRectF& sceneRect, quint64 version);
  QString m_placeholder;
  QImage m_far;
  QRectF m_farScene;      // the scene rectangle the image shows
  double m_farScale = 0;  // image pixels per scene unit
  // The scene's changes seen, the image's, and the first of the scene shown now.
  quint64 m_sceneVersion = 0, m_farVersion = 0, m_sceneShownSince = 0;
  OverviewRenderer* m_farRenderer;
  FarImageStats m_farStats;
  QPointer<QGraphicsScene> m_watched;
};

}  // namespace msa::ui
