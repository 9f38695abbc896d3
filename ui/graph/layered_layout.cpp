#include "graph/layered_layout.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace msa::ui {
namespace {

constexpr double kArrowLength = 10;   // dot's arrowhead at arrowsize 1
constexpr double kVirtualWidth = 4;   // room for one edge passing through a rank
constexpr double kWeightReal = 1, kWeightMixed = 2, kWeightVirtual = 8;  // dot's edge straightening weights

using Pin = LayoutRequest::Node::Pin;

// Weighted least squares x_i ~ d_i under x_{i+1} >= x_i + sep_i, for one rank in its order:
// with y_i = x_i - offset_i this is isotonic regression, solved exactly by pooling adjacent
// violators in linear time.
void placeRank(const std::vector<double>& desired, const std::vector<double>& weight, const std::vector<double>& sep,
               std::vector<double>& out) {
  const size_t n = desired.size();
  std::vector<double> offset(n, 0);
  for (size_t i = 1; i < n; ++i) offset[i] = offset[i - 1] + sep[i - 1];
  struct Pool {
    double w, wy;
    size_t count;
  };
  std::vector<Pool> pools;
  pools.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    pools.push_back({weight[i], weight[i] * (desired[i] - offset[i]), 1});
    while (pools.size() > 1) {
      const Pool& b = pools.back();
      const Pool& a = pools[pools.size() - 2];
      if (a.wy / a.w <= b.wy / b.w) break;
      const Pool merged{a.w + b.w, a.wy + b.wy, a.count + b.count};
      pools.pop_back();
      pools.back() = merged;
    }
  }
  out.resize(n);
  size_t i = 0;
  for (const Pool& p : pools)
    for (size_t k = 0; k < p.count; ++k, ++i) out[i] = p.wy / p.w + offset[i];
}

class Layered {
 public:
  explicit Layered(const LayoutRequest& r) : m_r(r), m_real(r.nodes.size()) {}

  LayoutPtr run() {
    QElapsedTimer timer;
    timer.start();
    orient();
    assignRanks();
    buildLayers();
    const long crossings = order();
    placeX();
    auto layout = route();
    layout->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    layout->settings = QStringLiteral("layered: %1 ranks, %2 virtual nodes, %3 crossings")
                           .arg(m_layers.size())
                           .arg(m_rank.size() - m_real)
                           .arg(crossings);
    return layout;
  }

 private:
  // 1. Back edges (found by depth-first search in request order) reversed; self loops dropped.
  void orient() {
    const size_t n = m_real;
    std::vector<std::vector<int>> out(n);
    for (size_t e = 0; e < m_r.edges.size(); ++e)
      if (m_r.edges[e].from != m_r.edges[e].to) out[static_cast<size_t>(m_r.edges[e].from)].push_back(static_cast<int>(e));
    m_reversed.assign(m_r.edges.size(), false);
    std::vector<char> state(n, 0);  // 0 new, 1 on the stack, 2 done
    std::vector<std::pair<int, size_t>> stack;
    for (size_t s = 0; s < n; ++s) {
      if (state[s]) continue;
      stack.push_back({static_cast<int>(s), 0});
      state[s] = 1;
      while (!stack.empty()) {
        auto& [u, k] = stack.back();
        const auto& edges = out[static_cast<size_t>(u)];
        if (k == edges.size()) {
          state[static_cast<size_t>(u)] = 2;
          stack.pop_back();
          continue;
        }
        const int e = edges[k++];
        const int v = m_r.edges[static_cast<size_t>(e)].to;
        if (state[static_cast<size_t>(v)] == 1) m_reversed[static_cast<size_t>(e)] = true;
        else if (state[static_cast<size_t>(v)] == 0) {
          state[static_cast<size_t>(v)] = 1;
          stack.push_back({v, 0});
        }
      }
    }
    // Edges into a First pin or out of a Last pin point the wrong way whatever the search found.
    for (size_t e = 0; e < m_r.edges.size(); ++e) {
      const auto& ed = m_r.edges[e];
      if (pin(ed.to) == Pin::First || pin(ed.from) == Pin::Last) m_reversed[e] = ed.from != ed.to;
    }
    // One oriented pair per edge (duplicates and an edge with its reverse share a route).
    std::map<std::pair<int, int>, int> pairs;
    m_pairOf.assign(m_r.edges.size(), -1);
    for (size_t e = 0; e < m_r.edges.size(); ++e) {
      const auto& ed = m_r.edges[e];
      if (ed.from == ed.to) continue;
      const std::pair<int, int> p = m_reversed[e] ? std::pair(ed.to, ed.from) : std::pair(ed.from, ed.to);
      auto [it, fresh] = pairs.try_emplace(p, static_cast<int>(m_pairs.size()));
      if (fresh) m_pairs.push_back(p);
      m_pairOf[e] = it->second;
    }
  }

