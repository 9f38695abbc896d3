// The precision family: Cast round trips (exact, range-dependent, lossy), no-op Casts, float32
// compute a device runs faster in float16, and 64-bit compute Ascend sends to the AI CPU.
#include <QtTest>

#include "cost_test_graph.h"
#include "rules_test_util.h"
#include "profile/host_calibration.h"

using namespace msa;
using namespace msa::test;

Q_DECLARE_METATYPE(msa::DType)

namespace {

// x (type `a`) → Cast(to b) → Cast(to back) → y; when `extraUse`, the intermediate also feeds a
// Relu that is a graph output.
Model roundTrip(DType a, DType b, DType back, bool extraUse) {
  TestGraph g;
  g.input("x", "1,64,32", a);
  g.node("Cast", {"x"}, {"mid"}, "to=" + QString::number(static_cast<int>(b)));
  g.model.graph.nodes.back().name = "cast_1";
  g.node("Cast", {"mid"}, {"y"}, "to=" + QString::number(static_cast<int>(back)));
  g.model.graph.nodes.back().name = "cast_2";
  g.node("Identity", {"y"}, {"z"}).output("z");
  if (extraUse) g.node("Identity", {"mid"}, {"r"}).output("r");
  (void)inferShapes(g.model);
  return g.model;
}

// A float32 model: a convolution and an elementwise tail.
Model fp32Model() {
  TestGraph g;
  g.input("x", "1,64,56,56").weight("w", "64,64,3,3");
  g.node("Conv", {"x", "w"}, {"c"}, "pads=1,1,1,1").node("Sigmoid", {"c"}, {"s"}).node("Mul", {"c", "s"}, {"y"}).output("y");
  (void)inferShapes(g.model);
  return g.model;
}

}  // namespace

class TestPrecisionRules : public QObject {
  Q_OBJECT
 private slots:
  void castRoundTrips_data() {
    QTest::addColumn<DType>("a");
    QTest::addColumn<DType>("b");
    QTest::addColumn<DType>("back");
    QTest::addColumn<bool>("extraUse");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<bool>("legal");
    QTest::addColumn<QString>("blocker");
    QTest::newRow("f16→f32→f16 exact") << DType::Float16 << DType::Float << DType::Float16 << false << "precision.cast_roundtrip" << true << "";
    QTest::newRow("f32→f64→f32 exact") << DType::Float << DType::Double << DType::Float << false << "precision.cast_roundtrip" << true << "";
    QTest::newRow("i32→i64→i32 exact") << DType::Int32 << DType::Int64 << DType::Int32 << false << "precision.cast_roundtrip" << true << "";
    QTest::newRow("u8→f16→u8 exact") << DType::UInt8 << DType::Float16 << DType::UInt8 << false << "precision.cast_roundtrip" << true << "";
    QTest::newRow("bool→i32→bool exact") << DType::Bool << DType::Int32 << DType::Bool << false << "precision.cast_roundtrip" << true << "";
    QTest::newRow("i64→i32→i64 needs the range") << DType::Int64 << DType::Int32 << DType::Int64 << false << "precision.cast_roundtrip" << false << "value_range";
    QTest::newRow("i32→f32→i32 lossy beyond 2^24") << DType::Int32 << DType::Float << DType::Int32 << false << "precision.lossy_cast" << false << "lossy";
    QTest::newRow("f32→f16→f32 lossy") << DType::Float << DType::Float16 << DType::Float << false << "precision.lossy_cast" << false << "lossy";
    QTest::newRow("f32→i32→f32 lossy") << DType::Float << DType::Int32 << DType::Float << false << "precision.lossy_cast" << false << "lossy";
    QTest::newRow("f16→bf16→f16 lossy") << DType::Float16 << DType::BFloat16 << DType::Float16 << false << "precision.lossy_cast" << false << "lossy";
    QTest::newRow("intermediate used elsewhere") << DType::Float16 << DType::Float << DType::Float16 << true << "precision.cast_roundtrip" << false << "multi_consumer";
    QTest::newRow("not a round trip") << DType::Float << DType::Float16 << DType::Int32 << false << "" << true << "";
  }
  void castRoundTrips() {
    QFETCH(DType, a);
    QFETCH(DType, b);
    QFETCH(DType, back);
    QFETCH(bool, extraUse);
    QFETCH(QString, rule);
    QFETCH(bool, legal);
    QFETCH(QString, blocker);
    const Model m = roundTrip(a, b, back, extraUse);
    Analysed an = analyse(m, device("cpu-host"), {"precision"});
    QCOMPARE(QString::fromStdString(violations(an)), QString());
    const int trips = an.byRule["precision.cast_roundtrip"] + an.byRule["precision.lossy_cast"];
    if (rule.isEmpty()) {
      QCOMPARE(trips, 0);
      return;
    }
    QCOMPARE(trips, 1);
    QCOMPARE(an.of(rule.toStdString()).size(), size_t(1));
    const Finding& f = *an.of(rule.toStdString())[0];
    QCOMPARE(f.nodes, (std::vector<std::string>{"cast_1", "cast_2"}));
    QCOMPARE(f.legal, legal);
    QCOMPARE(f.safeFix, legal);
    QCOMPARE(f.hasFix(), legal);
    if (!blocker.isEmpty()) {
      QVERIFY(!f.blockers.empty());
      QVERIFY2(f.blockers[0].rfind(blocker.toStdString(), 0) == 0, f.blockers[0].c_str());
    }
    QVERIFY(f.impact.ms > 0);
  }

