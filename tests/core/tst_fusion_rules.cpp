// The fusion family on real models and on fixtures built to be legal or illegal.
#include <QtTest>

#include <map>
#include <set>

#include "advisor/advisor.h"
#include "advisor/analysis_state.h"
#include "cost_test_graph.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "optimize/optimizer.h"
#include "profile/ort_session.h"
#include "rules/rule.h"
#include "rules/texts.h"
#include "model_presets.h"
#include "test_paths.h"

using namespace msa;

namespace {

struct Analysed {
  std::unique_ptr<AnalysisState> state;
  std::vector<Finding> findings;
  std::map<std::string, int> byRule;
};

Analysed analyse(const Model& loaded) {
  Model m = loaded;
  (void)inferShapes(m);
  auto dev = loadDevice("cpu-host");
  Analysed a;
  a.state = AnalysisState::create(m, *dev, {}, Goal::Latency, Scenario::Edge);
  std::string_view fam[] = {"fusion"};
  a.findings = runRules(a.state->context(), fam);
  for (const auto& f : a.findings) ++a.byRule[f.rule];
  return a;
}

Analysed analyseFile(const std::string& name) {
  auto m = loadModel(test::corpusModel(name));
  if (!m) qFatal("%s", m.error().describe().c_str());
  return analyse(*m);
}

// Every value a legal, fixable finding produces inside its group stays inside: consumed only
// by members and not a graph output (the group's last output excepted).
void checkLegalGroups(const Analysed& a) {
  const Graph& g = a.state->model().graph;
  GraphIndex idx(g);
  for (const auto& f : a.findings) {
    if (!f.legal || f.fixPass.empty() || f.rule == "fusion.slice_concat") continue;
    std::set<std::string> members(f.nodes.begin(), f.nodes.end());
    const Node* last = g.findNodeByName(f.nodes.back());
    for (const auto& name : f.nodes) {
      const Node* n = g.findNodeByName(name);
      QVERIFY2(n, name.c_str());
      if (n == last) continue;
      for (const auto& o : n->outputs) {
        QVERIFY2(!idx.isGraphOutput(o), (f.id + ": " + o).c_str());
        for (const Use& u : idx.consumers(o))
          QVERIFY2(members.count(g.nodes[u.node].name), (f.id + ": " + o + " escapes").c_str());
      }
    }
  }
}

int countEdges(const Graph& g, const char* from, const char* to) {
  GraphIndex idx(g);
  int n = 0;
  for (const Node& node : g.nodes)
    if (node.is(to))
      if (const Node* p = idx.producerNode(node.input(0)); p && p->is(from)) ++n;
  return n;
}

Analysed analyseFixture(test::TestGraph& g) {
  (void)g.cost();
  return analyse(g.model);
}

}  // namespace

