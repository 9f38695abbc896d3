// Fusion passes on fixtures: MatMul+Add → Gemm, bias folding, LayerNorm, Softmax, GELU. Each is
// checked positive (rewritten, well formed, checker, same outputs in ONNX Runtime), negative
// (multi-consumer intermediates, graph outputs in the middle, non-constant operands, wrong axes
// are left alone) and anchored (only the match holding an anchor is rewritten).
#include <QtTest>

#include "model/graph_patterns.h"
#include "pass_fixture.h"

using namespace msa;
using namespace msa::test;

namespace {

// x[M,K] · W[K,N] + b
PassFixture linear(std::vector<int64_t> xDims, std::vector<int64_t> biasDims, bool biasLeft = false) {
  PassFixture f;
  auto x = f.input("x", xDims);
  auto w = f.weight("w", {xDims.back(), 16});
  auto b = f.weight("b", biasDims);
  auto mm = f.node("MatMul", {x, w});
  f.output(f.node("Add", biasLeft ? std::vector<std::string>{b, mm} : std::vector<std::string>{mm, b}));
  return f;
}

// ReduceMean → Sub → Pow(2) → ReduceMean → Add(ε) → Sqrt → Div (→ Mul γ → Add β) on x.
std::string layerNorm(PassFixture& f, const std::string& x, std::vector<int64_t> axes, std::vector<int64_t> gammaDims,
                      bool affine = true, bool reciprocal = false, float eps = 1e-5f) {
  auto mean = f.node("ReduceMean", {x}, {iv("axes", axes)});
  auto d = f.node("Sub", {x, mean});
  auto sq = f.node("Pow", {d, f.scalar("two_" + x + std::to_string(axes.size()), 2.f)});
  auto var = f.node("ReduceMean", {sq}, {iv("axes", axes)});
  auto ve = f.node("Add", {var, f.scalar("eps_" + x + std::to_string(axes.size()), eps)});
  auto sd = f.node("Sqrt", {ve});
  std::string n;
  if (reciprocal) n = f.node("Mul", {d, f.node("Reciprocal", {sd})});
  else n = f.node("Div", {d, sd});
  if (!affine) return n;
  auto g = f.weight("gamma_" + x, gammaDims, 0.5, 1.5);
  auto b = f.weight("beta_" + x, gammaDims);
  return f.node("Add", {f.node("Mul", {n, g}), b});
}

std::string softmaxStable(PassFixture& f, const std::string& x, int64_t axis, int64_t sumAxis) {
  auto mx = f.node("ReduceMax", {x}, {iv("axes", {axis}), ia("keepdims", 1)});
  auto e = f.node("Exp", {f.node("Sub", {x, mx})});
  auto s = f.model().opset() >= 13 ? f.node("ReduceSum", {e, f.ints("sum_axes_" + x, {sumAxis})})
                                   : f.node("ReduceSum", {e}, {iv("axes", {sumAxis})});
  return f.node("Div", {e, s});
}

std::string geluErf(PassFixture& f, const std::string& x, float sqrt2 = 1.4142135f) {
  auto e = f.node("Erf", {f.node("Div", {x, f.scalar("sqrt2_" + x, sqrt2)})});
  auto p = f.node("Add", {e, f.scalar("one_" + x, 1.f)});
  return f.node("Mul", {f.node("Mul", {x, p}), f.scalar("half_" + x, 0.5f)});
}

std::string geluTanh(PassFixture& f, const std::string& x) {
  auto cube = f.node("Pow", {x, f.scalar("three_" + x, 3.f)});
  auto inner = f.node("Add", {x, f.node("Mul", {cube, f.scalar("c_" + x, 0.044715f)})});
  auto t = f.node("Tanh", {f.node("Mul", {inner, f.scalar("k_" + x, 0.7978845608f)})});
  auto p = f.node("Add", {t, f.scalar("one_" + x, 1.f)});
  return f.node("Mul", {f.node("Mul", {x, p}), f.scalar("half_" + x, 0.5f)});
}

}  // namespace

