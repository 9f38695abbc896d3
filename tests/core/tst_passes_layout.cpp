// Data-movement passes on fixtures: Transpose push-through, Reshape chains and no-ops, no-op
// Cast/Pad/Expand, exact Cast round trips, Split/Slice→Concat. Positive, negative and anchored;
// every rewritten model is checked (well formed, ONNX checker, same outputs in ONNX Runtime).
#include <QtTest>

#include "pass_fixture.h"

using namespace msa;
using namespace msa::test;

class TestPassesLayout : public QObject {
  Q_OBJECT
 private slots:
  // ---- push_transpose_through_elementwise
  void transposePairCancelsThroughChain() {
    PassFixture f;
    auto x = f.input("x", {2, 3, 4, 5});
    auto t = f.node("Transpose", {x}, {iv("perm", {0, 2, 3, 1})});  // [2,4,5,3]
    auto a = f.node("Add", {t, f.weight("c", {3})});                // per channel, now last
    auto b = f.node("Mul", {f.weight("d", {5, 1}), a});             // varies along W
    auto r1 = f.node("Relu", {f.node("Mul", {b, f.scalar("s", 0.5f)})});
    f.output(f.node("Transpose", {r1}, {iv("perm", {0, 3, 1, 2})}));
    auto r = runPass(f.build(), "push_transpose_through_elementwise");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Transpose"), 0);
    QCOMPARE(r.rewrites[0].note, std::string("inverse Transpose pair cancelled"));
    QCOMPARE(r.rewrites[0].nodesBefore.size(), size_t(6));
    QCOMPARE(r.model.graph.outputs[0].name, std::string("Transpose_5"));
    // The per-channel constant now broadcasts along axis 1.
    for (const Tensor& w : r.model.graph.initializers)
      if (w.name.rfind("c_", 0) == 0) QCOMPARE(w.dims, (std::vector<int64_t>{1, 3, 1, 1}));
  }

  void transposesMergeWhenNotInverse() {
    PassFixture f;
    auto x = f.input("x", {2, 3, 4, 5});
    auto t = f.node("Transpose", {x}, {iv("perm", {0, 2, 3, 1})});
    auto a = f.node("Sigmoid", {f.node("Sub", {t, f.weight("c", {4, 1, 3})})});
    f.output(f.node("Transpose", {a}, {iv("perm", {1, 0, 2, 3})}));
    auto r = runPass(f.build(), "push_transpose_through_elementwise");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Transpose"), 1);
    QCOMPARE(r.model.graph.nodes.back().attrInts("perm"), (std::vector<int64_t>{2, 0, 3, 1}));
  }

  void bothOperandsTransposed() {
    PassFixture f;
    auto a = f.input("a", {2, 3, 4});
    auto b = f.input("b", {2, 3, 4});
    auto ta = f.node("Transpose", {a}, {iv("perm", {2, 0, 1})});
    auto tb = f.node("Transpose", {b}, {iv("perm", {2, 0, 1})});
    auto s = f.node("Add", {ta, tb});
    f.output(f.node("Transpose", {s}, {iv("perm", {1, 2, 0})}));
    auto r = runPass(f.build(), "push_transpose_through_elementwise");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Transpose"), 0);
    QCOMPARE(r.model.graph.nodes.size(), size_t(1));
  }

