#pragma once
// The overview picture (frames and boxes as plain rectangles) painted into an image, on the
// calling thread or on a worker: at 10,000 boxes a whole-scene image costs 20-40 ms, too long
// for the GUI thread while the user zooms or the overview appears.
#include <QImage>
#include <QObject>
#include <QRectF>

#include "graph/graph_scene.h"
#include "job.h"

namespace msa::ui {

QImage renderOverview(const OverviewPicture& picture, const QRectF& sceneRect, QSize size);

class OverviewRenderer : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  // Paints the scene's picture on a worker; `rendered` hands the image back with `tag`. One at a
  // time: false while one runs (ask again when it has landed).
  bool request(const GraphScene& scene, const QRectF& sceneRect, QSize size, quint64 tag);
  bool busy() const { return m_job.running(); }

 signals:
  void rendered(const QImage& image, const QRectF& sceneRect, quint64 tag);

 private:
  Job<QImage> m_job{this};
};

}  // namespace msa::ui
