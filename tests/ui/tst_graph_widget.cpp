// The graph widget end to end (offscreen): layout on a worker, find, selection sync by node
// name, frame and collapse/expand, overlays (groups, marks), minimap, level of detail.
#include <QSignalSpy>
#include <QTest>

#include "graph/find_bar.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/heat_legend.h"
#include "graph/minimap.h"
#include "graph/model_document.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "synthetic_graphs.h"
#include "test_paths.h"
#include "ui_fixtures.h"

using namespace msa;
using namespace msa::ui;

namespace {

std::shared_ptr<const ViewGraph> corpusGraph(const char* file) {
  auto m = loadModel(test::corpusModel(file));
  if (!m) return nullptr;
  (void)inferShapes(*m);
  return std::make_shared<const ViewGraph>(ViewGraph::build(m->graph));
}

bool waitReady(GraphWidget&, QSignalSpy& ready, int count = 1) {
  return QTest::qWaitFor([&] { return ready.count() >= count; }, 120000);
}

}  // namespace

class TstGraphWidget : public QObject {
  Q_OBJECT
 private slots:
  void findNodes_data();
  void findNodes();
  void findBarWalksHits();
  void selectionSync();
  void collapseAndExpand();
  void frameExpandsHiddenNodes();
  void groupsAndMarks();
  void manyGroupsArriveInSlices();
  void minimapNavigates();
  void largeGraphOpensCollapsed();
  void unpricedNodesSayWhichDims();
  void framedNodesClearTheOverlays_data();
  void framedNodesClearTheOverlays();
  void manyNodesAreFramedReadably();
  void firstViewClearsTheOverlays_data();
  void firstViewClearsTheOverlays();
  void outlineLabelsHideNoBox();

 private:
  std::unique_ptr<GraphWidget> makeWidget(std::shared_ptr<const ViewGraph> g, QSignalSpy** ready);
};

std::unique_ptr<GraphWidget> TstGraphWidget::makeWidget(std::shared_ptr<const ViewGraph> g, QSignalSpy** ready) {
  auto w = std::make_unique<GraphWidget>();
  w->resize(1200, 800);
  w->show();
  *ready = new QSignalSpy(w.get(), &GraphWidget::contentReady);
  w->setGraph(std::move(g));
  return w;
}

void TstGraphWidget::findNodes_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<int>("count");
  QTest::addColumn<QString>("first");
  QTest::newRow("op type, any case") << "matmul" << 1 << "/a/MatMul";
  QTest::newRow("op type Relu") << "Relu" << 2 << "/a/Relu";
  QTest::newRow("name part") << "/b/" << 3 << "/b/Conv";
  QTest::newRow("hidden constant not found") << "Constant" << 0 << "";
  QTest::newRow("blank") << "  " << 0 << "";
}

void TstGraphWidget::findNodes() {
  QFETCH(QString, text);
  QFETCH(int, count);
  QFETCH(QString, first);
  const ViewGraph g = ViewGraph::build(test::fixtureModel().graph);
  const QStringList hits = ui::findNodes(g, text);
  QCOMPARE(hits.size(), count);
  if (count) QCOMPARE(hits.front(), first);
}

void TstGraphWidget::findBarWalksHits() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  QSignalSpy* ready = nullptr;
  auto w = makeWidget(corpusGraph("bert_like_encoder.onnx"), &ready);
  QVERIFY(waitReady(*w, *ready));
  QSignalSpy sel(w.get(), &GraphWidget::selectionChanged);
  w->showFind();
  QVERIFY(w->findBar()->isVisible());
  w->findBar()->setText(QStringLiteral("Softmax"));
  const QStringList matches = w->findBar()->matches();
  QCOMPARE(matches.size(), 4);  // one per encoder layer
  QTRY_VERIFY(!sel.isEmpty());
  QCOMPARE(w->selectedNodes(), QStringList{matches[0]});
  w->findBar()->next();
  QCOMPARE(w->selectedNodes(), QStringList{matches[1]});
  w->findBar()->previous();
  w->findBar()->previous();  // wraps around
  QCOMPARE(w->selectedNodes(), QStringList{matches[3]});
  // The hit is in view and shown as a hit.
  const BoxItem* box = w->scene()->boxOfNode(matches[3]);
  QVERIFY(box);
  const QRectF visible = w->view()->mapToScene(w->view()->viewport()->rect()).boundingRect();
  QVERIFY(visible.intersects(box->mapRectToScene(box->rect())));
  delete ready;
}

