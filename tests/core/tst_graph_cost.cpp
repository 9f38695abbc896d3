// Graph-level costing: foldable nodes, unknown ops and shapes listed with a reason, control flow
// (If, Loop) attributed to the parent, cancellation, and the registry's coverage.
#include <QtTest>

#include <atomic>
#include <cmath>

#include "cost_test_graph.h"

using namespace msa;
using namespace msa::test;

class TestGraphCost : public QObject {
  Q_OBJECT
 private slots:
  void foldableNodes() {
    TestGraph g;
    g.input("x", "2,8").weight("w", "4,8").constInts("idx", {0}).constInts("axes", {0});
    g.node("Transpose", {"w"}, {"wt"}, "perm=1,0");         // 0: constant weight: folds
    g.node("MatMul", {"x", "wt"}, {"y"});                   // 1: activation: runs
    g.node("Shape", {"y"}, {"s"});                          // 2: static shape: folds
    g.node("Gather", {"s", "idx"}, {"n"}, "axis=0");        // 3: from a folded value: folds
    g.node("Unsqueeze", {"n", "axes"}, {"nn"});             // 4: folds
    g.node("Relu", {"y"}, {"r"});                           // 5: runs
    g.output("r").output("nn");
    const GraphCost gc = g.cost();
    const std::vector<bool> expected = {true, false, true, true, true, false};
    for (size_t i = 0; i < expected.size(); ++i) QCOMPARE(gc.nodes[i].foldable, expected[i]);
    QCOMPARE(gc.foldableNodes, size_t(4));
    QCOMPARE(gc.nodes[0].bytes(), 2 * 32.0 * 4);  // the figures still say what running it costs
    // A dynamic input shape is not foldable.
    TestGraph dyn;
    dyn.input("x", "batch,8").node("Shape", {"x"}, {"s"}).output("s");
    QVERIFY(!dyn.cost().nodes[0].foldable);
  }

  void absurdShapesStayFinite() {
    TestGraph g;
    g.input("x", "1000000000,1000000000,1000000000").node("Relu", {"x"}, {"y"}).output("y");
    const OpCost c = g.cost(false).nodes[0];
    QVERIFY(c.known);
    QVERIFY(std::isfinite(c.flops) && c.flops > 1e18);
    QVERIFY(std::isfinite(c.bytes()));
  }

  void unknownOpIsListed() {
    TestGraph g;
    g.input("x", "4").node("Relu", {"x"}, {"r"}).node("MyCustomOp", {"r"}, {"y"}, {}, "org.example").output("y");
    const GraphCost gc = g.cost();
    QVERIFY(gc.nodes[0].known);
    QVERIFY(!gc.nodes[1].known);
    QVERIFY2(gc.nodes[1].reason.find("no cost formula") != std::string::npos, gc.nodes[1].reason.c_str());
    QCOMPARE(gc.unknownNodes, size_t(1));
    QCOMPARE(gc.unknown.size(), size_t(1));
    QCOMPARE(gc.unknown[0].opType, std::string("MyCustomOp"));
    QCOMPARE(gc.unknownByOp.at("org.example:MyCustomOp"), 1);
    QCOMPARE(gc.flops, 4.0);  // the known part still counts
  }

  void unknownShapeIsFlagged() {
    TestGraph g;
    g.input("x", "batch,3,8,8").weight("w", "4,3,3,3").node("Conv", {"x", "w"}, {"y"}).output("y");
    const GraphCost gc = g.cost();
    QVERIFY(!gc.nodes[0].known);
    QVERIFY2(gc.nodes[0].reason.find("unknown") != std::string::npos, gc.nodes[0].reason.c_str());
    QCOMPARE(gc.nodes[0].flops, 0.0);
    QCOMPARE(gc.unknown.size(), size_t(1));
    // Binding the dim makes it known.
    TestGraph bound;
    bound.input("x", "batch,3,8,8").weight("w", "4,3,3,3").node("Conv", {"x", "w"}, {"y"}).output("y");
    ShapeOptions so;
    so.dims["batch"] = 2;
    QVERIFY(inferShapes(bound.model, so).ok());
    const OpCost c = computeCosts(bound.model.graph).nodes[0];
    QVERIFY2(c.known, c.reason.c_str());
    QCOMPARE(c.macs, 2.0 * 4 * 36 * 3 * 9);
  }
  void ifTakesTheDearerBranchOrTheConstantOne() {
    for (int cond : {-1, 0, 1}) {  // -1: a run-time condition
      TestGraph g;
      g.input("x", "8");
      if (cond < 0) g.input("c", "", DType::Bool);
      else g.model.graph.initializers.push_back(Tensor::fromValues("c", DType::Bool, {}, std::vector<uint8_t>{uint8_t(cond)}));
      Graph thenG, elseG;
      thenG.name = "then";
      thenG.outputs.push_back({"t", TypeInfo::tensor(DType::Float, Shape{8}), {}, {}});
      Node add;
      add.opType = "Add";
      add.inputs = {"x", "x"};
      add.outputs = {"t"};
      thenG.addNode(add);
      elseG.name = "else";
      elseG.outputs.push_back({"e2", TypeInfo::tensor(DType::Float, Shape{8}), {}, {}});
      Node m1, m2;
      m1.opType = m2.opType = "Mul";
      m1.inputs = {"x", "x"};
      m1.outputs = {"e1"};
      m2.inputs = {"e1", "x"};
      m2.outputs = {"e2"};
      elseG.addNode(m1);
      elseG.addNode(m2);
      Node n;
      n.opType = "If";
      n.inputs = {"c"};
      n.outputs = {"y"};
      Attribute a, b;
      a.name = "then_branch";
      a.type = AttrType::Graph;
      a.graphs.push_back(thenG);
      b.name = "else_branch";
      b.type = AttrType::Graph;
      b.graphs.push_back(elseG);
      n.attributes = {a, b};
      g.model.graph.addNode(n);
      g.output("y");
      const GraphCost gc = g.cost();
      QVERIFY2(gc.nodes[0].known, gc.nodes[0].reason.c_str());
      QCOMPARE(gc.subgraphs[0].size(), size_t(2));
      QCOMPARE(gc.subgraphs[0][0].flops, 8.0);   // then: one Add
      QCOMPARE(gc.subgraphs[0][1].flops, 16.0);  // else: two Muls
      QCOMPARE(gc.nodes[0].flops, cond == 1 ? 8.0 : 16.0);
      QCOMPARE(gc.flops, gc.nodes[0].flops);  // totals count the branch once, through the If
    }
  }