  void transposeLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("intermediate read twice") << 0;
    QTest::newRow("intermediate is a graph output") << 1;
    QTest::newRow("full-size operand not transposed") << 2;
    QTest::newRow("not elementwise (Softmax)") << 3;
    QTest::newRow("other operand transposed differently") << 4;
  }
  void transposeLeftAlone() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = f.input("x", {2, 3, 4});
    auto t = f.node("Transpose", {x}, {iv("perm", {0, 2, 1})});
    std::string mid;
    if (variant == 2) mid = f.node("Add", {t, f.input("y", {2, 4, 3})});
    else if (variant == 3) mid = f.node("Softmax", {t}, {ia("axis", -1)});
    else if (variant == 4) mid = f.node("Add", {t, f.node("Transpose", {f.input("y", {4, 2, 3})}, {iv("perm", {1, 0, 2})})});
    else mid = f.node("Relu", {t});
    f.output(f.node("Transpose", {mid}, {iv("perm", {0, 2, 1})}));
    if (variant == 0) f.output(f.node("Neg", {mid}));
    if (variant == 1) f.output(mid);
    Model m = f.build();
    auto r = runPass(m, "push_transpose_through_elementwise");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(r.model.graph.nodes.size(), m.graph.nodes.size());
  }

  void transposeAnchored() {
    PassFixture f;
    auto x = f.input("x", {2, 3, 4});
    auto a = f.node("Transpose", {f.node("Relu", {f.node("Transpose", {x}, {iv("perm", {0, 2, 1})})})}, {iv("perm", {0, 2, 1})});
    f.output(f.node("Transpose", {f.node("Tanh", {f.node("Transpose", {a}, {iv("perm", {1, 0, 2})})})}, {iv("perm", {1, 0, 2})}));
    auto r = runPass(f.build(), "push_transpose_through_elementwise", anchoredAt({"/blk/Tanh_4"}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(countOp(r.model.graph, "Transpose"), 2);
    QVERIFY(r.model.graph.findNodeByName("/blk/Transpose_0"));
  }

  // ---- merge_reshapes, eliminate_nop_reshape
  void reshapeChainMerged() {
    PassFixture f;
    auto x = f.input("x", {2, 3, 4});
    auto a = f.node("Reshape", {x, f.ints("s1", {6, 4})});
    auto b = f.node("Unsqueeze", {a, f.ints("ax", {0})});
    auto c = f.node("Flatten", {b}, {ia("axis", 2)});
    auto y = f.node("Squeeze", {f.node("Unsqueeze", {c, f.ints("ax2", {2})}), f.ints("ax3", {2})});
    f.output(f.node("Relu", {y}));
    auto r = runPass(f.build(), "merge_reshapes");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesBefore.size(), size_t(5));
    QCOMPARE(r.model.graph.nodes.size(), size_t(2));
    const Node& rs = r.model.graph.nodes[0];
    QVERIFY(rs.is("Reshape"));
    QCOMPARE(rs.outputs[0], y);
    QCOMPARE(r.model.graph.findInitializer(rs.inputs[1])->toInt64(), (std::vector<int64_t>{6, 4}));
  }

  void reshapeChainLeftAlone_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("intermediate read twice") << 0;
    QTest::newRow("final shape symbolic") << 1;
    QTest::newRow("intermediate is a graph output") << 2;
  }
  void reshapeChainLeftAlone() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = variant == 1 ? f.input("x", {-1, 3, 4}, DType::Float, {"batch"}) : f.input("x", {2, 3, 4});
    auto a = f.node("Flatten", {x}, {ia("axis", 1)});
    auto b = f.node("Unsqueeze", {a, f.ints("ax", {1})});
    f.output(b);
    if (variant == 0) f.output(f.node("Relu", {a}));
    if (variant == 2) f.output(a);
    auto r = runPass(f.build(), "merge_reshapes", {}, true, f.inputOptions());
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
  }

  void nopReshapeRemoved_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("Reshape to its own shape") << 0;
    QTest::newRow("Reshape [0,0,-1] on symbolic dims") << 1;
    QTest::newRow("Flatten of a matrix") << 2;
    QTest::newRow("graph output renamed upstream") << 3;
  }
  void nopReshapeRemoved() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = variant == 1 ? f.input("x", {-1, 3, -1}, DType::Float, {"b", "", "t"}) : f.input("x", {2, 3, 4});
    auto h = f.node("Relu", {x});
    std::string y;
    if (variant == 0 || variant == 3) y = f.node("Reshape", {h, f.ints("s", {2, 3, 4})});
    if (variant == 1) y = f.node("Reshape", {h, f.ints("s", {0, 0, -1})});
    if (variant == 2) y = f.node("Flatten", {f.node("Reshape", {h, f.ints("s", {6, 4})})}, {ia("axis", 1)});
    f.output(variant == 3 ? y : f.node("Neg", {y}));
    auto r = runPass(f.build(), "eliminate_nop_reshape", {}, true, f.inputOptions());
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.model.graph.outputs[0].name, f.model().graph.outputs[0].name);
    if (variant == 3) QCOMPARE(r.model.graph.nodes.back().outputs[0], y);  // Relu now writes it
  }

  void nopReshapeKept_data() {
    QTest::addColumn<int>("variant");
    QTest::newRow("a real reshape") << 0;
    QTest::newRow("graph input straight to graph output") << 1;
  }
  void nopReshapeKept() {
    QFETCH(int, variant);
    PassFixture f;
    auto x = f.input("x", {2, 3, 4});
    f.output(f.node("Reshape", {x, f.ints("s", variant == 0 ? std::vector<int64_t>{3, 2, 4} : std::vector<int64_t>{2, 3, 4})}));
    auto r = runPass(f.build(), "eliminate_nop_reshape");
    MSA_VERIFY_RUN(r);
    QVERIFY(r.rewrites.empty());
    QCOMPARE(r.model.graph.nodes.size(), size_t(1));
  }

  // ---- eliminate_nop_cast / pad / expand
  void nopRemoved_data() {
    QTest::addColumn<QString>("pass");
    QTest::addColumn<int>("variant");
    QTest::addColumn<bool>("removed");
    QTest::newRow("Cast float→float") << "eliminate_nop_cast" << 0 << true;
    QTest::newRow("Cast float→double") << "eliminate_nop_cast" << 1 << false;
    QTest::newRow("CastLike to its own type") << "eliminate_nop_cast" << 2 << true;
    QTest::newRow("Pad of zeros") << "eliminate_nop_pad" << 0 << true;
    QTest::newRow("Pad of one") << "eliminate_nop_pad" << 1 << false;
    QTest::newRow("Pad of zeros, opset 10 attribute") << "eliminate_nop_pad" << 2 << true;
    QTest::newRow("Expand to [1]") << "eliminate_nop_expand" << 0 << true;
    QTest::newRow("Expand to [2,1]") << "eliminate_nop_expand" << 1 << true;
    QTest::newRow("Expand to [3,2,3]") << "eliminate_nop_expand" << 2 << false;
  }
  void nopRemoved() {
    QFETCH(QString, pass);
    QFETCH(int, variant);
    QFETCH(bool, removed);
    const bool legacy = pass == "eliminate_nop_pad" && variant == 2;
    PassFixture f(legacy ? 10 : 17);
    auto x = f.input("x", {2, 3});
    auto h = f.node("Tanh", {x});
    std::string y;
    if (pass == "eliminate_nop_cast") {
      if (variant == 2) y = f.node("CastLike", {h, f.weight("like", {1})});
      else y = f.node("Cast", {h}, {ia("to", variant == 0 ? 1 : 11)});
    } else if (pass == "eliminate_nop_pad") {
      if (legacy) y = f.node("Pad", {h}, {iv("pads", {0, 0, 0, 0})});
      else y = f.node("Pad", {h, f.ints("pads", variant == 0 ? std::vector<int64_t>{0, 0, 0, 0} : std::vector<int64_t>{0, 1, 0, 0})});
    } else {
      auto shape = variant == 0 ? std::vector<int64_t>{1} : variant == 1 ? std::vector<int64_t>{2, 1} : std::vector<int64_t>{3, 2, 3};
      y = f.node("Expand", {h, f.ints("shape", shape)});
    }
    f.output(y);
    auto r = runPass(f.build(), pass.toLatin1().constData());
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(removed ? 1 : 0));
    QCOMPARE(r.model.graph.nodes.size(), size_t(removed ? 1 : 2));
    QCOMPARE(r.model.graph.outputs[0].name, y);
  }

  // ---- eliminate_cast_roundtrip
  void castRoundTrip_data() {
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("via");
    QTest::addColumn<bool>("fromShape");
    QTest::addColumn<bool>("removed");
    QTest::newRow("f32→f64→f32") << int(DType::Float) << int(DType::Double) << false << true;
    QTest::newRow("f16→f32→f16") << int(DType::Float16) << int(DType::Float) << false << true;
    QTest::newRow("int32→int64→int32") << int(DType::Int32) << int(DType::Int64) << false << true;
    QTest::newRow("uint8→f32→uint8") << int(DType::UInt8) << int(DType::Float) << false << true;
    QTest::newRow("f32→f16→f32 (rounds)") << int(DType::Float) << int(DType::Float16) << false << false;
    QTest::newRow("int64→int32→int64 (unknown values)") << int(DType::Int64) << int(DType::Int32) << false << false;
    QTest::newRow("int64→int32→int64 of a static shape") << int(DType::Int64) << int(DType::Int32) << true << true;
    QTest::newRow("int32→f32→int32 (beyond 2^24)") << int(DType::Int32) << int(DType::Float) << false << false;
  }
  void castRoundTrip() {
    QFETCH(int, from);
    QFETCH(int, via);
    QFETCH(bool, fromShape);
    QFETCH(bool, removed);
    PassFixture f;
    std::string x;
    if (fromShape) x = f.node("Shape", {f.input("x", {2, 3, 5})});
    else x = f.input("x", {2, 3}, static_cast<DType>(from));
    auto c1 = f.node("Cast", {x}, {ia("to", via)});
    auto c2 = f.node("Cast", {c1}, {ia("to", from)});
    f.output(f.node("Identity", {c2}));
    auto r = runPass(f.build(), "eliminate_cast_roundtrip");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(removed ? 1 : 0));
    QCOMPARE(countOp(r.model.graph, "Cast"), removed ? 0 : 2);
    if (removed) QCOMPARE(r.model.graph.nodes.back().inputs[0], x);
  }

  // The first Cast stays when something else reads the wide value; a graph output keeps its name.
  void castRoundTripSharedFirstCast() {
    PassFixture f;
    auto x = f.input("x", {2, 3});
    auto c1 = f.node("Cast", {x}, {ia("to", int(DType::Double))});
    auto c2 = f.node("Cast", {c1}, {ia("to", int(DType::Float))});
    f.output(f.node("Relu", {x}));  // x is read by another node: the output's name cannot move onto it
    f.output(f.node("Neg", {c1}));
    f.output(f.node("Abs", {c2}));
    auto r = runPass(f.build(), "eliminate_cast_roundtrip");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesAfter, std::vector<std::string>{"/blk/Cast_0"});
    QCOMPARE(countOp(r.model.graph, "Cast"), 1);
  }

  // ---- eliminate_slice_concat
  void sliceConcat_data() {
    QTest::addColumn<int>("variant");
    QTest::addColumn<bool>("removed");
    QTest::newRow("Split → Concat") << 0 << true;
    QTest::newRow("Slices [0,2) [2,5) → Concat") << 1 << true;
    QTest::newRow("Slices with INT_MAX end and negative start") << 2 << true;
    QTest::newRow("Split on another axis") << 3 << false;
    QTest::newRow("Slices out of order") << 4 << false;
    QTest::newRow("Slices with a gap") << 5 << false;
    QTest::newRow("Split outputs swapped") << 6 << false;
  }
  void sliceConcat() {
    QFETCH(int, variant);
    QFETCH(bool, removed);
    PassFixture f;
    auto x = f.node("Relu", {f.input("x", {2, 5, 3})});
    std::vector<std::string> parts;
    if (variant == 0 || variant == 3 || variant == 6) {
      parts = f.nodeN("Split", {x, f.ints("split", variant == 3 ? std::vector<int64_t>{1, 1} : std::vector<int64_t>{2, 3})}, 2,
                      {ia("axis", variant == 3 ? 0 : 1)});
      if (variant == 6) std::swap(parts[0], parts[1]);
    } else {
      std::vector<std::pair<int64_t, int64_t>> ranges = {{0, 2}, {2, 5}};
      if (variant == 2) ranges = {{0, -3}, {-3, 2147483647}};
      if (variant == 4) ranges = {{2, 5}, {0, 2}};
      if (variant == 5) ranges = {{0, 2}, {3, 5}};
      for (size_t k = 0; k < ranges.size(); ++k)
        parts.push_back(f.node("Slice", {x, f.ints("b" + std::to_string(k), {ranges[k].first}),
                                         f.ints("e" + std::to_string(k), {ranges[k].second}), f.ints("a" + std::to_string(k), {1})}));
    }
    auto y = f.node("Concat", parts, {ia("axis", 1)});
    f.output(f.node("Neg", {y}));
    auto r = runPass(f.build(), "eliminate_slice_concat");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(removed ? 1 : 0));
    QCOMPARE(countOp(r.model.graph, "Concat"), removed ? 0 : 1);
    if (removed) QCOMPARE(r.model.graph.nodes.size(), size_t(2));
  }

  void sliceConcatKeepsSharedSplit() {
    PassFixture f;
    auto x = f.input("x", {2, 6});
    auto parts = f.nodeN("Split", {x, f.ints("split", {3, 3})}, 2, {ia("axis", 1)});
    f.output(f.node("Relu", {f.node("Concat", parts, {ia("axis", -1)})}));
    f.output(f.node("Neg", {parts[1]}));
    auto r = runPass(f.build(), "eliminate_slice_concat");
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QCOMPARE(r.rewrites[0].nodesAfter, std::vector<std::string>{"/blk/Split_0"});
    QCOMPARE(countOp(r.model.graph, "Split"), 1);
    QCOMPARE(countOp(r.model.graph, "Concat"), 0);
  }

  void sliceConcatAnchored() {
    PassFixture f;
    auto x = f.input("x", {2, 6});
    auto p1 = f.nodeN("Split", {x, f.ints("s1", {3, 3})}, 2, {ia("axis", 1)});
    auto c1 = f.node("Concat", p1, {ia("axis", 1)});
    auto p2 = f.nodeN("Split", {c1, f.ints("s2", {1, 1})}, 2, {ia("axis", 0)});
    f.output(f.node("Concat", p2, {ia("axis", 0)}));
    auto r = runPass(f.build(), "eliminate_slice_concat", anchoredAt({"/blk/Split_2"}));
    MSA_VERIFY_RUN(r);
    QCOMPARE(r.rewrites.size(), size_t(1));
    QVERIFY(r.model.graph.findNodeByName("/blk/Concat_1"));
    QVERIFY(!r.model.graph.findNodeByName("/blk/Concat_3"));
    // The graph output kept its name: the first Concat writes it now, and the Split reads it.
    QCOMPARE(r.model.graph.findNodeByName("/blk/Concat_1")->outputs[0], std::string("Concat_3"));
  }
};

QTEST_GUILESS_MAIN(TestPassesLayout)
#include "tst_passes_layout.moc"
