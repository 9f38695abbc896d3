// fold_constants on fixtures: the shape arithmetic exporters emit, constant-only subgraphs,
// transposed weights; what must stay (symbolic shapes, random ops, results far larger than their
// inputs, nodes the runtime cannot evaluate); constant graph outputs; anchors.
#include <QtTest>

#include "pass_fixture.h"

using namespace msa;
using namespace msa::test;

namespace {

// x.view(x.size(0), x.size(1), 4, -1) as torch.onnx.export writes it.
std::string viewHeads(PassFixture& f, const std::string& x) {
  auto s = f.node("Shape", {x});
  auto d0 = f.node("Unsqueeze", {f.node("Gather", {s, f.ints("i0", {0}, true)}, {ia("axis", 0)}), f.ints("u0", {0})});
  auto d1 = f.node("Unsqueeze", {f.node("Gather", {s, f.ints("i1", {1}, true)}, {ia("axis", 0)}), f.ints("u1", {0})});
  auto shape = f.node("Concat", {d0, d1, f.ints("heads", {4}), f.ints("rest", {-1})}, {ia("axis", 0)});
  return f.node("Reshape", {x, shape});
}

const Tensor* initializerRead(const Model& m, const std::string& op, size_t input) {
  for (const Node& n : m.graph.nodes)
    if (n.is(op) && input < n.inputs.size()) return m.graph.findInitializer(n.inputs[input]);
  return nullptr;
}

}  // namespace

