// The small-ops family: the launch-overhead summary (device figure or measured from the run's
// metadata ops; goal-dependent share) and repeated op sequences as fusion candidates.
#include <QtTest>

#include "cost_test_graph.h"
#include "rules_test_util.h"

using namespace msa;
using namespace msa::test;

namespace {

// `tiny` chained Adds on a [1,16] tensor, then, when `bigConv`, a large convolution.
Model tinyOps(int tiny, bool bigConv) {
  TestGraph g;
  g.input("t", "1,16").constScalar("one", 1.0f);
  std::string v = "t";
  for (int k = 0; k < tiny; ++k) {
    const std::string o = "t" + std::to_string(k);
    g.node(k % 2 ? "Mul" : "Add", {v, "one"}, {o});
    v = o;
  }
  g.output(v);
  if (bigConv) g.input("x", "1,256,112,112").weight("w", "256,256,3,3").node("Conv", {"x", "w"}, {"y"}, "pads=1,1,1,1").output("y");
  (void)inferShapes(g.model);
  return g.model;
}

// `repeats` channel shuffles (Reshape→Transpose→Reshape) one after the other.
Model shuffles(int repeats) {
  TestGraph g;
  g.input("x", "1,64,28,28").constInts("s5", {1, 4, 16, 28, 28}).constInts("s4", {1, 64, 28, 28});
  std::string v = "x";
  for (int k = 0; k < repeats; ++k) {
    const std::string a = "a" + std::to_string(k), b = "b" + std::to_string(k), c = "c" + std::to_string(k);
    g.node("Reshape", {v, "s5"}, {a}).node("Transpose", {a}, {b}, "perm=0,2,1,3,4").node("Reshape", {b, "s4"}, {c});
    v = c;
  }
  g.output(v);
  (void)inferShapes(g.model);
  return g.model;
}

// `repeats` decomposed LayerNorms in a row (the fusion family owns them).
Model layerNorms(int repeats) {
  TestGraph g;
  g.input("x", "1,128,256").constScalar("two", 2.0f).constScalar("eps", 1e-5f).weight("gamma", "256").weight("beta", "256");
  std::string v = "x";
  for (int k = 0; k < repeats; ++k) {
    const std::string s = std::to_string(k);
    g.node("ReduceMean", {v}, {"m" + s}, "axes=-1")
        .node("Sub", {v, "m" + s}, {"d" + s})
        .node("Pow", {"d" + s, "two"}, {"p" + s})
        .node("ReduceMean", {"p" + s}, {"var" + s}, "axes=-1")
        .node("Add", {"var" + s, "eps"}, {"ve" + s})
        .node("Sqrt", {"ve" + s}, {"sd" + s})
        .node("Div", {"d" + s, "sd" + s}, {"n" + s})
        .node("Mul", {"n" + s, "gamma"}, {"g" + s})
        .node("Add", {"g" + s, "beta"}, {"ln" + s});
    v = "ln" + s;
  }
  g.output(v);
  (void)inferShapes(g.model, {});
  return g.model;
}

// x -> (Reshape -> Add) x 12, each Add's output also Reshaped to an output: 24 Reshapes.
Model reshapeChain() {
  TestGraph g;
  g.input("x", "1,64").constInts("shape", {64, 1}).constScalar("one", 1.0f);
  std::string v = "x";
  for (int k = 0; k < 12; ++k) {
    const std::string r = "r" + std::to_string(k), s = "s" + std::to_string(k);
    g.node("Reshape", {v, "shape"}, {r}).node("Add", {r, "one"}, {s});
    v = s;
    g.node("Reshape", {v, "shape"}, {"f" + std::to_string(k)}).output("f" + std::to_string(k));
  }
  g.output(v);
  (void)inferShapes(g.model);
  return g.model;
}

}  // namespace

class TestSmallOpsRules : public QObject {
  Q_OBJECT
 private slots:
  void summary_data() {
    QTest::addColumn<int>("tiny");
    QTest::addColumn<bool>("bigConv");
    QTest::addColumn<int>("expected");
    QTest::newRow("20 tiny ops alone") << 20 << false << 1;
    QTest::newRow("9 tiny ops: too few") << 9 << false << 0;
    QTest::newRow("20 tiny ops beside a large conv: a small share") << 20 << true << 0;
  }
  void summary() {
    QFETCH(int, tiny);
    QFETCH(bool, bigConv);
    QFETCH(int, expected);
    const Model m = tinyOps(tiny, bigConv);
    Analysed a = analyse(m, device("cpu-host"), {"small_ops"});
    QCOMPARE(a.byRule["small_ops.summary"], expected);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
    if (!expected) return;
    const Finding* f = a.of("small_ops.summary")[0];
    QCOMPARE(f->params.at("small_count"), std::to_string(tiny));
    // The model's, whichever ops the measurement found small (a member's name changed with noise).
    QCOMPARE(f->id, std::string("small_ops.summary@model"));
    QCOMPARE(f->params.at("launch_source"), std::string("device"));
    // Estimated: each small op saves its launch (2 µs on cpu-host), its work stays.
    QVERIFY(std::fabs(f->impact.ms - tiny * 0.002) < 1e-6);
  }