  void nopCast() {
    for (bool nop : {true, false}) {
      TestGraph g;
      g.input("x", "1,64");
      g.node("Cast", {"x"}, {"y"}, nop ? "to=1" : "to=10").node("Neg", {"y"}, {"z"}).output("z");
      (void)inferShapes(g.model);
      Analysed an = analyse(g.model, device("cpu-host"), {"precision"});
      QCOMPARE(an.byRule["precision.nop_cast"], nop ? 1 : 0);
      if (nop) {
        const Finding& f = *an.of("precision.nop_cast")[0];
        QCOMPARE(f.fixPass, std::string("eliminate_nop_cast"));
        QVERIFY(f.safeFix);
        QCOMPARE(f.params.at("dtype"), std::string("float"));
      }
      QCOMPARE(QString::fromStdString(violations(an)), QString());
    }
  }

  // Which devices get the float16 advice: those that keep float32 and have a faster float16.
  void fp32Compute_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("expected");
    QTest::newRow("Ascend converts to float16 already (ATC default)") << "ascend910b" << "" << false;
    QTest::newRow("Ascend kept in float32 (force_fp32)") << "ascend310p" << "keep" << true;
    QTest::newRow("CPU: float16 no faster") << "cpu-host" << "" << false;
    // Calibration scales every type by its ratio to float32: equal stays equal (a rate of
    // 58.37... GFLOP/s once came out one ulp faster in float16 and made the advice fire).
    QTest::newRow("CPU calibrated: float16 still no faster") << "cpu-host" << "calibrated" << false;
    QTest::newRow("CPU with twice the float16 rate") << "cpu-host" << "fp16x2" << true;
  }
  void fp32Compute() {
    QFETCH(QString, device);
    QFETCH(QString, change);
    QFETCH(bool, expected);
    DeviceProfile dev = test::device(device.toStdString());
    if (change == "keep") dev.precision = PrecisionPolicy::KeepModel;
    if (change == "calibrated") {
      HostCalibration m;
      m.gflops = 58.37054370801927;
      m.bandwidthGBs = 11.81807109743396;
      dev = withHostCalibration(dev, m);
    }
    if (change == "fp16x2")
      dev.peaks[{ComputeUnit::None, DType::Float16}].value = 2 * dev.peaks[{ComputeUnit::None, DType::Float}].value;
    const Model m = fp32Model();
    Analysed an = analyse(m, dev, {"precision"});
    QCOMPARE(an.byRule["precision.fp32_compute"], expected ? 1 : 0);
    QCOMPARE(QString::fromStdString(violations(an)), QString());
    if (!expected) return;
    const Finding& f = *an.of("precision.fp32_compute")[0];
    QCOMPARE(f.params.at("evidence"), std::string("device"));
    QVERIFY(f.impact.ms > 0 && f.impact.fixedMs < f.impact.currentMs);
    // Never more than half: float16 at most doubles the rate and halves the bytes.
    QVERIFY(f.impact.fixedMs >= 0.5 * f.impact.currentMs - 1e-9);
  }

  // 64-bit compute on Ascend: a model-wide finding; other devices are not concerned.
  void aicpuDtypes() {
    TestGraph g;
    g.input("d", "1,4096", DType::Double).input("ids", "1,128", DType::Int64);
    g.node("Mul", {"d", "d"}, {"dd"}).output("dd");
    g.model.graph.nodes.back().name = "mul_f64";
    g.node("Cast", {"ids"}, {"idf"}, "to=1").output("idf");
    g.model.graph.nodes.back().name = "cast_i64";
    g.node("Add", {"ids", "ids"}, {"ids2"}).output("ids2");
    g.model.graph.nodes.back().name = "add_i64";  // int64 Add: AI Core in the table
    (void)inferShapes(g.model);
    Analysed an = analyse(g.model, device("ascend910b"), {"precision", "graph"});
    QCOMPARE(an.byRule["precision.aicpu_dtype"], 1);
    const Finding& f = *an.of("precision.aicpu_dtype")[0];
    std::vector<std::string> nodes = f.nodes;
    std::sort(nodes.begin(), nodes.end());
    QCOMPARE(nodes, (std::vector<std::string>{"cast_i64", "mul_f64"}));
    QCOMPARE(f.impact.source, ImpactSource::Estimated);
    QVERIFY(f.impact.ms > 0);
    QVERIFY(f.params.at("dtypes").find("double") != std::string::npos);
    QCOMPARE(an.byRule["graph.aicpu_op"], 0);  // 64-bit types are this finding's, not graph's
    QCOMPARE(QString::fromStdString(violations(an)), QString());
    Analysed cpu = analyse(g.model, device("cpu-host"), {"precision"});
    QCOMPARE(cpu.byRule["precision.aicpu_dtype"], 0);
  }
};

QTEST_GUILESS_MAIN(TestPrecisionRules)
#include "tst_precision_rules.moc"
