// The Ascend estimate prices the graph ATC compiles: the graph engine's fusions (rules/ge_fusion.h),
// their near-misses, the findings they apply, and fusion_result.json (profile/ge_fusion_result.h).
#include <QtTest>

#include <fstream>
#include <set>

#include "advisor/advisor.h"
#include "advisor/analysis_state.h"
#include "advisor/run_analysis.h"
#include "cli_run.h"
#include "example_models.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "profile/ge_fusion_result.h"
#include "report/report_json.h"
#include "rules/ge_fusion.h"
#include "rules_test_util.h"
#include "test_paths.h"

using namespace msa;
using msa::test::ModelBuilder;

namespace {

std::filesystem::path fixture(const std::string& name) { return test::sourceDir() / "tests/data/ge_fusion" / name; }

Model inferred(Model m) {
  auto r = inferShapes(m);
  if (!r) qFatal("%s", r.error().describe().c_str());
  return m;
}

GeFusionResult fusionResult(const std::string& name) {
  auto r = readGeFusionResult(fixture(name));
  if (!r) qFatal("%s", r.error().describe().c_str());
  return *r;
}

std::unique_ptr<AnalysisState> stateOn(const Model& m, const std::string& device,
                                       const GeFusionResult* result = nullptr) {
  AnalysisInputs in;
  in.fusionResult = result;
  return AnalysisState::create(m, test::device(device), in, Goal::Latency, Scenario::Edge);
}

// Conv nodes followed by BatchNormalization → Sigmoid + Mul (SiLU).
std::vector<std::vector<size_t>> convBnSilu(const AnalysisContext& ctx) {
  std::vector<std::vector<size_t>> out;
  for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
    if (!ctx.node(i).is("Conv")) continue;
    auto bnUses = ctx.index->consumers(ctx.node(i).outputs[0]);
    if (bnUses.size() != 1 || !ctx.node(bnUses[0].node).is("BatchNormalization")) continue;
    const size_t bn = bnUses[0].node;
    long sig = -1, mul = -1;
    for (const Use& u : ctx.index->consumers(ctx.node(bn).outputs[0])) {
      if (ctx.node(u.node).is("Sigmoid")) sig = static_cast<long>(u.node);
      if (ctx.node(u.node).is("Mul")) mul = static_cast<long>(u.node);
    }
    if (sig >= 0 && mul >= 0) out.push_back({i, bn, static_cast<size_t>(sig), static_cast<size_t>(mul)});
  }
  return out;
}

const GeNearMiss* nearMissWith(const GeFusion& ge, const std::string& blockerPrefix) {
  for (const auto& nm : ge.nearMisses)
    for (const auto& b : nm.blockers)
      if (b.starts_with(blockerPrefix)) return &nm;
  return nullptr;
}

bool hasBlocker(const Finding& f, const std::string& prefix) {
  return std::any_of(f.blockers.begin(), f.blockers.end(), [&](const std::string& b) { return b.starts_with(prefix); });
}

}  // namespace

class TestGeFusion : public QObject {
  Q_OBJECT

