// The ONNX Runtime wrapper: sessions from the IR (weights handed over from memory, external data
// not copied into the protobuf), named runs, sequences, clear errors, cancel, profiling.
#include <QtTest>

#include <thread>

#include "model/onnx_io.h"
#include "optimize/outcome.h"
#include "profile/ort_session.h"
#include "profile/ort_trace.h"
#include "profile/run_timing.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

// y = Relu(x · W + b) with nameless nodes, W 4×3 with known values.
Model denseModel(int64_t opset = 17) {
  Model m;
  m.opsets.push_back({"", opset});
  Graph& g = m.graph;
  g.name = "dense";
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{2, 4}), {}, {}});
  g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{2, 3}), {}, {}});
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) - 5.0f;  // -5 … 6
  g.initializers.push_back(Tensor::fromValues("W", DType::Float, {4, 3}, w));
  g.initializers.push_back(Tensor::fromValues("b", DType::Float, {3}, std::vector<float>{1, -100, 0.5f}));
  Node mm;
  mm.opType = "MatMul";
  mm.inputs = {"x", "W"};
  mm.outputs = {"h"};
  g.addNode(mm);
  Node add;
  add.opType = "Add";
  add.inputs = {"h", "b"};
  add.outputs = {"z"};
  g.addNode(add);
  Node relu;
  relu.opType = "Relu";
  relu.inputs = {"z"};
  relu.outputs = {"y"};
  g.addNode(relu);
  return m;
}

// Every weight of denseModel() as external data.
SaveOptions allExternal() {
  SaveOptions so;
  so.external = SaveOptions::External::Always;
  so.externalMinBytes = 8;
  return so;
}

// `model` saved to `file` with every weight as external data, and read back.
Result<Model> throughExternalData(const Model& model, const fs::path& file) {
  if (Status st = saveModel(model, file, allExternal()); !st.ok()) return st.error();
  return loadModel(file);
}

Tensor xInput() { return Tensor::fromValues("x", DType::Float, {2, 4}, std::vector<float>{1, 2, 3, 4, -1, 0, 1, 0}); }

// Reference computed by hand: row · W + b, then Relu.
std::vector<float> expectedY() {
  const float x[2][4] = {{1, 2, 3, 4}, {-1, 0, 1, 0}};
  const float b[3] = {1, -100, 0.5f};
  std::vector<float> y;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) {
      float s = b[c];
      for (int k = 0; k < 4; ++k) s += x[r][k] * (static_cast<float>(k * 3 + c) - 5.0f);
      y.push_back(std::max(s, 0.0f));
    }
  return y;
}

std::vector<double> values(const DataValue& v) { return v.tensor.toDouble(); }

}  // namespace

class TestOrtSession : public QObject {
  Q_OBJECT
 private slots:
  void runsTheIrAndReturnsHostTensors_data() {
    QTest::addColumn<qlonglong>("detachAbove");
    QTest::addColumn<QString>("level");
    QTest::newRow("inline, disabled") << (qlonglong(1) << 40) << "disabled";
    QTest::newRow("weights from memory, all") << qlonglong(0) << "all";
    QTest::newRow("inline, basic") << (qlonglong(1) << 40) << "basic";
  }

