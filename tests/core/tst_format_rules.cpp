// The format family: inverse Transposes and layout round trips on fixtures built to be legal or
// illegal, channel/pixel shuffles left alone, the Ascend format simulation on real models, the
// TransData of a (hand-built) msprof profile, and ONNX Runtime's NCHWc reorders measured on the CPU.
#include <QtTest>

#include <map>
#include <set>

#include "advisor/analysis_state.h"
#include "cost_test_graph.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/ort_profiler.h"
#include "profile/profile_import.h"
#include "rules/format_ascend.h"
#include "rules/rule.h"
#include "rules/texts.h"
#include "test_paths.h"

using namespace msa;
using msa::test::TestGraph;

namespace {

struct Analysed {
  std::unique_ptr<AnalysisState> state;
  std::vector<Finding> findings;
  std::map<std::string, int> byRule;
  std::vector<const Finding*> of(const std::string& rule) const {
    std::vector<const Finding*> v;
    for (const auto& f : findings)
      if (f.rule == rule) v.push_back(&f);
    return v;
  }
};

Analysed analyse(const Model& loaded, const std::string& device = "cpu-host", const ProfileData* runtime = nullptr,
                 bool infer = true) {
  Model m = loaded;
  if (infer) (void)inferShapes(m);
  auto dev = loadDevice(device);
  if (!dev) qFatal("%s", dev.error().describe().c_str());
  Analysed a;
  AnalysisInputs in;
  in.runtimeProfile = runtime;
  a.state = AnalysisState::create(m, *dev, in, Goal::Latency, Scenario::Edge);
  std::string_view fam[] = {"format"};
  a.findings = runRules(a.state->context(), fam);
  for (const auto& f : a.findings) ++a.byRule[f.rule];
  return a;
}

Model corpus(const std::string& name) {
  auto m = loadModel(test::corpusModel(name));
  if (!m) qFatal("%s", m.error().describe().c_str());
  return std::move(*m);
}

void checkNodesExist(const Analysed& a) {
  const Graph& g = a.state->model().graph;
  for (const auto& f : a.findings) {
    QVERIFY2(!f.nodes.empty(), f.id.c_str());
    for (const auto& n : f.nodes) QVERIFY2(g.findNodeByName(n), (f.id + ": " + n).c_str());
    auto en = renderFinding(f, Lang::En), zh = renderFinding(f, Lang::Zh);
    QVERIFY2(hasTexts(f.rule), f.rule.c_str());
    for (const std::string* s :
         {&en.title, &en.suggestion, &en.hazard, &en.help, &zh.title, &zh.suggestion, &zh.hazard})
      QVERIFY2(s->find('{') == std::string::npos, s->c_str());
  }
}

bool hasBlocker(const Finding& f, const std::string& prefix) {
  for (const auto& b : f.blockers)
    if (b.starts_with(prefix)) return true;
  return false;
}

// x[1,8,4,6] → Transpose(0,2,3,1) → … → Transpose(0,3,1,2) → y
TestGraph nhwcSandwich() {
  TestGraph g(13);
  g.input("x", "1,8,4,6");
  g.node("Transpose", {"x"}, {"t1"}, "perm=0,2,3,1");
  return g;
}

// Conv → Reshape(split groups) → Transpose → Reshape(merge) → Conv: ShuffleNet's channel shuffle.
TestGraph shuffleNetBlock() {
  TestGraph g(13);
  g.input("x", "1,32,28,28").weight("w1", "64,32,1,1").weight("w2", "64,64,1,1");
  g.constInts("split", {1, 2, 32, 28, 28}).constInts("merge", {1, 64, 28, 28});
  g.node("Conv", {"x", "w1"}, {"c1"}).node("Relu", {"c1"}, {"r1"});
  g.node("Reshape", {"r1", "split"}, {"s"}).node("Transpose", {"s"}, {"st"}, "perm=0,2,1,3,4");
  g.node("Reshape", {"st", "merge"}, {"m"}).node("Conv", {"m", "w2"}, {"y"}).output("y");
  return g;
}

// A short ONNX Runtime profile of the deployed run (optimizer at `all`, where the NCHWc
// reorders are inserted), one thread.
Result<ProfileData> deployedProfile(const Model& m) {
  CpuProfileOptions opt;
  opt.optimization = GraphOptimization::All;
  opt.iterations = 3;
  opt.warmup = 1;
  opt.threads = 1;
  opt.measureLatency = false;
  return profileOnCpu(m, opt);
}

}  // namespace

