// Graphviz behind GraphLayouter: geometry of a known graph, the transform, caching, and
// superseded requests being dropped.
#include <QSignalSpy>
#include <QTest>

#include "graph/graph_layout.h"
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
};

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
