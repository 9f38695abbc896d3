#include "graph/compound_layout.h"

#include <QElapsedTimer>
#include <QHash>
#include <list>
#include <mutex>

#include "graph/layered_layout.h"

namespace msa::ui {
namespace {

constexpr double kFramePad = 8;   // Graphviz's cluster margin
constexpr double kPortSize = 2;
constexpr size_t kLevelCacheEntries = 8192;

// Level layouts by structural key, shared by every graph of the process: the layers of one
// model, and the same model reopened or edited, reuse them.
class LevelCache {
 public:
  LayoutPtr find(const QByteArray& key) {
    std::lock_guard lock(m_mutex);
    auto it = m_map.find(key);
    if (it == m_map.end()) return nullptr;
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return it->first;
  }
  void insert(const QByteArray& key, LayoutPtr layout) {
    std::lock_guard lock(m_mutex);
    if (m_map.contains(key)) return;
    m_lru.push_front(key);
    m_map.insert(key, {std::move(layout), m_lru.begin()});
    while (static_cast<size_t>(m_map.size()) > kLevelCacheEntries) {
      m_map.remove(m_lru.back());
      m_lru.pop_back();
    }
  }
  void clear() {
    std::lock_guard lock(m_mutex);
    m_map.clear();
    m_lru.clear();
  }