 private slots:
  // The acceptance test of the issue: on Ascend every Conv → BatchNormalization → SiLU of the tiny
  // YOLO is one kernel with one launch, priced below its members as written.
  void tinyYoloConvBnSiluIsOneKernel() {
    const Model m = inferred(test::examples::tinyYolo());
    auto state = stateOn(m, "ascend910b");
    const AnalysisContext& ctx = state->context();
    const GeFusion& ge = state->geFusion();
    QVERIFY(ge.ran);
    const auto groups = convBnSilu(ctx);
    QVERIFY2(groups.size() >= 10, std::to_string(groups.size()).c_str());
    const auto& est = state->roofline().nodes;
    for (const auto& g : groups) {
      const long k = ge.kernelOf[g[0]];
      QVERIFY2(k >= 0, ctx.node(g[0]).name.c_str());
      for (size_t m2 : g) QCOMPARE(ge.kernelOf[m2], k);
      const GeKernel& kernel = ge.kernels[static_cast<size_t>(k)];
      QCOMPARE(kernel.members.front(), g[0]);  // the convolution launches it
      int launches = 0;
      double written = 0, compiled = 0;
      for (size_t m2 : kernel.members) {
        launches += est[m2].overheadSeconds > 0;
        QCOMPARE(est[m2].kernelAnchor, static_cast<long>(g[0]));
        written += ge.writtenMs[m2];
        compiled += ctx.estimatedMs[m2];
      }
      QCOMPARE(launches, 1);
      QVERIFY(compiled < written);
      // The BatchNormalization is folded: no arithmetic of its own left.
      QCOMPARE(est[g[1]].computeSeconds, 0.0);
      const auto& passes = kernel.passes;
      QVERIFY(std::find(passes.begin(), passes.end(), "ConvBatchnormFusionPass") != passes.end());
      QVERIFY(std::find(passes.begin(), passes.end(), "TbeConvSigmoidMulQuantFusionPass") != passes.end());
    }
    QVERIFY(ge.launchesCompiled < ge.launchesWritten);
    double written = 0;
    for (double ms : ge.writtenMs) written += ms;
    QVERIFY(state->roofline().seconds * 1e3 < written);
    // Nothing changes off Ascend.
    auto cpu = stateOn(m, "cpu-host");
    QVERIFY(!cpu->geFusion().ran);
    QVERIFY(cpu->context().geFusion == nullptr);
  }

  // Findings whose group the graph engine fuses carry applied_by "ascend-ge", priced as the
  // saving over the graph as written; the launch-overhead summary counts kernels.
  void geAppliedFindingsAreLabelled() {
    const Model m = inferred(test::examples::tinyYolo());
    auto dev = test::device("ascend910b");
    auto r = analyze(m, dev, {}, AnalyzeOptions{});
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    int applied = 0;
    for (const Finding& f : r->findings) {
      if (f.rule != "fusion.conv_bn_act") continue;
      QCOMPARE(QString::fromStdString(f.appliedBy), QStringLiteral("ascend-ge"));
      QVERIFY(f.params.at("ge_passes").find("ConvBatchnormFusionPass") != std::string::npos);
      QVERIFY(f.impact.currentMs > f.impact.fixedMs);
      ++applied;
    }
    QVERIFY(applied >= 10);
    const nlohmann::json j = reportToJson(*r, {});
    int labelled = 0;
    for (const auto& f : j["findings"])
      if (f["rule"] == "fusion.conv_bn_act") {
        QCOMPARE(f["applied_by"], nlohmann::json("ascend-ge"));
        ++labelled;
      }
    QCOMPARE(labelled, applied);
    QVERIFY(j.contains("compiled_graph"));
    QCOMPARE(j["compiled_graph"]["compiler"], nlohmann::json("ascend-ge"));
    QVERIFY(j["compiled_graph"]["launches"].get<int>() < j["compiled_graph"]["launches_written"].get<int>());
    // The launch-overhead summary speaks of the compiled graph's kernels, no longer of every node.
    int small = 0;
    for (const Finding& f : r->findings)
      if (f.rule == "small_ops.summary") {
        small = std::stoi(f.params.at("small_count"));
        // Only what stays unfused: no convolution kernel (it has its epilogue and nowhere to go).
        for (const auto& name : f.nodes) QVERIFY2(name.find("/Conv") == std::string::npos, name.c_str());
      }
    QVERIFY2(small < j["compiled_graph"]["launches"].get<int>() + 1, std::to_string(small).c_str());
    // The optimum never exceeds the estimate it is the optimum of.
    QVERIFY2(r->optimumMs <= r->latencyMs * (1 + 1e-9),
             (std::to_string(r->optimumMs) + " > " + std::to_string(r->latencyMs)).c_str());
  }

