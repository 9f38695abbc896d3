#include "graph/overview_render.h"

#include <QPainter>
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
  if (m_job.running()) return false;
  // Copied here, on the scene's thread: the worker never touches the items.
  auto picture = std::make_shared<const OverviewPicture>(scene.overviewPicture());
  m_job.start([picture, sceneRect, size](const Progress&) -> Result<QImage> { return renderOverview(*picture, sceneRect, size); },
              {.done = [this, sceneRect, tag](QImage image) { emit rendered(image, sceneRect, tag); }});
  return true;
}

}  // namespace msa::ui