  // Estimated without bound dims, an op's cost is unknown and its estimate is the launch alone:
  // such ops are not "small", they are unknown (the analysis says to bind the dims).
  void unknownCostIsNotSmall() {
    TestGraph g;
    g.input("t", "batch,16").constScalar("one", 1.0f);
    std::string v = "t";
    for (int k = 0; k < 20; ++k) {
      const std::string o = "t" + std::to_string(k);
      g.node("Add", {v, "one"}, {o});
      v = o;
    }
    g.output(v);
    (void)inferShapes(g.model);
    Analysed unbound = analyse(g.model, device("cpu-host"), {"small_ops"});
    QCOMPARE(unbound.byRule["small_ops.summary"], 0);
    ShapeOptions dims;
    dims.dims["batch"] = 1;
    (void)inferShapes(g.model, dims);
    Analysed bound = analyse(g.model, device("cpu-host"), {"small_ops"});
    QCOMPARE(bound.byRule["small_ops.summary"], 1);
  }

  // On a measured run the per-op launch cost is the interquartile mean of the metadata-only ops.
  void measuredLaunchOverhead() {
    const Model m = reshapeChain();
    // Dispatch 50 µs; the Adds 80 µs.
    const ProfileData p = measuredProfile(m, [](const Node& n) { return n.is("Reshape") ? 0.05 : 0.08; });
    Analysed a = analyse(m, device("cpu-host"), {"small_ops"}, &p);
    QCOMPARE(a.byRule["small_ops.summary"], 1);
    const Finding* f = a.of("small_ops.summary")[0];
    QCOMPARE(f->params.at("launch_source"), std::string("measured"));
    QCOMPARE(f->params.at("launch_us"), std::string("50.0"));
    QCOMPARE(f->params.at("small_count"), std::to_string(m.graph.nodes.size()));
    QCOMPARE(f->impact.source, ImpactSource::Both);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
  }

  // ONNX Runtime times whole microseconds: 24 Reshapes at 3 or 4 µs. One Reshape more at 3 µs
  // moved their median from 4 to 3 µs (a third, and the small-op threshold with it) between two
  // runs of one model; the launch cost follows the samples by a few percent.
  void measuredLaunchOverheadIsNotOneRoundedSample() {
    auto launchUs = [](int atThree) {
      const Model m = reshapeChain();
      int reshapes = 0;
      const ProfileData p = measuredProfile(m, [&](const Node& n) { return n.is("Reshape") ? (reshapes++ < atThree ? 0.003 : 0.004) : 0.005; });
      Analysed a = analyse(m, device("cpu-host"), {"small_ops"}, &p);
      const auto found = a.of("small_ops.summary");
      return found.empty() ? -1.0 : std::stod(found[0]->params.at("launch_us"));
    };
    const double fewer = launchUs(11), more = launchUs(13);
    QVERIFY2(fewer > 3 && fewer < 4 && more > 3 && more < 4, qPrintable(QStringLiteral("%1 and %2 µs").arg(fewer).arg(more)));
    QVERIFY2(std::abs(fewer - more) / more < 0.1, qPrintable(QStringLiteral("%1 against %2 µs").arg(fewer).arg(more)));
  }

  // 30 tiny ops at 2 µs = 60 µs beside a Gemm reading a 2048 × `columns` float weight (at
  // 10 GB/s, 0.84 ms per 1024 columns), whose size sets the tiny ops' share.
  static Model tinyOpsBesideGemm(int columns) {
    TestGraph g;
    g.input("t", "1,16").constScalar("one", 1.0f);
    std::string v = "t";
    for (int k = 0; k < 30; ++k) {
      g.node("Add", {v, "one"}, {"t" + std::to_string(k)});
      v = "t" + std::to_string(k);
    }
    g.output(v);
    g.input("a", "1,2048").weight("w", QStringLiteral("2048,%1").arg(columns)).node("Gemm", {"a", "w"}, {"b"}).output("b");
    (void)inferShapes(g.model);
    return g.model;
  }

