// Import/export of the IR: round trips, external data, refusal of escaping locations.
#include <QtTest>

#include <fstream>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

Model tinyModel() {
  Model m;
  m.opsets.push_back({"", 17});
  m.metadata.emplace_back("origin", "unit-test");
  Graph& g = m.graph;
  g.name = "tiny";
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  std::vector<float> w(4 * 4, 0.5f);
  g.initializers.push_back(Tensor::fromValues("w", DType::Float, {4, 4}, w));
  Node mm;
  mm.opType = "MatMul";
  mm.inputs = {"x", "w"};
  mm.outputs = {"h"};
  g.addNode(mm);
  Node relu;
  relu.opType = "Relu";
  relu.inputs = {"h"};
  relu.outputs = {"y"};
  g.addNode(relu);
  return m;
}

}  // namespace

class TestModelIo : public QObject {
  Q_OBJECT
 private slots:
  void roundTripKeepsStructure() {
    Model m = tinyModel();
    auto bytes = serializeModel(m);
    QVERIFY(bytes.ok());
    auto back = loadModelFromBytes(*bytes);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
    QCOMPARE(back->graph.nodes.size(), size_t(2));
    QCOMPARE(back->graph.nodes[0].opType, std::string("MatMul"));
    QCOMPARE(back->metadataValue("origin"), std::string("unit-test"));
    QCOMPARE(back->opset(), int64_t(17));
    const Tensor* w = back->graph.findInitializer("w");
    QVERIFY(w);
    QCOMPARE(w->toDouble().size(), size_t(16));
    QCOMPARE(w->toDouble()[5], 0.5);
    // Nameless nodes get names inside the IR but the file keeps them nameless.
    QVERIFY(back->graph.nodes[0].generatedName);
    QCOMPARE(*serializeModel(*back), *bytes);
  }

  void shapeInferenceFillsIntermediates() {
    Model m = tinyModel();
    auto r = inferShapes(m);
    QVERIFY(r.ok());
    GraphIndex idx(m.graph);
    const Shape* h = idx.shape("h");
    QVERIFY(h);
    QCOMPARE(h->str(), std::string("[1,4]"));
  }

  void externalDataIsMappedAndEscapesRefused() {
    test::TempDir dir("extdata");
    Model m = tinyModel();
    SaveOptions o;
    o.external = SaveOptions::External::Always;
    o.externalMinBytes = 16;
    QVERIFY(saveModel(m, dir / "m.onnx", o).ok());
    QVERIFY(fs::exists(dir / "m.onnx.data"));
    auto back = loadModel(dir / "m.onnx");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
    const Tensor* w = back->graph.findInitializer("w");
    QVERIFY(w && w->external);
    QCOMPARE(w->toDouble()[15], 0.5);
    // The exporter never writes over the model it came from.
    auto again = saveModel(*back, dir / "m.onnx", o);
    QVERIFY(!again.ok());
    QVERIFY(again.error().message.find("refusing") != std::string::npos);

  }

  void escapingLocationsAreRefused_data() {
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("expected");
    // Same length as "m.onnx.data" so the protobuf can be patched in place.
    QTest::newRow("dotdot") << "../outs.bin" << "leaves the model's folder";
    QTest::newRow("absolute") << "/tmp/x.data" << "absolute path";
    QTest::newRow("symlink") << "lnk/ou.data" << "outside the model's folder";
  }

  void escapingLocationsAreRefused() {
    QFETCH(QString, location);
    QFETCH(QString, expected);
    test::TempDir dir("escape");
    fs::create_directories(dir.path() / "model");
    std::ofstream(dir.path() / "outs.bin") << std::string(4096, 'x');
    std::ofstream(dir.path() / "ou.data") << std::string(4096, 'x');
    fs::create_directory_symlink("..", dir.path() / "model" / "lnk");
    SaveOptions o;
    o.external = SaveOptions::External::Always;
    o.externalMinBytes = 16;
    fs::path modelPath = dir.path() / "model" / "m.onnx";
    QVERIFY(saveModel(tinyModel(), modelPath, o).ok());
    std::string bytes;
    {
      std::ifstream in(modelPath, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto pos = bytes.find("m.onnx.data");
    QVERIFY(pos != std::string::npos);
    bytes.replace(pos, 11, location.toStdString());
    std::ofstream(modelPath, std::ios::binary | std::ios::trunc) << bytes;
    auto m = loadModel(modelPath);
    QVERIFY(!m.ok());
    QVERIFY2(m.error().message.find(expected.toStdString()) != std::string::npos, m.error().message.c_str());
    QVERIFY2(m.error().message.find("'w'") != std::string::npos, m.error().message.c_str());
    QCOMPARE(m.error().file, modelPath.string());
  }
};

QTEST_GUILESS_MAIN(TestModelIo)
#include "tst_model_io.moc"
