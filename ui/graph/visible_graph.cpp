#include "graph/visible_graph.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <functional>

namespace msa::ui {

CollapseState defaultCollapse(const ViewGraph& g, int threshold, int budget) {
  const auto& blocks = g.blocks();
  CollapseState collapsed(blocks.size(), false);
  // Control-flow bodies start collapsed whatever the size: the graph first reads as it runs, and
  // their nodes do not count towards opening the rest.
  auto closeBodies = [&] {
    for (size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].body) collapsed[b] = true;
    return collapsed;
  };
  if (static_cast<int>(g.nodes().size()) - g.bodyNodeCount() <= threshold) return closeBodies();
  std::fill(collapsed.begin(), collapsed.end(), true);
  // Open whole levels at a time (all layers or none), so siblings look alike.
  int visible = static_cast<int>(g.topNodes().size() + g.topBlocks().size());
  std::vector<int> level = g.topBlocks();
  while (!level.empty()) {
    int cost = 0;
    for (int b : level) {
      const ScopeBlock& blk = blocks[static_cast<size_t>(b)];
      cost += static_cast<int>(blk.nodes.size() + blk.children.size()) - 1;
    }
    if (visible + cost > budget) break;
    visible += cost;
    std::vector<int> next;
    for (int b : level) {
      collapsed[static_cast<size_t>(b)] = false;
      const auto& ch = blocks[static_cast<size_t>(b)].children;
      next.insert(next.end(), ch.begin(), ch.end());
    }
    level = std::move(next);
  }
  // Too little shown (a few huge blocks): open the largest that still fit, one by one.
  std::sort(level.begin(), level.end(), [&](int a, int b) {
    return blocks[static_cast<size_t>(a)].totalNodes > blocks[static_cast<size_t>(b)].totalNodes;
  });
  for (int b : level) {
    if (visible >= budget / 4) break;
    const ScopeBlock& blk = blocks[static_cast<size_t>(b)];
    const int cost = static_cast<int>(blk.nodes.size() + blk.children.size()) - 1;
    if (visible + cost > budget) continue;
    collapsed[static_cast<size_t>(b)] = false;
    visible += cost;
  }
  return closeBodies();
}

VisibleGraph VisibleGraph::project(const ViewGraph& g, const CollapseState& collapsed, bool frames) {
  VisibleGraph v;
  const auto& blocks = g.blocks();
  const auto& nodes = g.nodes();
  auto isCollapsed = [&](int b) { return static_cast<size_t>(b) < collapsed.size() && collapsed[static_cast<size_t>(b)]; };
  // rep[b]: the outermost collapsed block among b and its ancestors (blocks come parents first).
  std::vector<int> rep(blocks.size(), -1);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const int p = blocks[b].parent;
    rep[b] = (p >= 0 && rep[static_cast<size_t>(p)] >= 0) ? rep[static_cast<size_t>(p)] : (isCollapsed(static_cast<int>(b)) ? static_cast<int>(b) : -1);
  }
  v.itemOfNode.assign(nodes.size(), -1);
  v.itemOfBlock.assign(blocks.size(), -1);
  v.clusterOfBlock.assign(blocks.size(), -1);

  std::function<int(int)> clusterFor = [&](int b) -> int {  // b expanded and visible
    if (b < 0 || !frames) return -1;
    int& c = v.clusterOfBlock[static_cast<size_t>(b)];
    if (c < 0) {
      const int parent = clusterFor(blocks[static_cast<size_t>(b)].parent);
      c = static_cast<int>(v.clusters.size());
      v.clusters.push_back({b, parent});
    }
    return c;
  };
  for (size_t n = 0; n < nodes.size(); ++n) {
    const int b = nodes[n].block;
    const int r = b >= 0 ? rep[static_cast<size_t>(b)] : -1;
    if (r >= 0) {
      int& item = v.itemOfBlock[static_cast<size_t>(r)];
      if (item < 0) {
        item = static_cast<int>(v.items.size());
        v.items.push_back({VisibleItem::Kind::Block, r, clusterFor(blocks[static_cast<size_t>(r)].parent)});
      }
      v.itemOfNode[n] = item;
    } else {
      v.itemOfNode[n] = static_cast<int>(v.items.size());
      v.items.push_back({VisibleItem::Kind::Node, static_cast<int>(n), clusterFor(b)});
    }
  }
  QHash<quint64, int> seen;
  QHash<int, QSet<QString>> tensorsOf;  // merged edges only
  const auto& edges = g.edges();
  for (size_t e = 0; e < edges.size(); ++e) {
    const int a = v.itemOfNode[static_cast<size_t>(edges[e].from)];
    const int b = v.itemOfNode[static_cast<size_t>(edges[e].to)];
    if (a == b) continue;
    const quint64 key = (static_cast<quint64>(a) << 32) | static_cast<quint32>(b);
    auto it = seen.find(key);
    if (it != seen.end()) {
      VisibleEdge& ve = v.edges[static_cast<size_t>(*it)];
      ++ve.count;
      // One tensor read by several members of a block is still one tensor.
      QSet<QString>& names = tensorsOf[*it];
      if (names.isEmpty()) names.insert(edges[static_cast<size_t>(ve.edge)].tensor);
      names.insert(edges[e].tensor);
      ve.tensors = static_cast<int>(names.size());
      continue;
    }
    seen.insert(key, static_cast<int>(v.edges.size()));
    v.edges.push_back({a, b, static_cast<int>(e), 1, 1});
  }
  return v;
}

