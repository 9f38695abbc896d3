// The fusion family on real models and on fixtures built to be legal or illegal.
#include <QtTest>

#include <map>

#include "advisor/analysis_state.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "rules/rule.h"
#include "rules/texts.h"
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
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
  }

  void resnetEveryConvBn() {
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
    auto a = analyseFile("mobilenet_v2.onnx");
    int clip = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.conv_bn_act" && f.nodes.size() == 3 && f.params.at("activation") == "Clip") ++clip;
    QCOMPARE(clip, 35);
  }

  void efficientnetSilu() {
    auto a = analyseFile("efficientnet_b0.onnx");
    int silu = 0;
    for (const auto& f : a.findings)
      if (f.rule == "fusion.conv_bn_act" && f.params.count("activation") && f.params.at("activation") == "SiLU") ++silu;
    QVERIFY2(silu >= 30, std::to_string(silu).c_str());
  }

  void vitDecomposedLayerNormAndGelu() {
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
    auto a = analyseFile("bert_like_encoder.onnx");
    QVERIFY(a.byRule["fusion.matmul_add_act"] >= 12);
    QVERIFY(a.byRule["fusion.gelu"] == 4);
  }

  void textsExistForEveryRule() {
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
