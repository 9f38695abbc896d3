#pragma once
// An overview of the whole graph with the viewport's rectangle; click or drag to navigate.
// The scene is rendered once into a pixmap (at that scale every item draws its cheapest form)
// and re-rendered only when told the content changed. Very tall graphs keep a usable width and
// the overview scrolls to follow the viewport.
#include <QPixmap>
#include <QTimer>
#include <QWidget>

namespace msa::ui {

class OverviewRenderer;

class GraphView;

class Minimap : public QWidget {
  Q_OBJECT
 public:
  explicit Minimap(GraphView* view, QWidget* parent = nullptr);

  void contentChanged();  // re-render soon
  void renderNow();
  // Shown only while part of the graph is out of view (and a graph is there).
  void setEnabledOverview(bool on);
  // Whether the view has room for it beside the other overlays: without, it stays hidden.
  void setRoom(bool room);
  bool hasRoom() const { return m_room; }
  QRectF viewportInMinimap() const;  // for tests
  bool stale() const { return m_stale; }  // for tests: the content changed while hidden
  QPointF sceneAt(QPointF widgetPos) const;

 protected:
  void paintEvent(QPaintEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;

 private:
  double scale() const;
  double offsetY() const;
  QPointF toWidget(QPointF scenePos) const;
  void navigate(QPointF widgetPos);
  void followView();
  void imageRendered(const QImage& image, const QRectF& sceneRect);

  GraphView* m_view;
  QPixmap m_pixmap;
  QRectF m_sceneRect;    // the graph's bounds
  QRectF m_pixmapScene;  // what the pixmap shows (the bounds when it was painted)
  OverviewRenderer* m_renderer;
  bool m_renderAgain = false;  // asked while one was being painted
  QTimer m_timer;
  bool m_enabled = false;
  bool m_room = true;
  bool m_stale = false;  // content changed while hidden: render when shown
};

}  // namespace msa::ui
