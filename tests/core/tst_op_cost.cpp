// Per-op costs against hand-computed expectations, on small graphs built here and shaped by the
// real ONNX shape inference (and, for the sliding-window and matrix ops, without it too, to
// check the formulas' own output-shape computation).
#include <QtTest>

#include "cost_test_graph.h"

using namespace msa;
using namespace msa::test;

class TestOpCost : public QObject {
  Q_OBJECT
 private slots:
  void conv_data() {
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("w");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<bool>("bias");
    QTest::addColumn<double>("macs");
    QTest::addColumn<double>("outElems");
    // MACs = N x M x output positions x (C / group) x kernel, worked out by hand.
    QTest::newRow("3x3 pad 1") << "1,3,8,8" << "4,3,3,3" << "pads=1,1,1,1" << true << 1.0 * 4 * 64 * 3 * 9 << 256.0;
    QTest::newRow("stride 2 no pad") << "1,3,9,9" << "2,3,3,3" << "strides=2,2" << false << 2.0 * 16 * 27 << 32.0;
    QTest::newRow("dilation 2") << "1,2,10,10" << "2,2,3,3" << "dilations=2,2;pads=2,2,2,2" << false
                                << 2.0 * 100 * 2 * 9 << 200.0;
    QTest::newRow("groups 2, batch 2") << "2,4,6,6" << "6,2,3,3" << "group=2;pads=1,1,1,1" << false
                                       << 2.0 * 6 * 36 * 2 * 9 << 432.0;
    QTest::newRow("depthwise") << "1,8,5,5" << "8,1,3,3" << "group=8;pads=1,1,1,1" << true << 8.0 * 25 * 9 << 200.0;
    QTest::newRow("SAME_UPPER stride 2") << "1,1,7,7" << "1,1,3,3" << "auto_pad=SAME_UPPER;strides=2,2" << false
                                         << 16.0 * 9 << 16.0;
    QTest::newRow("asymmetric pads") << "1,1,5,5" << "1,1,3,3" << "pads=0,1,2,3" << false << 5.0 * 7 * 9 << 35.0;
    QTest::newRow("1-D stride 3") << "1,2,10" << "3,2,4" << "strides=3" << false << 3.0 * 3 * 2 * 4 << 9.0;
  }
  void conv() {
    QFETCH(QString, x);
    QFETCH(QString, w);
    QFETCH(QString, attributes);
    QFETCH(bool, bias);
    QFETCH(double, macs);
    QFETCH(double, outElems);
    for (bool infer : {true, false}) {  // inferred output shape, then the formula's own
      TestGraph g = convGraph("Conv", x, w, attributes, bias, ints(w)[0]);
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.macs, macs);
      QCOMPARE(c.flops, 2 * macs + (bias ? outElems : 0.0));
      QCOMPARE(c.unit, ComputeUnit::Cube);
      QCOMPARE(c.bytesWritten, outElems * 4);
      double xElems = 1, wElems = 1;
      for (int64_t v : ints(x)) xElems *= double(v);
      for (int64_t v : ints(w)) wElems *= double(v);
      const double biasBytes = bias ? double(ints(w)[0]) * 4 : 0.0;
      QCOMPARE(c.bytesRead, (xElems + wElems) * 4 + biasBytes);
      QCOMPARE(c.paramBytes, wElems * 4 + biasBytes);
      QCOMPARE(c.computeType, DType::Float);
    }
  }

  void convTranspose_data() {
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("w");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<double>("macs");
    QTest::addColumn<double>("outElems");
    // MACs = N x C_in x input positions x (M / group) x kernel.
    QTest::newRow("stride 2") << "1,2,3,3" << "2,4,3,3" << "strides=2,2" << 2.0 * 9 * 4 * 9 << 4.0 * 7 * 7;
    QTest::newRow("groups 2") << "1,4,3,3" << "4,2,3,3" << "group=2;strides=2,2" << 4.0 * 9 * 2 * 9 << 4.0 * 7 * 7;
    QTest::newRow("output_padding") << "1,2,3,3" << "2,4,3,3" << "strides=2,2;output_padding=1,1" << 2.0 * 9 * 4 * 9
                                    << 4.0 * 8 * 8;
    QTest::newRow("pads 1") << "1,1,4,4" << "1,1,3,3" << "pads=1,1,1,1" << 16.0 * 9 << 16.0;
  }
  void convTranspose() {
    QFETCH(QString, x);
    QFETCH(QString, w);
    QFETCH(QString, attributes);
    QFETCH(double, macs);
    QFETCH(double, outElems);
    for (bool infer : {true, false}) {
      TestGraph g = convGraph("ConvTranspose", x, w, attributes, false, 0);
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.macs, macs);
      QCOMPARE(c.flops, 2 * macs);
      QCOMPARE(c.bytesWritten, outElems * 4);
    }
  }

  void matmul_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<double>("macs");
    QTest::addColumn<double>("outElems");
    QTest::newRow("batched x 2-D") << "2,3,4" << "4,5" << 2.0 * 3 * 4 * 5 << 30.0;
    QTest::newRow("broadcast batch") << "2,1,3,4" << "5,4,6" << 10.0 * 3 * 4 * 6 << 180.0;
    QTest::newRow("vector x matrix") << "4" << "4,5" << 20.0 << 5.0;
    QTest::newRow("matrix x vector") << "3,4" << "4" << 12.0 << 3.0;
    QTest::newRow("2-D") << "7,16" << "16,9" << 7.0 * 16 * 9 << 63.0;
  }
  void matmul() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(double, macs);
    QFETCH(double, outElems);
    for (bool infer : {true, false}) {
      TestGraph g;
      g.input("a", a).input("b", b).node("MatMul", {"a", "b"}, {"y"}).output("y");
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.macs, macs);
      QCOMPARE(c.flops, 2 * macs);
      QCOMPARE(c.bytesWritten, outElems * 4);
      QCOMPARE(c.paramBytes, 0.0);  // both operands are activations
    }
  }

  void gemm_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<bool>("withC");
    QTest::addColumn<double>("flops");
    // M=3, K=4, N=5: 60 MACs; + M*N for C, for alpha != 1, for beta != 1 (with C).
    QTest::newRow("plain with C") << "3,4" << "4,5" << "" << true << 120.0 + 15;
    QTest::newRow("transA") << "4,3" << "4,5" << "transA=1" << true << 120.0 + 15;
    QTest::newRow("transB, no C") << "3,4" << "5,4" << "transB=1" << false << 120.0;
    QTest::newRow("alpha and beta") << "3,4" << "4,5" << "alpha=0.5;beta=2" << true << 120.0 + 15 + 15 + 15;
  }
  void gemm() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QString, attributes);
    QFETCH(bool, withC);
    QFETCH(double, flops);
    TestGraph g;
    g.input("a", a).weight("b", b);
    std::vector<std::string> in = {"a", "b"};
    if (withC) {
      g.weight("c", "5");
      in.push_back("c");
    }
    g.node("Gemm", in, {"y"}, attributes).output("y");
    const OpCost c = g.cost().nodes[0];
    QVERIFY2(c.known, c.reason.c_str());
    QCOMPARE(c.macs, 60.0);
    QCOMPARE(c.flops, flops);
    QCOMPARE(c.bytesWritten, 15.0 * 4);
    QCOMPARE(c.paramBytes, 20.0 * 4 + (withC ? 5.0 * 4 : 0.0));
  }

  void einsum_data() {
    QTest::addColumn<QString>("equation");
    QTest::addColumn<QStringList>("shapes");
    QTest::addColumn<double>("macs");
    QTest::addColumn<double>("flops");
    QTest::addColumn<int>("unit");
    QTest::newRow("batched matmul") << "bij,bjk->bik" << QStringList{"2,3,4", "2,4,5"} << 120.0 << 240.0
                                    << int(ComputeUnit::Cube);
    QTest::newRow("implicit output") << "ij,jk" << QStringList{"3,4", "4,5"} << 60.0 << 120.0 << int(ComputeUnit::Cube);
    QTest::newRow("ellipsis") << "...ij,...jk->...ik" << QStringList{"2,3,4", "2,4,5"} << 120.0 << 240.0
                              << int(ComputeUnit::Cube);
    QTest::newRow("attention scores") << "bhqd,bhkd->bhqk" << QStringList{"1,2,3,8", "1,2,5,8"} << 240.0 << 480.0
                                      << int(ComputeUnit::Cube);
    QTest::newRow("row sum") << "ij->i" << QStringList{"3,4"} << 0.0 << 9.0 << int(ComputeUnit::Vector);
    QTest::newRow("transpose") << "ij->ji" << QStringList{"3,4"} << 0.0 << 0.0 << int(ComputeUnit::Memory);
    QTest::newRow("outer product") << "i,j->ij" << QStringList{"3", "4"} << 0.0 << 12.0 << int(ComputeUnit::Vector);
  }
  void einsum() {
    QFETCH(QString, equation);
    QFETCH(QStringList, shapes);
    QFETCH(double, macs);
    QFETCH(double, flops);
    QFETCH(int, unit);
    TestGraph g(12);
    std::vector<std::string> in;
    for (int i = 0; i < shapes.size(); ++i) {
      in.push_back("x" + std::to_string(i));
      g.input(in.back(), shapes[i]);
    }
    g.node("Einsum", in, {"y"}, "equation=" + equation).output("y");
    const OpCost c = g.cost().nodes[0];
    QVERIFY2(c.known, c.reason.c_str());
    QCOMPARE(c.macs, macs);
    QCOMPARE(c.flops, flops);
    QCOMPARE(int(c.unit), unit);
  }

  void einsumBadEquation() {
    TestGraph g(12);
    g.input("a", "3,4").input("b", "4,5").node("Einsum", {"a", "b"}, {"y"}, "equation=ij,jk,kl->il").output("y");
    const OpCost c = g.cost(false).nodes[0];
    QVERIFY(!c.known);
    QVERIFY2(c.reason.find("Einsum equation") != std::string::npos, c.reason.c_str());
  }

  void elementwise_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("shapes");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("bytesRead");
    QTest::addColumn<double>("bytesWritten");
    // Count per output element, the broadcast output being [2,3,4] = 24 elements.
    QTest::newRow("Add broadcast") << "Add" << QStringList{"2,3,4", "4"} << 24.0 << (24.0 + 4) * 4 << 96.0;
    QTest::newRow("Mul broadcast both") << "Mul" << QStringList{"2,1,4", "3,1"} << 24.0 << (8.0 + 3) * 4 << 96.0;
    QTest::newRow("Relu") << "Relu" << QStringList{"10"} << 10.0 << 40.0 << 40.0;
    QTest::newRow("Sigmoid = exp, add, div") << "Sigmoid" << QStringList{"10"} << 10 * (T + 2) << 40.0 << 40.0;
    QTest::newRow("Tanh") << "Tanh" << QStringList{"5"} << 5 * T << 20.0 << 20.0;
    QTest::newRow("Erf") << "Erf" << QStringList{"5"} << 5 * T << 20.0 << 20.0;
    QTest::newRow("HardSwish") << "HardSwish" << QStringList{"4"} << 4.0 * 5 << 16.0 << 16.0;
    QTest::newRow("HardSigmoid") << "HardSigmoid" << QStringList{"4"} << 4.0 * 4 << 16.0 << 16.0;
    QTest::newRow("Clip = max, min") << "Clip" << QStringList{"5"} << 10.0 << 20.0 << 20.0;
    QTest::newRow("Sum of 3") << "Sum" << QStringList{"4", "4", "1"} << 8.0 << 36.0 << 16.0;
  }
  void elementwise() {
    QFETCH(QString, op);
    QFETCH(QStringList, shapes);
    QFETCH(double, flops);
    QFETCH(double, bytesRead);
    QFETCH(double, bytesWritten);
    for (bool infer : {true, false}) {
      TestGraph g;
      std::vector<std::string> in;
      for (int i = 0; i < shapes.size(); ++i) {
        in.push_back("x" + std::to_string(i));
        g.input(in.back(), shapes[i]);
      }
      g.node(op.toStdString(), in, {"y"}).output("y");
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.flops, flops);
      QCOMPARE(c.bytesRead, bytesRead);
      QCOMPARE(c.bytesWritten, bytesWritten);
      QCOMPARE(c.unit, ComputeUnit::Vector);
      QCOMPARE(c.float32Bytes, bytesRead + bytesWritten);
    }
  }

  void sameInputReadOnce() {
    TestGraph g;
    g.input("x", "4").node("Mul", {"x", "x"}, {"y"}).output("y");
    const OpCost c = g.cost().nodes[0];
    QCOMPARE(c.bytesRead, 16.0);
  }

  void whereCastPow() {
    TestGraph g;
    g.input("c", "2,1", DType::Bool).input("a", "1,3").input("b", "1").constScalar("two", 2.f).constScalar("three", 3.f);
    g.node("Where", {"c", "a", "b"}, {"w"});
    g.node("Cast", {"w"}, {"i"}, "to=7");
    g.node("Pow", {"w", "two"}, {"sq"});
    g.node("Pow", {"w", "three"}, {"cube"}).output("i").output("sq").output("cube");
    const GraphCost gc = g.cost();
    QCOMPARE(gc.nodes[0].flops, 6.0);                        // one select per output element
    QCOMPARE(gc.nodes[0].bytesRead, 2.0 * 1 + 3 * 4 + 4);    // bool cond, a, b
    QCOMPARE(gc.nodes[1].flops, 6.0);                        // one conversion per element
    QCOMPARE(gc.nodes[1].bytesWritten, 6.0 * 8);             // int64 out
    QCOMPARE(gc.nodes[2].flops, 6.0);                        // x^2 is one multiply
    QCOMPARE(gc.nodes[3].flops, 6 * (2 * T + 1));            // exp(y log x)
  }

  void normAndSoftmax_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<double>("flops");
    QTest::newRow("Softmax rows of 5") << "Softmax" << "2,5" << "axis=-1" << 10 * (T + 4);
    QTest::newRow("LogSoftmax") << "LogSoftmax" << "2,5" << "axis=-1" << 10 * (T + 4) + 2 * T;
    // LayerNorm with scale and bias over rows of 8: 7 per element, 5 per row.
    QTest::newRow("LayerNormalization") << "LayerNormalization" << "2,8" << "axis=-1" << 16.0 * 7 + 2 * 5;
    // BatchNorm inference: x * s + t (2 per element) + 5 per channel to fold the statistics.
    QTest::newRow("BatchNormalization") << "BatchNormalization" << "1,4,2,2" << "" << 2.0 * 16 + 5 * 4;
    QTest::newRow("InstanceNormalization") << "InstanceNormalization" << "1,4,2,2" << "" << 7.0 * 16 + 5 * 4;
  }
  void normAndSoftmax() {
    QFETCH(QString, op);
    QFETCH(QString, x);
    QFETCH(QString, attributes);
    QFETCH(double, flops);
    TestGraph g;
    g.input("x", x);
    std::vector<std::string> in = {"x"};
    const int64_t c = ints(x)[1];
    if (op == u"LayerNormalization") {
      g.weight("s", QString::number(c)).weight("b", QString::number(c));
      in = {"x", "s", "b"};
    } else if (op == u"BatchNormalization") {
      for (const char* n : {"s", "b", "m", "v"}) g.weight(n, QString::number(c));
      in = {"x", "s", "b", "m", "v"};
    } else if (op == u"InstanceNormalization") {
      g.weight("s", QString::number(c)).weight("b", QString::number(c));
      in = {"x", "s", "b"};
    }
    g.node(op.toStdString(), in, {"y"}, attributes).output("y");
    const OpCost cost = g.cost().nodes[0];
    QVERIFY2(cost.known, cost.reason.c_str());
    QCOMPARE(cost.flops, flops);
    QCOMPARE(cost.unit, ComputeUnit::Vector);
  }

  void pools_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("outElems");
    QTest::newRow("MaxPool 2x2/2") << "MaxPool" << "1,2,6,6" << "kernel_shape=2,2;strides=2,2" << 18.0 * 4 << 18.0;
    QTest::newRow("MaxPool ceil_mode") << "MaxPool" << "1,1,5,5" << "kernel_shape=2,2;strides=2,2;ceil_mode=1" << 9.0 * 4
                                       << 9.0;
    QTest::newRow("AveragePool 3x3 pad 1") << "AveragePool" << "1,2,6,6" << "kernel_shape=3,3;pads=1,1,1,1" << 72.0 * 10
                                           << 72.0;
    QTest::newRow("GlobalAveragePool") << "GlobalAveragePool" << "1,3,4,4" << "" << 48.0 + 3 << 3.0;
    QTest::newRow("GlobalMaxPool") << "GlobalMaxPool" << "1,3,4,4" << "" << 48.0 << 3.0;
  }
  void pools() {
    QFETCH(QString, op);
    QFETCH(QString, x);
    QFETCH(QString, attributes);
    QFETCH(double, flops);
    QFETCH(double, outElems);
    for (bool infer : {true, false}) {
      TestGraph g;
      g.input("x", x).node(op.toStdString(), {"x"}, {"y"}, attributes).output("y");
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.flops, flops);
      QCOMPARE(c.bytesWritten, outElems * 4);
    }
  }

  void reductions_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("attributes");
    QTest::addColumn<bool>("axesInput");
    QTest::addColumn<double>("flops");
    QTest::addColumn<double>("outElems");
    // x [2,3,4] = 24 elements, reduced over axis 1 -> 8 outputs (keepdims 0).
    QTest::newRow("ReduceMean (axes attribute)") << "ReduceMean" << "axes=1;keepdims=0" << false << 24.0 + 8 << 8.0;
    QTest::newRow("ReduceSum (axes input)") << "ReduceSum" << "keepdims=0" << true << 24.0 << 8.0;
    QTest::newRow("ReduceMax") << "ReduceMax" << "axes=1;keepdims=1" << false << 24.0 << 8.0;
    QTest::newRow("ReduceL2") << "ReduceL2" << "axes=1;keepdims=0" << false << 48.0 + 8 << 8.0;
    QTest::newRow("ReduceSumSquare") << "ReduceSumSquare" << "axes=1" << false << 48.0 << 8.0;
    QTest::newRow("ReduceLogSumExp") << "ReduceLogSumExp" << "axes=1" << false << 24 * (T + 3) + 8 * (T + 1) << 8.0;
    QTest::newRow("ReduceMean all axes") << "ReduceMean" << "keepdims=0" << false << 24.0 + 1 << 1.0;
  }
  void reductions() {
    QFETCH(QString, op);
    QFETCH(QString, attributes);
    QFETCH(bool, axesInput);
    QFETCH(double, flops);
    QFETCH(double, outElems);
    for (bool infer : {true, false}) {
      TestGraph g;
      g.input("x", "2,3,4");
      std::vector<std::string> in = {"x"};
      if (axesInput) {
        g.constInts("axes", {1});
        in.push_back("axes");
      }
      g.node(op.toStdString(), in, {"y"}, attributes).output("y");
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.flops, flops);
      QCOMPARE(c.bytesWritten, outElems * 4);
    }
  }

  void dataMovement() {
    TestGraph g;
    g.input("x", "10,4").input("z", "10,6").constInts("shape", {40}).constInts("starts", {2}).constInts("ends", {7})
        .constInts("axes", {0}).constInts("idx", {0, 3, 9}).constInts("split", {2, 4}).constInts("target", {2, 10, 4});
    g.node("Reshape", {"x", "shape"}, {"r"});                      // 0
    g.node("Transpose", {"x"}, {"t"}, "perm=1,0");                 // 1
    g.node("Concat", {"x", "z"}, {"c"}, "axis=1");                 // 2
    g.node("Slice", {"x", "starts", "ends", "axes"}, {"s"});       // 3
    g.node("Gather", {"x", "idx"}, {"gi"}, "axis=0");              // 4
    g.node("Split", {"z", "split"}, {"s1", "s2"}, "axis=1");       // 5
    g.node("Expand", {"x", "target"}, {"e"});                      // 6
    g.node("Shape", {"x"}, {"sh"});                                // 7
    g.node("Identity", {"x"}, {"id"});                             // 8
    for (const char* o : {"r", "t", "c", "s", "gi", "s1", "s2", "e", "sh", "id"}) g.output(o);
    const GraphCost gc = g.cost();
    QVERIFY2(gc.unknown.empty(), gc.unknown.empty() ? "" : (gc.unknown[0].path + ": " + gc.unknown[0].reason).c_str());
    const OpCost& reshape = gc.nodes[0];
    QVERIFY(!reshape.movesData);
    QCOMPARE(reshape.bytes(), 0.0);
    QCOMPARE(reshape.unit, ComputeUnit::None);
    QCOMPARE(gc.nodes[1].bytes(), 160.0 * 2);                       // read and write 40 floats
    QCOMPARE(gc.nodes[1].unit, ComputeUnit::Memory);
    QCOMPARE(gc.nodes[1].flops, 0.0);
    QCOMPARE(gc.nodes[2].bytesRead, 160.0 + 240);
    QCOMPARE(gc.nodes[2].bytesWritten, 400.0);
    QCOMPARE(gc.nodes[3].bytesRead, 5 * 4 * 4.0 + 3 * 8);           // only the 5 kept rows + 3 index tensors
    QCOMPARE(gc.nodes[3].bytesWritten, 80.0);
    QCOMPARE(gc.nodes[4].bytesRead, 3 * 4 * 4.0 + 3 * 8);           // 3 gathered rows + indices
    QCOMPARE(gc.nodes[5].bytesWritten, 240.0);
    QCOMPARE(gc.nodes[6].bytesWritten, 80.0 * 4);
    QCOMPARE(gc.nodes[7].bytes(), 0.0);
    QVERIFY(gc.nodes[7].known);
    QVERIFY(!gc.nodes[8].movesData);
  }

  void splitWithoutInference() {
    TestGraph g;
    g.input("x", "2,7").node("Split", {"x"}, {"a", "b", "c"}, "axis=1").output("a").output("b").output("c");
    const OpCost c = g.cost(false).nodes[0];  // parts of 3, 3 and 1 columns, as Split-18 divides
    QVERIFY2(c.known, c.reason.c_str());
    QCOMPARE(c.bytesRead, 14.0 * 4);
    QCOMPARE(c.bytesWritten, 14.0 * 4);
  }

  void lstm() {
    // seq 5, batch 1, input 8, hidden 16, one direction, with biases.
    TestGraph g;
    g.input("x", "5,1,8").weight("W", "1,64,8").weight("R", "1,64,16").weight("B", "1,128");
    g.node("LSTM", {"x", "W", "R", "B"}, {"Y", "Yh"}, "hidden_size=16").output("Y").output("Yh");
    const OpCost c = g.cost().nodes[0];
    QVERIFY2(c.known, c.reason.c_str());
    const double macs = 5.0 * 4 * 16 * (8 + 16);
    QCOMPARE(c.macs, macs);
    // Per step and hidden unit: 3 sigmoids, 2 tanh, 4 state ops, 4 gate sums, 8 bias adds.
    QCOMPARE(c.flops, 2 * macs + 5.0 * 16 * (3 * (T + 2) + 2 * T + 4 + 4 + 8));
    QCOMPARE(c.unit, ComputeUnit::Cube);
  }

  void resizeModes_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<double>("perOutput");
    // [1,1,4,4] -> [1,1,8,8]: two resized axes.
    QTest::newRow("nearest") << "nearest" << 0.0;
    QTest::newRow("linear") << "linear" << 3.0 * 3;   // 3 lerps of 3 ops
    QTest::newRow("cubic") << "cubic" << 2.0 * 16;    // 16 taps, multiply-add each
  }
  void resizeModes() {
    QFETCH(QString, mode);
    QFETCH(double, perOutput);
    TestGraph g(13);
    g.input("x", "1,1,4,4");
    g.model.graph.initializers.push_back(Tensor::fromValues("scales", DType::Float, {4}, std::vector<float>{1, 1, 2, 2}));
    g.node("Resize", {"x", "", "scales"}, {"y"}, "mode=" + mode).output("y");
    for (bool infer : {false, true}) {  // the formula's own output shape first, then inference's
      const OpCost c = g.cost(infer).nodes[0];
      QVERIFY2(c.known, c.reason.c_str());
      QCOMPARE(c.flops, 64 * perOutput);
      QCOMPARE(c.bytesWritten, 64.0 * 4);
      QCOMPARE(c.unit, perOutput > 0 ? ComputeUnit::Vector : ComputeUnit::Memory);
    }
  }
};

QTEST_APPLESS_MAIN(TestOpCost)
#include "tst_op_cost.moc"