  // The tiny transformer: decomposed LayerNorm becomes one kernel, the decomposed GELU one kernel,
  // the MLP's MatMul and its bias one kernel. Its activations are [batch, seq, dim], so ATC runs the
  // MatMul as BatchMatMulV2, whose UB pass takes no GELU epilogue: that fusion stays the user's,
  // and says why.
  void tinyTransformerNormsAndGelu() {
    const Model m = inferred(test::examples::tinyTransformer());
    auto a = test::analyse(m, test::device("ascend910b"), {"fusion"});
    const AnalysisContext& ctx = a.state->context();
    const GeFusion& ge = a.state->geFusion();
    auto passesOf = [&](const std::string& node) {
      const long i = ctx.index->indexOfName(node);
      return i >= 0 && ge.kernelOf[static_cast<size_t>(i)] >= 0 ? ge.kernels[static_cast<size_t>(ge.kernelOf[static_cast<size_t>(i)])].passes
                                                               : std::vector<std::string>{};
    };
    auto has = [](const std::vector<std::string>& v, const char* p) { return std::find(v.begin(), v.end(), p) != v.end(); };
    int layerNorms = 0, gelus = 0, geluEpilogues = 0;
    for (const Finding& f : a.findings) {
      if (f.rule == "fusion.layernorm") {
        ++layerNorms;
        QCOMPARE(QString::fromStdString(f.appliedBy), QStringLiteral("ascend-ge"));
        QVERIFY(has(passesOf(f.nodes.front()), "LayerNormONNXFusionPass"));
      }
      if (f.rule == "fusion.gelu") {
        ++gelus;
        QCOMPARE(QString::fromStdString(f.appliedBy), QStringLiteral("ascend-ge"));
        QCOMPARE(passesOf(f.nodes.front()), std::vector<std::string>{"GeluONNXFusionPass"});
      }
      if (f.rule == "fusion.matmul_add_act" && f.nodes.size() > 2) {  // MatMul → Add → GELU
        ++geluEpilogues;
        QVERIFY(f.appliedBy.empty());
        QVERIFY(has(passesOf(f.nodes.front()), "MatMulBiasAddFusionPass"));
        QVERIFY2(has(f.blockers, "ge_bmm_epilogue:Gelu"), f.id.c_str());
        QVERIFY(renderBlocker("ge_bmm_epilogue:Gelu", Lang::Zh).find("BatchMatMulV2") != std::string::npos);
      }
    }
    QVERIFY(layerNorms >= 2);
    QVERIFY(gelus >= 2);
    QCOMPARE(geluEpilogues, gelus);
    QVERIFY2(test::violations(a).empty(), test::violations(a).c_str());
  }

  // A Conv whose output has a second reader: the graph engine cannot fold the BatchNormalization
  // (the raw convolution is needed elsewhere); the estimate keeps them apart and the finding says why.
  void multiConsumerStaysUnfused() {
    ModelBuilder b("near_miss", 17);
    auto x = b.input("x", {1, 16, 32, 32});
    auto c = b.conv(x, 32, 3, {.pads = 1});
    auto y = b.silu(b.batchNorm(c));
    b.output(y, "y");
    b.output(b.relu(c), "raw");
    const Model m = inferred(b.build());
    auto a = test::analyse(m, test::device("ascend910b"), {"fusion"});
    const AnalysisContext& ctx = a.state->context();
    const GeFusion& ge = a.state->geFusion();
    const long conv = ctx.index->indexOfName(ctx.index->producerNode(c)->name);
    long bnNode = -1;
    for (const Use& u : ctx.index->consumers(c))
      if (ctx.node(u.node).is("BatchNormalization")) bnNode = static_cast<long>(u.node);
    QVERIFY(conv >= 0 && bnNode >= 0);
    QVERIFY(ge.kernelOf[static_cast<size_t>(conv)] < 0 ||
            ge.kernelOf[static_cast<size_t>(conv)] != ge.kernelOf[static_cast<size_t>(bnNode)]);
    const GeNearMiss* nm = nearMissWith(ge, "multi_consumer:" + c);
    QVERIFY(nm);
    QCOMPARE(QString::fromStdString(nm->pass), QStringLiteral("ConvBatchnormFusionPass"));
    bool found = false;
    for (const Finding& f : a.findings)
      if (f.rule == "fusion.conv_bn_act") {
        found = true;
        QVERIFY(f.appliedBy.empty());
        QVERIFY(hasBlocker(f, "multi_consumer:" + c));
      }
    QVERIFY(found);
    QVERIFY(renderBlocker("multi_consumer:" + c, Lang::Zh) != "multi_consumer:" + c);
  }