class TestFusionRules : public QObject {
  Q_OBJECT
 private slots:
  // Legality first: a fusion whose intermediate escapes the group is reported, never offered.
  void illegalFusionsAreNotOffered_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("blocker");
    QTest::newRow("multi-consumer") << 0 << "multi_consumer";
    QTest::newRow("graph output") << 1 << "graph_output";
  }
  void illegalFusionsAreNotOffered() {
    QFETCH(int, which);
    QFETCH(QString, blocker);
    auto p = which == 0 ? test::presets::multiConsumerIntermediate() : test::presets::intermediateIsGraphOutput();
    auto a = analyse(p.model);
    checkLegalGroups(a);
    int reported = 0;
    for (const auto& f : a.findings) {
      if (f.rule != "fusion.conv_bn_act" && f.rule != "fusion.conv_act") continue;
      bool touchesPattern = std::find(p.nodes.begin(), p.nodes.end(), f.nodes.front()) != p.nodes.end();
      if (!touchesPattern || f.legal) continue;  // a legal sub-group (e.g. only the BN fold) is fine
      ++reported;
      QVERIFY(!f.legal);
      QVERIFY(!f.hasFix());
      QVERIFY(!f.safeFix);
      bool found = false;
      for (const auto& b : f.blockers) found |= b.rfind(blocker.toStdString(), 0) == 0;
      QVERIFY2(found, f.blockers.empty() ? "no blockers" : f.blockers[0].c_str());
      QVERIFY(renderBlocker(f.blockers[0], Lang::Zh) != f.blockers[0]);
    }
    QVERIFY(reported > 0 || which == 1);
  }

  void legalGroupsOnTheCorpus() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    for (const auto& path : test::corpusModels()) {
      auto m = loadModel(path);
      QVERIFY(m.ok());
      checkLegalGroups(analyse(*m));
    }
  }

  void pipelineIsNotAFusion() {
    auto p = test::presets::convReluConv();
    auto a = analyse(p.model);
    bool pipeline = false;
    for (const auto& f : a.findings) {
      if (f.rule == "fusion.pipeline") {
        pipeline = true;
        QVERIFY(!f.legal);
        QCOMPARE(f.impact.ms, 0.0);
        QVERIFY(f.blockers[0].rfind("pipeline:", 0) == 0);
      }
      QVERIFY2(f.rule != "fusion.conv_bn_act", "no BN here");
    }
    QVERIFY(pipeline);
    QCOMPARE(a.byRule["fusion.conv_act"], 1);  // the Relu still fuses into the first Conv
  }


  void resnetEveryConvBn() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("resnet18.onnx");
    const Graph& g = a.state->model().graph;
    QCOMPARE(a.byRule["fusion.conv_bn_act"], countEdges(g, "Conv", "BatchNormalization"));
    int withRelu = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.conv_bn_act") {
        QVERIFY(f.legal);
        QCOMPARE(f.fixPass, std::string("fold_bn_into_conv"));
        QVERIFY(f.impact.ms > 0);
        QVERIFY(f.impact.fixedMs < f.impact.currentMs);
        withRelu += f.nodes.size() == 3;
      }
    QVERIFY(withRelu > 0);
    // Every node a finding names exists in the graph.
    for (const auto& f : a.findings)
      for (const auto& n : f.nodes) QVERIFY2(g.findNodeByName(n), n.c_str());
  }

  void mobilenetConvBnClip() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("mobilenet_v2.onnx");
    int clip = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.conv_bn_act" && f.nodes.size() == 3 && f.params.at("activation") == "Clip") ++clip;
    QCOMPARE(clip, 35);
  }

  void efficientnetSilu() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("efficientnet_b0.onnx");
    int silu = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.conv_bn_act" && f.params.count("activation") && f.params.at("activation") == "SiLU") {
        // The pattern names the activation written as Sigmoid·x.
        QCOMPARE(f.params.at("pattern"), std::string("Conv→BatchNormalization→SiLU"));
        ++silu;
      }
    QVERIFY2(silu >= 30, std::to_string(silu).c_str());
  }

  void vitDecomposedLayerNormAndGelu() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("vit_ti_16.onnx");
    const Graph& g = a.state->model().graph;
    int erf = 0, sqrt = 0;
    for (const Node& n : g.nodes) {
      erf += n.is("Erf");
      sqrt += n.is("Sqrt") && n.name.find("ln") != std::string::npos;
    }
    QCOMPARE(a.byRule["fusion.gelu"], erf);
    QVERIFY(a.byRule["fusion.layernorm"] >= sqrt);
    QVERIFY(a.byRule["fusion.layernorm"] == 25);  // two per layer and the final one
    for (const auto& f : a.findings)
      if (f.rule == "fusion.layernorm") {
        QVERIFY2(f.legal, f.blockers.empty() ? "" : f.blockers[0].c_str());
        QCOMPARE(f.nodes.size(), size_t(9));
      }
    QVERIFY(a.byRule["fusion.matmul_add_act"] >= 24);
    // A MatMul+bias+GELU epilogue names the GELU, not its five operators (the walk's title read
    // "Fuse MatMul→Add→Div→Erf→Add→Mul→Mul").
    int named = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.matmul_add_act" && f.nodes.size() > 2) {
        QCOMPARE(f.params.at("pattern"), std::string("MatMul→Add→GELU(erf)"));
        QVERIFY2(renderFinding(f, Lang::En).title.find("Erf") == std::string::npos, renderFinding(f, Lang::En).title.c_str());
        ++named;
      }
    QCOMPARE(named, 12);  // one MLP per encoder layer
  }

  void bertMatMulAdd() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("bert_like_encoder.onnx");
    QVERIFY(a.byRule["fusion.matmul_add_act"] >= 12);
    QVERIFY(a.byRule["fusion.gelu"] == 4);
  }

  // More fixtures (conv output read twice, MatMul→Add, GELU, LayerNorm) whose patterns are
  // present but may not be rewritten: the finding says why, no fix is offered, and the advisor's
  // "after all safe fixes" does not count it.
  void illegalFixturesAllFamilies_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("blocker");  // fragment of the rendered blocker
    QTest::newRow("conv output read twice") << "conv_shared" << "fusion.conv_bn_act" << "'c' has several consumers";
    QTest::newRow("bn output is a graph output") << "bn_output" << "" << "";
    QTest::newRow("matmul output read twice") << "matmul_shared" << "fusion.matmul_add_act" << "'m' has several consumers";
    QTest::newRow("gelu intermediate is an output") << "gelu_output" << "" << "";
    QTest::newRow("layernorm mean used outside") << "layernorm_shared" << "fusion.layernorm" << "has several consumers";
  }
  void illegalFixturesAllFamilies() {
    QFETCH(QString, fixture);
    QFETCH(QString, rule);
    QFETCH(QString, blocker);
    test::TestGraph g;
    if (fixture == u"conv_shared"_qs || fixture == u"bn_output"_qs) {
      g.input("x", "1,8,16,16").weight("w", "8,8,3,3").weight("s", "8").weight("b", "8").weight("mean", "8").weight("var", "8");
      g.node("Conv", {"x", "w"}, {"c"}, "pads=1,1,1,1");
      g.node("BatchNormalization", {"c", "s", "b", "mean", "var"}, {"n"});
      g.node("Relu", {"n"}, {"y"});
      g.output("y");
      if (fixture == u"conv_shared"_qs) g.node("Add", {"c", "y"}, {"z"}).output("z");
      else g.output("n");
    } else if (fixture == u"matmul_shared"_qs) {
      g.input("x", "4,16").weight("w", "16,32").weight("bias", "32");
      g.node("MatMul", {"x", "w"}, {"m"});
      g.node("Add", {"m", "bias"}, {"y"});
      g.node("Sigmoid", {"m"}, {"s"});
      g.output("y").output("s");
    } else if (fixture == u"gelu_output"_qs) {
      g.input("x", "4,16").constScalar("sqrt2", 1.4142135f).constScalar("one", 1.0f).constScalar("half", 0.5f);
      g.node("Div", {"x", "sqrt2"}, {"d"});
      g.node("Erf", {"d"}, {"e"});
      g.node("Add", {"e", "one"}, {"a"});
      g.node("Mul", {"x", "a"}, {"m"});
      g.node("Mul", {"m", "half"}, {"y"});
      g.output("y").output("e");
    } else {
      g.input("x", "2,8,32").constScalar("two", 2.0f).constScalar("eps", 1e-5f).weight("gamma", "32").weight("beta", "32");
      g.node("ReduceMean", {"x"}, {"mu"}, "axes=-1");
      g.node("Sub", {"x", "mu"}, {"d"});
      g.node("Pow", {"d", "two"}, {"p"});
      g.node("ReduceMean", {"p"}, {"var"}, "axes=-1");
      g.node("Add", {"var", "eps"}, {"ve"});
      g.node("Sqrt", {"ve"}, {"sd"});
      g.node("Div", {"d", "sd"}, {"nrm"});
      g.node("Mul", {"nrm", "gamma"}, {"sc"});
      g.node("Add", {"sc", "beta"}, {"y"});
      g.node("Neg", {"mu"}, {"other"});
      g.output("y").output("other");
    }
    auto a = analyseFixture(g);
    checkLegalGroups(a);
    if (!rule.isEmpty()) {
      const Finding* hit = nullptr;
      for (const auto& f : a.findings)
        if (f.rule == rule.toStdString()) hit = &f;
      QVERIFY2(hit, "the pattern is still recognised");
      QVERIFY(!hit->legal);
      QVERIFY(!hit->hasFix());
      QVERIFY(!hit->blockers.empty());
      QString text;
      for (const auto& b : hit->blockers) text += QString::fromStdString(renderBlocker(b, Lang::En)) + u"; "_qs;
      QVERIFY2(text.contains(blocker), qPrintable(text));
    }
    // Nothing illegal is in the estimate after all safe fixes.
    auto dev = loadDevice("cpu-host");
    auto report = analyze(g.model, *dev, {}, {});
    QVERIFY(report);
    double legalSafe = 0;
    for (const Finding& f : report->findings)
      if (f.hasFix() && f.safeFix) legalSafe += f.impact.rawMs;
    QVERIFY(report->safeFixSavingMs <= legalSafe + 1e-12);
    for (const Finding& f : report->findings)
      if (!f.legal) QCOMPARE(f.priority, Priority::P2);
  }

  // Conv→Sigmoid→Mul (SiLU, as YOLOv5 exports it): ONNX Runtime 1.21's FusedConv has no SiLU
  // activation, so the finding names no FusedConv and offers no fix; a single-node activation
  // it does take keeps its fix, and that fix applies to the graph it was found on.
  void siluAfterConvNamesNoMissingKernel() {
    auto build = [](bool silu) {
      test::TestGraph g;
      g.input("x", "1,8,16,16").weight("w", "8,8,3,3").weight("b", "8");
      g.node("Conv", {"x", "w", "b"}, {"c"}, "pads=1,1,1,1");
      if (silu) {
        g.node("Sigmoid", {"c"}, {"s"});
        g.node("Mul", {"c", "s"}, {"y"});
      } else {
        g.node("Sigmoid", {"c"}, {"y"});
      }
      g.output("y");
      return g;
    };
    for (bool silu : {true, false}) {
      test::TestGraph g = build(silu);
      auto a = analyseFixture(g);
      const Finding* f = nullptr;
      for (const auto& x : a.findings)
        if (x.rule == "fusion.conv_act") f = &x;
      QVERIFY2(f, silu ? "SiLU" : "Sigmoid");
      const FindingText en = renderFinding(*f, Lang::En), zh = renderFinding(*f, Lang::Zh);
      QVERIFY2(en.suggestion.find('{') == std::string::npos && zh.suggestion.find('{') == std::string::npos, en.suggestion.c_str());
      if (silu) {
        QVERIFY(!f->hasFix());
        QVERIFY2(en.suggestion.find("has no SiLU epilogue") != std::string::npos, en.suggestion.c_str());
        QVERIFY2(en.suggestion.find("QuickGelu") != std::string::npos, en.suggestion.c_str());
        QVERIFY2(en.mitigation.find("fuse_conv_activation") == std::string::npos, en.mitigation.c_str());
      } else {
        QCOMPARE(f->fixPass, std::string("fuse_conv_activation"));
        QVERIFY(en.suggestion.find("FusedConv") != std::string::npos);
        Model m = g.model;
        auto applied = applyFinding(m, *f);
        QVERIFY2(applied, applied ? "" : applied.error().describe().c_str());
      }
    }
  }

  // The kernels the advice names exist in the runtime in use: FusedConv takes Sigmoid, and has no
  // "Silu" activation in ONNX Runtime 1.21 (if a later runtime adds one, this fails and the
  // advice above is due for a change).
  void fusedConvActivationsOfThisRuntime() {
    auto fused = [](const char* activation) {
      test::TestGraph g;
      g.input("x", "1,8,16,16").weight("w", "8,8,3,3").weight("b", "8");
      g.node("Conv", {"x", "w", "b"}, {"y"}, "pads=1,1,1,1");
      g.output("y");
      Model m = g.model;
      Node& conv = m.graph.nodes.front();
      conv.opType = "FusedConv";
      conv.domain = "com.microsoft";
      conv.setAttr(Attribute::makeString("activation", activation));
      m.opsets.push_back({"com.microsoft", 1});
      RuntimeOptions ro;
      ro.optimization = GraphOptimization::Disabled;
      return OrtSession::create(m, ro);
    };
    auto sigmoid = fused("Sigmoid");
    QVERIFY2(sigmoid, sigmoid ? "" : sigmoid.error().describe().c_str());
    auto silu = fused("Silu");
    QVERIFY2(!silu, "ONNX Runtime now has a FusedConv SiLU activation: revisit conv_act.advice.no_epilogue_silu");
    const std::string why = silu.error().message;
    QVERIFY2(why.find("unimplemented activation") != std::string::npos || why.find("GetFusedActivationAttr") != std::string::npos,
             why.c_str());
  }

  // Every legal finding with a fix, on every pattern the builder writes, applies to the graph it
  // was found on: Apply is never offered for a fix that does not match.
  void everyOfferedFixApplies() {
    auto dev = loadDevice("cpu-host");
    for (const auto& p : test::presets::all()) {
      Model analysed = p.model;
      (void)inferShapes(analysed);
      auto state = AnalysisState::create(analysed, *dev, {}, Goal::Latency, Scenario::Edge);
      for (const Finding& f : runRules(state->context())) {  // every family
        if (!f.hasFix()) continue;
        Model m = state->model();
        auto applied = applyFinding(m, f);
        QVERIFY2(applied, (p.name + " / " + f.id + ": " + (applied ? std::string() : applied.error().describe())).c_str());
      }
    }
  }

  void textsExistForEveryRule() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("vit_ti_16.onnx");
    for (const auto& [rule, n] : a.byRule) QVERIFY2(hasTexts(rule), rule.c_str());
    for (const auto& f : a.findings) {
      auto en = renderFinding(f, Lang::En), zh = renderFinding(f, Lang::Zh);
      QVERIFY(!en.title.empty() && !zh.title.empty());
      QVERIFY2(en.title.find('{') == std::string::npos, en.title.c_str());
      QVERIFY2(en.hazard.find('{') == std::string::npos, en.hazard.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestFusionRules)
#include "tst_fusion_rules.moc"