void TstGraphWidget::selectionSync() {
  QSignalSpy* ready = nullptr;
  auto w = makeWidget(std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph)), &ready);
  QVERIFY(waitReady(*w, *ready));
  QSignalSpy sel(w.get(), &GraphWidget::selectionChanged);
  // In: by name; out: one signal, with the names.
  w->selectNodes({QStringLiteral("/b/Conv"), QStringLiteral("/a/Add")});
  QCOMPARE(sel.count(), 1);
  QVERIFY(w->scene()->boxOfNode(QStringLiteral("/b/Conv"))->isSelected());
  QVERIFY(w->scene()->boxOfNode(QStringLiteral("/a/Add"))->isSelected());
  QVERIFY(!w->scene()->boxOfNode(QStringLiteral("/a/MatMul"))->isSelected());
  w->selectNodes({QStringLiteral("/b/Conv"), QStringLiteral("/a/Add")});  // no change, no signal
  QCOMPARE(sel.count(), 1);
  // Edges touching the selection are highlighted.
  int highlighted = 0;
  for (EdgeItem* e : w->scene()->edgeItems()) highlighted += e->highlighted();
  QCOMPARE(highlighted, 4);  // Relu->Conv, Conv->Relu, MatMul->Add, Add->Relu
  // A click in the view selects by name too.
  BoxItem* relu = w->scene()->boxOfNode(QStringLiteral("/a/Relu"));
  w->view()->centerOn(relu);
  QTest::mouseClick(w->view()->viewport(), Qt::LeftButton, {}, w->view()->mapFromScene(relu->scenePos()));
  QTRY_COMPARE(sel.count(), 2);
  QCOMPARE(sel.last().at(0).toStringList(), QStringList{QStringLiteral("/a/Relu")});
  QCOMPARE(w->selectedNodes(), QStringList{QStringLiteral("/a/Relu")});
  // Unknown names are ignored, selection empties.
  w->selectNodes({QStringLiteral("no such node")});
  for (BoxItem* b : w->scene()->boxes()) QVERIFY(!b->isSelected());
  delete ready;
}

void TstGraphWidget::collapseAndExpand() {
  QSignalSpy* ready = nullptr;
  auto g = std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph));
  auto w = makeWidget(g, &ready);
  QVERIFY(waitReady(*w, *ready));
  QCOMPARE(w->scene()->boxes().size(), size_t(9));
  QCOMPARE(w->scene()->frames().size(), size_t(2));
  w->selectNodes({QStringLiteral("/a/Add")});
  const int a = g->blockIndex(QStringLiteral("/a"));
  w->setBlockCollapsed(a, true);
  QVERIFY(waitReady(*w, *ready, 2));
  QCOMPARE(w->scene()->boxes().size(), size_t(7));
  BoxItem* box = w->scene()->boxOfNode(QStringLiteral("/a/Add"));
  QCOMPARE(box->kind(), BoxItem::Kind::Block);
  QVERIFY(box->isSelected());  // the selection follows its node into the block
  QCOMPARE(w->scene()->nodesOfBox(box).size(), 3);
  // Double-clicking the block expands it again.
  w->view()->centerOn(box);
  QTest::mouseDClick(w->view()->viewport(), Qt::LeftButton, {}, w->view()->mapFromScene(box->scenePos()));
  QVERIFY(waitReady(*w, *ready, 3));
  QCOMPARE(w->scene()->boxes().size(), size_t(9));
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/a/Add"))->kind(), BoxItem::Kind::Op);
  QCOMPARE(w->selectedNodes(), QStringList{QStringLiteral("/a/Add")});
  // Collapse everything, then back to the default.
  w->collapseAll();
  QVERIFY(waitReady(*w, *ready, 4));
  QCOMPARE(w->scene()->boxes().size(), size_t(5));  // x, /a, /b, Softmax, y
  w->resetCollapse();
  QVERIFY(waitReady(*w, *ready, 5));
  QCOMPARE(w->scene()->boxes().size(), size_t(9));
  delete ready;
}

