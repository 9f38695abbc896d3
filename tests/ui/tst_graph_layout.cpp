// Graphviz behind GraphLayouter: geometry of a known graph, the transform, caching, and
// superseded requests being dropped; the layered engine and the level-by-level composition used
// above dot's size (the same geometric promises: no overlaps, edges from tail to head, frames
// around their members), and repeated frames laid out once.
#include <QSignalSpy>
#include <QTest>

#include <random>

#include "graph/compound_layout.h"
#include "graph/graph_layout.h"
#include "graph/layered_layout.h"
#include "graph/layout_cache.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

Q_DECLARE_METATYPE(msa::ui::LayoutPtr)

namespace {

// a -> b -> d, a -> c -> d, d -> e; b and c in cluster "inner", nested in "outer" with d.
LayoutRequest diamond() {
  LayoutRequest r;
  const char* ids[] = {"a", "b", "c", "d", "e"};
  const int cluster[] = {-1, 1, 1, 0, -1};
  for (int i = 0; i < 5; ++i) r.nodes.push_back({QString::fromLatin1(ids[i]), QSizeF(100 + 10 * i, 36), cluster[i]});
  r.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
  r.clusters = {{QStringLiteral("outer"), -1}, {QStringLiteral("inner"), 0}};  // parents first
  return r;
}

QRectF nodeRect(const Layout& l, size_t i) {
  const QSizeF s = l.nodeSizes[i];
  return QRectF(l.nodeCentres[i] - QPointF(s.width() / 2, s.height() / 2), s);
}

// A chain of n nodes, for generation tests.
LayoutRequest chain(int n) {
  LayoutRequest r;
  for (int i = 0; i < n; ++i) r.nodes.push_back({QString::number(i), QSizeF(90, 30), -1});
  for (int i = 1; i < n; ++i) r.edges.push_back({i - 1, i});
  return r;
}

// A layered DAG like an exported network: a main chain, side branches joining it again a few
// steps later, long skip edges, and (when `cycles`) a few back edges.
LayoutRequest network(int n, bool cycles, unsigned seed) {
  std::mt19937 rng(seed);
  LayoutRequest r;
  for (int i = 0; i < n; ++i) r.nodes.push_back({QString::number(i), QSizeF(60 + rng() % 120, 30 + rng() % 12), -1});
  for (int i = 1; i < n; ++i) {
    r.edges.push_back({i - 1, i});
    if (i % 5 == 0 && i >= 4) r.edges.push_back({i - 4, i});
    if (i % 17 == 0 && i >= 12) r.edges.push_back({i - 12, i});
    if (cycles && i % 41 == 0) r.edges.push_back({i, i - 3});
  }
  return r;
}

// The geometric promises every layout keeps, whichever engine made it.
void checkGeometry(const LayoutRequest& r, const Layout& l) {
  QCOMPARE(l.nodeCentres.size(), r.nodes.size());
  QCOMPARE(l.edges.size(), r.edges.size());
  std::vector<QRectF> rects;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    rects.push_back(nodeRect(l, i));
    QVERIFY(l.bounds.adjusted(-1, -1, 1, 1).contains(rects.back()));
  }
  // No two boxes overlap (sorted sweep: n log n).
  std::vector<size_t> order(rects.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rects[a].top() < rects[b].top(); });
  for (size_t a = 0; a < order.size(); ++a)
    for (size_t b = a + 1; b < order.size() && rects[order[b]].top() < rects[order[a]].bottom(); ++b)
      QVERIFY2(!rects[order[a]].adjusted(1, 1, -1, -1).intersects(rects[order[b]]),
               qPrintable(QStringLiteral("boxes %1 and %2 overlap").arg(order[a]).arg(order[b])));
  for (size_t e = 0; e < r.edges.size(); ++e) {
    const auto& pts = l.edges[e].points;
    if (r.edges[e].from == r.edges[e].to) continue;
    QVERIFY2(pts.size() >= 4 && (pts.size() - 1) % 3 == 0, qPrintable(QStringLiteral("edge %1").arg(e)));
    QVERIFY(l.edges[e].hasArrow);
    // It leaves its tail and ends at its head (within a few units of their boxes).
    const QRectF tail = rects[static_cast<size_t>(r.edges[e].from)].adjusted(-4, -4, 4, 4);
    const QRectF head = rects[static_cast<size_t>(r.edges[e].to)].adjusted(-4, -4, 4, 4);
    QVERIFY2(tail.contains(pts.front()), qPrintable(QStringLiteral("edge %1 does not leave its tail").arg(e)));
    QVERIFY2(head.contains(l.edges[e].arrowTip), qPrintable(QStringLiteral("edge %1 does not reach its head").arg(e)));
  }
  // Frames hold their members and their sub-frames, with room for the title.
  for (size_t i = 0; i < r.nodes.size(); ++i)
    for (int c = r.nodes[i].cluster; c >= 0; c = r.clusters[static_cast<size_t>(c)].parent) {
      QVERIFY2(l.clusterRects[static_cast<size_t>(c)].contains(rects[i]), qPrintable(QStringLiteral("node %1 outside frame %2").arg(i).arg(c)));
      QVERIFY(rects[i].top() - l.clusterRects[static_cast<size_t>(c)].top() >= r.options.clusterLabelHeight - 2);
    }
  for (size_t c = 0; c < r.clusters.size(); ++c)
    if (r.clusters[c].parent >= 0) QVERIFY(l.clusterRects[static_cast<size_t>(r.clusters[c].parent)].contains(l.clusterRects[c]));
}