class TestPassesFusion : public QObject {
  Q_OBJECT
 private slots:
  // ---- fuse_matmul_add_into_gemm
  void matmulAddBecomesGemm_data() {
    QTest::addColumn<QList<qlonglong>>("bias");
    QTest::addColumn<bool>("biasLeft");
    QTest::newRow("[N]") << QList<qlonglong>{16} << false;
    QTest::newRow("[1,N]") << QList<qlonglong>{1, 16} << false;
    QTest::newRow("[M,N] bias first") << QList<qlonglong>{4, 16} << true;
    QTest::newRow("scalar") << QList<qlonglong>{} << false;
  }
  void matmulAddBecomesGemm() {
    QFETCH(QList<qlonglong>, bias);
    QFETCH(bool, biasLeft);
    auto f = linear({4, 8}, std::vector<int64_t>(bias.begin(), bias.end()), biasLeft);
    auto r = runPass(f.build(), "fuse_matmul_add_into_gemm");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Gemm"), 1);
    QCOMPARE(r.model.graph.nodes.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesBefore, (std::vector<std::string>{"/blk/MatMul_0", "/blk/Add_1"}));
    QCOMPARE(r.rewrites[0].nodesAfter, std::vector<std::string>{"/blk/Gemm"});
    QCOMPARE(r.model.graph.outputs[0].name, std::string("Add_1"));
  }