void TstGraphWidget::frameExpandsHiddenNodes() {
  QSignalSpy* ready = nullptr;
  auto g = std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph));
  auto w = makeWidget(g, &ready);
  QVERIFY(waitReady(*w, *ready));
  w->collapseAll();
  QVERIFY(waitReady(*w, *ready, 2));
  QSignalSpy collapse(w.get(), &GraphWidget::collapseStateChanged);
  w->frameNodes({QStringLiteral("/b/Relu")});
  QCOMPARE(collapse.count(), 1);
  QVERIFY(waitReady(*w, *ready, 3));
  BoxItem* relu = w->scene()->boxOfNode(QStringLiteral("/b/Relu"));
  QCOMPARE(relu->kind(), BoxItem::Kind::Op);  // /b opened
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/a/Relu"))->kind(), BoxItem::Kind::Block);  // /a stays shut
  const QRectF visible = w->view()->mapToScene(w->view()->viewport()->rect()).boundingRect();
  QVERIFY(visible.contains(relu->mapRectToScene(relu->rect())));
  delete ready;
}

void TstGraphWidget::groupsAndMarks() {
  QSignalSpy* ready = nullptr;
  auto w = makeWidget(std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph)), &ready);
  QVERIFY(waitReady(*w, *ready));
  w->setGroups({{QStringLiteral("f1"), QStringLiteral("MatMul + Add"), {QStringLiteral("/a/MatMul"), QStringLiteral("/a/Add")}, {}},
                {QStringLiteral("f2"), QStringLiteral("gone"), {QStringLiteral("not a node")}, {}}});
  w->setMarks({{QStringLiteral("/b/Conv"), MarkKind::FormatConversion, QStringLiteral("NCHW to NC1HWC0")}});
  QCOMPARE(w->scene()->groupItems().size(), size_t(1));  // a group with no visible member draws nothing
  const GroupItem* group = w->scene()->groupItems().front();
  QCOMPARE(group->label(), QStringLiteral("MatMul + Add"));
  // The outline surrounds both members and is one connected shape (bridged along the edge).
  for (const char* n : {"/a/MatMul", "/a/Add"}) {
    const BoxItem* b = w->scene()->boxOfNode(QString::fromLatin1(n));
    QVERIFY(group->boundingRect().contains(b->mapRectToScene(b->rect())));
  }
  QVERIFY(!group->boundingRect().contains(w->scene()->boxOfNode(QStringLiteral("/b/Conv"))->scenePos()));
  QCOMPARE(*w->scene()->boxOfNode(QStringLiteral("/b/Conv"))->mark(), MarkKind::FormatConversion);
  QVERIFY(!w->scene()->boxOfNode(QStringLiteral("/b/Relu"))->mark());
  // Overlays survive a relayout; a mark inside a collapsed block marks the block.
  w->setBlockCollapsed(w->graph()->blockIndex(QStringLiteral("/b")), true);
  QVERIFY(waitReady(*w, *ready, 2));
  QCOMPARE(w->scene()->groupItems().size(), size_t(1));
  QVERIFY(w->scene()->boxOfNode(QStringLiteral("/b/Conv"))->mark());
  // Several groups hidden in one collapsed block: one outline on the block, with a count.
  w->setGroups({{QStringLiteral("f1"), QStringLiteral("MatMul + Add"), {QStringLiteral("/a/MatMul"), QStringLiteral("/a/Add")}, {}},
                {QStringLiteral("f3"), QStringLiteral("Relu"), {QStringLiteral("/a/Relu")}, {}}});
  QCOMPARE(w->scene()->groupItems().size(), size_t(2));
  w->setBlockCollapsed(w->graph()->blockIndex(QStringLiteral("/a")), true);
  QVERIFY(waitReady(*w, *ready, 3));
  QCOMPARE(w->scene()->groupItems().size(), size_t(1));
  QCOMPARE(w->scene()->groupItems().front()->label(), QStringLiteral("2 groups"));
  delete ready;
}