// `frames` frames of the same structure (a small diamond with a skip edge each) chained one after
// the other, each inside an outer frame, as an expanded language model's layers are.
LayoutRequest repeatedFrames(int frames) {
  LayoutRequest r;
  r.nodes.push_back({QStringLiteral("in"), QSizeF(80, 36), -1});
  int prev = 0;
  for (int f = 0; f < frames; ++f) {
    const int outer = static_cast<int>(r.clusters.size());
    r.clusters.push_back({QStringLiteral("layer%1").arg(f), -1});
    const int inner = static_cast<int>(r.clusters.size());
    r.clusters.push_back({QStringLiteral("layer%1/attn").arg(f), outer});
    const int base = static_cast<int>(r.nodes.size());
    r.nodes.push_back({QStringLiteral("%1/norm").arg(f), QSizeF(90, 36), outer});
    r.nodes.push_back({QStringLiteral("%1/q").arg(f), QSizeF(70, 36), inner});
    r.nodes.push_back({QStringLiteral("%1/k").arg(f), QSizeF(70, 36), inner});
    r.nodes.push_back({QStringLiteral("%1/mm").arg(f), QSizeF(90, 36), inner});
    r.nodes.push_back({QStringLiteral("%1/add").arg(f), QSizeF(60, 36), outer});
    r.edges.push_back({prev, base});
    r.edges.push_back({base, base + 1});
    r.edges.push_back({base, base + 2});
    r.edges.push_back({base + 1, base + 3});
    r.edges.push_back({base + 2, base + 3});
    r.edges.push_back({base + 3, base + 4});
    r.edges.push_back({prev, base + 4});  // the residual
    prev = base + 4;
  }
  r.nodes.push_back({QStringLiteral("out"), QSizeF(80, 36), -1});
  r.edges.push_back({prev, static_cast<int>(r.nodes.size()) - 1});
  return r;
}

}  // namespace

class TstGraphLayout : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qRegisterMetaType<LayoutPtr>(); }
  void knownGraphGeometry();
  void rejectsBadEdges();
  void keyTracksContent();
  void cacheRoundTrip();
  void cacheRejectsDamagedFiles_data();
  void cacheRejectsDamagedFiles();
  void staleResultsAreDropped();
  void cancelEmitsCancelled();
  void cachedLayoutSkipsGraphviz();
  void fastSettingsForLargeGraphs();
  void layeredGeometry_data();
  void layeredGeometry();
  void layeredPinsPorts();
  void composedGeometry();
  void repeatedFramesLaidOutOnce();
};

void TstGraphLayout::layeredGeometry_data() {
  QTest::addColumn<int>("nodes");
  QTest::addColumn<bool>("cycles");
  QTest::newRow("300") << 300 << false;
  QTest::newRow("3000") << 3000 << false;
  QTest::newRow("back edges") << 800 << true;
}

