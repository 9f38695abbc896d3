// Profiling real models on the CPU: every executed node has a duration, the sum of node medians
// and the end-to-end median are both reported (their ratio printed), the ORT JSON the backend
// wrote imports back to the same table, `all` maps fused and inserted nodes back to the IR, and a
// model the runtime cannot run is a clean device error.
#include <QtTest>

#include <cstdio>
#include <map>
#include <set>

#include "model/onnx_io.h"
#include "profile/node_mapping.h"
#include "profile/ort_profiler.h"
#include "profile/ort_trace.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

constexpr int kIterations = 3;

std::set<std::string> subgraphNames(const Graph& g) {
  std::set<std::string> out;
  g.forEachGraph([&](const Graph& sub, int depth) {
    if (depth > 0)
      for (const Node& n : sub.nodes) out.insert(n.name);
  });
  return out;
}

}  // namespace

class TestProfileCorpus : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
  }

  void everyExecutedNodeIsTimed_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("dims");
    QTest::newRow("resnet18") << "resnet18.onnx" << QStringList{};
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx" << QStringList{};
    QTest::newRow("bert_like_encoder (int64 inputs)") << "bert_like_encoder.onnx" << QStringList{};
    QTest::newRow("PaddleOCR classifier (--dim)")
        << "ch_ppocr_mobile_v2.0_cls_infer.onnx"
        << QStringList{"p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=48", "p2o.DynamicDimension.2=192"};
    QTest::newRow("silero VAD (If subgraphs)") << "silero_vad_legacy.onnx" << QStringList{"batch=1", "sequence=512"};
  }

  void everyExecutedNodeIsTimed() {
    QFETCH(QString, file);
    QFETCH(QStringList, dims);
    auto model = loadModel(test::corpusModel(file.toStdString()));
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().describe().c_str());
    test::TempDir dir("profcorpus");
    CpuProfileOptions o;
    o.iterations = kIterations;
    o.warmup = 1;
    o.keepTrace = dir / "trace.json";
    for (const QString& d : dims) o.inputs.dims[d.section('=', 0, 0).toStdString()] = d.section('=', 1).toLongLong();
    auto p = profileOnCpu(*model, o);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->device, std::string("cpu"));
    QVERIFY(p->runtime.rfind("onnxruntime 1.21", 0) == 0);
    QCOMPARE(p->optimization, std::string("disabled"));
    QCOMPARE(p->iterations, kIterations);
    QVERIFY(p->unmatched.empty());

    // Every top-level IR node ran and was timed in every iteration, except Constant nodes, which
    // the runtime turns into initializers.
    std::map<std::string, const NodeProfile*> timed;
    for (const NodeProfile& n : p->nodes)
      for (const auto& ir : n.irNodes) timed[ir] = &n;
    for (const Node& n : model->graph.nodes) {
      if (n.is("Constant")) continue;
      auto it = timed.find(n.name);
      QVERIFY2(it != timed.end(), ("not timed: " + n.name).c_str());
      QCOMPARE(it->second->timeMs.count, kIterations);
      QVERIFY(it->second->timeMs.median >= 0);
      QVERIFY(it->second->parent.empty());
    }
    for (const auto& name : p->irNodesNotRun) QVERIFY2(model->graph.findNodeByName(name)->is("Constant"), name.c_str());
    // Subgraph nodes are listed with the If/Loop that ran them; their time is inside its time.
    const auto nested = subgraphNames(model->graph);
    size_t nestedEntries = 0;
    for (const NodeProfile& n : p->nodes) {
      if (n.parent.empty()) continue;
      ++nestedEntries;
      QVERIFY2(nested.count(n.name), n.name.c_str());
      QVERIFY(p->find(n.parent));
    }
    QCOMPARE(nestedEntries > 0, !nested.empty());

    const double sum = p->sumNodeMedians();
    QVERIFY(sum > 0);
    QVERIFY(p->latencyMs.median > 0);
    // The end-to-end latency is sampled until its spread is known: at least the runs asked for.
    QVERIFY(p->latencyMs.count >= kIterations);
    std::printf("%-40s nodes %4zu  e2e median %9.3f ms  sum of node medians %9.3f ms  ratio %.2f\n",
                file.toStdString().c_str(), p->nodes.size(), p->latencyMs.median, sum, sum / p->latencyMs.median);

    // The trace the runtime wrote, imported, gives the same per-node table.
    auto trace = loadOrtTrace(o.keepTrace);
    QVERIFY2(trace.ok(), trace.ok() ? "" : trace.error().describe().c_str());
    auto imported = profileFromTrace(*trace, o.warmup, o.keepTrace.string());
    QVERIFY(imported.ok());
    mapToIr(*imported, *model, nullptr);
    QCOMPARE(imported->nodes.size(), p->nodes.size());
    for (size_t i = 0; i < p->nodes.size(); ++i) {
      const NodeProfile& a = p->nodes[i];
      const NodeProfile& b = imported->nodes[i];
      QCOMPARE(b.name, a.name);
      QCOMPARE(b.opType, a.opType);
      QCOMPARE(b.timeMs.median, a.timeMs.median);
      QCOMPARE(b.timeMs.p10, a.timeMs.p10);
      QCOMPARE(b.timeMs.p90, a.timeMs.p90);
      QCOMPARE(b.timeMs.count, a.timeMs.count);
      QCOMPARE(b.kernel, a.kernel);
      QCOMPARE(b.inputShapes, a.inputShapes);
      QCOMPARE(b.outputShapes, a.outputShapes);
      QCOMPARE(b.irNodes, a.irNodes);
      QCOMPARE(b.parent, a.parent);
    }
  }

  // ResNet-18: `disabled` runs the IR's nodes under their own names; `all` fuses Conv+BN(+Add)(+Relu)
  // and, on CPUs with NCHWc kernels, inserts reorders. Every IR node is accounted for either way.
  void resnetAllVersusDisabled() {
    auto model = loadModel(test::corpusModel("resnet18.onnx"));
    QVERIFY(model.ok());
    CpuProfileOptions o;
    o.iterations = 2;
    o.warmup = 1;
    o.measureLatency = false;
    auto off = profileOnCpu(*model, o);
    QVERIFY2(off.ok(), off.ok() ? "" : off.error().describe().c_str());
    QCOMPARE(off->nodes.size(), model->graph.nodes.size());
    for (const NodeProfile& n : off->nodes) QCOMPARE(n.irNodes, std::vector<std::string>{n.name});

    o.optimization = GraphOptimization::All;
    auto all = profileOnCpu(*model, o);
    QVERIFY2(all.ok(), all.ok() ? "" : all.error().describe().c_str());
    QCOMPARE(all->optimization, std::string("all"));
    QVERIFY(all->unmatched.empty());
    QVERIFY(all->irNodesNotRun.empty());
    QVERIFY(all->nodes.size() < off->nodes.size());
    std::map<std::string, int> coveredBy;
    bool nchwc = false;
    int fusedWithBnAndRelu = 0, fusedWithResidual = 0;
    for (const NodeProfile& n : all->nodes) {
      for (const auto& ir : n.irNodes) ++coveredBy[ir];
      nchwc = nchwc || n.kernel.find("nchwc") != std::string::npos;
      if (n.inserted) {
        QVERIFY(n.irNodes.empty());
        QVERIFY2(!n.neighbours.empty(), n.name.c_str());
        QVERIFY(n.opType == "ReorderInput" || n.opType == "ReorderOutput");
        continue;
      }
      std::multiset<std::string> ops;
      for (const auto& ir : n.irNodes) ops.insert(model->graph.findNodeByName(ir)->opType);
      if (n.opType == "Conv" || n.opType == "FusedConv") {
        QCOMPARE(ops.count("Conv"), size_t(1));  // one Conv per fused kernel
        QCOMPARE(ops.count("BatchNormalization"), size_t(1));
        if (ops.count("Relu")) ++fusedWithBnAndRelu;
        if (ops.count("Add")) ++fusedWithResidual;
      }
    }
    for (const Node& n : model->graph.nodes) QCOMPARE(coveredBy[n.name], 1);  // each IR node exactly once
    QVERIFY(fusedWithBnAndRelu >= 9);
    if (nchwc) {
      QCOMPARE(fusedWithResidual, 8);  // the NCHWc Conv absorbs the residual Add as its Sum input
      QVERIFY(all->find("ReorderOutput"));
    }
    std::printf("resnet18: %zu runtime nodes at disabled, %zu at all (%s)\n", off->nodes.size(), all->nodes.size(),
                nchwc ? "NCHWc kernels" : "no NCHWc kernels on this CPU");
  }

  // A session built from the IR (large weights handed over from memory) computes exactly what
  // the runtime computes from the file itself.
  void sessionFromIrMatchesTheFile_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("resnet18") << "resnet18.onnx";
    QTest::newRow("bert_like_encoder") << "bert_like_encoder.onnx";
    QTest::newRow("silero_vad_v6") << "silero_vad_v6.onnx";
  }

  void sessionFromIrMatchesTheFile() {
    QFETCH(QString, file);
    const fs::path path = test::corpusModel(file.toStdString());
    auto model = loadModel(path);
    QVERIFY(model.ok());
    InputOptions io;
    for (const char* d : {"input:0=1", "input:1=512", "state:1=1"})
      io.dims[std::string(d).substr(0, std::string(d).find('='))] = std::stoll(std::string(d).substr(std::string(d).find('=') + 1));
    auto inputs = makeRandomInputs(*model, io);
    QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().describe().c_str());
    RuntimeOptions ro;
    ro.intraOpThreads = 1;
    auto fromIr = OrtSession::create(*model, ro);
    auto fromFile = OrtSession::fromFile(path, ro);
    QVERIFY(fromIr.ok() && fromFile.ok());
    auto a = fromIr->run(*inputs);
    auto b = fromFile->run(*inputs);
    QVERIFY2(a.ok() && b.ok(), a.ok() ? "" : a.error().describe().c_str());
    QCOMPARE(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) QCOMPARE((*a)[i].tensor.raw(), (*b)[i].tensor.raw());
  }

  void unsupportedOpsetIsADeviceError() {
    auto model = loadModel(test::corpusModel("onnx-testdata_pytorch-operator_test_operator_basic.onnx"));
    QVERIFY(model.ok());
    CpuProfileOptions o;
    o.iterations = 1;
    auto p = profileOnCpu(*model, o);
    QVERIFY(!p.ok());
    QCOMPARE(p.error().kind, ErrorKind::Device);
    QVERIFY2(p.error().message.find("Could not find an implementation for Add(6)") != std::string::npos,
             p.error().message.c_str());
  }

  void cancelledBeforeItEnds() {
    auto model = loadModel(test::corpusModel("squeezenet1_1.onnx"));
    QVERIFY(model.ok());
    std::atomic<bool> stop{false};
    int reports = 0;
    Progress progress([&](std::string_view phase, double) {
      if (phase == "latency" && ++reports == 2) stop = true;
    }, &stop);
    CpuProfileOptions o;
    o.iterations = 1000;
    o.warmup = 0;
    auto p = profileOnCpu(*model, o, progress);
    QVERIFY(!p.ok());
    QCOMPARE(p.error().kind, ErrorKind::Cancelled);
    QVERIFY(reports < 10);
  }
};

QTEST_GUILESS_MAIN(TestProfileCorpus)
#include "tst_profile_corpus.moc"