// Hundreds of findings are outlined a slice per event: the first slice at once, the rest
// without holding the event loop; an emphasis set meanwhile holds for the late ones, and a newer
// set of groups abandons the rest of the old one.
void TstGraphWidget::manyGroupsArriveInSlices() {
  QSignalSpy* ready = nullptr;
  auto w = makeWidget(std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph)), &ready);
  QVERIFY(waitReady(*w, *ready));
  QList<NodeGroup> many;
  for (int i = 0; i < 300; ++i)
    many.push_back({QStringLiteral("g%1").arg(i), QStringLiteral("group %1").arg(i), {QStringLiteral("/a/MatMul")}, {}});
  w->setGroups(many);
  const size_t first = w->scene()->groupItems().size();
  QVERIFY(first > 0 && first < static_cast<size_t>(many.size()));
  QVERIFY(!w->scene()->groupsComplete());
  w->setEmphasizedGroup(QStringLiteral("g299"));
  QTRY_VERIFY(w->scene()->groupsComplete());
  QCOMPARE(w->scene()->groupItems().size(), size_t(many.size()));
  int emphasised = 0, dimmed = 0;
  for (const GroupItem* g : w->scene()->groupItems()) {
    emphasised += g->emphasis() == GroupItem::Emphasis::Emphasised;
    dimmed += g->emphasis() == GroupItem::Emphasis::Dimmed;
  }
  QCOMPARE(emphasised, 1);
  QCOMPARE(dimmed, 299);
  // A newer set while the old one is still being drawn: only the newer one's outlines.
  w->setGroups(many);
  w->setGroups({{QStringLiteral("f1"), QStringLiteral("MatMul + Add"), {QStringLiteral("/a/MatMul"), QStringLiteral("/a/Add")}, {}}});
  QTest::qWait(50);
  QCOMPARE(w->scene()->groupItems().size(), size_t(1));
  QCOMPARE(w->scene()->groupItems().front()->label(), QStringLiteral("MatMul + Add"));
  delete ready;
}

void TstGraphWidget::minimapNavigates() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  QSignalSpy* ready = nullptr;
  auto w = makeWidget(corpusGraph("resnet18.onnx"), &ready);
  QVERIFY(waitReady(*w, *ready));
  Minimap* mm = w->minimap();
  QVERIFY(mm->isVisible());
  // ResNet-18 is far taller than the view: the viewport rectangle covers part of the overview.
  const QRectF before = mm->viewportInMinimap();
  QVERIFY(before.height() < mm->height());
  const QPointF target(mm->width() / 2.0, mm->height() - 20.0);
  const QPointF expected = mm->sceneAt(target);
  QTest::mouseClick(mm, Qt::LeftButton, {}, target.toPoint());
  const QPointF centre = w->view()->mapToScene(w->view()->viewport()->rect().center());
  QVERIFY2(std::abs(centre.y() - expected.y()) < 40, qPrintable(QStringLiteral("%1 vs %2").arg(centre.y()).arg(expected.y())));
  QVERIFY(mm->viewportInMinimap().center().y() > before.center().y());
  // Hidden while the whole graph is in view, it does not render what changes meanwhile; it
  // does when it shows again.
  w->view()->setZoom(GraphView::kMinZoom);
  QVERIFY(!mm->isVisible());
  w->setGroups({});
  QTRY_VERIFY(mm->stale());
  w->view()->setZoom(1.0);
  QVERIFY(mm->isVisible());
  QVERIFY(!mm->stale());
  delete ready;
}

void TstGraphWidget::largeGraphOpensCollapsed() {
  QSignalSpy* ready = nullptr;
  const Model m = bench::transformer(bench::transformerWithNodes(3000));
  auto w = makeWidget(std::make_shared<const ViewGraph>(ViewGraph::build(m.graph)), &ready);
  QVERIFY(waitReady(*w, *ready));
  QVERIFY(w->scene()->boxes().size() <= 250);
  // The identical layers are one run, drawn once (a frame "layer.0 … layer.N ×N+1") with the
  // first layer open inside: its structure shows, not 44 closed boxes.
  const ViewGraph& g = *w->graph();
  int run = -1;
  for (size_t b = 0; b < g.blocks().size(); ++b)
    if (g.blocks()[b].repeat >= 40) run = static_cast<int>(b);
  QVERIFY(run >= 0);
  QVERIFY(w->scene()->visibleGraph()->clusterOfBlock[static_cast<size_t>(run)] >= 0);
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/encoder/layer.0/attention/self/Softmax"))->kind(), BoxItem::Kind::Op);
  // A node of another layer is drawn as its twin in the first.
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/encoder/layer.7/attention/self/Softmax")),
           w->scene()->boxOfNode(QStringLiteral("/encoder/layer.0/attention/self/Softmax")));
  // Framing a node of layer 7 shows every layer: layer 7 open, the others one box each.
  const size_t before = w->scene()->boxes().size();
  w->frameNodes({QStringLiteral("/encoder/layer.7/attention/self/Softmax")});
  QVERIFY(waitReady(*w, *ready, 2));
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/encoder/layer.7/attention/self/Softmax"))->kind(), BoxItem::Kind::Op);
  QCOMPARE(w->scene()->boxOfNode(QStringLiteral("/encoder/layer.8/attention/self/Softmax"))->kind(), BoxItem::Kind::Block);
  QVERIFY(w->scene()->boxes().size() > before);
  delete ready;
}