  void matmulAddLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("3-D input") << 0;
    QTest::newRow("weight not constant") << 1;
    QTest::newRow("bias not constant") << 2;
    QTest::newRow("MatMul result read twice") << 3;
    QTest::newRow("MatMul result is a graph output") << 4;
    QTest::newRow("bias broadcasts the result larger") << 5;
    QTest::newRow("opset 6") << 6;
  }
  void matmulAddLeftAlone() {
    QFETCH(int, variant);
    PassFixture f(variant == 6 ? 6 : 17);
    auto x = f.input("x", variant == 0 ? std::vector<int64_t>{2, 4, 8} : std::vector<int64_t>{4, 8});
    auto w = variant == 1 ? f.input("w", {8, 16}) : f.weight("w", {8, 16});
    auto b = variant == 2 ? f.input("b", {16}) : f.weight("b", variant == 5 ? std::vector<int64_t>{3, 1, 16} : std::vector<int64_t>{16});
    auto mm = f.node("MatMul", {x, w});
    std::vector<Attribute> legacy;
    if (variant == 6) legacy.push_back(ia("broadcast", 1));  // Add-6 broadcasts only when told
    f.output(f.node("Add", {mm, b}, legacy));
    if (variant == 3) f.output(f.node("Relu", {mm}));
    if (variant == 4) f.output(mm);
    Model m = f.build();
    auto r = runPass(m, "fuse_matmul_add_into_gemm", {}, variant != 6);
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(countOp(r.model.graph, "Gemm"), 0);
  }

  void matmulAddAnchored() {
    PassFixture f;
    auto x = f.input("x", {4, 8});
    auto h = f.node("Add", {f.node("MatMul", {x, f.weight("w1", {8, 8})}), f.weight("b1", {8})});
    f.output(f.node("Add", {f.node("MatMul", {h, f.weight("w2", {8, 8})}), f.weight("b2", {8})}));
    Model m = f.build();
    auto r = runPass(m, "fuse_matmul_add_into_gemm", anchoredAt({"/blk/Add_3"}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesBefore, (std::vector<std::string>{"/blk/MatMul_2", "/blk/Add_3"}));
    QVERIFY(r.model.graph.findNodeByName("/blk/MatMul_0"));
    QCOMPARE(countOp(r.model.graph, "Gemm"), 1);
  }

  // ---- fold_add_into_bias
  void addFoldsIntoBias_data() {
    QTest::addColumn<QString>("producer");
    QTest::addColumn<QList<qlonglong>>("addend");
    QTest::addColumn<bool>("hasBias");
    QTest::newRow("Conv + [1,C,1,1]") << "Conv" << QList<qlonglong>{1, 6, 1, 1} << true;
    QTest::newRow("Conv (no bias) + [C,1,1]") << "Conv" << QList<qlonglong>{6, 1, 1} << false;
    QTest::newRow("Conv + scalar") << "Conv" << QList<qlonglong>{} << true;
    QTest::newRow("ConvTranspose + [1,C,1,1]") << "ConvTranspose" << QList<qlonglong>{1, 6, 1, 1} << true;
    QTest::newRow("Gemm + [N]") << "Gemm" << QList<qlonglong>{6} << true;
    QTest::newRow("Gemm (no C) + [M,N]") << "Gemm" << QList<qlonglong>{3, 6} << false;
  }
  void addFoldsIntoBias() {
    QFETCH(QString, producer);
    QFETCH(QList<qlonglong>, addend);
    QFETCH(bool, hasBias);
    PassFixture f;
    std::string y;
    if (producer == "Gemm") {
      auto x = f.input("x", {3, 5});
      std::vector<std::string> in{x, f.weight("w", {6, 5})};
      if (hasBias) in.push_back(f.weight("c", {6}));
      y = f.node("Gemm", in, {ia("transB", 1), fa("beta", 0.5f)});
    } else {
      auto x = f.input("x", {1, 3, 7, 7});
      std::vector<std::string> in{x, f.weight("w", producer == "Conv" ? std::vector<int64_t>{6, 3, 3, 3} : std::vector<int64_t>{3, 6, 3, 3})};
      if (hasBias) in.push_back(f.weight("bias", {6}));
      y = f.node(producer.toStdString(), in);
    }
    f.output(f.node("Add", {y, f.weight("k", std::vector<int64_t>(addend.begin(), addend.end()))}));
    auto r = runPass(f.build(), "fold_add_into_bias");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Add"), 0);
    QCOMPARE(r.model.graph.nodes.size(), size_t(1));
    QCOMPARE(r.model.graph.nodes[0].inputs.size(), size_t(3));
  }

  void addStaysOutOfBias_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("addend varies over space") << 0;
    QTest::newRow("addend not constant") << 1;
    QTest::newRow("Conv result read twice") << 2;
    QTest::newRow("Conv result is a graph output") << 3;
  }
  void addStaysOutOfBias() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = f.input("x", {1, 3, 7, 7});
    auto y = f.node("Conv", {x, f.weight("w", {6, 3, 3, 3}), f.weight("bias", {6})});
    auto k = variant == 0 ? f.weight("k", {1, 1, 5, 5}) : variant == 1 ? f.input("k", {1, 6, 1, 1}) : f.weight("k", {1, 6, 1, 1});
    f.output(f.node("Add", {y, k}));
    if (variant == 2) f.output(f.node("Relu", {y}));
    if (variant == 3) f.output(y);
    auto r = runPass(f.build(), "fold_add_into_bias");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
  }

  // ---- fuse_layernorm
  void layerNormFused_data() {
    QTest::addColumn<int>("opset");
    QTest::addColumn<bool>("affine");
    QTest::addColumn<bool>("reciprocal");
    QTest::addColumn<QList<qlonglong>>("axes");
    QTest::addColumn<float>("eps");
    QTest::newRow("opset 17, γ β") << 17 << true << false << QList<qlonglong>{-1} << 1e-5f;
    QTest::newRow("opset 17, no affine, large ε") << 17 << false << false << QList<qlonglong>{2} << 0.25f;
    QTest::newRow("opset 17, Reciprocal·Mul") << 17 << true << true << QList<qlonglong>{-1} << 1e-5f;
    QTest::newRow("opset 17, two trailing axes") << 17 << true << false << QList<qlonglong>{-2, -1} << 0.5f;
    QTest::newRow("opset 14 raised") << 14 << true << false << QList<qlonglong>{-1} << 1e-5f;
  }
  void layerNormFused() {
    QFETCH(int, opset);
    QFETCH(bool, affine);
    QFETCH(bool, reciprocal);
    QFETCH(QList<qlonglong>, axes);
    QFETCH(float, eps);
    PassFixture f(opset);
    auto x = f.input("x", {2, 5, 16});
    std::vector<int64_t> ax(axes.begin(), axes.end());
    f.output(f.node("Relu", {layerNorm(f, x, ax, ax.size() == 2 ? std::vector<int64_t>{5, 16} : std::vector<int64_t>{16}, affine,
                                       reciprocal, eps)}));
    auto r = runPass(f.build(), "fuse_layernorm");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "LayerNormalization"), 1);
    QCOMPARE(r.model.graph.nodes.size(), size_t(2));
    const Node* ln = r.model.graph.findNodeByName("/blk/LayerNormalization");
    QVERIFY(ln);
    QCOMPARE(ln->attrInt("axis", 0), int64_t(3 - ax.size()));
    QCOMPARE(ln->attrFloat("epsilon", 0), eps);
    QCOMPARE(ln->inputs.size(), size_t(affine ? 3 : 2));
    QCOMPARE(r.model.opset(), int64_t(17));
    QVERIFY(r.model.irVersion >= 8);
    QCOMPARE(r.model.metadata, f.model().metadata);
    if (opset < 17) QCOMPARE(r.rewrites[0].note, std::string("opset raised from 14 to 17"));
    else QVERIFY(r.rewrites[0].note.empty());
  }

  // An opset-10 model whose Squeeze/ReduceSum/Split/Clip take attributes: converted when raised.
  void layerNormRaisesOldOpsetConvertingAttributes() {
    PassFixture f(10);
    auto x = f.input("x", {1, 4, 16});
    auto ln = layerNorm(f, x, {-1}, {16});
    auto parts = f.nodeN("Split", {ln}, 2, {ia("axis", 1), iv("split", {1, 3})});
    auto s = f.node("ReduceSum", {parts[1]}, {iv("axes", {1}), ia("keepdims", 1)});
    auto q = f.node("Squeeze", {f.node("Add", {parts[0], s})}, {iv("axes", {0})});
    f.output(f.node("Clip", {q}, {fa("min", -0.5f), fa("max", 0.5f)}));
    Model m = f.build();
    auto r = runPass(m, "fuse_layernorm");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.model.opset(), int64_t(17));
    QCOMPARE(r.rewrites[0].note, std::string("opset raised from 10 to 17"));
    for (const Node& n : r.model.graph.nodes) {
      if (n.is("Squeeze") || n.is("ReduceSum") || n.is("Split")) {
        QCOMPARE(n.inputs.size(), size_t(2));
        QVERIFY(!n.attr("axes") && !n.attr("split"));
      }
      if (n.is("Clip")) QCOMPARE(n.inputs.size(), size_t(3));
    }
  }

  // Softmax changed meaning in opset 13 (2-D coercion): over a middle axis the raise is refused
  // and the LayerNorm stays decomposed.
  void layerNormRefusesRaiseThatChangesMeaning() {
    PassFixture f(12);
    auto x = f.input("x", {2, 5, 16});
    f.output(f.node("Softmax", {layerNorm(f, x, {-1}, {16})}, {ia("axis", 1)}));
    Model m = f.build();
    auto r = runPass(m, "fuse_layernorm");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(r.model.opset(), int64_t(12));
    QCOMPARE(r.model.graph.nodes.size(), m.graph.nodes.size());
  }

  void layerNormLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("middle axis") << 0;
    QTest::newRow("mean read elsewhere") << 1;
    QTest::newRow("variance is a graph output") << 2;
    QTest::newRow("ε not constant") << 3;
    QTest::newRow("γ varies along a kept axis") << 4;
    QTest::newRow("cube instead of square") << 5;
  }
  void layerNormLeftAlone() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = f.input("x", {2, 5, 16});
    std::vector<int64_t> axes = variant == 0 ? std::vector<int64_t>{1} : std::vector<int64_t>{-1};
    auto mean = f.node("ReduceMean", {x}, {iv("axes", axes)});
    auto d = f.node("Sub", {x, mean});
    auto sq = f.node("Pow", {d, f.scalar("p", variant == 5 ? 3.f : 2.f)});
    auto var = f.node("ReduceMean", {sq}, {iv("axes", axes)});
    auto ve = f.node("Add", {var, variant == 3 ? f.input("eps", {}) : f.scalar("eps", 1e-5f)});
    auto n = f.node("Div", {d, f.node("Sqrt", {ve})});
    auto g = f.weight("gamma", variant == 4 ? std::vector<int64_t>{5, 1} : variant == 0 ? std::vector<int64_t>{5, 1} : std::vector<int64_t>{16});
    f.output(f.node("Mul", {n, g}));
    if (variant == 1) f.output(f.node("Relu", {mean}));
    if (variant == 2) f.output(var);
    auto r = runPass(f.build(), "fuse_layernorm");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(countOp(r.model.graph, "LayerNormalization"), 0);
  }

  void layerNormAnchored() {
    PassFixture f;
    auto x = f.input("x", {2, 5, 16});
    auto a = layerNorm(f, x, {-1}, {16});                     // nodes 0…8
    f.output(layerNorm(f, f.node("Relu", {a}), {-1}, {16}));  // Relu 9, then nodes 10…18
    auto r = runPass(f.build(), "fuse_layernorm", anchoredAt({"/blk/Sqrt_15"}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesBefore.front(), std::string("/blk/ReduceMean_10"));
    QCOMPARE(countOp(r.model.graph, "LayerNormalization"), 1);
    QVERIFY(r.model.graph.findNodeByName("/blk/ReduceMean_0"));  // the first one stays decomposed
  }

  // ---- fuse_softmax
  void softmaxFused_data() {
    QTest::addColumn<int>("opset");
    QTest::addColumn<bool>("stable");
    QTest::addColumn<int>("axis");
    QTest::newRow("stable, last axis") << 17 << true << -1;
    QTest::newRow("stable, middle axis") << 17 << true << 1;
    QTest::newRow("Exp/ReduceSum/Div, last axis, opset 11") << 11 << false << 2;
  }
  void softmaxFused() {
    QFETCH(int, opset);
    QFETCH(bool, stable);
    QFETCH(int, axis);
    PassFixture f(opset);
    auto x = f.input("x", {2, 3, 10});
    std::string y;
    if (stable) {
      y = softmaxStable(f, x, axis, axis);
    } else {
      auto e = f.node("Exp", {x});
      y = f.node("Div", {e, f.node("ReduceSum", {e}, {iv("axes", {axis})})});
    }
    f.output(y);
    auto r = runPass(f.build(), "fuse_softmax");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.model.graph.nodes.size(), size_t(1));
    const Node& s = r.model.graph.nodes[0];
    QVERIFY(s.is("Softmax"));
    QCOMPARE(s.attrInt("axis", -99), int64_t(axis < 0 ? axis + 3 : axis));
    QCOMPARE(s.outputs[0], y);
  }

  void softmaxLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("ReduceMax and ReduceSum on other axes") << 0;
    QTest::newRow("two axes") << 1;
    QTest::newRow("Exp read elsewhere") << 2;
    QTest::newRow("middle axis before opset 13") << 3;
    QTest::newRow("axes not constant") << 4;
  }
  void softmaxLeftAlone() {
    QFETCH(int, variant);
    PassFixture f(variant == 3 ? 11 : 17);
    auto x = f.input("x", {2, 3, 10});
    std::string y;
    if (variant == 0) {
      y = softmaxStable(f, x, 1, 2);
    } else {
      auto e = f.node("Exp", {x});
      std::string s;
      if (variant == 3) s = f.node("ReduceSum", {e}, {iv("axes", {1})});
      else if (variant == 4) s = f.node("ReduceSum", {e, f.input("axes", {1}, DType::Int64)});
      else s = f.node("ReduceSum", {e, f.ints("axes", variant == 1 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{2})});
      y = f.node("Div", {e, s});
      if (variant == 2) f.output(f.node("Relu", {e}));
    }
    f.output(y);
    auto r = runPass(f.build(), "fuse_softmax", {}, variant != 4);
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(countOp(r.model.graph, "Softmax"), 0);
  }

  // ---- fuse_gelu
  void geluFused_data() {
    QTest::addColumn<bool>("tanh");
    QTest::newRow("erf form → com.microsoft.Gelu") << false;
    QTest::newRow("tanh form → com.microsoft.FastGelu") << true;
  }
  void geluFused() {
    QFETCH(bool, tanh);
    PassFixture f;
    auto x = f.input("x", {2, 64});
    auto h = f.node("MatMul", {x, f.weight("w", {64, 64})});
    f.output(tanh ? geluTanh(f, h) : geluErf(f, h));
    auto r = runPass(f.build(), "fuse_gelu");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QVERIFY(r.rewrites[0].runtimeSpecific);
    QVERIFY(r.rewrites[0].note.find("opset 20") != std::string::npos);
    QCOMPARE(countOp(r.model.graph, tanh ? "com.microsoft.FastGelu" : "com.microsoft.Gelu"), 1);
    QCOMPARE(r.model.graph.nodes.size(), size_t(2));
    QCOMPARE(r.model.opset("com.microsoft"), int64_t(1));
    QCOMPARE(r.model.opset(), int64_t(17));
  }

  // At opset 20 the standard operator (ONNX 1.12 cannot check it; ONNX Runtime 1.21 runs it).
  void geluStandardAtOpset20() {
    PassFixture f(20);
    auto x = f.input("x", {2, 64});
    f.output(geluTanh(f, f.node("Relu", {x})));
    Model m = f.model();  // no shape inference: ONNX 1.12 does not know opset 20
    auto r = runPass(m, "fuse_gelu");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QVERIFY(!r.rewrites[0].runtimeSpecific);
    const Node& g = r.model.graph.nodes.back();
    QVERIFY(g.is("Gelu"));
    QCOMPARE(g.attrString("approximate"), std::string("tanh"));
    QCOMPARE(r.model.opset("com.microsoft"), int64_t(0));
  }

  void geluLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("√2 off by 6e-4 (passes the rule's matcher, not the proof)") << 0;
    QTest::newRow("Erf result read elsewhere") << 1;
    QTest::newRow("double precision below opset 20") << 2;
  }
  void geluLeftAlone() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = f.input("x", {2, 8}, variant == 2 ? DType::Double : DType::Float);
    std::string y;
    if (variant == 2) {
      auto e = f.node("Erf", {f.node("Div", {x, f.weight("s2", {}, 1.4142135623730951, 1.4142135623730951, DType::Double)})});
      auto p = f.node("Add", {e, f.weight("one", {}, 1, 1, DType::Double)});
      y = f.node("Mul", {f.node("Mul", {x, p}), f.weight("half", {}, 0.5, 0.5, DType::Double)});
    } else {
      y = geluErf(f, x, variant == 0 ? 1.4148f : 1.4142135f);
    }
    f.output(y);
    if (variant == 1) f.output(f.node("Relu", {"Erf_1"}));
    if (variant != 1) {  // the rules' matcher sees a GELU: the pass must be the one that says no
      Model m = f.build();
      GraphIndex idx(m.graph);
      QVERIFY(matchGeluFrom(idx, "x").has_value());
    }
    auto r = runPass(f.build(), "fuse_gelu", {}, variant != 2);  // no double Erf kernel on the CPU
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
  }

  void geluAnchored() {
    PassFixture f;
    auto x = f.input("x", {2, 8});
    auto a = geluErf(f, x);
    const size_t second = f.model().graph.nodes.size();
    f.output(geluErf(f, f.node("Neg", {a})));
    // Anchor the second GELU's Erf.
    auto r = runPass(f.build(), "fuse_gelu", anchoredAt({"/blk/Erf_" + std::to_string(second + 2)}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QVERIFY(r.model.graph.findNodeByName("/blk/Erf_1"));
    QCOMPARE(countOp(r.model.graph, "com.microsoft.Gelu"), 1);
  }
};

QTEST_GUILESS_MAIN(TestPassesFusion)
#include "tst_passes_fusion.moc"