  // Whether the launches matter is the ranking's question (its P0 line is 5 % of the run): the
  // summary is reported from 1 %. With the rule's own 5 % line a share on the edge came and went
  // between two analyses of one model (CI: the BERT-like encoder's summary TOP 1 in one, absent in
  // the other); a finding worth 3 % is a P1, not nothing.
  void aShareBelowTheP0LineIsReported() {
    const Model m = tinyOpsBesideGemm(2560);
    Analysed a = analyse(m, device("cpu-host"), {"small_ops"});
    const double share = 0.06 / a.state->context().latencyMs;
    QVERIFY2(share > 0.02 && share < 0.05, std::to_string(share).c_str());
    QCOMPARE(a.byRule["small_ops.summary"], 1);
  }

  // A throughput goal needs twice the share of a latency goal (batching amortises launches).
  void goalChangesThreshold() {
    const Model m = tinyOpsBesideGemm(4096);
    Analysed latency = analyse(m, device("cpu-host"), {"small_ops"}, nullptr, nullptr, Goal::Latency);
    Analysed throughput = analyse(m, device("cpu-host"), {"small_ops"}, nullptr, nullptr, Goal::Throughput);
    const double share = 0.06 / latency.state->context().latencyMs;
    QVERIFY2(share > 0.01 && share < 0.02, std::to_string(share).c_str());
    QCOMPARE(latency.byRule["small_ops.summary"], 1);
    QCOMPARE(throughput.byRule["small_ops.summary"], 0);
  }

  void sequences_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("repeats");
    QTest::addColumn<int>("expected");
    QTest::newRow("6 channel shuffles") << "shuffle" << 6 << 1;
    QTest::newRow("4 channel shuffles: too few") << "shuffle" << 4 << 0;
    QTest::newRow("elementwise only: the fusion family's") << "tiny" << 24 << 0;
    QTest::newRow("decomposed LayerNorms: the fusion family's") << "layernorm" << 6 << 0;
  }
  void sequences() {
    QFETCH(QString, kind);
    QFETCH(int, repeats);
    QFETCH(int, expected);
    const Model m = kind == "shuffle" ? shuffles(repeats) : kind == "tiny" ? tinyOps(repeats, false) : layerNorms(repeats);
    Analysed a = analyse(m, device("cpu-host"), {"small_ops"});
    QCOMPARE(a.byRule["small_ops.sequence"], expected);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
    if (!expected) return;
    const Finding* f = a.of("small_ops.sequence")[0];
    QCOMPARE(f->params.at("pattern"), std::string("Reshape→Transpose→Reshape"));
    QCOMPARE(f->params.at("occurrences"), std::to_string(repeats));
    QCOMPARE(f->nodes.size(), size_t(3 * repeats));
    QVERIFY(f->impact.ms > 0);
  }

  // A repeated sequence is named after its first occurrence, whichever one measured dearest:
  // named after the dearest, BERT's repeated Reshape sequence was "at layers.1", then "at
  // layers.0", then "at layers.2" in three analyses of the same model.
  void sequenceIdDoesNotFollowTheNoise() {
    const Model m = shuffles(6);
    const DeviceProfile dev = device("cpu-host");
    Analysed estimated = analyse(m, dev, {"small_ops"});
    QCOMPARE(estimated.byRule["small_ops.sequence"], 1);
    const std::string id = estimated.of("small_ops.sequence")[0]->id;
    ProfileData p;
    p.device = "cpu";
    p.optimization = "disabled";
    const auto& ctx = estimated.state->context();
    for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
      NodeProfile e;
      e.name = e.irNodes.emplace_back(m.graph.nodes[i].name);
      e.opType = m.graph.nodes[i].opType;
      // The last shuffle ran 10× slower than the others.
      const double t = ctx.estimatedMs[i] * (i + 3 >= m.graph.nodes.size() ? 10.0 : 1.0);
      e.timeMs = Stats::of({t, t, t});
      p.nodes.push_back(e);
      p.latencyMs.median += t;
    }
    Analysed measured = analyse(m, dev, {"small_ops"}, &p);
    QCOMPARE(measured.byRule["small_ops.sequence"], 1);
    QCOMPARE(measured.of("small_ops.sequence")[0]->id, id);
  }
};

QTEST_GUILESS_MAIN(TestSmallOpsRules)
#include "tst_small_ops_rules.moc"
