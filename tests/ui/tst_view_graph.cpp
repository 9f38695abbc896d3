// The drawable graph: scopes, hidden constants, edges, collapse projections.
#include <QSet>
#include <QTest>

#include "graph/view_graph.h"
#include "graph/visible_graph.h"
#include "model/onnx_io.h"
#include "synthetic_graphs.h"
#include "test_paths.h"
#include "ui_fixtures.h"

using namespace msa;
using namespace msa::ui;

class TstViewGraph : public QObject {
  Q_OBJECT
 private slots:
  void nameScope_data();
  void nameScope();
  void fixtureStructure();
  void corpusScopes_data();
  void corpusScopes();
  void defaultCollapse_data();
  void defaultCollapse();
  void projectionMergesEdges();
  void longEdgesBecomeStubs();
  void broadcastIntoBlocksBecomesStubs();
};

void TstViewGraph::nameScope_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QStringList>("scope");
  QTest::newRow("exporter") << "/encoder/layers.3/self_attn/MatMul" << QStringList{"encoder", "layers.3", "self_attn"};
  QTest::newRow("top level") << "/Constant_12" << QStringList{};
  QTest::newRow("no slash") << "MatMul_4" << QStringList{};
  QTest::newRow("dotted module") << "encoder.layers.3.fc.MatMul" << QStringList{"encoder", "layers.3", "fc"};
  QTest::newRow("paddle counter") << "p2o.Conv.12" << QStringList{"p2o"};
  QTest::newRow("trailing slash") << "/a/b/" << QStringList{"a"};
}

void TstViewGraph::nameScope() {
  QFETCH(QString, name);
  QFETCH(QStringList, scope);
  QCOMPARE(ui::nameScope(name), scope);
}

void TstViewGraph::fixtureStructure() {
  const Model m = test::fixtureModel();
  const ViewGraph g = ViewGraph::build(m.graph);
  // 7 ops (the Constant is hidden) + input + output.
  QCOMPARE(g.hiddenNodeCount(), 1);
  QCOMPARE(static_cast<int>(g.nodes().size()), 9);
  QCOMPARE(g.nodeIndex(QStringLiteral("/a/Constant")), -1);
  QVERIFY(g.nodeIndex(QStringLiteral("/a/MatMul")) >= 0);
  QCOMPARE(g.blocks().size(), size_t(2));  // /a and /b; /head holds one node and dissolves
  const int a = g.blockIndex(QStringLiteral("/a"));
  const int b = g.blockIndex(QStringLiteral("/b"));
  QVERIFY(a >= 0 && b >= 0);
  QCOMPARE(g.blocks()[size_t(a)].totalNodes, 3);
  QCOMPARE(g.nodes()[size_t(g.nodeIndex(QStringLiteral("/a/Relu")))].label, QStringLiteral("Relu"));
  QCOMPARE(g.nodes()[size_t(g.nodeIndex(QStringLiteral("/head/Softmax")))].block, -1);
  // Edges: x->MatMul, MatMul->Add (the Constant input has none), Add->Relu, Relu->Conv, Conv->Relu,
  // Relu->Add, Relu(/a)->Add(/b), Add->Softmax, Softmax->y.
  QCOMPARE(static_cast<int>(g.edges().size()), 9);
  for (const ViewEdge& e : g.edges()) QCOMPARE(e.shape, QStringLiteral("1×8×16×16"));
}

void TstViewGraph::corpusScopes_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QString>("block");     // a scope block that must exist
  QTest::addColumn<int>("minBlocks");
  QTest::newRow("resnet18") << "resnet18.onnx" << "/layer1/layer1.0" << 8;
  QTest::newRow("bert") << "bert_like_encoder.onnx" << "/encoder/layers.0/self_attn" << 8;
  QTest::newRow("vit") << "vit_ti_16.onnx" << "/encoder/layers/encoder_layer_11" << 24;
  QTest::newRow("paddle (no scopes)") << "ch_ppocr_mobile_v2.0_cls_infer.onnx" << "" << 0;
}

void TstViewGraph::corpusScopes() {
  QFETCH(QString, model);
  QFETCH(QString, block);
  QFETCH(int, minBlocks);
  if (!test::hasCorpus()) QSKIP("no model corpus");
  auto m = loadModel(test::corpusModel(model.toStdString()));
  QVERIFY2(m.ok(), m.ok() ? "" : m.error().describe().c_str());
  const ViewGraph g = ViewGraph::build(m->graph);
  QVERIFY2(static_cast<int>(g.blocks().size()) >= minBlocks, qPrintable(QString::number(g.blocks().size())));
  if (!block.isEmpty()) QVERIFY2(g.blockIndex(block) >= 0, qPrintable(block));
  if (minBlocks == 0) QCOMPARE(static_cast<int>(g.blocks().size()), 0);  // "p2o." is one scope holding everything
  // Every node is accounted for exactly once across the scope tree.
  int counted = static_cast<int>(g.topNodes().size());
  for (int b : g.topBlocks()) counted += g.blocks()[size_t(b)].totalNodes;
  QCOMPARE(counted, static_cast<int>(g.nodes().size()));
  // No block is too small to be worth a box.
  for (const ScopeBlock& sb : g.blocks()) QVERIFY2(sb.totalNodes >= 3, qPrintable(sb.path));
  // Constants are not drawn.
  int constants = 0;
  for (const Node& n : m->graph.nodes) constants += n.is("Constant") && n.inputs.empty();
  QCOMPARE(g.hiddenNodeCount(), constants);
}

void TstViewGraph::defaultCollapse_data() {
  QTest::addColumn<int>("nodes");
  QTest::newRow("3k") << 3000;
  QTest::newRow("10k") << 10000;
}