void TstGraphLayout::layeredGeometry() {
  QFETCH(int, nodes);
  QFETCH(bool, cycles);
  const LayoutRequest r = network(nodes, cycles, 7);
  const LayoutPtr l = layeredLayout(r);
  QVERIFY(l);
  checkGeometry(r, *l);
  // Forward edges run downwards: each tail's box is above its head's.
  int down = 0;
  for (const auto& e : r.edges) down += l->nodeCentres[static_cast<size_t>(e.from)].y() < l->nodeCentres[static_cast<size_t>(e.to)].y();
  QVERIFY(down >= static_cast<int>(r.edges.size()) - nodes / 41 - 1);
  QVERIFY(l->settings.startsWith(QStringLiteral("layered")));
}

void TstGraphLayout::layeredPinsPorts() {
  LayoutRequest r = network(60, false, 3);
  r.nodes.push_back({QString(), QSizeF(2, 2), -1, LayoutRequest::Node::Pin::First});
  r.nodes.push_back({QString(), QSizeF(2, 2), -1, LayoutRequest::Node::Pin::Last});
  const int first = static_cast<int>(r.nodes.size()) - 2, last = first + 1;
  r.edges.push_back({first, 30});
  r.edges.push_back({10, last});
  for (const LayoutPtr& l : {layeredLayout(r), dotLayout(r)}) {
    QVERIFY(l);
    for (int i = 0; i < first; ++i) {
      QVERIFY(l->nodeCentres[static_cast<size_t>(first)].y() < nodeRect(*l, static_cast<size_t>(i)).top());
      QVERIFY(l->nodeCentres[static_cast<size_t>(last)].y() > nodeRect(*l, static_cast<size_t>(i)).bottom());
    }
  }
}

void TstGraphLayout::composedGeometry() {
  // The known graph composed level by level keeps its promises too.
  LayoutRequest r = diamond();
  r.options.wholeDotLimit = 0;
  LayoutPtr l = computeLayout(r);
  QVERIFY(l);
  QVERIFY(l->settings.startsWith(QStringLiteral("compound")));
  checkGeometry(r, *l);
  // A large one, levels by dot and by the layered engine.
  LayoutRequest big = repeatedFrames(120);
  big.options.levelDotLimit = 40;  // the top level (241 boxes) goes to the layered engine
  clearLevelCache();
  l = computeLayout(big);
  QVERIFY(l);
  checkGeometry(big, *l);
  const CompoundStats stats = lastCompoundStats();
  QVERIFY(stats.layered >= 1);
  QVERIFY(stats.byDot >= 1);
}

void TstGraphLayout::repeatedFramesLaidOutOnce() {
  clearLevelCache();
  LayoutRequest r = repeatedFrames(50);
  r.options.wholeDotLimit = 0;  // composed even at this size
  const LayoutPtr l = computeLayout(r);
  QVERIFY(l);
  const CompoundStats stats = lastCompoundStats();
  QCOMPARE(stats.levels, 101);  // 50 layers, 50 attention frames, the top
  // Each structure once: the top, the layers (first, middle and last differ by their ports),
  // their attention frames; every other level comes from the cache.
  QVERIFY2(stats.byDot + stats.layered <= 8, qPrintable(QString::number(stats.byDot + stats.layered)));
  QVERIFY(stats.fromCache >= 93);
  // Identical frames are drawn identically: the same size for every layer in the middle.
  QCOMPARE(l->clusterRects[20].size(), l->clusterRects[40].size());
}