  void loopTripCount() {
    for (bool constantTrips : {true, false}) {
      TestGraph g;
      g.input("x", "4");
      if (constantTrips) g.model.graph.initializers.push_back(Tensor::fromValues("M", DType::Int64, {}, std::vector<int64_t>{3}));
      else g.input("M", "", DType::Int64);
      g.model.graph.initializers.push_back(Tensor::fromValues("cond", DType::Bool, {}, std::vector<uint8_t>{1}));
      Graph body;
      body.name = "body";
      body.inputs.push_back({"i", TypeInfo::tensor(DType::Int64, Shape{}), {}, {}});
      body.inputs.push_back({"c_in", TypeInfo::tensor(DType::Bool, Shape{}), {}, {}});
      body.inputs.push_back({"v", TypeInfo::tensor(DType::Float, Shape{4}), {}, {}});
      body.outputs.push_back({"c_in", TypeInfo::tensor(DType::Bool, Shape{}), {}, {}});
      body.outputs.push_back({"v2", TypeInfo::tensor(DType::Float, Shape{4}), {}, {}});
      Node add;
      add.opType = "Add";
      add.inputs = {"v", "x"};
      add.outputs = {"v2"};
      body.addNode(add);
      Node loop;
      loop.opType = "Loop";
      loop.inputs = {"M", "cond", "x"};
      loop.outputs = {"y"};
      Attribute b;
      b.name = "body";
      b.type = AttrType::Graph;
      b.graphs.push_back(body);
      loop.attributes = {b};
      g.model.graph.addNode(loop);
      g.output("y");
      const GraphCost gc = g.cost();
      QCOMPARE(gc.subgraphs[0][0].flops, 4.0);
      if (constantTrips) {
        QVERIFY2(gc.nodes[0].known, gc.nodes[0].reason.c_str());
        QCOMPARE(gc.nodes[0].flops, 12.0);
        QVERIFY(gc.unknown.empty());
      } else {
        QVERIFY(!gc.nodes[0].known);
        QCOMPARE(gc.nodes[0].flops, 4.0);  // the body once, flagged
        QVERIFY2(gc.nodes[0].reason.find("trip count") != std::string::npos, gc.nodes[0].reason.c_str());
        QCOMPARE(gc.unknown.size(), size_t(1));
        QCOMPARE(gc.unknown[0].opType, std::string("Loop"));
      }
    }
  }

  void cancelledRunMarksTheRest() {
    TestGraph g;
    g.input("x", "4").node("Relu", {"x"}, {"a"}).node("Relu", {"a"}, {"b"}).output("b");
    std::atomic<bool> cancel{true};
    Progress p({}, &cancel);
    QVERIFY(inferShapes(g.model).ok());
    const GraphCost gc = computeCosts(g.model.graph, p);
    QCOMPARE(gc.unknownNodes, size_t(2));
    QCOMPARE(gc.nodes[0].reason, std::string("cancelled"));
  }

  void registryCoversTheIssueList() {
    for (const char* op : {"Conv", "ConvTranspose", "MatMul", "Gemm", "BatchNormalization", "LayerNormalization",
                           "InstanceNormalization", "GroupNormalization", "Softmax", "LogSoftmax", "MaxPool",
                           "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Resize", "Upsample", "Concat", "Split",
                           "Slice", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Gather", "GatherElements",
                           "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                           "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "Cast", "Pad", "Expand", "Where", "Clip",
                           "Einsum", "Erf", "Gelu", "Sigmoid", "HardSwish", "HardSigmoid", "Tanh", "Identity", "Dropout",
                           "Constant", "Shape", "Size", "LSTM", "GRU", "Tile", "TopK", "ArgMax", "CumSum", "Range",
                           "ConstantOfShape", "NonZero", "If", "Loop", "Scan", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt",
                           "Exp", "Log", "Neg", "Abs", "Relu", "LeakyRelu", "PRelu", "Equal", "Less", "Greater", "Not"})
      QVERIFY2(hasCostFormula(op), op);
    QVERIFY(!hasCostFormula("NonMaxSuppression"));
    QVERIFY(hasCostFormula("FusedConv", "com.microsoft"));
  }

};

QTEST_APPLESS_MAIN(TestGraphCost)
#include "tst_graph_cost.moc"