// A model whose shapes depend on unbound input dims opens with an estimate for the shape ops
// only: the legend says how many nodes have none and which dims would price them.
void TstGraphWidget::unpricedNodesSayWhichDims() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  for (const char* file : {"ch_PP-OCRv4_rec_infer.onnx", "resnet18.onnx"}) {
    auto doc = loadDocument(QString::fromStdString(test::corpusModel(file)));
    QVERIFY2(doc, file);
    QSignalSpy* ready = nullptr;
    auto w = makeWidget(doc->graph, &ready);
    QVERIFY(waitReady(*w, *ready));
    w->setMetric(doc->metrics.front());
    const NodeMetric& time = doc->metrics.front();
    int unpriced = 0;
    for (const ViewNode& n : doc->graph->nodes()) unpriced += n.kind == ViewNode::Kind::Op && !time.values.contains(n.id);
    const QString text = w->legend()->noValueText();
    if (doc->shapes.unboundDims.empty()) {
      QCOMPARE(text, QStringLiteral("no value"));
    } else {
      QVERIFY2(unpriced > 0, file);
      for (const std::string& dim : doc->shapes.unboundDims) QVERIFY2(text.contains(QString::fromStdString(dim)), qPrintable(text));
      QVERIFY2(text.contains(QStringLiteral(" %1 node").arg(unpriced)), qPrintable(text));
    }
    delete ready;
  }
}

void TstGraphWidget::framedNodesClearTheOverlays_data() {
  QTest::addColumn<QSize>("size");
  QTest::newRow("canvas of a 1024x700 window") << QSize(600, 420);
  QTest::newRow("1920x1080") << QSize(1400, 900);
}

// A node framed (a finding clicked, a find hit) lands where neither the legend nor the overview
// covers it, and the two overlays do not cover each other: the walk at 1024x700 found find hits
// under the overview.
void TstGraphWidget::framedNodesClearTheOverlays() {
  QFETCH(QSize, size);
  QSignalSpy* ready = nullptr;
  auto g = corpusGraph("resnet18.onnx");
  if (!g) QSKIP("no model corpus");
  auto w = makeWidget(g, &ready);
  w->resize(size);
  QVERIFY(waitReady(*w, *ready));
  NodeMetric m;
  m.name = QStringLiteral("Estimated time");
  m.unit = QStringLiteral("ms");
  double t = 0;
  for (const ViewNode& n : g->nodes()) m.values.insert(n.id, t += 0.01);
  w->setMetric(m);
  QVERIFY(w->legend()->isVisible());
  const QRect legend = w->legend()->geometry();
  for (const char* node : {"/fc/Gemm", "/layer4/layer4.1/relu_1/Relu", "/conv1/Conv", "/layer2/layer2.0/downsample/downsample.0/Conv"}) {
    w->frameNodes({QString::fromLatin1(node)});
    QCoreApplication::processEvents();
    const BoxItem* box = w->scene()->boxOfNode(QString::fromLatin1(node));
    QVERIFY2(box, node);
    const QRect onView = w->view()->mapFromScene(box->mapRectToScene(box->rect())).boundingRect();
    const QRect inWidget(w->view()->viewport()->mapTo(w.get(), onView.topLeft()), onView.size());
    QVERIFY2(w->view()->viewport()->rect().contains(onView), node);
    QVERIFY2(!inWidget.intersects(legend), qPrintable(QStringLiteral("%1 under the legend").arg(node)));
    if (w->minimap()->isVisible()) {
      QVERIFY2(!inWidget.intersects(w->minimap()->geometry()), qPrintable(QStringLiteral("%1 under the overview").arg(node)));
      QVERIFY(!legend.intersects(w->minimap()->geometry()));
    }
  }
  delete ready;
}