class TestPassesFold : public QObject {
  Q_OBJECT
 private slots:
  void shapeArithmeticFolded() {
    PassFixture f;
    auto x = f.input("x", {2, 6, 16});
    f.output(f.node("Relu", {viewHeads(f, x)}));
    auto r = runPass(f.build(), "fold_constants");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.model.graph.nodes.size(), size_t(2));  // Reshape, Relu
    const Tensor* shape = initializerRead(r.model, "Reshape", 1);
    QVERIFY(shape);
    QCOMPARE(shape->toInt64(), (std::vector<int64_t>{2, 6, 4, -1}));
    QCOMPARE(r.rewrites[0].nodesBefore.size(), size_t(6));  // Shape, 2 Gather, 2 Unsqueeze, Concat
    QVERIFY(r.rewrites[0].note.find("6 nodes folded into 1 constants") == 0);
    // The inputs of the folded nodes are gone with them.
    QVERIFY(!r.model.graph.findInitializer("i0") && !r.model.graph.findInitializer("heads"));
  }

  void symbolicShapeStays() {
    PassFixture f;
    auto x = f.input("x", {-1, 6, 16}, DType::Float, {"batch"});
    f.output(f.node("Relu", {viewHeads(f, x)}));
    Model m = f.build();
    auto r = runPass(m, "fold_constants", {}, true, f.inputOptions());
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());  // every shape value reads the unknown batch dim's Shape
    QCOMPARE(r.model.graph.nodes.size(), m.graph.nodes.size());
  }

  void constantSubgraphFolded() {
    PassFixture f;
    auto x = f.input("x", {3, 4});
    auto w = f.weight("w", {4, 5});
    auto k = f.node("Mul", {f.node("Add", {w, f.weight("d", {5})}), f.scalar("s", 0.5f)});
    auto wt = f.node("Transpose", {f.weight("v", {6, 5})}, {iv("perm", {1, 0})});
    f.output(f.node("MatMul", {f.node("MatMul", {x, k}), wt}));
    Model m = f.build();
    auto r = runPass(m, "fold_constants");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.model.graph.nodes.size(), size_t(2));
    QCOMPARE(countOp(r.model.graph, "Transpose"), 0);
    // The folded weight holds (w + d) · 0.5 as the runtime computes it in float.
    const Tensor* folded = r.model.graph.findInitializer(k);
    QVERIFY(folded);
    QCOMPARE(folded->dims, (std::vector<int64_t>{4, 5}));
    auto wv = m.graph.findInitializer("w")->toDouble(), dv = m.graph.findInitializer("d")->toDouble(), fv = folded->toDouble();
    for (size_t i = 0; i < fv.size(); ++i)
      QCOMPARE(float(fv[i]), (float(wv[i]) + float(dv[i % 5])) * 0.5f);
    QCOMPARE(r.model.graph.findInitializer(wt)->dims, (std::vector<int64_t>{5, 6}));
  }

  void bigResultsStay_data() {
    QTest::addColumn<QString>("op");
    QTest::newRow("ConstantOfShape 1000×1000") << "ConstantOfShape";
    QTest::newRow("Expand of a scalar") << "Expand";
    QTest::newRow("Tile") << "Tile";
  }
  void bigResultsStay() {
    QFETCH(QString, op);
    PassFixture f;
    auto x = f.input("x", {1000, 1000});
    std::string big;
    if (op == "ConstantOfShape") big = f.node("ConstantOfShape", {f.ints("shape", {1000, 1000})});
    else if (op == "Expand") big = f.node("Expand", {f.scalar("one", 1.f), f.ints("shape", {1000, 1000})});
    else big = f.node("Tile", {f.weight("row", {1, 1000}), f.ints("reps", {1000, 1})});
    f.output(f.node("Add", {x, big}));
    auto r = runPass(f.build(), "fold_constants");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(countOp(r.model.graph, op.toStdString()), 1);
  }

  void randomStays() {
    PassFixture f;
    auto x = f.input("x", {2, 3});
    f.output(f.node("Add", {x, f.node("RandomNormal", {}, {iv("shape", {2, 3}), ia("dtype", 1)})}));
    auto r = runPass(f.build(), "fold_constants", {}, false);
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
  }

  // A constant graph output stays produced by a node (a Constant keeping its name).
  void constantGraphOutput() {
    PassFixture f;
    auto x = f.input("x", {2, 3});
    auto c = f.node("Add", {f.weight("a", {2, 3}), f.weight("b", {3})});
    f.output(f.node("Mul", {x, c}));
    f.output(c);
    auto r = runPass(f.build(), "fold_constants");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Constant"), 1);
    QCOMPARE(r.model.graph.outputs[1].name, c);
    QCOMPARE(r.rewrites[0].nodesAfter.size(), size_t(1));
  }

  // Mod with fmod=0 on floats passes ONNX's checker but the runtime refuses it: that cone stays,
  // the other one folds.
  void runtimeRefusalKeepsTheCone() {
    PassFixture f;
    auto x = f.input("x", {2, 3});
    auto good = f.node("Sub", {f.weight("a", {2, 3}), f.weight("b", {2, 3})});
    auto bad = f.node("Mod", {f.weight("c", {2, 3}, 1, 2), f.weight("d", {2, 3}, 1, 2)});
    f.output(f.node("Add", {f.node("Mul", {x, good}), bad}));
    auto r = runPass(f.build(), "fold_constants", {}, false);
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Sub"), 0);
    QCOMPARE(countOp(r.model.graph, "Mod"), 1);
  }

  void anchored() {
    PassFixture f;
    auto x = f.input("x", {2, 3});
    auto a = f.node("Neg", {f.weight("a", {2, 3})});  // /blk/Neg_0
    auto b = f.node("Abs", {f.weight("b", {2, 3})});  // /blk/Abs_1
    f.output(f.node("Add", {f.node("Mul", {x, a}), b}));
    auto r = runPass(f.build(), "fold_constants", anchoredAt({"/blk/Abs_1"}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesBefore, std::vector<std::string>{"/blk/Abs_1"});
    QCOMPARE(countOp(r.model.graph, "Neg"), 1);
    QCOMPARE(countOp(r.model.graph, "Abs"), 0);
  }
};

QTEST_GUILESS_MAIN(TestPassesFold)
#include "tst_passes_fold.moc"
