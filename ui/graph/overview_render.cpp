#include "graph/overview_render.h"

#include <QPainter>
#include <QtConcurrent/QtConcurrentRun>
#include <memory>

namespace msa::ui {

QImage renderOverview(const OverviewPicture& picture, const QRectF& sceneRect, QSize size) {
  QImage image(size.expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter p(&image);
  p.scale(static_cast<double>(image.width()) / sceneRect.width(), static_cast<double>(image.height()) / sceneRect.height());
  p.translate(-sceneRect.topLeft());
  picture.paint(&p);
  return image;
}

bool OverviewRenderer::request(const GraphScene& scene, const QRectF& sceneRect, QSize size, quint64 tag) {
  if (m_running) return false;
  // Copied here, on the scene's thread: the worker never touches the items.
  auto picture = std::make_shared<const OverviewPicture>(scene.overviewPicture());
  m_running = new QFutureWatcher<QImage>(this);
  connect(m_running, &QFutureWatcher<QImage>::finished, this, [this, sceneRect, tag] {
    QFutureWatcher<QImage>* done = m_running;
    m_running = nullptr;
    done->deleteLater();
    emit rendered(done->result(), sceneRect, tag);
  });
  m_running->setFuture(QtConcurrent::run([picture, sceneRect, size] { return renderOverview(*picture, sceneRect, size); }));
  return true;
}

}  // namespace msa::ui