// All of a graph's convolutions, spread over its height, framed at once: a readable zoom on the
// first of them and its neighbours, not every one at a zoom where no label reads.
void TstGraphWidget::manyNodesAreFramedReadably() {
  QSignalSpy* ready = nullptr;
  auto g = corpusGraph("resnet18.onnx");
  if (!g) QSKIP("no model corpus");
  auto w = makeWidget(g, &ready);
  w->resize(600, 420);
  QVERIFY(waitReady(*w, *ready));
  QStringList convs;
  for (const ViewNode& n : g->nodes())
    if (n.opType == QLatin1String("Conv")) convs << n.id;
  QVERIFY(convs.size() >= 20);
  w->selectNodes(convs);
  w->frameNodes(convs);
  QCoreApplication::processEvents();
  QVERIFY2(w->view()->zoom() >= 0.5, qPrintable(QString::number(w->view()->zoom())));
  const BoxItem* first = w->scene()->boxOfNode(convs.front());
  QVERIFY(w->view()->viewport()->rect().contains(w->view()->mapFromScene(first->mapRectToScene(first->rect())).boundingRect()));
  QCOMPARE(w->selectedNodes().size(), convs.size());
  delete ready;
}

QTEST_MAIN(TstGraphWidget)
void TstGraphWidget::firstViewClearsTheOverlays_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QSize>("size");
  QTest::newRow("EfficientNet-B0, canvas of a 1280x800 window") << "efficientnet_b0.onnx" << QSize(860, 450);
  QTest::newRow("EfficientNet-B0, canvas of a 1920x1080 window") << "efficientnet_b0.onnx" << QSize(1400, 760);
  QTest::newRow("MobileNetV3-small, canvas of a 1280x800 window") << "mobilenet_v3_small.onnx" << QSize(860, 450);
}

