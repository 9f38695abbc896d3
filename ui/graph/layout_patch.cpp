#include "graph/layout_patch.h"

#include <QHash>
#include <QMultiHash>

namespace msa::ui {
namespace {

constexpr double kArrowLength = 7;

// From the source box's bottom to just above the target's top, leaving and arriving vertically.
Layout::Edge curve(QPointF fromCentre, QSizeF fromSize, QPointF toCentre, QSizeF toSize) {
  Layout::Edge e;
  const QPointF p0(fromCentre.x(), fromCentre.y() + fromSize.height() / 2);
  const QPointF tip(toCentre.x(), toCentre.y() - toSize.height() / 2);
  const double dir = tip.y() >= p0.y() ? 1.0 : -1.0;
  const QPointF end(tip.x(), tip.y() - dir * kArrowLength);
  const double dy = end.y() - p0.y();
  e.points = {p0, QPointF(p0.x(), p0.y() + dy / 2), QPointF(end.x(), end.y() - dy / 2), end};
  e.hasArrow = true;
  e.arrowTip = tip;
  return e;
}

}  // namespace

LayoutPtr patchLayout(const LayoutRequest& before, const Layout& layout, const LayoutRequest& after, int maxNewEdges) {
  if (layout.nodeCentres.size() != before.nodes.size() || layout.nodeSizes.size() != before.nodes.size() ||
      layout.edges.size() != before.edges.size() || layout.clusterRects.size() != before.clusters.size())
    return nullptr;
  if (after.nodes.size() > before.nodes.size()) return nullptr;
  QHash<QString, int> oldNode, oldCluster;
  for (size_t i = 0; i < before.nodes.size(); ++i) oldNode.insert(before.nodes[i].id, static_cast<int>(i));
  for (size_t i = 0; i < before.clusters.size(); ++i) oldCluster.insert(before.clusters[i].id, static_cast<int>(i));
  auto clusterId = [](const LayoutRequest& r, int c) { return c >= 0 ? r.clusters[static_cast<size_t>(c)].id : QString(); };

  auto out = std::make_shared<Layout>();
  out->patched = true;
  std::vector<int> fromOld(after.nodes.size());
  for (size_t i = 0; i < after.nodes.size(); ++i) {
    const LayoutRequest::Node& n = after.nodes[i];
    const int o = oldNode.value(n.id, -1);
    if (o < 0) return nullptr;
    const LayoutRequest::Node& was = before.nodes[static_cast<size_t>(o)];
    if (clusterId(after, n.cluster) != clusterId(before, was.cluster)) return nullptr;
    if (n.size.width() > was.size.width() * 1.2 || n.size.height() > was.size.height() * 1.2) return nullptr;
    fromOld[i] = o;
    out->nodeCentres.push_back(layout.nodeCentres[static_cast<size_t>(o)]);
    out->nodeSizes.push_back(n.size);
  }
  for (const LayoutRequest::Cluster& c : after.clusters) {
    const int o = oldCluster.value(c.id, -1);
    if (o < 0) return nullptr;
    out->clusterRects.push_back(layout.clusterRects[static_cast<size_t>(o)]);
    out->clusterLabels.push_back(o < static_cast<int>(layout.clusterLabels.size()) ? layout.clusterLabels[static_cast<size_t>(o)]
                                                                                    : layout.clusterRects[static_cast<size_t>(o)].topLeft());
  }
  QMultiHash<QPair<QString, QString>, int> oldEdges;
  for (size_t i = 0; i < before.edges.size(); ++i) {
    const auto& e = before.edges[i];
    oldEdges.insert({before.nodes[static_cast<size_t>(e.from)].id, before.nodes[static_cast<size_t>(e.to)].id}, static_cast<int>(i));
  }
  int created = 0;
  for (const LayoutRequest::Edge& e : after.edges) {
    const QPair<QString, QString> key{after.nodes[static_cast<size_t>(e.from)].id, after.nodes[static_cast<size_t>(e.to)].id};
    auto it = oldEdges.find(key);
    if (it != oldEdges.end()) {
      out->edges.push_back(layout.edges[static_cast<size_t>(it.value())]);
      oldEdges.erase(it);
      continue;
    }
    if (++created > maxNewEdges) return nullptr;
    out->edges.push_back(curve(out->nodeCentres[static_cast<size_t>(e.from)], out->nodeSizes[static_cast<size_t>(e.from)],
                               out->nodeCentres[static_cast<size_t>(e.to)], out->nodeSizes[static_cast<size_t>(e.to)]));
  }
  out->bounds = layout.bounds;
  out->settings = layout.settings + QStringLiteral(" (patched: %1 boxes removed)").arg(before.nodes.size() - after.nodes.size());
  return out;
}

}  // namespace msa::ui