class TestFormatRules : public QObject {
  Q_OBJECT
 private slots:
  void opTableLoads() {
    // The compiled-in table parses and cites its sources.
    QVERIFY(opFormatEntry("Conv").cls == FormatClass::Heavy);
    QVERIFY(opFormatEntry("MatMul").cls == FormatClass::Cube);
    QVERIFY(opFormatEntry("Reshape").reshape);
    QVERIFY(opFormatEntry("NoSuchOp").cls == FormatClass::Plain);
    QVERIFY(opFormatSource(opFormatEntry("Concat").source).find("concat_v2_d") != std::string::npos);
  }

  void inverseTranspose_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<bool>("legal");
    QTest::addColumn<int>("count");
    QTest::newRow("pair") << "pair" << true << 1;
    QTest::newRow("first has another consumer") << "second_only" << true << 1;
    QTest::newRow("second is a graph output") << "graph_output" << false << 1;
    QTest::newRow("not inverse") << "none" << true << 0;
  }
  void inverseTranspose() {
    QFETCH(QString, variant);
    QFETCH(bool, legal);
    QFETCH(int, count);
    TestGraph g = nhwcSandwich();
    g.node("Transpose", {"t1"}, {"t2"}, variant == "none" ? "perm=0,2,3,1" : "perm=0,3,1,2");
    if (variant == "graph_output") {
      g.output("t2");
    } else {
      g.node("Relu", {"t2"}, {"y"}).output("y");
    }
    if (variant == "second_only") g.node("Sigmoid", {"t1"}, {"side"}).output("side");
    auto a = analyse(g.model);
    auto fs = a.of("format.inverse_transpose");
    QCOMPARE(int(fs.size()), count);
    if (!count) return;
    const Finding& f = *fs[0];
    QCOMPARE(f.legal, legal);
    QCOMPARE(f.hasFix(), legal);
    QCOMPARE(f.fixPass, std::string("cancel_transposes"));
    if (variant == "second_only") {
      // Only the second Transpose goes: it anchors the finding and the first one is kept.
      QCOMPARE(f.params.at("variant"), std::string("second_only"));
      QCOMPARE(f.nodes.front(), a.state->model().graph.nodes[1].name);
      QVERIFY(renderValue(f.params.at("note"), Lang::En).find("stays") != std::string::npos);
      QVERIFY(f.impact.ms > 0 && f.impact.ms < f.impact.currentMs + 1e-12);
    }
    if (variant == "pair") QCOMPARE(f.nodes.size(), size_t(2));
    if (!legal) QVERIFY(hasBlocker(f, "graph_output:t2"));
    checkNodesExist(a);
  }

  void layoutRoundTrip_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<bool>("legal");
    QTest::addColumn<QString>("blocker");
    QTest::newRow("constant bias and relu") << "const" << true << "";
    QTest::newRow("runtime scalar") << "scalar" << true << "";
    QTest::newRow("multi-consumer intermediate") << "multi" << false << "multi_consumer";
    QTest::newRow("intermediate is a graph output") << "output" << false << "graph_output";
    QTest::newRow("runtime operand") << "runtime" << false << "non_permutable";
    QTest::newRow("broadcasting constant") << "broadcast" << false << "broadcast";
  }
  void layoutRoundTrip() {
    QFETCH(QString, fixture);
    QFETCH(bool, legal);
    QFETCH(QString, blocker);
    TestGraph g = nhwcSandwich();  // t1 is [1,4,6,8]
    if (fixture == "const") g.weight("b", "8");
    if (fixture == "scalar") g.input("s", "1");
    if (fixture == "runtime") g.input("r", "1,4,6,8");
    if (fixture == "broadcast") g.weight("b", "2,1,1,8");
    const std::string other = fixture == "scalar" ? "s" : fixture == "runtime" ? "r" : "b";
    if (fixture == "multi" || fixture == "output") g.weight("b", "8");
    g.node("Add", {"t1", other}, {"a"}).node("Relu", {"a"}, {"r1"});
    g.node("Transpose", {"r1"}, {"y"}, "perm=0,3,1,2").output("y");
    if (fixture == "multi") g.node("Softmax", {"a"}, {"side"}, "axis=1").output("side");
    if (fixture == "output") g.output("a");
    auto a = analyse(g.model);
    auto fs = a.of("format.layout_roundtrip");
    QCOMPARE(fs.size(), size_t(1));
    const Finding& f = *fs[0];
    QCOMPARE(f.legal, legal);
    QCOMPARE(f.safeFix, legal);
    QCOMPARE(f.fixPass, std::string("push_transpose_through_elementwise"));
    QCOMPARE(f.params.at("between"), std::string("2"));
    if (!legal) QVERIFY2(hasBlocker(f, blocker.toStdString()), f.blockers.empty() ? "none" : f.blockers[0].c_str());
    // Illegal cases are never offered as a fix, and say why in both languages.
    for (const auto& b : f.blockers) {
      QVERIFY(renderBlocker(b, Lang::En) != b);
      QVERIFY(renderBlocker(b, Lang::Zh) != b);
    }
    QCOMPARE(a.byRule["format.inverse_transpose"], 0);
    checkNodesExist(a);
  }

  void roundTripNeedsTheInverse() {
    TestGraph g = nhwcSandwich();
    g.node("Relu", {"t1"}, {"r"}).node("Transpose", {"r"}, {"y"}, "perm=0,2,3,1").output("y");
    auto a = analyse(g.model);
    QCOMPARE(a.byRule["format.layout_roundtrip"], 0);
  }

  void shufflesAreRealPermutations_data() {
    QTest::addColumn<QString>("device");
    QTest::newRow("cpu") << "cpu-host";
    QTest::newRow("ascend910b") << "ascend910b";
    QTest::newRow("ascend310p") << "ascend310p";
  }
  void shufflesAreRealPermutations() {
    QFETCH(QString, device);
    auto a = analyse(shuffleNetBlock().model, device.toStdString());
    QCOMPARE(a.byRule["format.inverse_transpose"], 0);
    QCOMPARE(a.byRule["format.layout_roundtrip"], 0);
    // On Ascend the shuffle needs the origin layout: its TransData are reported as the price of
    // a real permutation, with no saving claimed; the others are the model's input and output.
    int shuffles = 0;
    for (const Finding* f : a.of("format.transdata")) {
      if (f->params.at("category") == "Other_Transform") continue;
      ++shuffles;
      QCOMPARE(f->params.at("category"), std::string("Reshape_Ops_Interrupts_Format"));
      QCOMPARE(f->params.at("variant"), std::string("shuffle"));
      QCOMPARE(f->params.at("transdata_count"), std::string("2"));  // into the first Reshape, out of the last
      QVERIFY2(renderValue(f->params.at("why"), Lang::En).find("shuffle") != std::string::npos,
               renderValue(f->params.at("why"), Lang::En).c_str());
      QCOMPARE(f->impact.ms, 0.0);
    }
    if (device == "cpu-host") QVERIFY(a.findings.empty());
    else QCOMPARE(shuffles, 1);  // one island: Reshape→Transpose→Reshape
    checkNodesExist(a);
  }

  void pixelShuffleFileIsClean_data() { shufflesAreRealPermutations_data(); }
  void pixelShuffleFileIsClean() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, device);
    auto a = analyse(corpus("onnx-testdata_pytorch-converted_test_PixelShuffle.onnx"), device.toStdString());
    QVERIFY2(a.findings.empty(), a.findings.empty() ? "" : a.findings[0].id.c_str());
  }

  // The first convolution's 3-channel input, the classifier's Flatten→Gemm and the output are
  // where a CNN leaves NC1HWC0; everything between stays in it.
  void ascendSimulationOnCnns_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("device");
    for (const char* m : {"efficientnet_b0.onnx", "mobilenet_v2.onnx", "resnet18.onnx", "mobilenet_v3_small.onnx"})
      for (const char* d : {"ascend910b", "ascend310p"}) QTest::newRow((std::string(m) + "@" + d).c_str()) << m << d;
  }
  void ascendSimulationOnCnns() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, model);
    QFETCH(QString, device);
    auto a = analyse(corpus(model.toStdString()), device.toStdString());
    auto sim = simulateAscendFormats(a.state->context());
    QVERIFY(sim.ran);
    QCOMPARE(sim.c0, 16);
    // Input (small channel), into the Flatten, into the Gemm, out of the Gemm; MobileNetV3's
    // squeeze-excitation Mul over 120 channels (not a multiple of 16) adds three.
    const size_t expected = model == "mobilenet_v3_small.onnx" ? 7 : 4;
    QVERIFY2(sim.transData.size() == expected, std::to_string(sim.transData.size()).c_str());
    int convs = 0, heavyConvs = 0;
    const Graph& g = a.state->model().graph;
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].is("Conv")) {
        ++convs;
        heavyConvs += sim.nodeFormat[i] == TensorFormat::Nc1hwc0;
      }
    QCOMPARE(heavyConvs, convs);
    QCOMPARE(a.byRule["format.small_channel"], 1);
    const Finding* sc = a.of("format.small_channel")[0];
    QCOMPARE(sc->params.at("channels"), std::string("3"));
    QVERIFY(sc->impact.ms > 0);
    QVERIFY(a.byRule["format.transdata"] >= 1);
    for (const Finding* f : a.of("format.transdata")) {
      QVERIFY(f->impact.currentMs > 0);
      QVERIFY(f->impact.ms <= f->impact.currentMs + 1e-12);
      QCOMPARE(renderValue(f->params.at("source"), Lang::En), std::string("simulated"));
    }
    checkNodesExist(a);
  }

  // A Concat along C with channels that are not multiples of C0 leaves NC1HWC0; aligned, it stays.
  void concatAlongChannels_data() {
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("transData");
    QTest::newRow("aligned 32+32") << 32 << 0;
    QTest::newRow("unaligned 24+24") << 24 << 1;
  }
  void concatAlongChannels() {
    QFETCH(int, channels);
    QFETCH(int, transData);
    const QString c = QString::number(channels);
    TestGraph g(13);
    g.input("x", "1,16,28,28")
        .weight("w1", c + ",16,3,3")
        .weight("w2", c + ",16,3,3")
        .weight("w3", "64," + QString::number(2 * channels) + ",1,1");
    g.node("Conv", {"x", "w1"}, {"a"}, "pads=1,1,1,1").node("Conv", {"x", "w2"}, {"b"}, "pads=1,1,1,1");
    g.node("Concat", {"a", "b"}, {"cat"}, "axis=1").node("Conv", {"cat", "w3"}, {"y"}).output("y");
    auto a = analyse(g.model, "ascend910b");
    int around = 0;
    for (const Finding* f : a.of("format.transdata"))
      if (f->params.at("op") == "Concat") {
        ++around;
        QCOMPARE(f->params.at("category"), std::string("Ops_Not_Support_Heavy_Format"));
        QVERIFY(renderValue(f->params.at("remedy"), Lang::En).find("24 → 32") != std::string::npos);
        QCOMPARE(f->params.at("transdata_count"), std::string("3"));  // two in, one out
        QVERIFY(f->impact.ms > 0);
      }
    QCOMPARE(around, transData);
    checkNodesExist(a);
  }

  // op_summary rows with TransData (hand-built fixture, see tests/data/msprof/README.md) are used
  // instead of the simulation, classified into msadvisor's categories.
  void measuredTransData() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    Model m = corpus("resnet18.onnx");
    (void)inferShapes(m);
    auto prof = importProfile(test::sourceDir() / "tests/data/msprof/resnet18_cann8", m);
    QVERIFY2(prof, prof ? "" : prof.error().describe().c_str());
    auto a = analyse(m, "ascend310p", &*prof, false);
    std::set<std::string> names;
    for (const auto& n : prof->nodes)
      if (n.opType == "TransData") names.insert(n.name);
    QCOMPARE(names.size(), size_t(4));
    std::set<std::string> seen;
    for (const auto& f : a.findings) {
      if (f.rule != "format.transdata" && f.rule != "format.small_channel") continue;
      for (const auto& r : f.runtimeNodes) {
        QVERIFY2(names.count(r), r.c_str());
        seen.insert(r);
      }
      if (f.rule == "format.transdata") QCOMPARE(renderValue(f.params.at("source"), Lang::En), std::string("measured"));
    }
    QCOMPARE(seen, names);  // every TransData row is accounted for, none invented
    QCOMPARE(a.byRule["format.small_channel"], 1);
    std::map<std::string, int> categories;
    for (const Finding* f : a.of("format.transdata")) ++categories[f->params.at("category")];
    QCOMPARE(categories["Reshape_Ops_Interrupts_Format"], 1);  // NC1HWC0→NCHW into Flatten, ND→NZ after it
    QCOMPARE(categories["Other_Transform"], 1);                // FRACTAL_NZ→ND at the output
    checkNodesExist(a);
  }

  // Both families on every corpus model and device: every finding points at existing nodes,
  // renders in both languages, never offers an illegal fix, and claims no more than it measures.
  void corpusInvariants() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    for (const auto& path : test::corpusModels()) {
      auto loaded = loadModel(path);
      if (!loaded) continue;  // the corpus' unloadable files are other tests' business
      for (const char* device : {"cpu-host", "ascend910b", "ascend310p"}) {
        Model m = *loaded;
        (void)inferShapes(m);
        auto dev = loadDevice(device);
        Analysed a;
        a.state = AnalysisState::create(m, *dev, {}, Goal::Latency, Scenario::Edge);
        std::string_view fam[] = {"format", "alignment"};
        a.findings = runRules(a.state->context(), fam);
        std::string counts;
        for (const auto& f : a.findings) {
          ++a.byRule[f.rule];
          QVERIFY2(!f.hasFix() || f.blockers.empty(), f.id.c_str());
          QVERIFY2(f.impact.ms >= 0 && f.impact.ms <= f.impact.currentMs + 1e-9, f.id.c_str());
          if (std::string(device) == "cpu-host") QVERIFY2(f.category != Category::Alignment, f.id.c_str());
        }
        for (const auto& [r, c] : a.byRule) counts += " " + r + "=" + std::to_string(c);
        qInfo("%s @ %s:%s", path.filename().string().c_str(), device, counts.empty() ? " none" : counts.c_str());
        checkNodesExist(a);
      }
    }
  }

  // ONNX Runtime at `all` on ResNet-18: the NCHWc region ends before Flatten (no NCHWc kernel).
  void nchwcReordersOnResnet() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    Model m = corpus("resnet18.onnx");
    (void)inferShapes(m);
    auto prof = deployedProfile(m);
    QVERIFY2(prof, prof ? "" : prof.error().describe().c_str());
    int reorders = 0;
    for (const auto& n : prof->nodes)
      reorders += n.inserted && (n.opType == "ReorderInput" || n.opType == "ReorderOutput");
    QVERIFY(reorders > 0);
    auto a = analyse(m, "cpu-host", &*prof, false);
    auto fs = a.of("format.nchwc_reorder");
    QVERIFY(!fs.empty());
    int runtimeNodes = 0;
    bool flatten = false;
    for (const Finding* f : fs) {
      runtimeNodes += int(f->runtimeNodes.size());
      QCOMPARE(f->impact.source, ImpactSource::Measured);
      QVERIFY(f->impact.currentMs > 0);
      for (const auto& r : f->runtimeNodes) QVERIFY(prof->find(r));
      flatten |= f->params.at("op") == "Flatten";
    }
    QCOMPARE(runtimeNodes, reorders);  // one finding per boundary, every reorder in exactly one
    QVERIFY(flatten);
    QVERIFY(fs.size() < size_t(reorders) + 1);
    checkNodesExist(a);
  }

  // The title names what forces NCHW: on EfficientNet-B0 ONNX Runtime runs SiLU (x·sigmoid(x))
  // as QuickGelu, which has no NCHWc kernel; the title said "around GlobalAveragePool/Mul", the
  // operators next to the reorders, while its detail named QuickGelu.
  void nchwcTitleNamesTheCause() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    Model m = corpus("efficientnet_b0.onnx");
    (void)inferShapes(m);
    auto prof = deployedProfile(m);
    QVERIFY2(prof, prof ? "" : prof.error().describe().c_str());
    auto a = analyse(m, "cpu-host", &*prof, false);
    int fused = 0;
    for (const Finding* f : a.of("format.nchwc_reorder")) {
      const std::string title = renderFinding(*f, Lang::En).title, why = f->params.at("why");
      const std::string fusedAs = "@{nchwc.why.fused|as=";  // the phrase, filled when rendered
      if (!why.starts_with(fusedAs)) continue;
      ++fused;
      const std::string as = why.substr(fusedAs.size(), why.find('|', fusedAs.size()) - fusedAs.size());
      QVERIFY2(title.starts_with("NCHWc reorders around " + as + ":"), title.c_str());
    }
    QVERIFY2(fused > 0, "no reorder forced by a fused operator on EfficientNet-B0");
  }
};

QTEST_GUILESS_MAIN(TestFormatRules)
#include "tst_format_rules.moc"
