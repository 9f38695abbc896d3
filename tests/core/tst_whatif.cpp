// What-if variants (issue 25): each quantizer's graph on small builder models (where the Q/DQ pairs
// sit, the per-channel axes, the layers kept in float), checked against what ONNX Runtime makes of
// it at load (its fused int8 kernels, from the graph it dumps); calibration ranges; accuracy
// verdicts that fail on a broken variant; .npz inputs written by NumPy; the whole what-if on a
// small network (no timing judged: the machine is shared).
#include <QProcess>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "profile/model_inputs.h"
#include "profile/ort_session.h"
#include "test_paths.h"
#include "whatif/accuracy.h"
#include "whatif/calibration.h"
#include "whatif/quant_params.h"
#include "whatif/quantize_dynamic.h"
#include "whatif/quantize_static.h"
#include "whatif/whatif.h"
#include "whatif/whatif_json.h"
#include "whatif/prediction.h"
#include "cost/device_profile.h"
#include "profile/host_calibration.h"

using namespace msa;
using msa::test::ModelBuilder;
using msa::test::TempDir;
namespace fs = std::filesystem;

namespace {

TypeInfo floatType(std::vector<int64_t> dims) { return TypeInfo::tensor(DType::Float, Shape::of(dims)); }

Model typed(Model m) {
  auto s = inferShapes(m);
  if (!s) qFatal("shape inference: %s", s.error().describe().c_str());
  return m;
}

// x[4,64] -> MatMul(64x128) -> Add(bias) -> Relu -> Gemm(transB, 32) -> y; x -> MatMul(64x16) -> z.
Model mlp() {
  ModelBuilder b("mlp", 17);
  auto x = b.input("x", {4, 64});
  auto h = b.relu(b.linear(x, 128));
  b.output(b.gemm(h, 32, true), "y");
  b.output(b.matmulWeight(x, 16), "z");
  return typed(b.build());
}

// x[1,8,16,16] -> Conv -> Relu -> Conv -> Add(residual) -> Relu -> GlobalAveragePool -> Flatten -> Gemm(10).
// `outlier`: a ninth input channel, constant 1000, that the first Conv weighs by 0.0005: the
// activation range it needs leaves the other channels a step of 4 (minmax), and any range that
// clips it loses its share of the output; the first Conv is the one layer int8 cannot hold.
Model convnet(bool outlier = false) {
  ModelBuilder b("convnet", 17);
  auto x = b.input("x", {1, 8, 16, 16});
  if (outlier) x = b.concat({x, b.initializer("spike", {1, 1, 16, 16}, std::vector<float>(256, 1000.0f))}, 1);
  std::string a, c;
  {
    ModelBuilder::Scope scope(b, "conv1");
    a = b.relu(b.conv(x, 16, 3, {.pads = 1}));
  }
  {
    ModelBuilder::Scope scope(b, "conv2");
    c = b.conv(a, 16, 3, {.pads = 1});
  }
  auto r = b.relu(b.add(c, a));
  auto p = b.node("GlobalAveragePool", {r}, {}, {floatType({1, 16, 1, 1})})[0];
  auto f = b.node("Flatten", {p}, {Attribute::makeInt("axis", 1)}, {floatType({1, 16})})[0];
  b.output(b.gemm(f, 10, true), "logits");
  Model m = b.build();
  if (outlier) {
    const Node* conv1 = nullptr;
    for (const Node& n : m.graph.nodes)
      if (n.name == "/conv1/Conv") conv1 = &n;
    for (Tensor& t : m.graph.initializers) {
      if (!conv1 || t.name != conv1->inputs[1]) continue;
      std::vector<float> w = floatValues(t);  // [16, 9, 3, 3]
      for (size_t o = 0; o < 16; ++o)
        for (size_t k = 0; k < 9; ++k) w[(o * 9 + 8) * 9 + k] = 0.0005f;
      t = Tensor::fromValues(t.name, DType::Float, t.dims, w);
    }
  }
  return typed(std::move(m));
}

// The cpu-host device as a host calibration of 400 GFLOP/s, 1.6 TOPS int8 and 80 GB/s makes it.
DeviceProfile calibratedCpu() {
  auto cpu = loadDevice("cpu-host");
  if (!cpu) qFatal("cpu-host: %s", cpu.error().describe().c_str());
  HostCalibration h;
  h.gflops = 400;
  h.int8Gops = 1600;
  h.bandwidthGBs = 80;
  return withHostCalibration(*cpu, h);
}

std::vector<std::vector<DataValue>> randomSamples(const Model& m, int n, uint64_t seed) {
  std::vector<std::vector<DataValue>> out;
  for (int k = 0; k < n; ++k) {
    InputOptions o;
    o.seed = seed + static_cast<uint64_t>(k);
    auto t = makeRandomInputs(m, o);
    if (!t) qFatal("inputs: %s", t.error().describe().c_str());
    std::vector<DataValue> s;
    for (Tensor& x : *t) s.push_back(DataValue::of(std::move(x)));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::vector<DataValue>> run(const Model& m, const std::vector<std::vector<DataValue>>& samples,
                                        GraphOptimization level = GraphOptimization::All) {
  RuntimeOptions ro;
  ro.optimization = level;
  auto s = OrtSession::create(m, ro);
  if (!s) qFatal("session: %s", s.error().describe().c_str());
  std::vector<std::vector<DataValue>> out;
  for (const auto& x : samples) {
    auto r = s->run(x);
    if (!r) qFatal("run: %s", r.error().describe().c_str());
    out.push_back(std::move(*r));
  }
  return out;
}

// The op types ONNX Runtime runs after its own optimizations (the graph it dumps), with counts.
std::map<std::string, int> runtimeOps(const Model& m) {
  TempDir dir("whatif-ops");
  RuntimeOptions ro;
  ro.optimizedModelPath = dir / "optimized.onnx";
  auto s = OrtSession::create(m, ro);
  if (!s) qFatal("session: %s", s.error().describe().c_str());
  auto dumped = loadModel(ro.optimizedModelPath);
  if (!dumped) qFatal("dump: %s", dumped.error().describe().c_str());
  std::map<std::string, int> ops;
  for (const Node& n : dumped->graph.nodes) ++ops[n.opType];
  return ops;
}

std::map<std::string, int> opCounts(const Model& m) {
  std::map<std::string, int> ops;
  for (const Node& n : m.graph.nodes) ++ops[n.opType];
  return ops;
}

const Node* nodeNamed(const Model& m, std::string_view part) {
  for (const Node& n : m.graph.nodes)
    if (n.name.find(part) != std::string::npos) return &n;
  return nullptr;
}

DataValue tensorValue(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& v) {
  return DataValue::of(Tensor::fromValues(name, DType::Float, std::move(dims), v));
}

double cosineOf(const Model& a, const Model& b, const std::vector<std::vector<DataValue>>& samples) {
  auto acc = compareOutputs(run(a, samples), run(b, samples));
  if (!acc) qFatal("compare: %s", acc.error().describe().c_str());
  return acc->cosine;
}

}  // namespace

class TestWhatIf : public QObject {
  Q_OBJECT

 private slots:
  void dynamicQuantizationIsTheRuntimesForm() {
    const Model m = mlp();
    auto q = quantizeDynamic(m, {});
    QVERIFY2(q, q ? "" : q.error().describe().c_str());
    QCOMPARE(q->layers.size(), size_t(3));
    auto ops = opCounts(q->model);
    QCOMPARE(ops["MatMul"], 0);
    QCOMPARE(ops["Gemm"], 0);
    QCOMPARE(ops["MatMulInteger"], 3);
    // One DynamicQuantizeLinear per activation: x feeds two layers and is quantized once.
    QCOMPARE(ops["DynamicQuantizeLinear"], 2);
    GraphIndex idx(q->model.graph);
    for (const Node& n : q->model.graph.nodes) {
      if (n.opType != "MatMulInteger") continue;
      const Tensor* w = idx.initializer(n.inputs[1]);
      QVERIFY(w);
      QCOMPARE(w->dtype, DType::Int8);
      QCOMPARE(w->dims.size(), size_t(2));
      // Per output column: one zero point per column of the [K, N] weight.
      const Tensor* zp = idx.initializer(n.inputs[3]);
      QVERIFY(zp);
      QCOMPARE(zp->dims, std::vector<int64_t>{w->dims[1]});
    }
    QVERIFY(q->model.graph.isGraphOutput("y") && q->model.graph.isGraphOutput("z"));
    // ONNX Runtime fuses what we wrote into its int8 kernels: no MatMulInteger is left to run.
    const auto runtime = runtimeOps(q->model);
    QCOMPARE(runtime.count("MatMulInteger"), size_t(0));
    QVERIFY(runtime.count("DynamicQuantizeMatMul") + runtime.count("MatMulIntegerToFloat") > 0);
    QVERIFY(cosineOf(m, q->model, randomSamples(m, 3, 7)) > 0.999);

    DynamicQuantOptions perTensor;
    perTensor.perChannel = false;
    auto t = quantizeDynamic(m, perTensor);
    QVERIFY(t);
    GraphIndex ti(t->model.graph);
    for (const Node& n : t->model.graph.nodes)
      if (n.opType == "MatMulInteger") QVERIFY(ti.initializer(n.inputs[3])->dims.empty());
  }

  void dynamicKeepsLayersInFloat() {
    const Model m = mlp();
    const std::string gemm = nodeNamed(m, "Gemm")->name;
    DynamicQuantOptions o;
    o.keepFloat = {gemm};
    auto q = quantizeDynamic(m, o);
    QVERIFY(q);
    QCOMPARE(q->layers.size(), size_t(2));
    QCOMPARE(opCounts(q->model)["Gemm"], 1);
    QVERIFY(nodeNamed(q->model, gemm) && nodeNamed(q->model, gemm)->opType == "Gemm");
  }

  void staticQdqPlacement() {
    const Model m = convnet();
    const StaticPlan plan = planStatic(m);
    QCOMPARE(plan.layers.size(), size_t(3));  // two Conv, the Gemm
    const Node* conv1 = nodeNamed(m, "/conv1/Conv");
    const Node* relu1 = nodeNamed(m, "/conv1/Relu");
    QVERIFY(conv1 && relu1);
    // The Relu after conv1 is written through: conv1's output has no Q/DQ, the Relu's has.
    QCOMPARE(plan.absorbed.count(conv1->name), size_t(1));
    auto has = [&](const std::string& t) { return std::find(plan.tensors.begin(), plan.tensors.end(), t) != plan.tensors.end(); };
    QVERIFY(!has(conv1->outputs[0]));
    QVERIFY(has(relu1->outputs[0]));
    QVERIFY(!has("logits"));  // graph outputs stay float
    QVERIFY(has("x"));
    // Neighbours of int8 nodes: the residual Add, the pool, and the Flatten (at the pool's scale).
    QVERIFY(plan.nodes.count(nodeNamed(m, "Add")->name));
    QVERIFY(plan.nodes.count(nodeNamed(m, "GlobalAveragePool")->name));
    const Node* flatten = nodeNamed(m, "Flatten");
    QCOMPARE(plan.sameAs.count(flatten->outputs[0]), size_t(1));

    const auto samples = randomSamples(m, 4, 11);
    auto stats = collectStatistics(m, calibrationTensors(plan), samples);
    QVERIFY2(stats, stats ? "" : stats.error().describe().c_str());
    auto q = quantizeStatic(m, plan, calibratedRanges(*stats, CalibrationMethod::MinMax));
    QVERIFY2(q, q ? "" : q.error().describe().c_str());
    GraphIndex idx(q->model.graph);
    for (const Node& n : q->model.graph.nodes) {
      if (n.opType != "Conv") continue;
      const Node* wdq = idx.producerNode(n.inputs[1]);
      QVERIFY(wdq && wdq->opType == "DequantizeLinear");
      QCOMPARE(wdq->attrInt("axis", 1), int64_t(0));
      QCOMPARE(idx.initializer(wdq->inputs[0])->dtype, DType::Int8);
      QCOMPARE(idx.initializer(wdq->inputs[1])->dims, std::vector<int64_t>{16});  // a scale per output channel
      const Node* bdq = idx.producerNode(n.inputs[2]);
      QVERIFY(bdq && bdq->opType == "DequantizeLinear");
      QCOMPARE(idx.initializer(bdq->inputs[0])->dtype, DType::Int32);
      // The activation it reads comes out of a Q -> DQ pair.
      const Node* xdq = idx.producerNode(n.inputs[0]);
      QVERIFY(xdq && xdq->opType == "DequantizeLinear");
      QCOMPARE(idx.producerNode(xdq->inputs[0])->opType, std::string("QuantizeLinear"));
    }
    // Every planned tensor is written by a DequantizeLinear fed by its QuantizeLinear.
    for (const auto& t : plan.tensors) {
      if (t == "x") continue;  // a graph input keeps its name: its pair writes a new one
      const Node* dq = idx.producerNode(t);
      QVERIFY2(dq && dq->opType == "DequantizeLinear", t.c_str());
    }
    // ONNX Runtime runs it in int8: both convolutions as QLinearConv, the residual Add as QLinearAdd,
    // the Relus dropped (their outputs are quantized from 0).
    const auto runtime = runtimeOps(q->model);
    QCOMPARE(runtime.count("QLinearConv") ? runtime.at("QLinearConv") : 0, 2);
    QCOMPARE(runtime.count("Conv") + runtime.count("FusedConv"), size_t(0));
    QVERIFY(runtime.count("QLinearAdd"));
    QVERIFY(runtime.count("QLinearGlobalAveragePool"));
    QVERIFY(cosineOf(m, q->model, samples) > 0.99);
  }

  void staticKeepsLayersInFloat() {
    const Model m = convnet();
    const Node* conv2 = nodeNamed(m, "/conv2/Conv");
    const StaticPlan plan = planStatic(m, {conv2->name});
    QCOMPARE(plan.layers.size(), size_t(2));
    QVERIFY(!plan.nodes.count(conv2->name));
    auto stats = collectStatistics(m, calibrationTensors(planStatic(m)), randomSamples(m, 2, 3));
    QVERIFY(stats);
    auto q = quantizeStatic(m, plan, calibratedRanges(*stats, CalibrationMethod::MinMax));
    QVERIFY(q);
    GraphIndex idx(q->model.graph);
    const Node* kept = nodeNamed(q->model, "/conv2/Conv");
    QVERIFY(kept);
    const Tensor* w = idx.initializer(kept->inputs[1]);
    QVERIFY2(w && w->dtype == DType::Float, "the float layer keeps its float weight");
    const Node* conv1 = nodeNamed(q->model, "/conv1/Conv");
    QCOMPARE(idx.producerNode(conv1->inputs[1])->opType, std::string("DequantizeLinear"));
    QCOMPARE(runtimeOps(q->model)["QLinearConv"], 1);
  }

  void calibrationMethodsClipOutliers() {
    // Relu(x) on 400000 values in [0, 1) and one at 50 (a share of 2.5e-6, below the 99.999th
    // percentile's 1e-5): minmax keeps the outlier, percentile and entropy clip it.
    constexpr int64_t n = 400001;
    ModelBuilder b("calib", 17);
    auto x = b.input("x", {1, n});
    b.output(b.relu(x), "y");
    const Model m = typed(b.build());
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000) / 1000.0f;
    v[777] = 50.0f;
    auto stats = collectStatistics(m, {"y"}, {{tensorValue("x", {1, n}, v)}});
    QVERIFY(stats);
    const TensorStatistics& s = stats->at("y");
    QCOMPARE(s.max, 50.0);
    QCOMPARE(calibratedRange(s, CalibrationMethod::MinMax).hi, 50.0);
    const double p = calibratedRange(s, CalibrationMethod::Percentile).hi;
    const double e = calibratedRange(s, CalibrationMethod::Entropy).hi;
    QVERIFY2(p < 2.0, qPrintable(QString::number(p)));
    // Entropy's threshold is a bin edge at least `levels` bins up (255 of 2048 for a non-negative
    // tensor): at most an eighth of the largest value, here 6.2 where minmax says 50.
    QVERIFY2(e < 7.0, qPrintable(QString::number(e)));
    QVERIFY(e > 0.5 && p > 0.5);
  }

  void quantParamsHoldZeroExactly() {
    const ActivationQuant q = activationQuant(0.5, 3.0);  // widened to [0, 3]
    QCOMPARE(q.zeroPoint, uint8_t(0));
    QVERIFY(std::fabs(q.scale - 3.0f / 255) < 1e-7);
    const ActivationQuant s = activationQuant(-1.0, 3.0);
    QCOMPARE(static_cast<int>(s.zeroPoint), 64);
    const Tensor w = Tensor::fromValues("w", DType::Float, {2, 3}, std::vector<float>{1, -2, 0.5f, 0, 0, 0});
    const WeightQuant pc = quantizeWeight(w, 0, "w");
    QCOMPARE(pc.scaleValues.size(), size_t(2));
    QVERIFY(std::fabs(pc.scaleValues[0] - 2.0f / 127) < 1e-7);
    QCOMPARE(pc.scaleValues[1], 1.0f);  // an all-zero channel
    const auto q8 = pc.values.toInt64();
    QCOMPARE(q8[1], int64_t(-127));
  }

  void accuracyMetricsAndVerdicts() {
    // Classifier-like: two rows; the candidate swaps the top class of the second.
    std::vector<std::vector<DataValue>> ref{{tensorValue("logits", {2, 4}, {0.1f, 0.9f, 0.2f, 0.3f, 0.8f, 0.1f, 0.7f, 0.0f})}};
    std::vector<std::vector<DataValue>> got{{tensorValue("logits", {2, 4}, {0.1f, 0.9f, 0.2f, 0.3f, 0.7f, 0.1f, 0.8f, 0.0f})}};
    auto a = compareOutputs(ref, got);
    QVERIFY(a);
    QCOMPARE(a->outputs[0].kind, OutputKind::Classifier);
    QCOMPARE(a->top1, 0.5);
    QCOMPARE(a->top5, 1.0);
    QVERIFY(a->cosine < 1 && a->cosine > 0.9);
    QVERIFY(std::fabs(a->maxRelToRange - 0.1 / 0.9) < 1e-6);
    const Verdict v = judge(*a, AccuracyBound{});
    QVERIFY(!v.within);
    QCOMPARE(v.failedTerm, std::string("cosine"));
    AccuracyBound loose;
    loose.cosine = 0.9;
    QCOMPARE(judge(*a, loose).failedTerm, std::string("top1"));
    loose.top1 = 0.5;
    QVERIFY(judge(*a, loose).within);
    loose.maxRelToRange = 0.05;
    QCOMPARE(judge(*a, loose).failedTerm, std::string("max_rel"));
    // NaN where the reference is finite fails whatever the bound.
    std::vector<std::vector<DataValue>> nan{{tensorValue("logits", {2, 4}, {NAN, 0.9f, 0.2f, 0.3f, 0.8f, 0.1f, 0.7f, 0.0f})}};
    auto n = compareOutputs(ref, nan);
    QVERIFY(n && !n->finite);
    QCOMPARE(judge(*n, loose).failedTerm, std::string("not_finite"));
    // Detection-like: [1, boxes, 4 + 1 + classes], objectness in [0, 1].
    std::vector<float> det(1 * 8 * 6, 0.1f);
    for (int r = 0; r < 8; ++r) det[static_cast<size_t>(r) * 6 + 4] = r == 2 ? 0.9f : 0.05f;
    std::vector<float> moved = det;
    moved[2 * 6 + 0] += 3.0f;  // the confident box moves by 3
    moved[2 * 6 + 4] -= 0.2f;  // and loses 0.2 of objectness
    auto d = compareOutputs({{tensorValue("det", {1, 8, 6}, det)}}, {{tensorValue("det", {1, 8, 6}, moved)}});
    QVERIFY(d);
    QCOMPARE(d->outputs[0].kind, OutputKind::Detection);
    QVERIFY(std::fabs(d->boxMaxDelta - 3.0) < 1e-6);
    QVERIFY(std::fabs(d->scoreMaxDelta - 0.2) < 1e-6);
  }

  void boundParsing() {
    auto b = parseBound("cosine=0.99,top1=0.95,max_rel=0.1");
    QVERIFY(b);
    QCOMPARE(b->cosine, 0.99);
    QCOMPARE(b->top1, 0.95);
    QCOMPARE(b->maxRelToRange, 0.1);
    QVERIFY(!parseBound("cosine=1.5"));
    QVERIFY(!parseBound("top5=0.9"));
    QVERIFY(!parseBound("cosine"));
    QVERIFY(!parseBound("cosine=abc"));
  }

  // A deliberately broken variant (one layer's weight scales tripled) fails the verdict that the
  // correct one passes, on the same inputs.
  void brokenVariantFailsTheBound() {
    const Model m = mlp();
    auto q = quantizeDynamic(m, {});
    QVERIFY(q);
    const auto samples = randomSamples(m, 4, 21);
    const auto reference = run(m, samples);
    auto good = compareOutputs(reference, run(q->model, samples));
    QVERIFY(good);
    QVERIFY(judge(*good, {}).within);
    Model broken = q->model;
    bool done = false;
    for (Tensor& t : broken.graph.initializers) {
      if (done || t.dtype != DType::Float || t.dims.size() != 1 || t.name.find("_scale") == std::string::npos) continue;
      std::vector<float> v = floatValues(t);
      for (float& x : v) x *= 3;
      t = Tensor::fromValues(t.name, DType::Float, t.dims, v);
      done = true;
    }
    QVERIFY(done);
    auto bad = compareOutputs(reference, run(broken, samples));
    QVERIFY(bad);
    const Verdict v = judge(*bad, {});
    QVERIFY(!v.within);
    QVERIFY(!v.failedTerm.empty());
  }

  // .npz archives as NumPy writes them (np.savez: stored, ZIP64 local headers; np.savez_compressed:
  // deflate), one sample each.
  void npzInputSamples() {
    TempDir dir("whatif-npz");
    const QString script = QString(
                               "import numpy as np\n"
                               "np.savez(r'%1/a.npz', x=np.full((1,8,16,16), 0.25, np.float32))\n"
                               "np.savez_compressed(r'%1/b.npz', np.arange(2048, dtype=np.float32).reshape(1,8,16,16))\n")
                               .arg(QString::fromStdString(dir.path().string()));
    QProcess py;
    py.start("/usr/bin/python3", {"-c", script});
    QVERIFY(py.waitForFinished(60000));
    if (py.exitCode() != 0) QSKIP("python3-numpy is not installed");
    const Model m = convnet();
    auto samples = loadInputSamples(m, dir.path());
    QVERIFY2(samples, samples ? "" : samples.error().describe().c_str());
    QCOMPARE(samples->size(), size_t(2));
    QCOMPARE((*samples)[0][0].name, std::string("x"));
    QCOMPARE((*samples)[0][0].tensor.toDouble()[100], 0.25);
    QCOMPARE((*samples)[1][0].tensor.toDouble()[2047], 2047.0);  // arr_0, by position
    // A damaged archive names its file.
    std::string bytes;
    {
      std::ifstream in(dir / "b.npz", std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    bytes.resize(bytes.size() / 2);
    std::ofstream(dir / "b.npz", std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    auto bad = loadInputSamples(m, dir.path());
    QVERIFY(!bad);
    QVERIFY2(bad.error().describe().find("b.npz") != std::string::npos, bad.error().describe().c_str());
  }

  // The kinds of convolution the host calibration measures, from the weight's shape and group.
  void int8ConvolutionKinds() {
    QCOMPARE(int8ConvKind(64, 1, 9), std::string_view("dense"));
    QCOMPARE(int8ConvKind(16, 1, 9), std::string_view("dense_few_channels"));
    QCOMPARE(int8ConvKind(64, 1, 1), std::string_view("pointwise"));
    QCOMPARE(int8ConvKind(1, 96, 9), std::string_view("depthwise"));
    QCOMPARE(int8ConvKind(16, 8, 9), std::string_view("grouped"));
    QCOMPARE(int8ConvKind(3, 1, 49), std::string_view("narrow_input"));
  }

  // A static int8 convolution is predicted to gain what the host's int8 kernel of its kind gained
  // (the calibration's measured speedup), not the int8/float32 peak ratio: ONNX Runtime's
  // depthwise and few-channel int8 kernels gain nothing on a Zen 5 although its VNNI product runs
  // 3.5× faster. Without a measured speedup the roofline ratio stands.
  void staticPredictionUsesTheMeasuredKernelSpeedups() {
    const Model m = convnet();
    const DeviceProfile device = calibratedCpu();
    ProfileData deployed;
    std::string conv2;
    for (const Node& n : m.graph.nodes) {
      NodeProfile p;
      p.name = n.name;
      p.opType = n.opType;
      p.irNodes = {n.name};
      p.timeMs = Stats::of({n.opType == "Conv" ? 1.0 : 0.01});
      deployed.nodes.push_back(p);
      if (n.opType == "Conv") conv2 = n.name;  // the second; its input has 16 channels
    }
    const std::set<std::string, std::less<>> int8{conv2};
    auto roofline = Predictor::create(m, deployed, device);
    QVERIFY2(roofline, roofline ? "" : roofline.error().describe().c_str());
    auto measured = Predictor::create(m, deployed, device, {{"dense_few_channels", 2.0}, {"dense", 3.5}});
    QVERIFY(measured);
    const Prediction byRoofline = roofline->quantized(int8, false), byKernel = measured->quantized(int8, false);
    // Its 1 ms becomes 0.5 ms at ×2; the roofline's 4× ratio would make it 0.25 ms.
    QVERIFY2(std::abs(byKernel.savedMs.at(conv2) - 0.5) < 1e-9, qPrintable(QString::number(byKernel.savedMs.at(conv2))));
    QVERIFY2(byRoofline.savedMs.at(conv2) > 0.7, qPrintable(QString::number(byRoofline.savedMs.at(conv2))));
    QVERIFY(byKernel.speedup < byRoofline.speedup);
    // Dynamic quantization leaves convolutions in float: the speedups do not apply.
    QCOMPARE(measured->quantized(int8, true).speedup, roofline->quantized(int8, true).speedup);
  }

  // x·sigmoid(x), which the float runtime runs as one QuickGelu pass, comes apart in a static int8
  // model into QLinearSigmoid and QLinearMul: two passes at the measured elementwise speedup.
  void aFusedElementwisePassComesApartInInt8() {
    ModelBuilder b("silu", 17);
    auto x = b.input("x", {1, 16, 8, 8});
    auto sig = b.node("Sigmoid", {x}, {}, {floatType({1, 16, 8, 8})})[0];
    b.output(b.node("Mul", {x, sig}, {}, {floatType({1, 16, 8, 8})})[0], "y");
    const Model m = typed(b.build());
    const DeviceProfile device = calibratedCpu();
    ProfileData deployed;
    NodeProfile fused;
    fused.name = "QuickGeluFusion";
    fused.opType = "QuickGelu";
    std::set<std::string, std::less<>> int8;
    for (const Node& n : m.graph.nodes) {
      fused.irNodes.push_back(n.name);
      int8.insert(n.name);
    }
    fused.timeMs = Stats::of({1.0});
    deployed.nodes.push_back(fused);
    auto p = Predictor::create(m, deployed, device, {{"elementwise", 1.25}});
    QVERIFY(p);
    const Prediction q = p->quantized(int8, false);
    QVERIFY2(std::abs(q.variantMs - 2 / 1.25) < 1e-9, qPrintable(QString::number(q.variantMs)));
    QVERIFY(q.speedup < 1);
  }

  void wholeWhatIfOnASmallNetwork() {
    const Model m = convnet();
    WhatIfRequest req;
    req.randomSamples = 3;
    req.timing.iterations = 6;
    req.timing.budgetSeconds = 1;
    auto r = runWhatIf(m, req);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    const Variant* st = findVariant(*r, "int8_static");
    QVERIFY(st);
    QCOMPARE(st->calibrationTrials.size(), size_t(3));
    QVERIFY(!st->calibrationMethod.empty());
    QVERIFY(st->accuracy && st->accuracy->cosine > 0.99);
    QVERIFY(st->measured);
    QVERIFY(st->predictedSpeedup > 0);
    QVERIFY(!st->fingerprint.empty());
    QVERIFY(findVariant(*r, "int8_dynamic"));  // the Gemm
    QVERIFY(findVariant(*r, "spinning_off"));
    QVERIFY(r->randomInputs);
    QVERIFY(std::find(r->notes.begin(), r->notes.end(), "whatif.note.random_inputs") != r->notes.end());
    // The contract's keys.
    const nlohmann::json j = whatIfJson(*r);
    for (const char* k : {"model", "device", "baseline", "inputs", "variants", "best", "measurement"}) QVERIFY2(j.contains(k), k);
    for (const char* k : {"latency_ms", "latency_p10_ms", "latency_p90_ms", "threads"}) QVERIFY2(j["baseline"].contains(k), k);
    for (const char* k : {"threads", "contended", "cpu_share", "load"}) QVERIFY2(j["measurement"].contains(k), k);
    for (const auto& v : j["variants"]) {
      for (const char* k : {"name", "kind", "latency_ms", "latency_p10_ms", "latency_p90_ms", "speedup", "predicted_speedup",
                            "accuracy", "within_bound", "settings"})
        QVERIFY2(v.contains(k), k);
      if (v["accuracy"].is_object())
        for (const char* k : {"cosine", "top1_agreement", "max_rel_to_range"}) QVERIFY2(v["accuracy"].contains(k), k);
    }
    QCOMPARE(j["inputs"][0]["name"].get<std::string>(), std::string("x"));
    auto back = whatIfFromJson(j);
    QVERIFY(back);
    QCOMPARE(back->variants.size(), r->variants.size());
    QCOMPARE(back->best, r->best);
  }

  // Mixed precision: the first Conv reads one channel scaled by 1000, so its int8 input loses the
  // other channels; sensitivity ranks it worst and the mix keeps it (and no more than needed) in float.
  void mixedPrecisionKeepsTheSensitiveLayer() {
    const Model m = convnet(true);
    WhatIfRequest req;
    req.randomSamples = 3;
    req.only = {"int8_static", "int8_mixed"};
    req.timing.iterations = 6;
    req.timing.budgetSeconds = 1;
    auto r = runWhatIf(m, req);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    const Variant* st = findVariant(*r, "int8_static");
    QVERIFY(st && st->accuracy);
    QVERIFY2(!st->withinBound, "the all-int8 variant should miss the bound on this model");
    const Variant* mixed = findVariant(*r, "int8_mixed");
    QVERIFY(mixed);
    QVERIFY(mixed->withinBound);
    const std::string conv1 = nodeNamed(m, "/conv1/Conv")->name;
    QVERIFY(std::find(mixed->floatLayers.begin(), mixed->floatLayers.end(), conv1) != mixed->floatLayers.end());
    QVERIFY(mixed->floatLayers.size() < 3);
    // The per-layer accuracy cost the graph is coloured by: conv1 costs the most.
    double worst = -1;
    std::string worstNode;
    for (const LayerEffect& e : st->layers)
      if (e.accuracyCost > worst) worst = e.accuracyCost, worstNode = e.node;
    QCOMPARE(worstNode, conv1);
  }

  void batchVariantsForThroughput() {
    WhatIfRequest req;
    req.goal = WhatIfRequest::Goal::Throughput;
    req.only = {"batch"};
    req.batches = {2, 4};
    req.randomSamples = 2;
    req.timing.iterations = 4;
    req.timing.budgetSeconds = 1;
    auto r = runWhatIf(convnet(), req);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QCOMPARE(r->batchHandling, std::string("whatif.batch.made_symbolic"));
    const Variant* b4 = findVariant(*r, "batch_4");
    QVERIFY(b4 && b4->measured && b4->withinBound);
    QCOMPARE(b4->batch, 4);
    QVERIFY(b4->itemsPerSecond > 0);
    QVERIFY(!b4->model.graph.inputs[0].type.shape->dims[0].known());  // exported with a symbolic batch
    // A graph that bakes its batch of 1 into a Reshape is left alone, and says so.
    ModelBuilder b("baked", 17);
    auto x = b.input("x", {1, 4, 8});
    b.output(b.reshape(b.relu(x), {1, 32}), "y");
    auto baked = runWhatIf(typed(b.build()), req);
    QVERIFY(baked);
    QCOMPARE(baked->batchHandling, std::string("whatif.batch.fixed_in_graph"));
    QVERIFY(!findVariant(*baked, "batch_4"));
  }

  void ascendVariantsAreEstimates() {
    WhatIfRequest req;
    req.device = "ascend910b";
    auto r = runWhatIf(convnet(), req);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(r->estimated);
    const Variant* fp16 = findVariant(*r, "fp16");
    const Variant* int8 = findVariant(*r, "int8_amct");
    QVERIFY(fp16 && int8);
    QVERIFY(fp16->estimated && !fp16->measured);
    QVERIFY(fp16->speedup > 1);
    QVERIFY(int8->speedup >= fp16->speedup);
    QVERIFY(fp16->option.find("precision_mode") != std::string::npos);
    QVERIFY(int8->option.find("AMCT") != std::string::npos);
    QVERIFY(!fp16->notes.empty());
    QVERIFY(r->best.empty());  // nothing measured, no accuracy: no variant is called best
  }
};

QTEST_GUILESS_MAIN(TestWhatIf)
#include "tst_whatif.moc"
