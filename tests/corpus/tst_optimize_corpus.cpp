// Every model of the corpus through the optimizer at every level, with verification on: the
// result verifies against the original, nothing real is rolled back, the ONNX checker accepts it
// (or says what it could not check), metadata and outputs survive the export, and ResNet-18 has
// no BatchNormalization left at conservative.
#include <QtTest>

#include <map>

#include "model/onnx_io.h"
#include "optimize/optimizer.h"
#include "profile/ort_session.h"
#include "profile/value_compare.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

// Symbolic input dims of the corpus models, as MANIFEST.md lists the shapes they were checked with.
std::map<std::string, int64_t, std::less<>> dimsFor(const std::string& file) {
  if (file.find("PP-OCRv4_rec") != std::string::npos)
    return {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 320}};
  if (file.find("ppocr_mobile") != std::string::npos)
    return {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 48}, {"p2o.DynamicDimension.2", 192}};
  if (file.find("silero") != std::string::npos)
    return {{"batch", 1}, {"sequence", 512}, {"input:0", 1}, {"input:1", 512}, {"state:1", 1}};
  return {};
}

size_t count(const Model& m, std::string_view op) {
  size_t n = 0;
  m.graph.forEachGraph([&](const Graph& g, int) {
    for (const Node& x : g.nodes) n += x.is(op);
  });
  return n;
}

}  // namespace

class TestOptimizeCorpus : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
  }

  void everyModel_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("level");
    for (const auto& p : test::corpusModels())
      for (OptLevel l : {OptLevel::Conservative, OptLevel::Moderate, OptLevel::Aggressive})
        QTest::newRow((p.filename().string() + "@" + std::string(levelName(l))).c_str())
            << QString::fromStdString(p.filename().string()) << static_cast<int>(l);
  }

  void everyModel() {
    QFETCH(QString, file);
    QFETCH(int, level);
    const std::string name = file.toStdString();
    auto model = loadModel(test::corpusModel(name));
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().describe().c_str());
    OptimizeOptions o;
    o.level = static_cast<OptLevel>(level);
    o.verify = true;
    o.verification.inputs.dims = dimsFor(name);
    auto r = optimize(*model, o);
    if (!r.ok() && name.find("operator_basic") != std::string::npos) {
      // Kept in the corpus on purpose: opset-6 Add has no kernel in ONNX Runtime, so nothing
      // can be verified, and the optimizer says so instead of shipping an unverified model.
      QCOMPARE(r.error().kind, ErrorKind::Device);
      QVERIFY2(r.error().message.find("cannot verify") != std::string::npos, r.error().message.c_str());
      QSKIP(("not verifiable: " + r.error().message).c_str());
    }
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QVERIFY(r->verification.has_value());
    const VerifyResult& v = *r->verification;
    std::printf("%-58s %-12s %3zu applied %zu rolled back, %zu -> %zu nodes, max abs %.2e rel %.2e%s\n", name.c_str(),
                std::string(levelName(o.level)).c_str(), r->applied.size(), r->rolledBack.size(), r->before.nodes,
                r->after.nodes, v.maxAbsError, v.maxRelError, r->checker.ran ? "" : " (checker skipped)");
    for (const auto& b : r->rolledBack)
      std::printf("  rolled back %s at %s: %s\n", b.rewrite.pass.c_str(),
                  b.rewrite.nodesBefore.empty() ? "?" : b.rewrite.nodesBefore[0].c_str(), b.reason.c_str());
    QVERIFY2(v.passed, v.failure.c_str());
    QVERIFY2(r->rolledBack.empty(), "a built-in pass broke verification on a real model");
    QVERIFY2(!r->checker.ran || r->checker.passed, r->checker.message.c_str());
    if (!r->checker.ran) QVERIFY(!r->checker.skipped.empty());  // a skipped check says why
    // Runtime-specific rewrites only at aggressive, and every one is labelled.
    for (const auto& a : r->applied) {
      const Pass* p = findPass(a.pass);
      QVERIFY(p);
      QVERIFY(p->info().level <= o.level);
      QCOMPARE(a.runtimeSpecific, p->info().runtimeSpecific);
    }
    // The ONNX file written is the model verified: same outputs and metadata after a round trip.
    test::TempDir dir("optcorpus");
    QVERIFY(saveModel(r->model, dir / "out.onnx").ok());
    auto back = loadModel(dir / "out.onnx");
    QVERIFY(back.ok());
    QCOMPARE(back->graph.outputs.size(), model->graph.outputs.size());
    for (const auto& [k, val] : model->metadata) QCOMPARE(back->metadataValue(k), val);
    QCOMPARE(back->producerName, model->producerName);
    if (r->opsetChanges.empty()) QCOMPARE(back->opset(), model->opset());
    auto check = Verifier::create(*model, o.verification);
    QVERIFY(check.ok());
    check->setTolerance(toleranceFor(o.level));
    VerifyResult again = check->check(*back, false);
    QVERIFY2(again.passed, again.failure.c_str());
    if (o.level == OptLevel::Conservative) {
      QVERIFY(r->applied.empty() || r->after.nodes <= r->before.nodes);
    }
  }

  void resnetHasNoBatchNormAtConservative() {
    auto model = loadModel(test::corpusModel("resnet18.onnx"));
    QVERIFY(model.ok());
    QVERIFY(count(*model, "BatchNormalization") > 0);
    OptimizeOptions o;
    o.level = OptLevel::Conservative;
    auto r = optimize(*model, o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(count(r->model, "BatchNormalization"), size_t(0));
    QCOMPARE(r->after.opCounts.count("BatchNormalization"), size_t(0));
    QCOMPARE(r->before.opCounts.at("BatchNormalization"), count(*model, "BatchNormalization"));
    QVERIFY(r->verification && r->verification->passed);
    QVERIFY(std::any_of(r->applied.begin(), r->applied.end(), [](const Rewrite& w) { return w.pass == "fold_bn_into_conv"; }));
  }
};

QTEST_GUILESS_MAIN(TestOptimizeCorpus)
#include "tst_optimize_corpus.moc"