  Pin pin(int node) const { return m_r.nodes[static_cast<size_t>(node)].pin; }

  // 2. Longest path from the sources; a source without a pin then moves down to just above its
  // nearest consumer (a weight or mask input drawn next to where it is used, as dot does).
  void assignRanks() {
    const size_t n = m_real;
    std::vector<std::vector<int>> succ(n), pred(n);
    for (const auto& [a, b] : m_pairs) {
      succ[static_cast<size_t>(a)].push_back(b);
      pred[static_cast<size_t>(b)].push_back(a);
    }
    std::vector<int> indeg(n), topo;
    topo.reserve(n);
    for (size_t v = 0; v < n; ++v) {
      indeg[v] = static_cast<int>(pred[v].size());
      if (indeg[v] == 0) topo.push_back(static_cast<int>(v));
    }
    for (size_t i = 0; i < topo.size(); ++i)
      for (int w : succ[static_cast<size_t>(topo[i])])
        if (--indeg[static_cast<size_t>(w)] == 0) topo.push_back(w);
    m_rank.assign(n, 0);
    for (int u : topo)
      for (int w : succ[static_cast<size_t>(u)])
        m_rank[static_cast<size_t>(w)] = std::max(m_rank[static_cast<size_t>(w)], m_rank[static_cast<size_t>(u)] + 1);
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      const size_t u = static_cast<size_t>(*it);
      if (!pred[u].empty() || succ[u].empty() || m_r.nodes[u].pin != Pin::None) continue;
      int lowest = INT32_MAX;
      for (int w : succ[u]) lowest = std::min(lowest, m_rank[static_cast<size_t>(w)]);
      m_rank[u] = std::max(m_rank[u], lowest - 1);
    }
    bool first = false;
    for (size_t v = 0; v < n; ++v) first = first || m_r.nodes[v].pin == Pin::First;
    int top = 0;
    for (size_t v = 0; v < n; ++v) {
      if (m_r.nodes[v].pin == Pin::First) m_rank[v] = 0;
      else if (first) ++m_rank[v];
      if (m_r.nodes[v].pin != Pin::Last) top = std::max(top, m_rank[v]);
    }
    for (size_t v = 0; v < n; ++v)
      if (m_r.nodes[v].pin == Pin::Last) m_rank[v] = top + 1;
  }

  // 3. Virtual nodes on edges spanning several ranks; the neighbours of every node by rank.
  void buildLayers() {
    int ranks = 0;
    for (int r : m_rank) ranks = std::max(ranks, r + 1);
    m_width.resize(m_real);
    for (size_t v = 0; v < m_real; ++v) m_width[v] = m_r.nodes[v].size.width();
    m_chain.resize(m_pairs.size());
    for (size_t p = 0; p < m_pairs.size(); ++p) {
      const auto [a, b] = m_pairs[p];
      auto& chain = m_chain[p];
      chain.push_back(a);
      for (int r = m_rank[static_cast<size_t>(a)] + 1; r < m_rank[static_cast<size_t>(b)]; ++r) {
        chain.push_back(static_cast<int>(m_rank.size()));
        m_rank.push_back(r);
        m_width.push_back(kVirtualWidth);
      }
      chain.push_back(b);
    }
    const size_t total = m_rank.size();
    m_up.assign(total, {});
    m_down.assign(total, {});
    for (const auto& chain : m_chain)
      for (size_t k = 0; k + 1 < chain.size(); ++k) {
        const int a = chain[k], b = chain[k + 1];
        const int virtuals = isVirtual(a) + isVirtual(b);
        const double w = virtuals == 2 ? kWeightVirtual : virtuals == 1 ? kWeightMixed : kWeightReal;
        m_down[static_cast<size_t>(a)].push_back({b, w});
        m_up[static_cast<size_t>(b)].push_back({a, w});
      }
    // Initial order: depth-first from the top in request order, so chains and branches start
    // out next to each other.
    m_layers.assign(static_cast<size_t>(ranks), {});
    std::vector<char> seen(total, 0);
    std::vector<int> stack;
    auto visit = [&](int s) {
      stack.push_back(s);
      while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        if (seen[static_cast<size_t>(u)]) continue;
        seen[static_cast<size_t>(u)] = 1;
        m_layers[static_cast<size_t>(m_rank[static_cast<size_t>(u)])].push_back(u);
        const auto& d = m_down[static_cast<size_t>(u)];
        for (auto it = d.rbegin(); it != d.rend(); ++it)
          if (!seen[static_cast<size_t>(it->node)]) stack.push_back(it->node);
      }
    };
    for (size_t v = 0; v < m_real; ++v)
      if (m_up[v].empty()) visit(static_cast<int>(v));
    for (size_t v = 0; v < total; ++v) visit(static_cast<int>(v));  // cycles of pins only
    m_pos.assign(total, 0);
    for (auto& layer : m_layers)
      for (size_t i = 0; i < layer.size(); ++i) m_pos[static_cast<size_t>(layer[i])] = static_cast<int>(i);
  }

  bool isVirtual(int v) const { return static_cast<size_t>(v) >= m_real; }

  struct Link {
    int node;
    double weight;
  };

  long crossingsBetween(size_t r) const {  // layer r and r + 1, by inversions (Fenwick tree)
    std::vector<std::pair<int, int>> pairs;
    for (int u : m_layers[r])
      for (const Link& l : m_down[static_cast<size_t>(u)]) pairs.push_back({m_pos[static_cast<size_t>(u)], m_pos[static_cast<size_t>(l.node)]});
    std::sort(pairs.begin(), pairs.end());
    const size_t width = m_layers[r + 1].size() + 1;
    std::vector<int> tree(width + 1, 0);
    long crossings = 0;
    long seen = 0;
    for (const auto& [a, b] : pairs) {
      long notGreater = 0;
      for (size_t i = static_cast<size_t>(b) + 1; i > 0; i -= i & (~i + 1)) notGreater += tree[i];
      crossings += seen - notGreater;
      for (size_t i = static_cast<size_t>(b) + 1; i <= width; i += i & (~i + 1)) ++tree[i];
      ++seen;
    }
    return crossings;
  }

  long crossings() const {
    long c = 0;
    for (size_t r = 0; r + 1 < m_layers.size(); ++r) c += crossingsBetween(r);
    return c;
  }

  void sortLayer(size_t r, bool useUp) {
    auto& layer = m_layers[r];
    std::vector<std::pair<double, int>> keys;
    keys.reserve(layer.size());
    for (int v : layer) {
      const auto& nb = useUp ? m_up[static_cast<size_t>(v)] : m_down[static_cast<size_t>(v)];
      double key = m_pos[static_cast<size_t>(v)];
      if (!nb.empty()) {
        double sum = 0;
        for (const Link& l : nb) sum += m_pos[static_cast<size_t>(l.node)];
        key = sum / static_cast<double>(nb.size());
      }
      keys.push_back({key, v});
    }
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < keys.size(); ++i) {
      layer[i] = keys[i].second;
      m_pos[static_cast<size_t>(layer[i])] = static_cast<int>(i);
    }
  }

  // 4. Barycentre sweeps down and up; the order with the fewest crossings wins. Fewer sweeps on
  // very large levels keep this near-linear.
  long order() {
    const size_t work = m_rank.size() + m_pairs.size();
    const int sweeps = std::clamp(static_cast<int>(4'000'000 / std::max<size_t>(work, 1)), 2, 8);
    long best = crossings();
    auto bestLayers = m_layers;
    for (int it = 0; it < sweeps && best > 0; ++it) {
      for (size_t r = 1; r < m_layers.size(); ++r) sortLayer(r, true);
      for (size_t r = m_layers.size() - 1; r-- > 0;) sortLayer(r, false);
      const long c = crossings();
      if (c < best) {
        best = c;
        bestLayers = m_layers;
      }
    }
    m_layers = std::move(bestLayers);
    for (auto& layer : m_layers)
      for (size_t i = 0; i < layer.size(); ++i) m_pos[static_cast<size_t>(layer[i])] = static_cast<int>(i);
    return best;
  }

  double separation(int a, int b) const {
    const double gap = isVirtual(a) || isVirtual(b) ? m_r.options.nodeSep / 2 : m_r.options.nodeSep;
    return (m_width[static_cast<size_t>(a)] + m_width[static_cast<size_t>(b)]) / 2 + gap;
  }

  // 5. x: packed and centred, then sweeps pulling each node towards its neighbours.
  void placeX() {
    m_x.assign(m_rank.size(), 0);
    for (const auto& layer : m_layers) {
      double x = 0;
      for (size_t i = 0; i < layer.size(); ++i) {
        if (i) x += separation(layer[i - 1], layer[i]);
        m_x[static_cast<size_t>(layer[i])] = x;
      }
      for (int v : layer) m_x[static_cast<size_t>(v)] -= x / 2;
    }
    std::vector<double> desired, weight, sep, out;
    auto sweep = [&](size_t r, int direction) {  // -1: towards the rank above, +1: below, 0: both
      const auto& layer = m_layers[r];
      desired.assign(layer.size(), 0);
      weight.assign(layer.size(), 0);
      sep.assign(layer.empty() ? 0 : layer.size() - 1, 0);
      for (size_t i = 0; i < layer.size(); ++i) {
        const size_t v = static_cast<size_t>(layer[i]);
        double sw = 0, swx = 0;
        if (direction <= 0)
          for (const Link& l : m_up[v]) sw += l.weight, swx += l.weight * m_x[static_cast<size_t>(l.node)];
        if (direction >= 0)
          for (const Link& l : m_down[v]) sw += l.weight, swx += l.weight * m_x[static_cast<size_t>(l.node)];
        if (sw > 0) {
          desired[i] = swx / sw;
          weight[i] = sw;
        } else {
          desired[i] = m_x[v];
          weight[i] = 1e-3;
        }
        if (i + 1 < layer.size()) sep[i] = separation(layer[i], layer[i + 1]);
      }
      placeRank(desired, weight, sep, out);
      for (size_t i = 0; i < layer.size(); ++i) m_x[static_cast<size_t>(layer[i])] = out[i];
    };
    for (int it = 0; it < 4; ++it) {
      for (size_t r = 1; r < m_layers.size(); ++r) sweep(r, -1);
      for (size_t r = m_layers.size() - 1; r-- > 0;) sweep(r, +1);
    }
    for (size_t r = 0; r < m_layers.size(); ++r) sweep(r, 0);
    double left = 0;
    bool any = false;
    for (size_t v = 0; v < m_x.size(); ++v) {
      const double l = m_x[v] - m_width[v] / 2;
      left = any ? std::min(left, l) : l;
      any = true;
    }
    for (double& x : m_x) x -= left;
  }

  // 6. y by rank; splines through the virtual nodes, leaving and entering boxes vertically.
  std::shared_ptr<Layout> route() {
    auto layout = std::make_shared<Layout>();
    std::vector<double> height(m_layers.size(), 0), centre(m_layers.size(), 0);
    for (size_t v = 0; v < m_real; ++v)
      height[static_cast<size_t>(m_rank[v])] = std::max(height[static_cast<size_t>(m_rank[v])], m_r.nodes[v].size.height());
    double top = 0, right = 0;
    for (size_t r = 0; r < m_layers.size(); ++r) {
      centre[r] = top + height[r] / 2;
      top += height[r] + (r + 1 < m_layers.size() ? m_r.options.rankSep : 0);
    }
    for (size_t v = 0; v < m_x.size(); ++v) right = std::max(right, m_x[v] + m_width[v] / 2);
    layout->bounds = QRectF(0, 0, right, top);
    layout->nodeCentres.reserve(m_real);
    for (size_t v = 0; v < m_real; ++v) {
      layout->nodeCentres.emplace_back(m_x[v], centre[static_cast<size_t>(m_rank[v])]);
      layout->nodeSizes.push_back(m_r.nodes[v].size);
    }
    layout->edges.resize(m_r.edges.size());
    for (size_t e = 0; e < m_r.edges.size(); ++e) {
      if (m_pairOf[e] < 0) continue;
      const auto& chain = m_chain[static_cast<size_t>(m_pairOf[e])];
      std::vector<QPointF> poly;
      poly.reserve(chain.size());
      for (size_t k = 0; k < chain.size(); ++k) {
        const size_t v = static_cast<size_t>(chain[k]);
        const double y = centre[static_cast<size_t>(m_rank[v])];
        if (!isVirtual(chain[k])) {
          const double half = m_r.nodes[v].size.height() / 2;
          poly.emplace_back(m_x[v], k == 0 ? y + half : y - half);
        } else {
          poly.emplace_back(m_x[v], y);
        }
      }
      if (m_reversed[e]) {
        std::reverse(poly.begin(), poly.end());
        // A reversed edge leaves its tail's top and enters its head's bottom.
        const size_t tail = static_cast<size_t>(m_r.edges[e].from), head = static_cast<size_t>(m_r.edges[e].to);
        poly.front().setY(centre[static_cast<size_t>(m_rank[tail])] - m_r.nodes[tail].size.height() / 2);
        poly.back().setY(centre[static_cast<size_t>(m_rank[head])] + m_r.nodes[head].size.height() / 2);
      }
      layout->edges[e] = curveThrough(poly);
    }
    return layout;
  }

 public:
  // A cubic chain through the points with vertical tangents at each, ending in an arrowhead.
  static Layout::Edge curveThrough(std::vector<QPointF> poly) {
    Layout::Edge out;
    if (poly.size() < 2) return out;
    const QPointF tip = poly.back();
    const QPointF& prev = poly[poly.size() - 2];
    const double dir = tip.y() >= prev.y() ? 1.0 : -1.0;
    const double len = std::min(kArrowLength, std::abs(tip.y() - prev.y()) * 0.8);
    poly.back() = QPointF(tip.x(), tip.y() - dir * len);
    out.points.reserve(poly.size() * 3);
    out.points.push_back(poly.front());
    for (size_t k = 0; k + 1 < poly.size(); ++k) {
      const QPointF a = poly[k], b = poly[k + 1];
      const double dy = (b.y() - a.y()) / 2;
      out.points.emplace_back(a.x(), a.y() + dy);
      out.points.emplace_back(b.x(), b.y() - dy);
      out.points.push_back(b);
    }
    out.hasArrow = true;
    out.arrowTip = tip;
    return out;
  }

 private:
  const LayoutRequest& m_r;
  size_t m_real;
  std::vector<bool> m_reversed;
  std::vector<std::pair<int, int>> m_pairs;  // oriented, unique
  std::vector<int> m_pairOf;                 // request edge -> pair, -1 for a self loop
  std::vector<std::vector<int>> m_chain;     // per pair: tail, virtual nodes, head
  std::vector<int> m_rank;                   // real nodes, then virtual ones
  std::vector<double> m_width;
  std::vector<std::vector<Link>> m_up, m_down;
  std::vector<std::vector<int>> m_layers;
  std::vector<int> m_pos;
  std::vector<double> m_x;
};

}  // namespace

LayoutPtr layeredLayout(const LayoutRequest& request) {
  for (const auto& e : request.edges)
    if (e.from < 0 || e.to < 0 || static_cast<size_t>(e.from) >= request.nodes.size() ||
        static_cast<size_t>(e.to) >= request.nodes.size())
      return nullptr;
  return Layered(request).run();
}

}  // namespace msa::ui
