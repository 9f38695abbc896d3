// The model builder and the example models, checked against the external yardsticks: ONNX's
// checker, ONNX shape inference (every shape the builder tracked must be the one ONNX infers)
// and ONNX Runtime (every model runs, output shapes as declared, finite values).
#include <QtTest>

#include <fstream>

#include "example_models.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "model_presets.h"
#include "onnx_verify.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::test;
namespace fs = std::filesystem;

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Every shape the builder tracked (declared as value_info by build(true)) against what ONNX
// shape inference derives from the bare model. Returns the first mismatch.
std::string compareWithInference(const ModelBuilder& b) {
  Model declared = b.build(true);
  Model inferred = b.build(false);
  auto r = inferShapes(inferred);
  if (!r) return "inferShapes failed: " + r.error().describe();
  GraphIndex idx(inferred.graph);
  for (const ValueInfo& v : declared.graph.valueInfo) {
    const Shape* s = idx.shape(v.name);
    if (!s) return v.name + ": ONNX inferred no shape, builder says " + v.type.shape->str();
    if (s->rank() != v.type.shape->rank()) return v.name + ": rank " + s->str() + " vs builder " + v.type.shape->str();
    for (size_t i = 0; i < s->rank(); ++i) {
      const Dim& a = s->dims[i];
      const Dim& d = v.type.shape->dims[i];
      if (a.known() != d.known() || (a.known() && a.value != d.value))
        return v.name + ": ONNX " + s->str() + " vs builder " + v.type.shape->str();
    }
    if (idx.dtype(v.name) != v.type.elem) return v.name + ": element type differs";
  }
  return {};
}

std::string opTypes(const Model& m, const std::vector<std::string>& names) {
  std::vector<std::string> ops;
  for (const auto& n : names) {
    const Node* node = m.graph.findNodeByName(n);
    ops.push_back(node ? node->opType : "<missing " + n + ">");
  }
  return join(ops);
}

// Every builder operation with awkward parameters, symbolic dims included.
ModelBuilder kitchenSink() {
  ModelBuilder b("kitchen_sink", 17, 99);
  auto x = b.input("x", {-1, 6, 17, 23}, DType::Float, {"batch"});
  auto c = b.conv(x, 12, 3, {.stride = 2, .pads = 1, .groups = 3, .dilation = 2});
  auto p = b.maxPool(b.clip(c, 0.0f, 6.0f), 3, {.stride = 2, .pads = 1});
  auto s = b.slice(p, {-1, 0}, {-100, 100}, {2, 3}, {-2, 3});  // reversed, strided
  auto parts = b.split(s, 1, {5, 7});
  auto cat = b.concat({parts[1], b.identity(parts[0])}, 1);
  auto up = b.resize(b.dropout(cat), {1, 1, 2, 3});
  auto r = b.reshapeFromShape(up, 1, {12, -1});
  auto t = b.transpose(r, {0, 2, 1});
  auto ln = b.layerNorm(t);
  auto half = b.cast(b.cast(ln, DType::Float16), DType::Float);
  auto mm = b.matmul(half, b.transpose(half, {0, 2, 1}));
  auto red = b.reduceMean(b.softmax(mm, 1), {1}, false);
  b.output(b.unsqueeze(red, {1, 2}), "y");
  b.output(b.reshape(c, {0, -1}), "flat");
  return b;
}

}  // namespace

