// The fusion family on real models and on fixtures built to be legal or illegal.
#include <QtTest>

#include <map>
#include <set>

#include "advisor/analysis_state.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
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
      if (f.rule == "fusion.conv_bn_act" && f.params.count("activation") && f.params.at("activation") == "SiLU") ++silu;
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
  }

  void bertMatMulAdd() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto a = analyseFile("bert_like_encoder.onnx");
    QVERIFY(a.byRule["fusion.matmul_add_act"] >= 12);
    QVERIFY(a.byRule["fusion.gelu"] == 4);
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