void VisibleGraph::cutLongEdges(double spanPerItem) {
  // Ranks by longest path, following item order (items come in topological node order; the
  // rare backward edge of a collapsed block is skipped, as dot would reverse it).
  std::vector<int> rank(items.size(), 0);
  std::vector<std::vector<int>> incoming(items.size());
  for (size_t e = 0; e < edges.size(); ++e) incoming[static_cast<size_t>(edges[e].to)].push_back(static_cast<int>(e));
  for (size_t i = 0; i < items.size(); ++i)
    for (int e : incoming[i]) {
      const int from = edges[static_cast<size_t>(e)].from;
      if (static_cast<size_t>(from) < i) rank[i] = std::max(rank[i], rank[static_cast<size_t>(from)] + 1);
    }
  auto span = [&](const VisibleEdge& e) { return std::abs(rank[static_cast<size_t>(e.to)] - rank[static_cast<size_t>(e.from)]); };
  std::vector<int> routedIn(items.size(), 0);
  for (size_t i = 0; i < items.size(); ++i) routedIn[i] = static_cast<int>(incoming[i].size());
  auto cut = [&](VisibleEdge& edge, bool keepOneInput) {
    if (!edge.routed || (keepOneInput && routedIn[static_cast<size_t>(edge.to)] <= 1)) return false;
    edge.routed = false;
    --routedIn[static_cast<size_t>(edge.to)];
    return true;
  };
  // Broadcasts (a mask or bias read by every layer): beyond the nearest consumer, far ones are
  // stubs. Drawn, they fan out across the whole graph. A consumer left without a routed input
  // is still placed right above its own consumers (dot pulls sources down to them).
  constexpr int kBroadcastFanOut = 4, kBroadcastSpan = 3;
  std::vector<std::vector<int>> outgoing(items.size());
  for (size_t e = 0; e < edges.size(); ++e) outgoing[static_cast<size_t>(edges[e].from)].push_back(static_cast<int>(e));
  auto clusterOf = [&](int e) { return items[static_cast<size_t>(edges[static_cast<size_t>(e)].to)].cluster; };
  for (auto& out : outgoing) {
    if (static_cast<int>(out.size()) < kBroadcastFanOut) continue;
    std::sort(out.begin(), out.end(), [&](int a, int b) { return span(edges[static_cast<size_t>(a)]) < span(edges[static_cast<size_t>(b)]); });
    // Our ranks ignore frames; dot keeps a frame's members together, so a consumer in another
    // repeated block (layers.3 of four) is far away whatever its rank says.
    QSet<int> clusters;
    for (int e : out) clusters.insert(clusterOf(e));
    const bool intoBlocks = clusters.size() >= 3;
    for (size_t k = 1; k < out.size(); ++k) {
      const bool far = span(edges[static_cast<size_t>(out[k])]) > kBroadcastSpan ||
                       (intoBlocks && clusterOf(out[k]) != clusterOf(out[0]));
      if (far) cut(edges[static_cast<size_t>(out[k])], false);
    }
  }
  double total = 0;
  for (const VisibleEdge& e : edges)
    if (e.routed) total += std::max(0, span(e) - 1);
  const double budget = std::max(2000.0, spanPerItem * static_cast<double>(items.size()));
  if (total <= budget) return;
  std::vector<int> order(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) order[e] = static_cast<int>(e);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return span(edges[static_cast<size_t>(a)]) > span(edges[static_cast<size_t>(b)]); });
  for (int e : order) {
    VisibleEdge& edge = edges[static_cast<size_t>(e)];
    const int s = span(edge);
    if (total <= budget || s <= 8) break;
    // Here a consumer keeps one routed input: bounded network simplex may not pull a source down.
    if (cut(edge, true)) total -= s - 1;
  }
}

QString VisibleGraph::itemId(const ViewGraph& g, int item) const {
  const VisibleItem& it = items[static_cast<size_t>(item)];
  if (it.kind == VisibleItem::Kind::Node) return g.nodes()[static_cast<size_t>(it.index)].id;
  return QStringLiteral("block:") + g.blocks()[static_cast<size_t>(it.index)].path;
}

}  // namespace msa::ui