class TestModelBuilder : public QObject {
  Q_OBJECT
 private slots:
  void presets_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("ops");
    const std::map<std::string, std::string> expected{
        {"conv_bn_relu", "Conv,BatchNormalization,Relu"},
        {"matmul_add_gelu", "MatMul,Add,Div,Erf,Add,Mul,Mul"},
        {"inverse_transpose_pair", "Transpose,Transpose"},
        {"slice_concat", "Slice,Slice,Slice,Slice,Concat"},
        {"misaligned_dims", "Conv,MatMul,MatMul"},
        {"layernorm_decomposed", "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add"},
        {"layernorm_fused", "LayerNormalization"},
        {"multi_consumer_intermediate", "Conv,BatchNormalization,Relu,Add"},
        {"intermediate_is_graph_output", "Conv,BatchNormalization,Relu"},
        {"channel_shuffle", "Reshape,Transpose,Reshape"},
        {"cast_round_trip", "Cast,Cast"},
        {"conv_relu_conv", "Conv,Relu,Conv"},
        {"shape_arithmetic", "Shape,Gather,Unsqueeze,Shape,Gather,Unsqueeze,Concat,Reshape"},
        {"gemm_head", "Gemm,Softmax"},
    };
    auto all = presets::all();
    QCOMPARE(all.size(), expected.size());
    for (const auto& p : all) {
      auto it = expected.find(p.name);
      QVERIFY2(it != expected.end(), p.name.c_str());
      QTest::newRow(p.name.c_str()) << QString::fromStdString(p.name) << QString::fromStdString(it->second);
    }
  }

  void presets() {
    QFETCH(QString, preset);
    QFETCH(QString, ops);
    presets::PatternModel p;
    for (auto& c : presets::all())
      if (c.name == preset.toStdString()) p = std::move(c);
    QCOMPARE(QString::fromStdString(opTypes(p.model, p.nodes)), ops);
    auto check = onnxCheck(p.model);
    QVERIFY2(check.ok(), check.ok() ? "" : check.error().describe().c_str());
    auto run = ortRun(p.model);
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().describe().c_str());
    QCOMPARE(run->size(), p.model.graph.outputs.size());
    for (size_t i = 0; i < run->size(); ++i) {
      const auto& o = (*run)[i];
      QCOMPARE(o.name, p.model.graph.outputs[i].name);
      QCOMPARE(Shape::of(o.shape), *p.model.graph.outputs[i].type.shape);
      QVERIFY2(o.finite, o.name.c_str());
    }
  }

  void patternLegalityFacts() {
    // The facts that make some presets illegal to fuse, seen through the IR index.
    auto mc = presets::multiConsumerIntermediate();
    GraphIndex a(mc.model.graph);
    const Node* conv = mc.model.graph.findNodeByName(mc.nodes[0]);
    QCOMPARE(a.consumerCount(conv->outputs[0]), size_t(2));
    auto go = presets::intermediateIsGraphOutput();
    const Node* bn = go.model.graph.findNodeByName(go.nodes[1]);
    QVERIFY(go.model.graph.isGraphOutput(bn->outputs[0]));
    GraphIndex c(go.model.graph);
    QCOMPARE(c.consumerCount(bn->outputs[0]), size_t(1));
    auto md = presets::misalignedDims();
    int misaligned = 0;
    for (const Tensor& t : md.model.graph.initializers)
      for (int64_t d : t.dims) misaligned += d % 16 != 0;
    QVERIFY(misaligned >= 3);
  }

  void builderShapesMatchOnnxInference() {
    ModelBuilder sink = kitchenSink();
    std::string diff = compareWithInference(sink);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(sink.shapeOf("x").str(), std::string("[batch,6,17,23]"));
    QCOMPARE(sink.shapeOf(sink.producer("flat").inputs[0]).str(), std::string("[batch,12,8,11]"));
    auto check = onnxCheck(sink.build());
    QVERIFY2(check.ok(), check.ok() ? "" : check.error().describe().c_str());
    OrtRunOptions o;
    o.dims["batch"] = 2;
    auto run = ortRun(sink.build(), o);
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().describe().c_str());
    // ORT's shapes, with batch bound to 2, are the builder's: known dims equal, "batch" is 2,
    // and dims that neither the builder nor ONNX could derive are whatever ORT computed.
    for (size_t i = 0; i < run->size(); ++i) {
      const Shape& declared = sink.shapeOf((*run)[i].name);
      QCOMPARE((*run)[i].shape.size(), declared.rank());
      for (size_t a = 0; a < declared.rank(); ++a) {
        const Dim& d = declared.dims[a];
        if (d.known()) QCOMPARE((*run)[i].shape[a], d.value);
        else if (d.param == "batch") QCOMPARE((*run)[i].shape[a], int64_t(2));
      }
    }
  }

  void weightsAreSeeded() {
    auto bytes = [](uint64_t seed) {
      ModelBuilder b("w", 17, seed);
      b.output(b.conv(b.input("x", {1, 3, 8, 8}), 4, 3), "y");
      return *serializeModel(b.build());
    };
    QCOMPARE(bytes(5), bytes(5));
    QVERIFY(bytes(5) != bytes(6));
    // Seeded weights are not degenerate: spread over the whole bound, mean near zero.
    ModelBuilder b("w", 17, 1);
    b.output(b.matmul(b.input("x", {1, 1000}), b.weight("w", {1000, 1}, 0.5)), "y");
    Model m = b.build();
    auto v = m.graph.findInitializer("w")->toDouble();
    QCOMPARE(v.size(), size_t(1000));
    double lo = 1, hi = -1, sum = 0;
    for (double x : v) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
    QVERIFY(lo >= -0.5 && lo < -0.49);
    QVERIFY(hi < 0.5 && hi > 0.49);
    QVERIFY(std::abs(sum / 1000) < 0.05);
  }

  void examplesAreDeterministicAndValid_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("tiny_yolo") << "tiny_yolo.onnx";
    QTest::newRow("tiny_transformer") << "tiny_transformer.onnx";
  }

  void examplesAreDeterministicAndValid() {
    QFETCH(QString, file);
    Model m = file.startsWith("tiny_yolo") ? examples::tinyYolo() : examples::tinyTransformer();
    fs::path built = binaryDir() / "examples" / file.toStdString();
    QVERIFY2(fs::exists(built), built.c_str());
    std::ifstream in(built, std::ios::binary);
    std::string onDisk((std::istreambuf_iterator<char>(in)), {});
    // The build's file (another process) has exactly the bytes built here.
    QVERIFY(onDisk == *serializeModel(m));
    auto check = onnxCheck(onDisk);
    QVERIFY2(check.ok(), check.ok() ? "" : check.error().describe().c_str());
    auto run = ortRun(onDisk);
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().describe().c_str());
    for (size_t i = 0; i < run->size(); ++i) {
      QCOMPARE(Shape::of((*run)[i].shape), *m.graph.outputs[i].type.shape);
      QVERIFY((*run)[i].finite);
    }
  }
  // The README examples carry what the advisor is meant to find; these are the facts its rules
  // will see, checked through the IR index.
  void examplesHoldTheirPatterns() {
    Model y = examples::tinyYolo();
    GraphIndex yi(y.graph);
    auto only = [](const GraphIndex& idx, const Node& n, const char* op) -> const Node* {
      auto uses = idx.consumers(n.outputs[0]);
      if (uses.size() != 1) return nullptr;
      const Node& next = idx.graph().nodes[uses[0].node];
      return next.opType == op ? &next : nullptr;
    };
    int convBnSilu = 0, misaligned = 0, inversePairs = 0, c2fSplits = 0;
    for (const Node& n : y.graph.nodes) {
      if (n.opType == "Conv") {
        const Tensor* w = yi.initializer(n.inputs[1]);
        misaligned += w && w->dims[0] % 16 != 0;
        if (const Node* bn = only(yi, n, "BatchNormalization")) {
          auto uses = yi.consumers(bn->outputs[0]);  // SiLU: Sigmoid and Mul both read BN's output
          convBnSilu += uses.size() == 2;
        }
      }
      if (n.opType == "Transpose")
        if (const Node* t2 = only(yi, n, "Transpose")) {
          auto p1 = n.attrInts("perm"), p2 = t2->attrInts("perm");
          bool identity = p1.size() == p2.size();
          for (size_t i = 0; identity && i < p1.size(); ++i) identity = p1[static_cast<size_t>(p2[i])] == int64_t(i);
          inversePairs += identity;
        }
      if (n.opType == "Split") c2fSplits += yi.consumers(n.outputs[0]).size() == 1;
    }
    QCOMPARE(convBnSilu, 43);
    QVERIFY(misaligned >= 10);
    QCOMPARE(inversePairs, 1);
    QCOMPARE(c2fSplits, 8);
    int maxPoolChain = 0;
    for (const Node& n : y.graph.nodes)
      if (n.opType == "MaxPool" && only(yi, n, "MaxPool") == nullptr && yi.producerNode(n.inputs[0])->opType == "MaxPool")
        maxPoolChain = yi.producerNode(yi.producerNode(n.inputs[0])->inputs[0])->opType == "MaxPool" ? 3 : 2;
    QCOMPARE(maxPoolChain, 3);

    Model t = examples::tinyTransformer();
    std::string ops;
    for (const Node& n : t.graph.nodes)
      if (n.opType != "Constant") ops += n.opType + ",";
    auto count = [&](const std::string& seq) {
      int c = 0;
      for (size_t at = ops.find(seq); at != std::string::npos; at = ops.find(seq, at + 1)) ++c;
      return c;
    };
    QCOMPARE(count("ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add,"), 5);  // 2 per layer + final
    QCOMPARE(count("MatMul,Add,Div,Erf,Add,Mul,Mul,"), 2);                       // fc1 + GELU per layer
    QCOMPARE(count("Shape,Gather,Unsqueeze,Shape,Gather,Unsqueeze,Concat,Reshape,"), 8);
    QCOMPARE(count("Softmax,"), 2);
  }
};

QTEST_GUILESS_MAIN(TestModelBuilder)
#include "tst_model_builder.moc"
