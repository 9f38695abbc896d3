// Patterns a tuner recognises (issue 11.6), named as such: a tanh GELU, attention, rotary
// embeddings, RMSNorm, SwiGLU and SiLU, on blocks written the way torch.onnx.export writes them.
// Written first against what the advisor said: a tanh GELU's nodes inside "N elementwise
// operators could run as one kernel", rotary embeddings a "repeated sequence", RMSNorm and
// SwiGLU pieces of anonymous elementwise chains.
#include <QtTest>

#include <map>
#include <set>

#include "advisor/analysis_state.h"
#include "model/graph_patterns.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "model_presets.h"
#include "rules/rule.h"
#include "rules/texts.h"
#include "test_paths.h"

using namespace msa;

namespace {

struct Analysed {
  Model model;
  std::vector<Finding> findings;
  std::map<std::string, std::vector<const Finding*>> byRule;
};

Analysed analyse(const Model& loaded) {
  Analysed a;
  a.model = loaded;
  (void)inferShapes(a.model);
  auto dev = loadDevice("cpu-host");
  auto state = AnalysisState::create(a.model, *dev, {}, Goal::Latency, Scenario::Edge);
  std::string_view fam[] = {"fusion", "small_ops"};
  a.findings = runRules(state->context(), fam);
  for (const auto& f : a.findings) a.byRule[f.rule].push_back(&f);
  return a;
}

std::set<std::string> nodesOf(const std::vector<const Finding*>& fs) {
  std::set<std::string> out;
  for (const Finding* f : fs) out.insert(f->nodes.begin(), f->nodes.end());
  return out;
}

std::string ops(const Model& m, const Finding& f) {
  std::string s;
  for (const auto& n : f.nodes) s += (s.empty() ? "" : " ") + m.graph.findNodeByName(n)->opType;
  return s;
}

}  // namespace

class TestNamedPatterns : public QObject {
  Q_OBJECT
 private slots:
  // GPT-2's NewGELU: one GELU(tanh) finding holding its eight operators, none of them in an
  // anonymous elementwise chain; the attention core named as attention.
  void gptTanhGeluAndAttention() {
    auto p = test::presets::gptBlock();
    auto a = analyse(p.model);
    QCOMPARE(a.byRule["fusion.gelu"].size(), size_t(1));
    const Finding& g = *a.byRule["fusion.gelu"][0];
    QCOMPARE(g.params.at("variant"), std::string("GELU(tanh)"));
    QCOMPARE(std::set<std::string>(g.nodes.begin(), g.nodes.end()), std::set<std::string>(p.nodes.begin(), p.nodes.end()));
    const auto chained = nodesOf(a.byRule["fusion.elementwise_chain"]);
    for (const auto& n : p.nodes) QVERIFY2(!chained.count(n), n.c_str());
    QCOMPARE(a.byRule["fusion.attention"].size(), size_t(1));
    const Finding& att = *a.byRule["fusion.attention"][0];
    QCOMPARE(ops(a.model, att), std::string("MatMul Mul Where Softmax MatMul"));
    // ONNX Runtime's Attention computes this form exactly (issue 25): its pass is the fix.
    QCOMPARE(att.fixPass, std::string("fuse_attention"));
    QVERIFY(att.safeFix);  // on cpu-host, whose runtime is ONNX Runtime
    QCOMPARE(att.params.at("mask"), std::string("causal"));
    QCOMPARE(att.params.at("heads"), std::string("4"));
    QVERIFY2(att.legal, att.blockers.empty() ? "" : att.blockers[0].c_str());
    const std::string en = renderFinding(att, Lang::En).title, zh = renderFinding(att, Lang::Zh).title;
    QVERIFY2(en.find("Attention") != std::string::npos, en.c_str());
    QVERIFY2(zh.find("注意力") != std::string::npos, zh.c_str());
  }

  // Llama: RMSNorm twice, rotary embeddings on Q and K, attention with an additive mask and a
  // SwiGLU MLP, each named; the SiLU inside the SwiGLU is not reported again on its own.
  void llamaRmsNormRotarySwiGlu() {
    auto p = test::presets::llamaBlock();
    auto a = analyse(p.model);
    QCOMPARE(a.byRule["fusion.rmsnorm"].size(), size_t(2));
    // The second one normalizes the residual stream: its fix is SkipSimplifiedLayerNormalization.
    int skip = 0;
    for (const Finding* f : a.byRule["fusion.rmsnorm"]) {
      QVERIFY2(ops(a.model, *f) == "Pow ReduceMean Add Sqrt Div Mul Mul", (f->nodes.front() + ": " + ops(a.model, *f)).c_str());
      skip += f->fixPass == "fuse_skip_rmsnorm";
    }
    QCOMPARE(skip, 1);
    QCOMPARE(a.byRule["fusion.rotary"].size(), size_t(2));
    const Finding* q = nullptr;
    for (const Finding* f : a.byRule["fusion.rotary"])
      if (std::find(f->nodes.begin(), f->nodes.end(), p.nodes.front()) != f->nodes.end()) q = f;
    QVERIFY(q);
    QCOMPARE(std::set<std::string>(q->nodes.begin(), q->nodes.end()), std::set<std::string>(p.nodes.begin(), p.nodes.end()));
    QCOMPARE(a.byRule["fusion.attention"].size(), size_t(1));
    // Rotary between the projections and the scores: not the Attention kernel's form, advice.
    const Finding& att = *a.byRule["fusion.attention"][0];
    QCOMPARE(ops(a.model, att), std::string("MatMul Div Add Softmax MatMul"));
    QVERIFY(att.fixPass.empty());
    QVERIFY2(att.params.at("declined").rfind("projection:", 0) == 0, att.params.at("declined").c_str());
    QCOMPARE(a.byRule["fusion.swiglu"].size(), size_t(1));
    QCOMPARE(ops(a.model, *a.byRule["fusion.swiglu"][0]), std::string("Sigmoid Mul Mul"));
    QVERIFY(a.byRule["fusion.silu"].empty());
    // Nothing of a named pattern is reported again as an anonymous chain or a repeated sequence.
    std::set<std::string> named;
    for (const char* r : {"fusion.rmsnorm", "fusion.rotary", "fusion.attention", "fusion.swiglu"})
      for (const auto& n : nodesOf(a.byRule[r])) named.insert(n);
    for (const char* r : {"fusion.elementwise_chain", "small_ops.sequence"})
      for (const auto& n : nodesOf(a.byRule[r])) QVERIFY2(!named.count(n), (std::string(r) + ": " + n).c_str());
    for (const char* r : {"fusion.rmsnorm", "fusion.rotary", "fusion.swiglu"}) {
      const Finding& f = *a.byRule[r][0];
      QVERIFY2(hasTexts(f.rule), r);
      const std::string zh = renderFinding(f, Lang::Zh).title;
      QVERIFY2(zh.find("{") == std::string::npos, zh.c_str());
    }
    QVERIFY(renderFinding(*a.byRule["fusion.rotary"][0], Lang::En).title.find("Rotary position embedding") == 0);
    QVERIFY(renderFinding(*a.byRule["fusion.rmsnorm"][0], Lang::En).title.find("RMSNorm") != std::string::npos);
    QVERIFY(renderFinding(*a.byRule["fusion.swiglu"][0], Lang::En).title.find("SwiGLU") == 0);
  }