void TstGraphLayout::knownGraphGeometry() {
  const LayoutRequest r = diamond();
  QString error;
  LayoutPtr l = computeLayout(r, nullptr, &error);
  QVERIFY2(l, qPrintable(error));
  QCOMPARE(l->nodeCentres.size(), size_t(5));
  // Sizes are what we measured, not what Graphviz would have guessed.
  for (size_t i = 0; i < 5; ++i) {
    QCOMPARE(qRound(l->nodeSizes[i].width()), qRound(r.nodes[i].size.width()));
    QCOMPARE(qRound(l->nodeSizes[i].height()), 36);
  }
  // y grows downward in scene coordinates: every edge goes down, tail above head.
  for (size_t e = 0; e < r.edges.size(); ++e) {
    const QPointF tail = l->nodeCentres[size_t(r.edges[e].from)], head = l->nodeCentres[size_t(r.edges[e].to)];
    QVERIFY2(tail.y() < head.y(), qPrintable(QStringLiteral("edge %1").arg(e)));
    const auto& pts = l->edges[e].points;
    QVERIFY(pts.size() >= 4 && (pts.size() - 1) % 3 == 0);  // a cubic chain
    QVERIFY(l->edges[e].hasArrow);
    QVERIFY(pts.front().y() < l->edges[e].arrowTip.y());
    // It starts at the tail's bottom and the arrow ends at the head's top.
    QVERIFY(std::abs(pts.front().y() - nodeRect(*l, size_t(r.edges[e].from)).bottom()) < 3);
    QVERIFY(std::abs(l->edges[e].arrowTip.y() - nodeRect(*l, size_t(r.edges[e].to)).top()) < 3);
  }
  // b and c share a rank, side by side, without overlapping.
  QCOMPARE(l->nodeCentres[1].y(), l->nodeCentres[2].y());
  for (size_t i = 0; i < 5; ++i)
    for (size_t j = i + 1; j < 5; ++j) QVERIFY2(!nodeRect(*l, i).intersects(nodeRect(*l, j)), qPrintable(QStringLiteral("%1 %2").arg(i).arg(j)));
  // Everything inside the bounds, which start at the origin.
  QCOMPARE(l->bounds.topLeft(), QPointF(0, 0));
  for (size_t i = 0; i < 5; ++i) QVERIFY(l->bounds.adjusted(-0.5, -0.5, 0.5, 0.5).contains(nodeRect(*l, i)));
  // Clusters contain their nodes, the inner one inside the outer one, with room for a title.
  QCOMPARE(l->clusterRects.size(), size_t(2));
  QVERIFY(l->clusterRects[0].contains(l->clusterRects[1]));
  for (size_t i : {size_t(1), size_t(2)}) QVERIFY(l->clusterRects[1].contains(nodeRect(*l, i)));
  QVERIFY(l->clusterRects[0].contains(nodeRect(*l, 3)));
  QVERIFY(!l->clusterRects[0].contains(nodeRect(*l, 0)));
  QVERIFY(nodeRect(*l, 1).top() - l->clusterRects[1].top() >= r.options.clusterLabelHeight - 2);
  QVERIFY(!l->fromCache);
  QVERIFY(l->settings.contains(QStringLiteral("rankdir=TB")));
}

void TstGraphLayout::rejectsBadEdges() {
  LayoutRequest r = chain(3);
  r.edges.push_back({0, 7});
  QString error;
  QVERIFY(!computeLayout(r, nullptr, &error));
  QVERIFY(error.contains(QStringLiteral("missing node")));
}

void TstGraphLayout::keyTracksContent() {
  const LayoutRequest a = diamond();
  LayoutRequest b = diamond();
  QCOMPARE(a.key(), b.key());
  b.nodes[2].size.setWidth(b.nodes[2].size.width() + 1);  // another font, another layout
  QVERIFY(a.key() != b.key());
  LayoutRequest c = diamond();
  c.nodes[3].cluster = -1;  // another collapse state
  QVERIFY(a.key() != c.key());
  LayoutRequest d = diamond();
  d.options.rankSep += 1;
  QVERIFY(a.key() != d.key());
}

void TstGraphLayout::cacheRoundTrip() {
  LayoutPtr l = computeLayout(diamond());
  QVERIFY(l);
  LayoutPtr back = LayoutCache::deserialize(LayoutCache::serialize(*l));
  QVERIFY(back);
  QCOMPARE(back->nodeCentres, l->nodeCentres);
  QCOMPARE(back->nodeSizes, l->nodeSizes);
  QCOMPARE(back->clusterRects, l->clusterRects);
  QCOMPARE(back->edges.size(), l->edges.size());
  for (size_t e = 0; e < l->edges.size(); ++e) {
    QCOMPARE(back->edges[e].points, l->edges[e].points);
    QCOMPARE(back->edges[e].arrowTip, l->edges[e].arrowTip);
  }
  QVERIFY(back->fromCache);

  test::TempDir dir(QTest::currentTestFunction());
  const QByteArray key = diamond().key();
  {
    LayoutCache disk(QString::fromStdString(dir.path().string()));
    disk.insert(key, l);
  }
  LayoutCache fresh(QString::fromStdString(dir.path().string()));  // a new session
  LayoutPtr hit = fresh.find(key);
  QVERIFY(hit);
  QVERIFY(hit->fromCache);
  QCOMPARE(hit->nodeCentres, l->nodeCentres);
  QVERIFY(!fresh.find(chain(2).key()));
}