  void runsTheIrAndReturnsHostTensors() {
    QFETCH(qlonglong, detachAbove);
    QFETCH(QString, level);
    RuntimeOptions o;
    o.detachAbove = detachAbove;
    o.optimization = *optimizationFromName(level.toStdString());
    o.intraOpThreads = 1;
    auto s = OrtSession::create(denseModel(), o);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().describe().c_str());
    QCOMPARE(s->inputs().size(), size_t(1));
    QCOMPARE(s->inputs()[0].name, std::string("x"));
    QCOMPARE(s->inputs()[0].dtype, DType::Float);
    QCOMPARE(s->inputs()[0].shape, (std::vector<int64_t>{2, 4}));
    auto out = s->run(std::vector<Tensor>{xInput()});
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QCOMPARE(out->size(), size_t(1));
    QCOMPARE((*out)[0].name, std::string("y"));
    QCOMPARE((*out)[0].tensor.dims, (std::vector<int64_t>{2, 3}));
    auto got = values((*out)[0]);
    auto want = expectedY();
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(static_cast<float>(got[i]), want[i]);
  }

  // Weights stored as external data are read by the runtime from their file (at the offsets the
  // model gives): the result is the same as with the weights inline.
  void externalDataModelsRun() {
    test::TempDir dir("ortext");
    auto m = throughExternalData(denseModel(), dir / "m.onnx");
    QVERIFY(m.ok());
    QVERIFY(m->graph.findInitializer("W")->external.has_value());
    RuntimeOptions o;
    o.detachAbove = int64_t(1) << 40;  // only the external ones go from memory
    auto s = OrtSession::create(*m, o);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().describe().c_str());
    auto out = s->run(std::vector<Tensor>{xInput()});
    QVERIFY(out.ok());
    auto got = values((*out)[0]);
    auto want = expectedY();
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(static_cast<float>(got[i]), want[i]);
    // The file itself, as the runtime reads it from disk, agrees.
    auto f = OrtSession::fromFile(dir / "m.onnx");
    QVERIFY(f.ok());
    auto out2 = f->run(std::vector<Tensor>{xInput()});
    QCOMPARE(values((*out2)[0]), got);
  }

  // The runtime reads external weights from their own file (msadvisor hands it no copy), but
  // only while that file is still the one the model was read from: a data file replaced since
  // (a re-export renamed over it while the model is open) is not what the session runs.
  void aReplacedDataFileIsNotRead() {
    test::TempDir dir("ortrepl");
    auto m = throughExternalData(denseModel(), dir / "m.onnx");
    QVERIFY(m.ok());
    Model other = denseModel();
    for (Tensor& t : other.graph.initializers)
      t = Tensor::fromValues(t.name, DType::Float, t.dims, std::vector<float>(static_cast<size_t>(t.numElements()), 0.0f));
    QVERIFY(saveModel(other, dir / "n.onnx", allExternal()).ok());
    fs::rename(dir / "n.onnx.data", dir / "m.onnx.data");
    RuntimeOptions o;
    o.detachAbove = int64_t(1) << 40;
    auto s = OrtSession::create(*m, o);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().describe().c_str());
    auto out = s->run(std::vector<Tensor>{xInput()});
    QVERIFY(out.ok());
    const auto got = values((*out)[0]);
    const auto want = expectedY();
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(static_cast<float>(got[i]), want[i]);
  }

  void missingKernelIsADeviceError() {
    auto s = OrtSession::create(denseModel(6));  // MatMul(1)/Add(6) have no CPU kernels any more
    QVERIFY(!s.ok());
    QCOMPARE(s.error().kind, ErrorKind::Device);
    QVERIFY2(s.error().message.find("Could not find an implementation for") != std::string::npos, s.error().message.c_str());
  }

  void badRunsAreClearErrors_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("dims");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("unknown input") << "q" << "2,4" << "has no input named 'q'";
    QTest::newRow("wrong shape") << "x" << "3,4" << "Got invalid dimensions for input: x";
  }

  void badRunsAreClearErrors() {
    QFETCH(QString, name);
    QFETCH(QString, dims);
    QFETCH(QString, fragment);
    auto s = OrtSession::create(denseModel());
    QVERIFY(s.ok());
    std::vector<int64_t> d;
    for (const auto& part : dims.split(',')) d.push_back(part.toLongLong());
    Tensor t = Tensor::fromValues(name.toStdString(), DType::Float, d, std::vector<float>(static_cast<size_t>(d[0] * d[1]), 1.0f));
    auto r = s->run(std::vector<Tensor>{t});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().describe().find(fragment.toStdString()) != std::string::npos, r.error().describe().c_str());
    auto none = s->run(std::vector<Tensor>{});
    QVERIFY(!none.ok());
    QVERIFY(none.error().message.find("no value given for the model's input 'x'") != std::string::npos);
  }

  // A block times as many runs as asked, or runs on to its minimum time, or stops at its limit.
  void runBlocksTimeWhatTheyAsk() {
    auto s = OrtSession::create(denseModel(), {});
    QVERIFY2(s, s ? "" : s.error().describe().c_str());
    const std::vector<DataValue> inputs{DataValue::of(xInput())};
    std::vector<double> times;
    RunBlock counted;
    counted.maxTimed = 3;
    counted.seconds = 60;
    QVERIFY(timeRunBlock(*s, inputs, counted, times, Progress::none()));
    QCOMPARE(times.size(), size_t(3));

    // A microsecond run asked once runs on for 20 ms.
    times.clear();
    RunBlock floor;
    floor.minSeconds = 0.02;
    floor.seconds = 1;
    const double t0 = nowMs();
    QVERIFY(timeRunBlock(*s, inputs, floor, times, Progress::none()));
    QVERIFY2(nowMs() - t0 >= 20, qPrintable(QString::number(nowMs() - t0)));
    QVERIFY2(times.size() > 3, qPrintable(QString::number(times.size())));

    times.clear();
    RunBlock bounded;
    bounded.maxTimed = 100000000;
    bounded.seconds = 0.01;
    QVERIFY(timeRunBlock(*s, inputs, bounded, times, Progress::none()));
    QVERIFY(!times.empty() && times.size() < 100000000);
    for (double t : times) QVERIFY(t >= 0);
  }

  // The four configurations of a comparison each get the runs asked, and a sub-millisecond model
  // more: a median of seven 0.2 ms runs measured the machine's load, not the model.
  void comparisonsTimeEnoughRuns() {
    const Model m = denseModel();
    const std::vector<DataValue> inputs{DataValue::of(xInput())};
    LatencyOptions o;
    o.iterations = 7;
    o.budgetSeconds = 1;
    auto c = compareLatency(m, m, inputs, o, Progress::none());
    QVERIFY2(c, c ? "" : c.error().describe().c_str());
    for (const Stats* s : {&c->originalDisabled, &c->optimizedDisabled, &c->originalAll, &c->optimizedAll})
      QVERIFY2(s->count > 2 * o.iterations, qPrintable(QString::number(s->count)));
    QVERIFY(c->iterations > 2 * o.iterations);
    QVERIFY(c->originalAll.median > 0 && c->originalAll.p10 <= c->originalAll.median);
  }

  void terminateCancelsRuns() {
    auto s = OrtSession::create(denseModel());
    QVERIFY(s.ok());
    s->terminate();
    auto r = s->run(std::vector<Tensor>{xInput()});
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, ErrorKind::Cancelled);
  }

  // Nameless IR nodes carry their generated names into the runtime: the trace names them as the IR does.
  void profilingTraceUsesIrNames() {
    test::TempDir dir("ortprof");
    RuntimeOptions o;
    o.optimization = GraphOptimization::Disabled;
    o.profiling = true;
    o.profilePrefix = dir / "trace";
    Model m = denseModel();
    auto s = OrtSession::create(m, o);
    QVERIFY(s.ok());
    for (int i = 0; i < 3; ++i) QVERIFY(s->run(std::vector<Tensor>{xInput()}).ok());
    auto path = s->endProfiling();
    QVERIFY(path.ok());
    QVERIFY(fs::exists(*path));
    auto trace = loadOrtTrace(*path);
    QVERIFY2(trace.ok(), trace.ok() ? "" : trace.error().describe().c_str());
    QCOMPARE(trace->runs.size(), size_t(3));
    auto p = profileFromTrace(*trace, 0);
    QVERIFY(p.ok());
    for (const Node& n : m.graph.nodes) {
      QVERIFY(n.generatedName);
      const NodeProfile* np = p->find(n.name);
      QVERIFY2(np, n.name.c_str());
      QCOMPARE(np->opType, n.opType);
      QCOMPARE(np->timeMs.count, 3);
    }
    QVERIFY(!s->endProfiling().ok());  // only once
  }

  void sequencesGoInAndComeOut() {
    // SequenceConstruct(a, b) -> SequenceAt(seq, i), plus the sequence itself as an output.
    Model m;
    m.opsets.push_back({"", 17});
    Graph& g = m.graph;
    g.inputs.push_back({"a", TypeInfo::tensor(DType::Float, Shape{2}), {}, {}});
    g.inputs.push_back({"b", TypeInfo::tensor(DType::Float, Shape{3}), {}, {}});
    g.inputs.push_back({"i", TypeInfo::tensor(DType::Int64, Shape{}), {}, {}});
    g.outputs.push_back({"picked", TypeInfo::tensor(DType::Float, Shape{}), {}, {}});
    Node c;
    c.opType = "SequenceConstruct";
    c.inputs = {"a", "b"};
    c.outputs = {"seq"};
    g.addNode(c);
    Node at;
    at.opType = "SequenceAt";
    at.inputs = {"seq", "i"};
    at.outputs = {"picked"};
    g.addNode(at);
    g.outputs[0].type.shape.reset();
    auto s = OrtSession::create(m);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().describe().c_str());
    std::vector<DataValue> in{DataValue::of(Tensor::fromValues("a", DType::Float, {2}, std::vector<float>{1, 2})),
                              DataValue::of(Tensor::fromValues("b", DType::Float, {3}, std::vector<float>{3, 4, 5})),
                              DataValue::of(Tensor::fromValues("i", DType::Int64, {}, std::vector<int64_t>{1}))};
    auto out = s->run(in);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QCOMPARE((*out)[0].tensor.toDouble(), (std::vector<double>{3, 4, 5}));
  }

  void versionAndOptimizationNames() {
    QVERIFY(ortVersion().rfind("onnxruntime 1.", 0) == 0);
    for (auto o : {GraphOptimization::Disabled, GraphOptimization::Basic, GraphOptimization::Extended, GraphOptimization::All})
      QCOMPARE(*optimizationFromName(optimizationName(o)), o);
    QVERIFY(!optimizationFromName("fast"));
  }
};

QTEST_GUILESS_MAIN(TestOrtSession)
#include "tst_ort_session.moc"