  // Connected elementwise operators: AutomaticUbFusion fuses them on static shapes only; on a
  // dynamic batch they stay apart and the elementwise finding says the shape is why.
  void dynamicShapeStaysUnfused_data() {
    QTest::addColumn<bool>("dynamic");
    QTest::newRow("static") << false;
    QTest::newRow("dynamic") << true;
  }
  void dynamicShapeStaysUnfused() {
    QFETCH(bool, dynamic);
    ModelBuilder b("elementwise", 17);
    auto x = b.input("x", {dynamic ? -1 : 8, 256});
    auto y = b.relu(b.mul(b.add(x, x), x));
    b.output(y, "y");
    const Model m = inferred(b.build());
    auto a = test::analyse(m, test::device("ascend910b"), {"fusion"});
    const GeFusion& ge = a.state->geFusion();
    const Finding* chain = nullptr;
    for (const Finding& f : a.findings)
      if (f.rule == "fusion.elementwise_chain") chain = &f;
    QVERIFY(chain);
    if (!dynamic) {
      QCOMPARE(ge.kernels.size(), size_t(1));
      QCOMPARE(ge.kernels[0].members.size(), size_t(3));
      QCOMPARE(ge.kernels[0].passes, std::vector<std::string>{"AutomaticUbFusion"});
      QCOMPARE(QString::fromStdString(chain->appliedBy), QStringLiteral("ascend-ge"));
    } else {
      QVERIFY(ge.kernels.empty());
      QVERIFY(nearMissWith(ge, "ge_dynamic_shape:"));
      QVERIFY(chain->appliedBy.empty());
      QVERIFY(hasBlocker(*chain, "ge_dynamic_shape:"));
      const std::string text = renderBlocker(chain->blockers.front(), Lang::En);
      QVERIFY2(text.find("dynamic") != std::string::npos, text.c_str());
    }
    QVERIFY2(test::violations(a).empty(), test::violations(a).c_str());
  }

  // An int64 elementwise pair is never UB-fused (AI CPU / no AI Core vector kernel).
  void unsupportedDtypeStaysUnfused() {
    ModelBuilder b("int64_chain", 17);
    auto x = b.input("ids", {4, 64}, DType::Int64);
    auto y = b.mul(b.add(x, x), x);
    b.output(y, "y");
    const Model m = inferred(b.build());
    auto state = stateOn(m, "ascend910b");
    QVERIFY(state->geFusion().kernels.empty());
    QVERIFY(nearMissWith(state->geFusion(), "ge_dtype:") || nearMissWith(state->geFusion(), "ge_aicpu:"));
  }

  // The two layouts of fusion_result.json, summed over graphs.
  void readsFusionResult() {
    const GeFusionResult r = fusionResult("tiny_yolo.json");
    QCOMPARE(r.graphs, std::vector<std::string>{"0_0"});
    const auto* convBn = r.find("ConvBatchnormFusionPass");
    QVERIFY(convBn && !convBn->ub);
    QCOMPARE(convBn->effectTimes, 26L);
    const auto* silu = r.find("TbeConvSigmoidMulQuantFusionPass");
    QVERIFY(silu && silu->ub);
    QCOMPARE(silu->repositoryHits, 0L);
    QCOMPARE(r.find("ZConcatv2dFusionPass")->effectTimes, 0L);
    QVERIFY(!r.find("MatMulBiasAddFusionPass"));

    const GeFusionResult legacy = fusionResult("legacy_layout.json");
    QCOMPARE(legacy.graphs, (std::vector<std::string>{"0_1", "0_2"}));
    QCOMPARE(legacy.find("ConvBatchnormFusionPass")->effectTimes, 7L);
    QCOMPARE(legacy.find("ConvBatchnormFusionPass")->matchTimes, 8L);
    QCOMPARE(legacy.find("TbeCommonRules0FusionPass")->effectTimes, 4L);
  }

