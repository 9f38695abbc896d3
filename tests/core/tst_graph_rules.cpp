// The graph family: unfolded constant subgraphs (fixtures and the exporter arithmetic of the
// transformer exports), dynamic dims (PaddleOCR without and with bound dims), and ops the Ascend
// op table sends to the AI CPU.
#include <QtTest>

#include "cost_test_graph.h"
#include "rules_test_util.h"

using namespace msa;
using namespace msa::test;

namespace {

// x → Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): the exporter's flatten.
Model shapeArithmetic() {
  TestGraph g;
  g.input("x", "2,3,4,5").constInts("idx0", {0}).constInts("minus1", {-1});
  g.node("Shape", {"x"}, {"s"}).node("Gather", {"s", "idx0"}, {"n"}, "axis=0")
      .node("Concat", {"n", "minus1"}, {"shape"}, "axis=0")
      .node("Reshape", {"x", "shape"}, {"y"}).node("Relu", {"y"}, {"z"}).output("z");
  (void)inferShapes(g.model);
  return g.model;
}

Model plain() {
  TestGraph g;
  g.input("x", "1,64").node("Relu", {"x"}, {"y"}).output("y");
  (void)inferShapes(g.model);
  return g.model;
}

ProfileData measuredEverywhere(const Model& m, double ms) {
  return measuredProfile(m, [ms](const Node&) { return ms; });
}

}  // namespace

class TestGraphRules : public QObject {
  Q_OBJECT
 private slots:
  void unfoldedFixture() {
    const Model m = shapeArithmetic();
    // Estimated on a device that folds constants: reported, costs nothing at run time.
    Analysed est = analyse(m, device("cpu-host"), {"graph"});
    QCOMPARE(est.byRule["graph.unfolded_constants"], 1);
    const Finding& f = *est.of("graph.unfolded_constants")[0];
    std::vector<std::string> ops;
    for (const auto& n : f.nodes) ops.push_back(m.graph.findNodeByName(n)->opType);
    std::sort(ops.begin(), ops.end());
    QCOMPARE(ops, (std::vector<std::string>{"Concat", "Gather", "Shape"}));  // not the Reshape of x
    QCOMPARE(f.fixPass, std::string("fold_constants"));
    QVERIFY(f.safeFix);
    QCOMPARE(f.impact.ms, 0.0);
    // Measured (the runtime's optimizations off): their measured time.
    const ProfileData p = measuredEverywhere(m, 0.01);
    Analysed meas = analyse(m, device("cpu-host"), {"graph"}, &p);
    const Finding& g = *meas.of("graph.unfolded_constants")[0];
    QCOMPARE(g.impact.source, ImpactSource::Measured);
    QVERIFY(std::fabs(g.impact.ms - 0.03) < 1e-9);
    QCOMPARE(QString::fromStdString(violations(meas)), QString());
    // Nothing foldable: nothing reported.
    QCOMPARE(analyse(plain(), device("cpu-host"), {"graph"}).byRule["graph.unfolded_constants"], 0);
  }

  // The nodes are listed dearest first, and the finding keeps its id whichever is dearest: two
  // analyses whose measurements order the members differently name the same finding.
  void anAggregateKeepsItsIdWhenTheTimesReorderItsNodes() {
    const Model m = shapeArithmetic();
    auto dearest = [&](const std::string& op) {
      ProfileData p = measuredEverywhere(m, 0.01);
      for (NodeProfile& e : p.nodes)
        if (e.opType == op) e.timeMs.median = e.timeMs.p10 = e.timeMs.p90 = 0.05;
      return p;
    };
    const ProfileData shapeFirst = dearest("Shape"), concatFirst = dearest("Concat");
    Analysed a = analyse(m, device("cpu-host"), {"graph"}, &shapeFirst);
    Analysed b = analyse(m, device("cpu-host"), {"graph"}, &concatFirst);
    const Finding& fa = *a.of("graph.unfolded_constants")[0];
    const Finding& fb = *b.of("graph.unfolded_constants")[0];
    QCOMPARE(m.graph.findNodeByName(fa.nodes.front())->opType, std::string("Shape"));
    QCOMPARE(m.graph.findNodeByName(fb.nodes.front())->opType, std::string("Concat"));
    QCOMPARE(fa.id, fb.id);
  }