 private:
  std::mutex m_mutex;
  std::list<QByteArray> m_lru;
  QHash<QByteArray, std::pair<LayoutPtr, std::list<QByteArray>::iterator>> m_map;
};

LevelCache& levelCache() {
  static auto* c = new LevelCache;  // never destroyed: a layout may finish during shutdown
  return *c;
}

std::mutex g_statsMutex;
CompoundStats g_stats;

struct Level {
  std::vector<int> nodes;     // request nodes directly inside
  std::vector<int> children;  // clusters directly inside
  int items = 0;              // nodes, then children, then ports
  int inPort = -1, outPort = -1;
  std::vector<std::pair<int, int>> edges;  // between items
  QHash<quint64, int> edgeIndex;
  LayoutPtr layout;
  QSizeF frame;     // the frame's size (clusters only)
  QPointF origin;   // where the level's (0, 0) lands in the final layout
};

int edgeOf(Level& l, int from, int to) {
  const quint64 k = (static_cast<quint64>(static_cast<quint32>(from)) << 32) | static_cast<quint32>(to);
  auto it = l.edgeIndex.constFind(k);
  if (it != l.edgeIndex.constEnd()) return *it;
  l.edges.push_back({from, to});
  l.edgeIndex.insert(k, static_cast<int>(l.edges.size() - 1));
  return static_cast<int>(l.edges.size() - 1);
}

double distance(QPointF a, QPointF b) { return std::hypot(a.x() - b.x(), a.y() - b.y()); }

// Appends a straight cubic from the chain's end to p.
void lineTo(std::vector<QPointF>& chain, QPointF p) {
  if (chain.empty()) {
    chain.push_back(p);
    return;
  }
  const QPointF a = chain.back();
  if (distance(a, p) < 0.5) return;
  chain.push_back(a + (p - a) / 3);
  chain.push_back(a + (p - a) * 2 / 3);
  chain.push_back(p);
}

}  // namespace

CompoundStats lastCompoundStats() {
  std::lock_guard lock(g_statsMutex);
  return g_stats;
}

void clearLevelCache() { levelCache().clear(); }

LayoutPtr compoundLayout(const LayoutRequest& r, const std::atomic<bool>* stale, QString* error) {
  QElapsedTimer timer;
  timer.start();
  const int C = static_cast<int>(r.clusters.size());  // level C is the top level
  auto parentOf = [&](int level) { return level == C ? -1 : (r.clusters[static_cast<size_t>(level)].parent >= 0 ? r.clusters[static_cast<size_t>(level)].parent : C); };
  for (const auto& e : r.edges)
    if (e.from < 0 || e.to < 0 || static_cast<size_t>(e.from) >= r.nodes.size() || static_cast<size_t>(e.to) >= r.nodes.size()) {
      if (error) *error = QStringLiteral("layout request has an edge to a missing node");
      return nullptr;
    }
  for (int c = 0; c < C; ++c)
    if (r.clusters[static_cast<size_t>(c)].parent >= c) {
      if (error) *error = QStringLiteral("layout request lists a frame before its parent");
      return nullptr;
    }

  std::vector<Level> levels(static_cast<size_t>(C) + 1);
  std::vector<int> depth(static_cast<size_t>(C) + 1, 0);
  for (int c = 0; c < C; ++c) {
    const int p = parentOf(c);
    depth[static_cast<size_t>(c)] = p == C ? 1 : depth[static_cast<size_t>(p)] + 1;  // parents come first
  }
  std::vector<int> itemOfNode(r.nodes.size()), itemOfCluster(static_cast<size_t>(C));
  std::vector<int> levelOfNode(r.nodes.size());
  for (size_t n = 0; n < r.nodes.size(); ++n) {
    const int c = r.nodes[n].cluster;
    const int l = c >= 0 && c < C ? c : C;
    levelOfNode[n] = l;
    itemOfNode[n] = static_cast<int>(levels[static_cast<size_t>(l)].nodes.size());
    levels[static_cast<size_t>(l)].nodes.push_back(static_cast<int>(n));
  }
  for (int c = 0; c < C; ++c) levels[static_cast<size_t>(parentOf(c))].children.push_back(c);
  for (Level& l : levels) l.items = static_cast<int>(l.nodes.size());
  for (int c = 0; c < C; ++c) {
    Level& p = levels[static_cast<size_t>(parentOf(c))];
    itemOfCluster[static_cast<size_t>(c)] = p.items++;
  }
  auto port = [&](int level, bool out) {
    Level& l = levels[static_cast<size_t>(level)];
    int& p = out ? l.outPort : l.inPort;
    if (p < 0) p = l.items++;
    return p;
  };

  // Every request edge as a path of level edges: up out of the frames around its tail, across
  // the level where both ends meet, down into the frames around its head.
  struct Segment {
    int level, edge;
  };
  std::vector<std::vector<Segment>> paths(r.edges.size());
  for (size_t e = 0; e < r.edges.size(); ++e) {
    const auto& ed = r.edges[e];
    if (ed.from == ed.to) continue;
    int lu = levelOfNode[static_cast<size_t>(ed.from)], lv = levelOfNode[static_cast<size_t>(ed.to)];
    int iu = itemOfNode[static_cast<size_t>(ed.from)], iv = itemOfNode[static_cast<size_t>(ed.to)];
    std::vector<Segment> up, down;
    while (lu != lv) {
      if (depth[static_cast<size_t>(lu)] >= depth[static_cast<size_t>(lv)]) {
        up.push_back({lu, edgeOf(levels[static_cast<size_t>(lu)], iu, port(lu, true))});
        iu = itemOfCluster[static_cast<size_t>(lu)];
        lu = parentOf(lu);
      } else {
        down.push_back({lv, edgeOf(levels[static_cast<size_t>(lv)], port(lv, false), iv)});
        iv = itemOfCluster[static_cast<size_t>(lv)];
        lv = parentOf(lv);
      }
    }
    auto& path = paths[e];
    path = std::move(up);
    path.push_back({lu, edgeOf(levels[static_cast<size_t>(lu)], iu, iv)});
    path.insert(path.end(), down.rbegin(), down.rend());
  }

  // Levels bottom-up (children have higher indices than their parents; the top level last).
  CompoundStats stats;
  LayoutOptions levelOptions = r.options;
  levelOptions.quality = LayoutOptions::Quality::Auto;
  std::vector<int> order;
  for (int c = C - 1; c >= 0; --c) order.push_back(c);
  order.push_back(C);
  for (int level : order) {
    if (stale && stale->load()) return nullptr;
    Level& l = levels[static_cast<size_t>(level)];
    LayoutRequest req;
    req.options = levelOptions;
    req.nodes.resize(static_cast<size_t>(l.items));
    for (size_t i = 0; i < l.nodes.size(); ++i) req.nodes[i].size = r.nodes[static_cast<size_t>(l.nodes[i])].size;
    for (int c : l.children) req.nodes[static_cast<size_t>(itemOfCluster[static_cast<size_t>(c)])].size = levels[static_cast<size_t>(c)].frame;
    if (l.inPort >= 0) req.nodes[static_cast<size_t>(l.inPort)] = {QString(), QSizeF(kPortSize, kPortSize), -1, LayoutRequest::Node::Pin::First};
    if (l.outPort >= 0) req.nodes[static_cast<size_t>(l.outPort)] = {QString(), QSizeF(kPortSize, kPortSize), -1, LayoutRequest::Node::Pin::Last};
    req.edges.reserve(l.edges.size());
    for (const auto& [a, b] : l.edges) req.edges.push_back({a, b});
    ++stats.levels;
    const bool dot = l.items <= r.options.levelDotLimit;
    const QByteArray key = req.key() + (dot ? "d" : "l");
    l.layout = levelCache().find(key);
    if (l.layout) {
      ++stats.fromCache;
    } else {
      if (dot) l.layout = dotLayout(req, stale);
      if (l.layout) ++stats.byDot;
      else if (stale && stale->load()) return nullptr;
      else {
        l.layout = layeredLayout(req);
        ++stats.layered;
      }
      if (!l.layout) {
        if (error) *error = QStringLiteral("the layered layout refused a level");
        return nullptr;
      }
      levelCache().insert(key, l.layout);
    }
    const QRectF b = l.layout->bounds;
    if (level != C)
      l.frame = QSizeF(b.width() + 2 * kFramePad, b.height() + kFramePad + r.options.clusterLabelHeight + 4);
  }

  // Top-down placement.
  auto layout = std::make_shared<Layout>();
  const double top = r.options.clusterLabelHeight + 4;
  levels[static_cast<size_t>(C)].origin = QPointF(0, 0);
  layout->clusterRects.resize(static_cast<size_t>(C));
  layout->clusterLabels.resize(static_cast<size_t>(C));
  for (int c = 0; c < C; ++c) {  // parents first
    const int p = parentOf(c);
    const Level& pl = levels[static_cast<size_t>(p)];
    Level& l = levels[static_cast<size_t>(c)];
    const QPointF centre = pl.origin + pl.layout->nodeCentres[static_cast<size_t>(itemOfCluster[static_cast<size_t>(c)])];
    const QRectF frame(centre - QPointF(l.frame.width() / 2, l.frame.height() / 2), l.frame);
    layout->clusterRects[static_cast<size_t>(c)] = frame;
    layout->clusterLabels[static_cast<size_t>(c)] = frame.topLeft() + QPointF(8, 3);
    l.origin = frame.topLeft() + QPointF(kFramePad, top);
  }
  layout->nodeCentres.resize(r.nodes.size());
  layout->nodeSizes.resize(r.nodes.size());
  for (size_t n = 0; n < r.nodes.size(); ++n) {
    const Level& l = levels[static_cast<size_t>(levelOfNode[n])];
    layout->nodeCentres[n] = l.origin + l.layout->nodeCentres[static_cast<size_t>(itemOfNode[n])];
    layout->nodeSizes[n] = r.nodes[n].size;
  }
  layout->bounds = levels[static_cast<size_t>(C)].layout->bounds;

  // Edges: the level routes end to end, each turned tail to head, joined by short lines; only
  // the last keeps its arrowhead.
  layout->edges.resize(r.edges.size());
  for (size_t e = 0; e < r.edges.size(); ++e) {
    Layout::Edge& out = layout->edges[e];
    const auto& path = paths[e];
    for (size_t k = 0; k < path.size(); ++k) {
      const Level& l = levels[static_cast<size_t>(path[k].level)];
      const Layout::Edge& le = l.layout->edges[static_cast<size_t>(path[k].edge)];
      if (le.points.empty()) continue;
      const bool last = k + 1 == path.size();
      std::vector<QPointF> pts;
      pts.reserve(le.points.size() + 3);
      for (const QPointF& p : le.points) pts.push_back(l.origin + p);
      const auto [from, to] = l.edges[static_cast<size_t>(path[k].edge)];
      const QPointF tail = l.origin + l.layout->nodeCentres[static_cast<size_t>(from)];
      const QPointF head = l.origin + l.layout->nodeCentres[static_cast<size_t>(to)];
      const bool backwards =
          distance(pts.front(), tail) + distance(pts.back(), head) > distance(pts.front(), head) + distance(pts.back(), tail);
      if (le.hasArrow && (!last || backwards)) lineTo(pts, l.origin + le.arrowTip);
      if (backwards) std::reverse(pts.begin(), pts.end());  // a cubic chain reads the same backwards
      if (out.points.empty()) out.points.push_back(pts.front());
      else lineTo(out.points, pts.front());
      out.points.insert(out.points.end(), pts.begin() + 1, pts.end());
      if (last && le.hasArrow && !backwards) {
        out.hasArrow = true;
        out.arrowTip = l.origin + le.arrowTip;
      }
    }
    if (out.points.size() < 4) {
      out.points.clear();
      out.hasArrow = false;
    } else if (!out.hasArrow) {  // the head's route ran backwards: an arrowhead cut from its end
      const QPointF tip = out.points.back();
      QPointF& c2 = out.points[out.points.size() - 2];
      const double len = distance(out.points[out.points.size() - 4], tip);
      if (len > 1) {
        const QPointF dir = (distance(c2, tip) > 1e-6 ? c2 - tip : out.points[out.points.size() - 4] - tip) /
                            std::max(1e-6, distance(distance(c2, tip) > 1e-6 ? c2 : out.points[out.points.size() - 4], tip));
        const QPointF base = tip + dir * std::min(10.0, len * 0.8);
        out.points.back() = base;
        if (distance(c2, tip) < distance(base, tip)) c2 = base;
        out.hasArrow = true;
        out.arrowTip = tip;
      }
    }
  }
  layout->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  layout->settings = QStringLiteral("compound: %1 levels (%2 by dot, %3 layered, %4 from cache)")
                         .arg(stats.levels)
                         .arg(stats.byDot)
                         .arg(stats.layered)
                         .arg(stats.fromCache);
  {
    std::lock_guard lock(g_statsMutex);
    g_stats = stats;
  }
  return layout;
}

}  // namespace msa::ui