  void refusesMalformedFusionResult_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("count") << "malformed_count.json"
                           << "session_and_graph_id_0_0 / graph_fusion / ConvBatchnormFusionPass / effect_times";
    QTest::newRow("missing") << "malformed_missing.json"
                             << "ConvBatchnormFusionPass: match_times or effect_times is missing";
    QTest::newRow("truncated") << "malformed_truncated.json"
                               << "not closed";
    QTest::newRow("entry") << "malformed_entry.json"
                           << "unknown entry 'graph_fusion_statistics'";
    QTest::newRow("json") << "malformed_json.json"
                          << "malformed JSON";
    QTest::newRow("absent") << "no_such_file.json"
                            << "no such file";
  }
  void refusesMalformedFusionResult() {
    QFETCH(QString, file);
    QFETCH(QString, fragment);
    auto r = readGeFusionResult(fixture(file.toStdString()));
    QVERIFY(!r);
    const std::string msg = r.error().describe();
    QVERIFY2(msg.find(file.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY2(msg.find(fragment.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY(!parseGeFusionResult("", "empty.json"));
  }

  // fusion_result.json decides which passes fired: without the UB passes the SiLU is not fused
  // into the convolution (only the BatchNormalization fold is), and the finding says so.
  void fusionResultDecidesWhatFired() {
    const Model m = inferred(test::examples::tinyYolo());
    const GeFusionResult all = fusionResult("tiny_yolo.json");
    const GeFusionResult noUb = fusionResult("tiny_yolo_no_ub.json");
    auto withUb = stateOn(m, "ascend910b", &all);
    auto without = stateOn(m, "ascend910b", &noUb);
    const auto groups = convBnSilu(withUb->context());
    QVERIFY(!groups.empty());
    for (const auto& g : groups) {
      const GeFusion& a = withUb->geFusion();
      QCOMPARE(a.kernelOf[g[3]], a.kernelOf[g[0]]);
      const GeFusion& b = without->geFusion();
      QVERIFY(b.kernelOf[g[0]] >= 0);
      QCOMPARE(b.kernelOf[g[1]], b.kernelOf[g[0]]);   // the BatchNormalization is still folded
      QVERIFY(b.kernelOf[g[2]] != b.kernelOf[g[0]]);  // the SiLU is not
    }
    QVERIFY(without->roofline().seconds > withUb->roofline().seconds);
    QVERIFY(nearMissWith(without->geFusion(), "ge_not_fired:TbeConvSigmoidMulQuantFusionPass"));
    const auto& passes = without->geFusion().passes;
    auto silu = std::find_if(passes.begin(), passes.end(),
                             [](const GePassSummary& p) { return p.name == "TbeConvSigmoidMulQuantFusionPass"; });
    QVERIFY(silu != passes.end());
    QCOMPARE(silu->simulated, 0);
    QVERIFY(silu->notFired >= static_cast<int>(groups.size()));
    // A pass the simulation does not model is listed with its counts.
    const auto& listed = withUb->geFusion().passes;
    auto zconcat = std::find_if(listed.begin(), listed.end(),
                                [](const GePassSummary& p) { return p.name == "ZConcatv2dFusionPass"; });
    QVERIFY(zconcat != listed.end() && !zconcat->modelled && zconcat->matchTimes == 3);
    // The findings follow: the SiLU part is left for the user, with the reason.
    AnalysisInputs in;
    in.fusionResult = &noUb;
    auto r = analyze(m, test::device("ascend910b"), in, AnalyzeOptions{});
    QVERIFY(r);
    QVERIFY(r->compiled && r->compiled->source == "fusion_result");
    for (const Finding& f : r->findings)
      if (f.rule == "fusion.conv_bn_act") {
        QVERIFY(f.appliedBy.empty());
        QVERIFY(hasBlocker(f, "ge_not_fired:"));
      }
  }

  // The CLI reads --fusion-result, and refuses a malformed one naming the file and the entry.
  void cliFusionResult() {
    test::TempDir dir;
    const auto model = dir / "tiny_yolo.onnx";
    QVERIFY(saveModel(test::examples::tinyYolo(), model));
    auto ok = test::cli({"analyze", test::path(model), "--device", "ascend910b", "--fusion-result",
                         test::path(fixture("tiny_yolo_no_ub.json")), "--json", "-", "--progress", "none"});
    QCOMPARE(ok.exitCode, 0);
    const auto j = nlohmann::json::parse(ok.out.toStdString());
    QCOMPARE(j["compiled_graph"]["source"], nlohmann::json("fusion_result"));
    auto bad = test::cli({"analyze", test::path(model), "--device", "ascend910b", "--fusion-result",
                          test::path(fixture("malformed_count.json")), "--progress", "none"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("malformed_count.json"), bad.err.constData());
    QVERIFY2(bad.err.contains("ConvBatchnormFusionPass / effect_times"), bad.err.constData());
  }

  // A fusion_result.json beside an imported msprof profile is used without being named; a
  // malformed one there is left out with a warning that names it.
  void fusionResultBesideAProfile() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    test::TempDir dir;
    const auto run = dir / "run";
    std::filesystem::copy(test::sourceDir() / "tests/data/msprof/resnet18_cann8", run,
                          std::filesystem::copy_options::recursive);
    std::filesystem::copy_file(fixture("tiny_yolo_no_ub.json"), run / "fusion_result.json");
    AnalysisRequest request;
    request.device = "ascend910b";
    request.profilePath = run;
    auto outcome = runAnalysis(test::corpusModel("resnet18.onnx"), request);
    QVERIFY2(outcome, outcome ? "" : outcome.error().describe().c_str());
    QVERIFY(outcome->report.compiled);
    QCOMPARE(QString::fromStdString(outcome->report.compiled->source), QStringLiteral("fusion_result"));
    QVERIFY(outcome->report.compiled->fusionResultPath.ends_with("fusion_result.json"));
    std::filesystem::copy_file(fixture("malformed_count.json"), run / "fusion_result.json",
                               std::filesystem::copy_options::overwrite_existing);
    auto warned = runAnalysis(test::corpusModel("resnet18.onnx"), request);
    QVERIFY(warned);
    QCOMPARE(QString::fromStdString(warned->report.compiled->source), QStringLiteral("simulated"));
    QVERIFY(std::any_of(warned->warnings.begin(), warned->warnings.end(),
                        [](const std::string& w) { return w.find("fusion_result.json") != std::string::npos; }));
  }

  // Every corpus model on every Ascend profile: kernels are disjoint, the compiled estimate is
  // below the written one, and the optimum stays below the estimate.
  void corpusCompiledEstimates() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    for (const auto& path : test::corpusModels()) {
      auto loaded = loadModel(path);
      if (!loaded) continue;
      auto shapes = inferShapes(*loaded);
      if (!shapes) continue;
      for (const char* device : {"ascend910b", "ascend310p"}) {
        auto r = analyze(*loaded, test::device(device), {}, AnalyzeOptions{});
        QVERIFY2(r, (path.string() + ": " + (r ? "" : r.error().describe())).c_str());
        QVERIFY(r->compiled);
        const std::string where = path.filename().string() + "@" + device;
        QVERIFY2(r->compiled->compiledMs <= r->compiled->writtenMs * (1 + 1e-9), where.c_str());
        QVERIFY2(r->compiled->launchesCompiled <= r->compiled->launchesWritten, where.c_str());
        QVERIFY2(r->optimumMs <= r->latencyMs * (1 + 1e-9),
                 (where + ": optimum " + std::to_string(r->optimumMs) + " > " + std::to_string(r->latencyMs)).c_str());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestGeFusion)
#include "tst_ge_fusion.moc"
