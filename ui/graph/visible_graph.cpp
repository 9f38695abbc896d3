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
  // Everything closed and every run folded (drawn once), then whole levels opened at a time
  // (all layers or none), so siblings look alike. An entry is a drawn block and its twins in
  // the other members of folded runs: they open together, though only the first is drawn.
  std::fill(collapsed.begin(), collapsed.end(), true);
  using Entry = std::vector<int>;
  auto block = [&](int b) -> const ScopeBlock& { return blocks[static_cast<size_t>(b)]; };
  auto cost = [&](const Entry& e) { return static_cast<int>(block(e[0]).nodes.size() + block(e[0]).children.size()) - 1; };
  auto open = [&](const Entry& e) {
    for (int b : e) collapsed[static_cast<size_t>(b)] = false;
  };
  // A folded run is drawn as its first member: the members stand in its place, all as twins.
  auto throughRuns = [&](std::vector<Entry> level) {
    for (Entry& e : level) {
      if (block(e[0]).repeat <= 0) continue;
      Entry members;
      for (int run : e) members.insert(members.end(), block(run).children.begin(), block(run).children.end());
      e = std::move(members);
    }
    return level;
  };
  int visible = static_cast<int>(g.topNodes().size() + g.topBlocks().size());
  std::vector<Entry> level;
  for (int b : g.topBlocks()) level.push_back({b});
  while (!level.empty()) {
    level = throughRuns(std::move(level));
    int c = 0;
    for (const Entry& e : level) c += cost(e);
    if (visible + c > budget) break;
    visible += c;
    std::vector<Entry> next;
    for (const Entry& e : level) {
      open(e);
      for (size_t k = 0; k < block(e[0]).children.size(); ++k) {
        Entry twins;
        for (int b : e)
          if (k < block(b).children.size()) twins.push_back(block(b).children[k]);
        next.push_back(std::move(twins));
      }
    }
    level = std::move(next);
  }
  // Too little shown (a few huge blocks): open the largest that still fit, one by one.
  std::sort(level.begin(), level.end(), [&](const Entry& a, const Entry& b) { return block(a[0]).totalNodes > block(b[0]).totalNodes; });
  for (const Entry& e : level) {
    if (visible >= budget / 4) break;
    if (visible + cost(e) > budget) continue;
    open(e);
    visible += cost(e);
  }
  return closeBodies();
}

void openTowards(const ViewGraph& g, CollapseState& state, int target) {
  const auto& blocks = g.blocks();
  if (target < 0 || static_cast<size_t>(target) >= blocks.size()) return;
  state.resize(blocks.size(), false);
  int from = -1;  // the child the way comes from
  for (int b = target; b >= 0; from = b, b = blocks[static_cast<size_t>(b)].parent) {
    if (blocks[static_cast<size_t>(b)].repeat <= 0) {
      state[static_cast<size_t>(b)] = false;
      continue;
    }
    // A folded run shows its first member: nothing to do on the way through it. The way through
    // another member unfolds the run, its other members as boxes.
    if (!state[static_cast<size_t>(b)] || (from >= 0 && g.memberIndex(from) == 0)) continue;
    state[static_cast<size_t>(b)] = false;
    for (int m : blocks[static_cast<size_t>(b)].children)
      if (m != from) state[static_cast<size_t>(m)] = true;
  }
}

VisibleGraph VisibleGraph::project(const ViewGraph& g, const CollapseState& collapsed, bool frames, bool withEdges) {
  VisibleGraph v;
  const auto& blocks = g.blocks();
  const auto& nodes = g.nodes();
  auto flag = [&](int b) { return static_cast<size_t>(b) < collapsed.size() && collapsed[static_cast<size_t>(b)]; };
  auto isRun = [&](int b) { return blocks[static_cast<size_t>(b)].repeat > 0; };
  // A run's flag means folded (drawn once, as its first member), never one box.
  auto isCollapsed = [&](int b) { return !isRun(b) && flag(b); };
  auto isFolded = [&](int b) { return isRun(b) && flag(b); };
  // The node drawn for n: n itself, or its twin in the first member of every folded run that
  // hides the member holding it.
  auto shownAs = [&](int n) {
    for (bool moved = true; moved;) {
      moved = false;
      for (int b = nodes[static_cast<size_t>(n)].block; b >= 0; b = blocks[static_cast<size_t>(b)].parent) {
        const int p = blocks[static_cast<size_t>(b)].parent;
        if (p >= 0 && isFolded(p) && g.memberIndex(b) > 0) {
          const int twin = g.twinInFirstMember(n, b);
          moved = twin != n;
          n = twin;
          break;
        }
      }
    }
    return n;
  };
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
    if (isRun(b) && !isFolded(b)) return clusterFor(blocks[static_cast<size_t>(b)].parent);  // unfolded: no frame of its own
    int& c = v.clusterOfBlock[static_cast<size_t>(b)];
    if (c < 0) {
      const int parent = clusterFor(blocks[static_cast<size_t>(b)].parent);
      c = static_cast<int>(v.clusters.size());
      v.clusters.push_back({b, parent});
    }
    return c;
  };
  std::vector<int> shown(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) shown[n] = shownAs(static_cast<int>(n));
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (shown[n] != static_cast<int>(n)) continue;  // hidden in a folded run: below
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
  for (size_t n = 0; n < nodes.size(); ++n)
    if (shown[n] != static_cast<int>(n)) v.itemOfNode[n] = v.itemOfNode[static_cast<size_t>(shown[n])];
  if (!withEdges) return v;
  // Edges inside a folded run are drawn for its first member only (the others repeat them, and
  // between members they would loop back into the one drawn).
  std::vector<std::pair<int, int>> runsOfTail;  // folded run, member index
  auto insideFoldedRun = [&](int from, int to) {
    runsOfTail.clear();
    for (int b = nodes[static_cast<size_t>(from)].block; b >= 0; b = blocks[static_cast<size_t>(b)].parent) {
      const int p = blocks[static_cast<size_t>(b)].parent;
      if (p >= 0 && isFolded(p)) runsOfTail.push_back({p, g.memberIndex(b)});
    }
    if (runsOfTail.empty()) return false;
    for (int b = nodes[static_cast<size_t>(to)].block; b >= 0; b = blocks[static_cast<size_t>(b)].parent) {
      const int p = blocks[static_cast<size_t>(b)].parent;
      if (p < 0 || !isFolded(p)) continue;
      for (const auto& [run, member] : runsOfTail)
        if (run == p && (member != 0 || g.memberIndex(b) != 0)) return true;
    }
    return false;
  };
  QHash<quint64, int> seen;
  QHash<int, QSet<QString>> tensorsOf;  // merged edges only
  const auto& edges = g.edges();
  for (size_t e = 0; e < edges.size(); ++e) {
    const int a = v.itemOfNode[static_cast<size_t>(edges[e].from)];
    const int b = v.itemOfNode[static_cast<size_t>(edges[e].to)];
    if (a == b || insideFoldedRun(edges[e].from, edges[e].to)) continue;
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
