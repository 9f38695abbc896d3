// The kernel family: outliers against same-type peers on hand-made per-node profiles (noise,
// robust statistics, intensity buckets), the Ascend checks on a hand-built msprof fixture, and
// real ONNX Runtime profiles of ResNet-18 and MobileNetV2.
#include <QtTest>

#include "cost_test_graph.h"
#include "profile/msprof_import.h"
#include "profile/ort_profiler.h"
#include "rules/kernel_units.h"
#include "rules_test_util.h"

using namespace msa;
using namespace msa::test;

namespace {

namespace fs = std::filesystem;

// Spatial size of conv k: the peers differ in shape (so none is another's twin) but not in
// arithmetic intensity. Their times are scaled by the work.
int side(int k) { return 56 - k; }
double work(int k) { return side(k) * side(k) / (56.0 * 56.0); }


// `count` 3x3 convolutions named conv0… on inputs of side 56, 55, …; when `twin`, conv1 reads
// conv0's input (same shape: a twin); when `odd`, a 1x1 convolution (9x less work per byte).
Model convModel(int count, bool odd = false, bool twin = false) {
  TestGraph g;
  g.weight("w", "64,64,3,3").weight("w1", "64,64,1,1");
  for (int k = 0; k < count; ++k) {
    const std::string x = "x" + std::to_string(k);
    g.input(x, QStringLiteral("1,64,%1,%1").arg(side(k)));
    g.node("Conv", {twin && k == 1 ? "x0" : x, "w"}, {"y" + std::to_string(k)}, "pads=1,1,1,1").output("y" + std::to_string(k));
    g.model.graph.nodes.back().name = "conv" + std::to_string(k);
  }
  if (odd) {
    g.node("Conv", {"x0", "w1"}, {"yodd"}).output("yodd");
    g.model.graph.nodes.back().name = "odd";
  }
  (void)inferShapes(g.model);
  return g.model;
}

NodeProfile entry(const std::string& name, double median, double p10, double p90) {
  NodeProfile n;
  n.name = name;
  n.opType = "Conv";
  n.irNodes = {name};
  n.kernel = "CPUExecutionProvider";
  n.timeMs.median = n.timeMs.mean = median;
  n.timeMs.p10 = n.timeMs.min = p10;  // the fastest of the iterations
  n.timeMs.p90 = n.timeMs.max = p90;
  n.timeMs.count = 20;
  // The shapes the runtime reports (ONNX Runtime's input_type_shape).
  const int k = name.starts_with("conv") ? std::stoi(name.substr(4)) : 0;
  n.inputShapes = {"[1,64," + std::to_string(side(k)) + "," + std::to_string(side(k)) + "]",
                   name == "odd" ? "[64,64,1,1]" : "[64,64,3,3]"};
  return n;
}

// Per-node times in ms: name -> {median, p10, p90}.
ProfileData cpuProfile(const std::map<std::string, std::array<double, 3>>& times) {
  ProfileData p;
  p.device = "cpu";
  p.runtime = "onnxruntime 1.21.1";
  p.optimization = "disabled";
  p.iterations = 20;
  double total = 0;
  for (const auto& [name, t] : times) {
    p.nodes.push_back(entry(name, t[0], t[1], t[2]));
    total += t[0];
  }
  p.latencyMs.median = total;
  return p;
}

fs::path fixtureDir() { return sourceDir() / "tests" / "data" / "msprof" / "kernel_rules_910b"; }

// The model the kernel_rules_910b fixture was written for (node names = msprof Op Names).
Model ascendFixtureModel() {
  TestGraph g;
  g.input("x", "1,128,56,56").weight("wc", "128,128,3,3").weight("bc", "128");
  auto named = [&](const std::string& name) {
    g.model.graph.nodes.back().name = name;
  };
  for (const char* c : {"conv_a", "conv_b", "conv_c", "conv_d", "conv_e", "conv_mem", "conv_nb"}) {
    g.node("Conv", {"x", "wc", "bc"}, {std::string(c) + "_y"}, "pads=1,1,1,1").output(std::string(c) + "_y");
    named(c);
  }
  g.input("a", "1,512,1024").weight("w1", "1024,1024").weight("w2", "1024,1024").weight("w3", "1024,1024");
  g.node("MatMul", {"a", "w1"}, {"mm1_y"});
  named("mm1");
  g.node("MatMul", {"mm1_y", "w2"}, {"mm2_y"});
  named("mm2");
  g.node("MatMul", {"mm2_y", "w3"}, {"mm3_y"}).output("mm3_y");
  named("mm3");
  g.input("big", "1,4096,1100").weight("wm", "1100,4400");
  g.node("MatMul", {"big", "wm"}, {"mm_mix_y"});
  named("mm_mix");
  g.node("Add", {"mm_mix_y", "mm_mix_y"}, {"add_y"}).output("add_y");
  named("add_f32");
  g.input("ids", "1,128", DType::Int64).constInts("zero", {0});
  g.node("Cast", {"ids"}, {"ids_f"}, "to=1").output("ids_f");
  named("cast_ids");
  g.node("Greater", {"ids", "zero"}, {"ids_pos"}).output("ids_pos");
  named("greater_ids");
  g.input("f", "1,1000").constInts("k", {5});
  g.node("NonZero", {"f"}, {"nz"}).output("nz");
  named("nonzero_f");
  g.node("TopK", {"f", "k"}, {"topv", "topi"}).output("topv").output("topi");
  named("topk_f");
  (void)inferShapes(g.model);
  return g.model;
}

ProfileData importFixture(const Model& m) {
  auto p = importMsprof(fixtureDir(), m);
  if (!p) qFatal("%s", p.error().describe().c_str());
  return *p;
}

NodeProfile* findEntry(ProfileData& p, const std::string& name) {
  for (auto& n : p.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

class TestKernelRules : public QObject {
  Q_OBJECT
 private slots:
  void outliers_data() {
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("slow");      // "name=median,p10,p90;…" overriding the 1.0 ms default
    QTest::addColumn<QStringList>("expected");  // nodes flagged
    QTest::newRow("uniform peers: nothing") << 8 << "" << QStringList{};
    QTest::newRow("peers with ordinary noise: nothing")
        << 8 << "conv1=1.2,0.95,1.9;conv2=0.85,0.8,1.3;conv5=1.3,1.0,2.0" << QStringList{};
    QTest::newRow("one kernel 3x slower, also at p10") << 8 << "conv3=3.0,2.8,3.4" << QStringList{"conv3"};
    QTest::newRow("3x slower median but fast at p10: noise") << 8 << "conv3=3.0,1.05,4.0" << QStringList{};
    QTest::newRow("two slow kernels: one does not hide the other")
        << 8 << "conv2=4.0,3.8,4.4;conv6=2.6,2.5,2.9" << QStringList{"conv2", "conv6"};
    QTest::newRow("1.3x slower: within the noise floor") << 8 << "conv4=1.3,1.28,1.35" << QStringList{};
    QTest::newRow("too few peers") << 4 << "conv3=3.0,2.8,3.4" << QStringList{};
    QTest::newRow("slow, but its twin is fast: noise") << -8 << "conv1=3.0,2.8,3.4" << QStringList{};
  }
  void outliers() {
    QFETCH(int, count);
    QFETCH(QString, slow);
    QFETCH(QStringList, expected);
    const bool twin = count < 0;
    count = std::abs(count);
    const Model m = convModel(count, false, twin);
    // Multipliers of each conv's work-proportional time (1 ms for the largest).
    std::map<std::string, std::array<double, 3>> times;
    for (int k = 0; k < count; ++k) times["conv" + std::to_string(k)] = {1.0, 0.97, 1.1};
    for (const QString& s : slow.split(u';', Qt::SkipEmptyParts)) {
      const QStringList v = s.section(u'=', 1).split(u',');
      times[s.section(u'=', 0, 0).toStdString()] = {v[0].toDouble(), v[1].toDouble(), v[2].toDouble()};
    }
    for (int k = 0; k < count; ++k) {
      const double scale = work(twin && k == 1 ? 0 : k);
      for (double& t : times["conv" + std::to_string(k)]) t *= scale;
    }
    const ProfileData p = cpuProfile(times);
    Analysed a = analyse(m, device("cpu-host"), {"kernel"}, &p);
    QStringList flagged;
    for (const auto* f : a.of("kernel.outlier")) flagged << QString::fromStdString(f->nodes.front());
    flagged.sort();
    QCOMPARE(flagged, expected);
    for (const auto* f : a.of("kernel.outlier")) {
      // Saved: the fastest run less the same work at the peers' efficiency (0.97 x its work).
      const int k = std::stoi(f->nodes.front().substr(4));
      const double best = times.at(f->nodes.front())[1];
      QVERIFY2(std::fabs(f->impact.ms - (best - 0.97 * work(k))) < 0.05 * best, std::to_string(f->impact.ms).c_str());
      QCOMPARE(f->params.at("kernel"), std::string("CPUExecutionProvider"));
      QCOMPARE(f->params.at("shape"), "[1,64," + std::to_string(side(k)) + "," + std::to_string(side(k)) + "], [64,64,3,3]");
      const double eff = std::stod(f->params.at("efficiency_ratio"));
      QVERIFY(eff > 0 && eff <= 1);
    }
    QCOMPARE(QString::fromStdString(violations(a)), QString());
  }

  // A kernel of another arithmetic intensity is not compared with the 3x3 convolutions.
  void intensityBuckets() {
    const Model m = convModel(6, /*odd=*/true);
    std::map<std::string, std::array<double, 3>> times;
    for (int k = 0; k < 6; ++k) times["conv" + std::to_string(k)] = {work(k), 0.97 * work(k), 1.1 * work(k)};
    times["odd"] = {1.0, 0.97, 1.1};  // 9x less work in the same time: slow, but without peers
    const ProfileData p = cpuProfile(times);
    Analysed a = analyse(m, device("cpu-host"), {"kernel"}, &p);
    QCOMPARE(a.byRule["kernel.outlier"], 0);
  }

  void ascendFixture() {
    const Model m = ascendFixtureModel();
    const ProfileData p = importFixture(m);
    QVERIFY2(p.unmatched.empty(), p.unmatched.empty() ? "" : p.unmatched[0].c_str());
    Analysed a = analyse(m, device("ascend910b"), {"kernel", "graph", "precision"}, nullptr, &p);
    QCOMPARE(QString::fromStdString(violations(a)), QString());

    // memory-bound cube kernel; it explains the slow conv, so no outlier on it.
    QCOMPARE(a.of("kernel.memory_bound").size(), size_t(1));
    QCOMPARE(a.of("kernel.memory_bound")[0]->nodes, std::vector<std::string>{"conv_mem"});
    QVERIFY(a.of("kernel.memory_bound")[0]->impact.ms > 0.01);
    QCOMPARE(a.byRule["kernel.outlier"], 0);
    // No pipeline bound: conv_nb only (the others have mac_ratio >= 0.8; greater_ids saves too little).
    QCOMPARE(a.of("kernel.no_bound").size(), size_t(1));
    QCOMPARE(a.of("kernel.no_bound")[0]->nodes, std::vector<std::string>{"conv_nb"});
    // Block dim 7 on 20 cores.
    QCOMPARE(a.of("kernel.block_dim").size(), size_t(1));
    QCOMPARE(a.of("kernel.block_dim")[0]->nodes, std::vector<std::string>{"mm3"});
    QCOMPARE(a.of("kernel.block_dim")[0]->params.at("cores"), std::string("20"));
    // The MIX_AIC MatMul, priced at the affine MatMuls' efficiency.
    QCOMPARE(a.of("kernel.matmul_path").size(), size_t(1));
    const Finding* mm = a.of("kernel.matmul_path")[0];
    QCOMPARE(mm->nodes, std::vector<std::string>{"mm_mix"});
    QCOMPARE(mm->params.at("path"), std::string("mix_aic"));
    QCOMPARE(mm->params.at("aligned_a"), std::string("1280"));
    QCOMPARE(mm->params.at("aligned_b"), std::string("4608"));
    QVERIFY(mm->impact.ms > 0 && mm->impact.fixedMs < mm->impact.currentMs);
    // AI CPU: TopK is not in the op table (kernel), NonZero(float) is (graph), the int64 Cast is
    // 64-bit compute (precision); the int64 Greater ran on an AI Core, so the table's verdict
    // for older CANN is not reported.
    QCOMPARE(a.on("kernel.aicpu_task", "topk_f").size(), size_t(1));
    QCOMPARE(a.byRule["kernel.aicpu_task"], 1);
    QCOMPARE(a.on("graph.aicpu_op", "nonzero_f").size(), size_t(1));
    QCOMPARE(a.on("graph.aicpu_op", "nonzero_f")[0]->impact.source, ImpactSource::Both);
    QCOMPARE(a.on("graph.aicpu_op", "greater_ids").size(), size_t(0));
    QCOMPARE(a.on("precision.aicpu_dtype", "cast_ids").size(), size_t(1));
    QCOMPARE(a.on("precision.aicpu_dtype", "greater_ids").size(), size_t(0));
    // The float32 Add kernel: float16 would halve its bytes.
    QCOMPARE(a.on("precision.fp32_compute", "add_f32").size(), size_t(1));
    QCOMPARE(a.of("precision.fp32_compute")[0]->params.at("evidence"), std::string("profile"));
  }

  // One change to the fixture removes one finding.
  void ascendNegatives_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("rule");
    QTest::newRow("mte2 no longer dominates") << "conv_mem.mte2_ratio=0.5" << "kernel.memory_bound";
    QTest::newRow("a busy pipeline") << "conv_nb.mac_ratio=0.85" << "kernel.no_bound";
    QTest::newRow("block dim a multiple of the cores") << "mm3.block_dim=40" << "kernel.block_dim";
    QTest::newRow("no core count in info.json") << "info.ai_core_num=-" << "kernel.block_dim";
    QTest::newRow("TopK ran on an AI Core") << "topk_f.kernel=AI_CORE" << "kernel.aicpu_task";
    QTest::newRow("NonZero ran on an AI Core") << "nonzero_f.kernel=AI_CORE" << "graph.aicpu_op";
    QTest::newRow("the Add in float16") << "add_f32.dtype=float16" << "precision.fp32_compute";
  }
  void ascendNegatives() {
    QFETCH(QString, change);
    QFETCH(QString, rule);
    const Model m = ascendFixtureModel();
    ProfileData p = importFixture(m);
    const std::string target = change.section(u'.', 0, 0).toStdString();
    const std::string key = change.section(u'.', 1).section(u'=', 0, 0).toStdString();
    const std::string value = change.section(u'=', 1).toStdString();
    if (target == "info") {
      p.deviceInfo.erase(key);
    } else {
      NodeProfile* e = findEntry(p, target);
      QVERIFY(e);
      if (key == "kernel") e->kernel = value;
      else if (key == "dtype") e->inputDtypes.assign(e->inputDtypes.size(), value);
      else e->metrics[key] = std::stod(value);
    }
    Analysed a = analyse(m, device("ascend910b"), {"kernel", "graph", "precision"}, nullptr, &p);
    QCOMPARE(a.byRule[rule.toStdString()], 0);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
  }

  // A task whose duration is far longer than its AI Core time waited (a stall, not a slow kernel):
  // reported with the core time as the fixed time; a task near its core time is not.
  void taskMuchLongerThanItsCoreTimeIsAStall() {
    const Model m = ascendFixtureModel();
    ProfileData p = importFixture(m);
    Analysed before = analyse(m, device("ascend910b"), {"kernel"}, nullptr, &p);
    QCOMPARE(before.byRule["kernel.task_stall"], 0);  // the fixture's tasks compute what they take
    NodeProfile* e = findEntry(p, "mm1");
    QVERIFY(e);
    const double taskUs = e->timeMs.median * 1e3 / std::max(1.0, e->calls);
    e->metrics["aicore_time(us)"] = taskUs / 50;  // 2 % of the task: it waited the rest
    NodeProfile* near = findEntry(p, "mm2");
    QVERIFY(near);
    near->metrics["aicore_time(us)"] = near->timeMs.median * 1e3 / std::max(1.0, near->calls) / 2;  // 2x: no stall
    Analysed a = analyse(m, device("ascend910b"), {"kernel"}, nullptr, &p);
    QCOMPARE(a.byRule["kernel.task_stall"], 1);
    const Finding* f = a.on("kernel.task_stall", "mm1").at(0);
    QCOMPARE(f->runtimeNodes, std::vector<std::string>{"mm1"});
    QVERIFY(std::fabs(f->impact.fixedMs - e->timeMs.median / 50) < 1e-9);
    QVERIFY(std::fabs(f->impact.ms - e->timeMs.median * 49 / 50) < 1e-9);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
  }

  // Without an affine MatMul in the profile there is nothing to price the MIX path against:
  // reported (it is 1% or more of the time), not estimated.
  void matmulPathWithoutReference() {
    const Model m = ascendFixtureModel();
    ProfileData p = importFixture(m);
    std::erase_if(p.nodes, [](const NodeProfile& n) { return n.name == "mm1" || n.name == "mm2" || n.name == "mm3"; });
    Analysed a = analyse(m, device("ascend910b"), {"kernel"}, nullptr, &p);
    QCOMPARE(a.of("kernel.matmul_path").size(), size_t(1));
    QCOMPARE(a.of("kernel.matmul_path")[0]->impact.ms, 0.0);
    // On a 310P (no MIX path) with an AI_CORE task type the same shape is only "padded"-free
    // fractal work: still off the affine path.
    NodeProfile* e = findEntry(p, "mm_mix");
    e->kernel = "AI_CORE";
    Analysed b = analyse(m, device("ascend310p"), {"kernel"}, nullptr, &p);
    QCOMPARE(b.of("kernel.matmul_path").size(), size_t(1));
    QCOMPARE(b.of("kernel.matmul_path")[0]->params.at("path"), std::string("padded"));
  }

  // Real ONNX Runtime profiles (optimizations disabled: one entry per IR node).
  void corpusProfiles_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("resnet18") << "resnet18.onnx";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx";
  }
  void corpusProfiles() {
    if (!hasCorpus()) QSKIP("no model corpus");
    QFETCH(QString, model);
    const Model m = loadCorpus(model.toStdString());
    CpuProfileOptions o;
    o.iterations = 10;
    o.warmup = 2;
    auto p = profileOnCpu(m, o);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    Analysed a = analyse(m, device("cpu-host"), {"kernel"}, &*p);
    QCOMPARE(QString::fromStdString(violations(a)), QString());
    // Every Conv and Gemm is a kernel the rule weighs, with a finite efficiency.
    int computeOps = 0, weighed = 0;
    for (const Node& n : m.graph.nodes) computeOps += n.is("Conv") || n.is("Gemm");
    for (const KernelUnit& u : kernelUnits(a.state->context(), *p)) {
      if (u.opType != "Conv" && u.opType != "Gemm") continue;
      ++weighed;
      QVERIFY2(u.efficiency() > 0 && std::isfinite(u.efficiency()), u.entry->name.c_str());
      QVERIFY(u.bestMs > 0 && u.bestMs <= u.measuredMs);
    }
    QCOMPARE(weighed, computeOps);
    for (const auto& f : a.findings) {
      QCOMPARE(f.rule, std::string("kernel.outlier"));
      const double eff = std::stod(f.params.at("efficiency_ratio"));
      QVERIFY2(eff > 0 && eff <= 1, f.id.c_str());
      QVERIFY(!f.params.at("shape").empty());
      QCOMPARE(f.params.at("kernel"), std::string("CPUExecutionProvider"));
      QVERIFY(f.impact.ms <= p->find(f.nodes.front())->timeMs.median);
    }
    qInfo("%s: %zu kernel findings", qPrintable(model), a.findings.size());
  }
};

QTEST_GUILESS_MAIN(TestKernelRules)
#include "tst_kernel_rules.moc"
