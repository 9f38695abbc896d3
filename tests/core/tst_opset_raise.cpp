// Raising a model's opset for LayerNormalization: old attribute-style nodes are converted and
// compute the same in ONNX Runtime; changes of meaning refuse the raise, naming the node, and
// leave the model untouched.
#include <QtTest>

#include "model/onnx_io.h"
#include "optimize/opset_raise.h"
#include "pass_fixture.h"

using namespace msa;
using namespace msa::test;

namespace {

std::string bytes(const Model& m) {
  auto b = serializeModel(m);
  return b ? *b : std::string();
}

}  // namespace

class TestOpsetRaise : public QObject {
  Q_OBJECT
 private slots:
  // Opset-9 nodes whose attributes became inputs (Slice, Pad, Clip, Squeeze, Unsqueeze,
  // ReduceSum, Split, TopK, Dropout) and a last-axis Softmax.
  void convertsAttributeStyleNodes() {
    PassFixture f(9);
    auto x = f.input("x", {1, 3, 8, 8});
    auto s = f.node("Slice", {x}, {iv("starts", {0, 1}), iv("ends", {1, 7}), iv("axes", {1, 2})});  // [1,1,6,8]
    auto p = f.node("Pad", {s}, {iv("pads", {0, 0, 1, 0, 0, 0, 1, 0}), fa("value", 0.5f)});          // [1,1,8,8]
    auto c = f.node("Clip", {p}, {fa("min", -0.5f), fa("max", 0.7f)});
    auto u = f.node("Unsqueeze", {f.node("Squeeze", {c}, {iv("axes", {0})})}, {iv("axes", {0})});
    f.output(f.node("ReduceSum", {u}, {iv("axes", {3}), ia("keepdims", 1)}));
    auto parts = f.nodeN("Split", {u}, 2, {ia("axis", 2), iv("split", {3, 5})});
    f.output(f.nodeN("TopK", {parts[1]}, 2, {ia("k", 2), ia("axis", -1)})[0]);
    f.output(f.node("Softmax", {f.node("Dropout", {parts[0]}, {fa("ratio", 0.3f)})}, {ia("axis", 3)}));
    const Model before = f.build();
    Model m = before;
    auto r = raiseOpset(m, 17);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(r->from, int64_t(9));
    QCOMPARE(r->to, int64_t(17));
    QCOMPARE(r->note(), std::string("opset raised from 9 to 17"));
    QCOMPARE(m.opset(), int64_t(17));
    QCOMPARE(m.irVersion, int64_t(8));
    QVERIFY(r->converted.size() >= 9);
    for (const Node& n : m.graph.nodes)
      for (const char* attr : {"starts", "ends", "pads", "value", "min", "max", "split", "k", "ratio"})
        QVERIFY2(!n.attr(attr), (n.name + " still has " + attr).c_str());
    QCOMPARE(graphProblem(m), std::string());
    QVERIFY2(onnxCheck(m).ok(), onnxCheck(m).ok() ? "" : onnxCheck(m).error().describe().c_str());
    auto c2 = compareModels(before, m, {1e-6, 1e-7});
    QVERIFY2(c2.ok(), c2.ok() ? "" : c2.error().describe().c_str());
    QVERIFY2(c2->equal, c2->message.c_str());
    QCOMPARE(c2->maxAbsError, 0.0);  // the same kernels, the same numbers
  }

  void refuses_data() {
    QTest::addColumn<int>("variant");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("Softmax over a middle axis (meaning changed in 13)") << 0 << "/blk/Softmax_0";
    QTest::newRow("Upsample (deprecated)") << 1 << "deprecated in opset 17";
    QTest::newRow("opset 6 (legacy broadcasting)") << 2 << "older than 7";
    QTest::newRow("beyond what ONNX 1.12 knows") << 3 << "newest this build can check";
    QTest::newRow("inside a subgraph") << 4 << "'then/Softmax'";
  }
  void refuses() {
    QFETCH(int, variant);
    QFETCH(QString, fragment);
    PassFixture f(variant == 2 ? 6 : variant == 1 ? 9 : 12);
    auto x = f.input("x", {1, 2, 4, 4});
    if (variant == 0 || variant == 3) {
      f.output(f.node("Softmax", {x}, {ia("axis", 1)}));
    } else if (variant == 1) {
      f.output(f.node("Upsample", {x, f.values("scales", {4}, {1, 1, 2, 2})}, {sa("mode", "nearest")}));
    } else if (variant == 2) {
      f.output(f.node("Relu", {x}));
    } else {
      Graph thenG, elseG;
      thenG.name = "then";
      Node sm;
      sm.opType = "Softmax";
      sm.name = "then/Softmax";
      sm.inputs = {x};
      sm.outputs = {"t"};
      sm.attributes = {ia("axis", 1)};
      thenG.addNode(sm);
      thenG.outputs.push_back({"t", TypeInfo::tensor(DType::Float, {}), {}, {}});
      elseG = thenG;
      elseG.name = "else";
      elseG.nodes[0].name = "else/Relu";
      elseG.nodes[0].opType = "Relu";
      elseG.nodes[0].attributes.clear();
      Attribute a1, a2;
      a1.name = "then_branch";
      a1.type = AttrType::Graph;
      a1.graphs.push_back(thenG);
      a2.name = "else_branch";
      a2.type = AttrType::Graph;
      a2.graphs.push_back(elseG);
      f.output(f.node("If", {f.input("cond", {}, DType::Bool)}, {a1, a2}));
    }
    const Model before = f.model();
    Model m = before;
    auto r = raiseOpset(m, variant == 3 ? 18 : 17);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().describe().find(fragment.toStdString()) != std::string::npos, r.error().describe().c_str());
    QCOMPARE(bytes(m), bytes(before));  // nothing changed
  }

  void nothingToDoAtTheTarget() {
    PassFixture f(17);
    f.output(f.node("Softmax", {f.input("x", {2, 3, 4})}, {ia("axis", 1)}));
    Model m = f.model();
    const std::string b = bytes(m);
    auto r = raiseOpset(m, 17);
    QVERIFY(r.ok());
    QCOMPARE(r->from, r->to);
    QVERIFY(r->converted.empty());
    QCOMPARE(bytes(m), b);
  }

  // Opset 13 → 17: nothing changed meaning in between for these ops; the model is only relabelled.
  void relabelsWhenNothingChanged() {
    PassFixture f(13);
    auto x = f.input("x", {2, 3, 4});
    f.output(f.node("Softmax", {f.node("Reshape", {f.node("Relu", {x}), f.ints("s", {6, 4})})}, {ia("axis", -1)}));
    Model m = f.build();
    auto r = raiseOpset(m, 17);
    QVERIFY(r.ok());
    QVERIFY(r->converted.empty());
    QCOMPARE(m.opset(), int64_t(17));
    QVERIFY(onnxCheck(m).ok());
  }
};

QTEST_GUILESS_MAIN(TestOpsetRaise)
#include "tst_opset_raise.moc"