  // The corpus transformer exports keep the exporter's shape arithmetic and transposed weights.
  void unfoldedCorpus_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("weightTransposes");  // MANIFEST.md
    QTest::newRow("bert_like_encoder") << "bert_like_encoder.onnx" << 12;
    QTest::newRow("vit_ti_16") << "vit_ti_16.onnx" << 36;
  }
  void unfoldedCorpus() {
    if (!hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, model);
    QFETCH(int, weightTransposes);
    const Model m = loadCorpus(model.toStdString());
    Analysed a = analyse(m, device("cpu-host"), {"graph"});
    QCOMPARE(a.byRule["graph.unfolded_constants"], 1);
    const Finding& f = *a.of("graph.unfolded_constants")[0];
    std::map<std::string, int> byOp;
    for (const auto& n : f.nodes) ++byOp[m.graph.findNodeByName(n)->opType];
    int shapes = 0, transposedWeights = 0;
    GraphIndex idx(m.graph);
    for (const Node& n : m.graph.nodes) {
      shapes += n.is("Shape");
      transposedWeights += n.is("Transpose") && idx.initializer(n.input(0)) != nullptr;
    }
    QCOMPARE(transposedWeights, weightTransposes);
    QCOMPARE(byOp["Shape"], shapes);  // static input shapes: every Shape folds
    QVERIFY(shapes > 0);
    QCOMPARE(byOp["Transpose"], weightTransposes);
    QVERIFY(byOp["Gather"] > 0 && byOp["Unsqueeze"] > 0 && byOp["Concat"] > 0);
    QCOMPARE(byOp["Constant"], 0);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
  }

  void dynamicDims() {
    if (!hasCorpus()) QSKIP("no model corpus");
    const Model dyn = loadCorpus("ch_PP-OCRv4_rec_infer.onnx");
    Analysed a = analyse(dyn, device("cpu-host"), {"graph"});
    QCOMPARE(a.byRule["graph.dynamic_dims"], 1);
    const Finding& f = *a.of("graph.dynamic_dims")[0];
    QVERIFY2(f.params.at("inputs").find("x[p2o.DynamicDimension.0,3,48,p2o.DynamicDimension.1]") != std::string::npos,
             f.params.at("inputs").c_str());
    QVERIFY(std::stoi(f.params.at("dynamic_nodes")) > 100);
    // The anchor reads the dynamic input.
    GraphIndex idx(dyn.graph);
    const Node* anchor = dyn.graph.findNodeByName(f.nodes.front());
    QVERIFY(anchor && std::find(anchor->inputs.begin(), anchor->inputs.end(), "x") != anchor->inputs.end());
    QCOMPARE(QString::fromStdString(violations(a)), QString());

    ShapeOptions bound;
    bound.dims["p2o.DynamicDimension.0"] = 1;
    bound.dims["p2o.DynamicDimension.1"] = 320;
    const Model fixed = loadCorpus("ch_PP-OCRv4_rec_infer.onnx", bound);
    Analysed b = analyse(fixed, device("cpu-host"), {"graph"});
    for (const auto* g : b.of("graph.dynamic_dims")) QCOMPARE(g->params.at("inputs"), std::string("—"));
    // A static model: nothing.
    QCOMPARE(analyse(plain(), device("cpu-host"), {"graph"}).byRule["graph.dynamic_dims"], 0);
  }

  void aicpuOps_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("dtype");  // of the input
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("expected");
    QTest::newRow("NonZero(float) on 910B") << "NonZero" << int(DType::Float) << "ascend910b" << 1;
    QTest::newRow("NonZero(float) on 310P") << "NonZero" << int(DType::Float) << "ascend310p" << 1;
    QTest::newRow("NonZero(bool): AI Core") << "NonZero" << int(DType::Bool) << "ascend910b" << 0;
    QTest::newRow("NonZero(float) on a CPU") << "NonZero" << int(DType::Float) << "cpu-host" << 0;
    QTest::newRow("Cast float→int8") << "Cast8" << int(DType::Float) << "ascend910b" << 1;
    QTest::newRow("Cast float→float16: AI Core") << "Cast16" << int(DType::Float) << "ascend910b" << 0;
    QTest::newRow("Relu(float): AI Core") << "Relu" << int(DType::Float) << "ascend910b" << 0;
  }
  void aicpuOps() {
    QFETCH(QString, op);
    QFETCH(int, dtype);
    QFETCH(QString, device);
    QFETCH(int, expected);
    TestGraph g;
    g.input("x", "1,1000", static_cast<DType>(dtype));
    if (op == "Cast8") g.node("Cast", {"x"}, {"y"}, "to=3");
    else if (op == "Cast16") g.node("Cast", {"x"}, {"y"}, "to=10");
    else g.node(op.toStdString(), {"x"}, {"y"});
    g.output("y");
    (void)inferShapes(g.model);
    Analysed a = analyse(g.model, test::device(device.toStdString()), {"graph"});
    QCOMPARE(a.byRule["graph.aicpu_op"], expected);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
    if (!expected) return;
    const Finding& f = *a.of("graph.aicpu_op")[0];
    QCOMPARE(f.impact.source, ImpactSource::Estimated);
    QVERIFY(f.impact.ms > 0);
    QVERIFY(!f.params.at("cann").empty());
    QVERIFY(f.params.at("source").find("msprof_analyze_aicpu_rules") != std::string::npos);
  }

  // A NonZero of a constant is folded when the model is built: it never runs on the AI CPU.
  void foldedNotAicpu() {
    TestGraph g;
    g.weight("c", "1,16").node("NonZero", {"c"}, {"nz"}).output("nz");
    (void)inferShapes(g.model);
    QCOMPARE(analyse(g.model, device("ascend910b"), {"graph"}).byRule["graph.aicpu_op"], 0);
  }
};

QTEST_GUILESS_MAIN(TestGraphRules)
#include "tst_graph_rules.moc"