// The first view of a tall graph with its fusion outlines (labels left of the blocks) puts no
// box and, where the band between the overlays allows, no outline label under the heat legend
// (bottom left) or the overview (bottom right): the walk at 1280x800 found boxes and a label
// half under the legend.
void TstGraphWidget::firstViewClearsTheOverlays() {
  QFETCH(QString, model);
  QFETCH(QSize, size);
  auto g = corpusGraph(qPrintable(model));
  if (!g) QSKIP("no model corpus");
  GraphWidget w;
  // Laid out before the analysis' docks appear, then shrunk by them (as in the main window).
  w.resize(size + QSize(34, 270));
  w.show();
  QSignalSpy ready(&w, &GraphWidget::contentReady);
  NodeMetric m;
  m.name = QStringLiteral("Estimated time");
  m.unit = QStringLiteral("ms");
  double t = 0;
  QList<NodeGroup> groups;
  QStringList chain;
  for (const ViewNode& n : g->nodes()) {
    if (n.kind != ViewNode::Kind::Op) continue;
    m.values.insert(n.id, t += 0.01);
    chain << n.id;
    if (chain.size() == 4) {
      groups.push_back({QStringLiteral("g%1").arg(groups.size()), QStringLiteral("Conv + BatchNormalization + … (4)"), chain, {}});
      chain.clear();
    }
  }
  w.setGraph(g);
  w.setMetric(m);
  w.setGroups(groups);
  QVERIFY(waitReady(w, ready));
  QVERIFY(QTest::qWaitFor([&] { return w.scene()->groupsComplete(); }, 10000));
  // A shortcut's modifier (Ctrl+R: Analyze) and a click on a node do not move the view: it is
  // still the first view when the docks appear.
  QTest::keyClick(w.view(), Qt::Key_Control);
  QTest::mouseClick(w.view()->viewport(), Qt::LeftButton, {}, w.view()->viewport()->rect().center());
  w.resize(size);
  QCoreApplication::processEvents();
  QVERIFY(w.legend()->isVisible());
  const QRect viewport(w.view()->viewport()->mapTo(&w, QPoint(0, 0)), w.view()->viewport()->size());
  QList<QRect> overlays{w.legend()->geometry()};
  if (w.minimap()->isVisible()) overlays << w.minimap()->geometry();
  auto check = [&](const QGraphicsItem* item, const QString& what) {
    const QRect onView = w.view()->mapFromScene(item->sceneBoundingRect()).boundingRect();
    const QRect inWidget(w.view()->viewport()->mapTo(&w, onView.topLeft()), onView.size());
    if (!inWidget.intersects(viewport)) return true;
    for (const QRect& o : overlays)
      if (inWidget.intersects(o)) {
        qWarning() << what << inWidget << "under" << o;
        return false;
      }
    return true;
  };
  int shown = 0;
  for (const BoxItem* b : w.scene()->boxes()) {
    QVERIFY(check(b, b->toolTip()));
    shown += w.view()->mapFromScene(b->sceneBoundingRect()).boundingRect().intersects(w.view()->viewport()->rect());
  }
  // The labels too, unless the band between the overlays is narrower than the outlined graph
  // even at the lowest readable zoom.
  if (w.view()->zoom() > GraphView::kReadableZoom + 1e-6)
    for (const GroupItem* gi : w.scene()->groupItems()) QVERIFY(check(gi, QStringLiteral("an outline")));
  QVERIFY2(shown >= 4, "the first view shows the graph's first boxes");
  QVERIFY(w.view()->zoom() >= GraphView::kReadableZoom);
  // Still the graph's top, its input in view: the shrink kept the view's centre and the input
  // went off the top until the view re-homed.
  auto inputShown = [&] {
    for (const BoxItem* b : w.scene()->boxes())
      if (b->kind() == BoxItem::Kind::Input)
        return w.view()->viewport()->rect().contains(w.view()->mapFromScene(b->sceneBoundingRect()).boundingRect());
    return false;
  };
  QVERIFY(inputShown());
  // Once the user has scrolled, a resize leaves the view where the user put it.
  w.view()->setFocus();
  QTest::keyClick(w.view(), Qt::Key_PageDown);
  QVERIFY(!inputShown());
  w.resize(size + QSize(0, 40));
  QCoreApplication::processEvents();
  QVERIFY(!inputShown());
}

// Every Conv+Relu outlined, as an analysis on the CPU does: the right branch of a Fire module
// had its label left of its outline, over the left branch's boxes (SqueezeNet 1.1 in the walk).
void TstGraphWidget::outlineLabelsHideNoBox() {
  auto g = corpusGraph("squeezenet1_1.onnx");
  if (!g) QSKIP("no model corpus");
  QList<NodeGroup> groups;
  for (const ViewEdge& e : g->edges()) {
    const ViewNode& from = g->nodes()[static_cast<size_t>(e.from)];
    const ViewNode& to = g->nodes()[static_cast<size_t>(e.to)];
    if (from.opType == QLatin1String("Conv") && to.opType == QLatin1String("Relu"))
      groups.push_back({from.id, QStringLiteral("Conv + Relu"), {from.id, to.id}, {}});
  }
  QVERIFY(groups.size() >= 20);
  GraphWidget w;
  w.resize(1200, 800);
  w.show();
  QSignalSpy ready(&w, &GraphWidget::contentReady);
  w.setGraph(g);
  w.setGroups(groups);
  QVERIFY(waitReady(w, ready));
  QVERIFY(QTest::qWaitFor([&] { return w.scene()->groupsComplete(); }, 10000));
  QCOMPARE(static_cast<qsizetype>(w.scene()->groupItems().size()), groups.size());
  int right = 0;
  for (const GroupItem* gi : w.scene()->groupItems()) {
    for (const BoxItem* b : w.scene()->boxes())
      QVERIFY2(!gi->labelRect().intersects(b->sceneBoundingRect()), qPrintable(gi->id() + QStringLiteral(" over ") + b->toolTip()));
    right += gi->labelRect().left() > gi->sceneBoundingRect().center().x();
  }
  QVERIFY2(right >= 8, qPrintable(QString::number(right)));  // each Fire module's right branch
}

#include "tst_graph_widget.moc"