  // A SiLU alone (x·Sigmoid(x) after a MatMul) is named SiLU; LayerNorm's tail is not an RMSNorm.
  void siluAloneAndLayerNormIsNotRms() {
    test::ModelBuilder b("silu", 17, 7);
    auto x = b.input("x", {1, 8, 32});
    auto y = b.layerNormDecomposed(b.silu(b.matmulWeight(x, 32)));
    b.output(y, "out");
    auto a = analyse(b.build());
    QCOMPARE(a.byRule["fusion.silu"].size(), size_t(1));
    QCOMPARE(ops(a.model, *a.byRule["fusion.silu"][0]), std::string("Sigmoid Mul"));
    QVERIFY(a.byRule["fusion.rmsnorm"].empty());
    QCOMPARE(a.byRule["fusion.layernorm"].size(), size_t(1));
  }

  // matchGeluAll tries only values upstream of an Erf or a Tanh: the same matches as trying every
  // value (matchGeluFrom on each node's inputs, in order), on GELUs of each form.
  void geluSearchMissesNone_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("gpt tanh") << "gpt";
    QTest::newRow("erf after bias") << "matmulAddGelu";
    QTest::newRow("bert (corpus)") << "bert_like_encoder.onnx";
    QTest::newRow("vit (corpus)") << "vit_ti_16.onnx";
  }
  void geluSearchMissesNone() {
    QFETCH(QString, model);
    Model m;
    if (model == "gpt") {
      m = test::presets::gptBlock().model;
    } else if (model == "matmulAddGelu") {
      m = test::presets::matmulAddGelu().model;
    } else {
      if (!test::hasCorpus()) QSKIP("no model corpus");
      auto loaded = loadModel(test::corpusModel(model.toStdString()));
      QVERIFY(loaded);
      m = std::move(*loaded);
    }
    (void)inferShapes(m);
    GraphIndex idx(m.graph);
    const auto found = matchGeluAll(idx);
    size_t matches = 0;
    for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
      std::optional<PatternMatch> everyValue;
      for (const auto& in : m.graph.nodes[i].inputs)
        if (auto g = in.empty() ? std::nullopt : matchGeluFrom(idx, in); g && g->members.front() == i) {
          everyValue = g;
          break;
        }
      QCOMPARE(found[i].has_value(), everyValue.has_value());
      if (!everyValue) continue;
      ++matches;
      QCOMPARE(found[i]->members, everyValue->members);
      QCOMPARE(found[i]->label, everyValue->label);
    }
    QVERIFY(matches > 0);
  }

  // Real exports: every Softmax whose probabilities multiply V (a MatMul consumes them) in the ViT
  // and the BERT-like encoder sits in an attention finding.
  void corpusAttention_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("vit") << "vit_ti_16.onnx";
    QTest::newRow("bert") << "bert_like_encoder.onnx";
  }
  void corpusAttention() {
    QFETCH(QString, file);
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto m = loadModel(test::corpusModel(file.toStdString()));
    QVERIFY(m);
    auto a = analyse(*m);
    size_t softmax = 0;
    GraphIndex idx(a.model.graph);
    for (const Node& n : a.model.graph.nodes)
      softmax += n.is("Softmax") && soleConsumer(idx, n.outputs[0], "MatMul") >= 0;
    QVERIFY(softmax > 0);
    QCOMPARE(a.byRule["fusion.attention"].size(), softmax);
    // torch's nn.MultiheadAttention export, proven to be what com.microsoft Attention computes
    // (the BERT-like encoder's key-padding mask included), on the graph as exported.
    for (const Finding* f : a.byRule["fusion.attention"]) {
      QVERIFY2(f->fixPass == "fuse_attention", (f->id + ": " + (f->params.count("declined") ? f->params.at("declined") : "")).c_str());
      QVERIFY2(f->legal, f->id.c_str());
      QCOMPARE(f->params.at("mask"), std::string(file.startsWith("bert") ? "padding" : "none"));
    }
  }
};

QTEST_GUILESS_MAIN(TestNamedPatterns)
#include "tst_named_patterns.moc"