void TstGraphLayout::cacheRejectsDamagedFiles_data() {
  QTest::addColumn<int>("cut");  // bytes kept
  QTest::newRow("empty") << 0;
  QTest::newRow("header only") << 8;
  QTest::newRow("half") << -2;
  QTest::newRow("all but one byte") << -1;
}

void TstGraphLayout::cacheRejectsDamagedFiles() {
  QFETCH(int, cut);
  const QByteArray bytes = LayoutCache::serialize(*computeLayout(diamond()));
  const qsizetype keep = cut >= 0 ? cut : cut == -2 ? bytes.size() / 2 : bytes.size() - 1;
  QVERIFY(!LayoutCache::deserialize(bytes.left(keep)));
  QByteArray huge = bytes;  // a count asking for far more than the file holds
  huge[20] = char(0x7f);
  LayoutCache::deserialize(huge);  // must not crash or allocate wildly; result may be null
}

void TstGraphLayout::staleResultsAreDropped() {
  GraphLayouter layouter;
  QSignalSpy finished(&layouter, &GraphLayouter::layoutFinished);
  QSignalSpy started(&layouter, &GraphLayouter::layoutStarted);
  layouter.start(chain(400));  // superseded right away
  layouter.start(chain(300));
  const quint64 last = layouter.start(chain(12));
  QCOMPARE(started.count(), 3);
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
  layouter.waitForIdle();
  QTest::qWait(50);  // late results of the first two would arrive now
  QCOMPARE(finished.count(), 1);
  QCOMPARE(finished.at(0).at(0).toULongLong(), last);
  const LayoutPtr l = finished.at(0).at(1).value<LayoutPtr>();
  QCOMPARE(l->nodeCentres.size(), size_t(12));  // the newest request's layout
}

void TstGraphLayout::cancelEmitsCancelled() {
  GraphLayouter layouter;
  QSignalSpy finished(&layouter, &GraphLayouter::layoutFinished);
  QSignalSpy cancelled(&layouter, &GraphLayouter::layoutCancelled);
  const quint64 gen = layouter.start(chain(200));
  layouter.cancel();
  QCOMPARE(cancelled.count(), 1);
  QCOMPARE(cancelled.at(0).at(0).toULongLong(), gen);
  layouter.waitForIdle();
  QTest::qWait(50);
  QCOMPARE(finished.count(), 0);  // stopped is not an error, and not a result
}

void TstGraphLayout::cachedLayoutSkipsGraphviz() {
  GraphLayouter layouter;
  layouter.setCache(std::make_shared<LayoutCache>());
  QSignalSpy finished(&layouter, &GraphLayouter::layoutFinished);
  layouter.start(diamond());
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
  QVERIFY(!finished.at(0).at(1).value<LayoutPtr>()->fromCache);
  layouter.start(diamond());
  QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 30000);
  const LayoutPtr second = finished.at(1).at(1).value<LayoutPtr>();
  QVERIFY(second->fromCache);
  QCOMPARE(second->nodeCentres, finished.at(0).at(1).value<LayoutPtr>()->nodeCentres);
}

void TstGraphLayout::fastSettingsForLargeGraphs() {
  LayoutOptions o;
  const DotSettings small = dotSettings(o, 100);
  QVERIFY(small.nslimit.isEmpty());  // dot's defaults where they are affordable
  const DotSettings large = dotSettings(o, 5000);
  QVERIFY(!large.nslimit.isEmpty());
  QVERIFY(large.nslimit.toDouble() * 5000 <= 100);  // network simplex iterations are capped
  // The DOT written for the benchmark carries the same settings.
  const QByteArray dot = toDot(chain(900));
  QVERIFY(dot.contains("nslimit="));
  QVERIFY(dot.contains("n899 [width="));
}

QTEST_MAIN(TstGraphLayout)
#include "tst_graph_layout.moc"