void TstViewGraph::defaultCollapse() {
  QFETCH(int, nodes);
  const Model m = bench::transformer(bench::transformerWithNodes(nodes));
  const ViewGraph g = ViewGraph::build(m.graph);
  QVERIFY(static_cast<int>(g.nodes().size()) >= nodes);
  const CollapseState cs = ui::defaultCollapse(g, 800, 250);
  const VisibleGraph v = VisibleGraph::project(g, cs);
  QVERIFY2(v.items.size() <= 250, qPrintable(QString::number(v.items.size())));
  QVERIFY(v.items.size() >= 20);
  // Siblings look alike: all layer blocks are collapsed or all are open.
  QSet<bool> layerStates;
  for (size_t b = 0; b < g.blocks().size(); ++b)
    if (g.blocks()[b].path.startsWith(QStringLiteral("/encoder/layer.")) && g.blocks()[b].depth == g.blocks()[size_t(g.blockIndex(QStringLiteral("/encoder/layer.0")))].depth)
      layerStates.insert(cs[b]);
  QCOMPARE(layerStates.size(), 1);
  // Every node maps to a visible item; a collapsed block's members map to its box.
  for (size_t n = 0; n < g.nodes().size(); ++n) QVERIFY(v.itemOfNode[n] >= 0);
  // Small graphs open fully.
  const ViewGraph small = ViewGraph::build(test::fixtureModel().graph);
  for (bool c : ui::defaultCollapse(small)) QVERIFY(!c);
}

void TstViewGraph::projectionMergesEdges() {
  const ViewGraph g = ViewGraph::build(test::fixtureModel().graph);
  CollapseState cs(g.blocks().size(), false);
  cs[size_t(g.blockIndex(QStringLiteral("/a")))] = true;
  const VisibleGraph v = VisibleGraph::project(g, cs);
  // /a becomes one box: 9 nodes - 3 members + 1 box.
  QCOMPARE(static_cast<int>(v.items.size()), 7);
  const int box = v.itemOfBlock[size_t(g.blockIndex(QStringLiteral("/a")))];
  QVERIFY(box >= 0);
  QCOMPARE(v.itemOfNode[size_t(g.nodeIndex(QStringLiteral("/a/Relu")))], box);
  QCOMPARE(v.itemId(g, box), QStringLiteral("block:/a"));
  // /a/Relu feeds /b/Conv and /b/Add: two edges out of the box, no self loops.
  int out = 0;
  for (const VisibleEdge& e : v.edges) {
    QVERIFY(e.from != e.to);
    out += e.from == box;
  }
  QCOMPARE(out, 2);
  // Collapsing /b too merges those two edges into one carrying one tensor (t3).
  cs[size_t(g.blockIndex(QStringLiteral("/b")))] = true;
  const VisibleGraph both = VisibleGraph::project(g, cs);
  const int bBox = both.itemOfBlock[size_t(g.blockIndex(QStringLiteral("/b")))];
  int merged = 0;
  for (const VisibleEdge& e : both.edges) {
    if (e.from != both.itemOfBlock[size_t(g.blockIndex(QStringLiteral("/a")))] || e.to != bBox) continue;
    ++merged;
    QCOMPARE(e.count, 2);
    QCOMPARE(e.tensors, 1);
  }
  QCOMPARE(merged, 1);
  // /b stays open: drawn as a frame containing its three nodes.
  QCOMPARE(static_cast<int>(v.clusters.size()), 1);
  const int conv = v.itemOfNode[size_t(g.nodeIndex(QStringLiteral("/b/Conv")))];
  QCOMPARE(v.items[size_t(conv)].cluster, 0);
}

void TstViewGraph::longEdgesBecomeStubs() {
  const Model m = bench::transformer(bench::transformerWithNodes(3000));
  const ViewGraph g = ViewGraph::build(m.graph);
  VisibleGraph v = VisibleGraph::project(g, CollapseState(g.blocks().size(), false), false);
  v.cutLongEdges();
  int cut = 0;
  std::vector<int> routedIn(v.items.size(), 0), in(v.items.size(), 0);
  for (const VisibleEdge& e : v.edges) {
    cut += !e.routed;
    ++in[size_t(e.to)];
    routedIn[size_t(e.to)] += e.routed;
  }
  QVERIFY2(cut > 0, "the attention mask feeding every layer should be cut");
  for (size_t i = 0; i < v.items.size(); ++i)
    if (in[i] > 0) QVERIFY(routedIn[i] >= 1);  // here every consumer of a cut edge has another input
  // The mask's Mul feeds every layer's attention Add: those are the long ones.
  const int mask = v.itemOfNode[size_t(g.nodeIndex(QStringLiteral("/Mul")))];
  int maskCut = 0;
  for (const VisibleEdge& e : v.edges) maskCut += e.from == mask && !e.routed;
  QVERIFY(maskCut >= cut / 2);
}

void TstViewGraph::broadcastIntoBlocksBecomesStubs() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  // BERT's attention mask (/Equal) feeds a Reshape in each of the four layers: one stays routed.
  auto m = loadModel(test::corpusModel("bert_like_encoder.onnx"));
  QVERIFY(m.ok());
  const ViewGraph g = ViewGraph::build(m->graph);
  VisibleGraph v = VisibleGraph::project(g, CollapseState(g.blocks().size(), false));
  v.cutLongEdges();
  const int equal = v.itemOfNode[size_t(g.nodeIndex(QStringLiteral("/Equal")))];
  int routed = 0, stubs = 0;
  for (const VisibleEdge& e : v.edges) {
    if (e.from != equal) continue;
    (e.routed ? routed : stubs)++;
  }
  QCOMPARE(routed, 1);
  QCOMPARE(stubs, 3);
}

QTEST_GUILESS_MAIN(TstViewGraph)
#include "tst_view_graph.moc"
