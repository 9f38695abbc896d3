// The pass registry as a whole: ids, levels and their documentation; each pass rewrites every
// legal match in one run (a second run finds nothing) and leaves a model it cannot improve
// byte-identical; every level's pipeline keeps a mixed model correct; and each fix a rule
// reports on a real model is applied by its pass when anchored at the finding's nodes.
#include <QtTest>

#include <fstream>
#include <set>
#include <sstream>

#include "advisor/analysis_state.h"
#include "model/onnx_io.h"
#include "pass_fixture.h"
#include "rules/rule.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::test;

namespace {

// One model holding a match for most passes.
Model kitchenSink() {
  PassFixture f;
  auto x = f.input("x", {4, 16});
  // fold_constants: a weight computed from constants.
  auto w = f.node("Mul", {f.weight("w0", {16, 16}), f.scalar("k", 0.5f)});
  // fuse_matmul_add_into_gemm, then fold_add_into_bias for the second Add.
  auto h = f.node("Add", {f.node("Add", {f.node("MatMul", {x, w}), f.weight("b", {16})}), f.weight("b2", {16})});
  // fuse_gelu (erf form).
  auto e = f.node("Erf", {f.node("Div", {h, f.scalar("r2", 1.4142135f)})});
  auto g = f.node("Mul", {f.node("Mul", {h, f.node("Add", {e, f.scalar("one", 1.f)})}), f.scalar("half", 0.5f)});
  // merge_reshapes, eliminate_nop_pad, eliminate_cast_roundtrip.
  auto r3 = f.node("Unsqueeze", {f.node("Reshape", {g, f.ints("s", {4, 4, 4})}), f.ints("ax", {0})});  // [1,4,4,4]
  auto p = f.node("Pad", {r3, f.ints("pads", {0, 0, 0, 0, 0, 0, 0, 0})});
  auto c = f.node("Cast", {f.node("Cast", {p}, {ia("to", int(DType::Double))})}, {ia("to", int(DType::Float))});
  // push_transpose_through_elementwise.
  auto t = f.node("Transpose", {f.node("Relu", {f.node("Transpose", {c}, {iv("perm", {0, 2, 3, 1})})})}, {iv("perm", {0, 3, 1, 2})});
  // fuse_layernorm over the last axis.
  auto mean = f.node("ReduceMean", {t}, {iv("axes", {-1})});
  auto d = f.node("Sub", {t, mean});
  auto var = f.node("ReduceMean", {f.node("Pow", {d, f.scalar("two", 2.f)})}, {iv("axes", {-1})});
  auto n = f.node("Div", {d, f.node("Sqrt", {f.node("Add", {var, f.scalar("eps", 1e-5f)})})});
  // eliminate_slice_concat, then fuse_softmax.
  auto parts = f.nodeN("Split", {n, f.ints("split", {2, 2})}, 2, {ia("axis", 3)});
  auto cc = f.node("Concat", parts, {ia("axis", 3)});
  auto ex = f.node("Exp", {f.node("Sub", {cc, f.node("ReduceMax", {cc}, {iv("axes", {-1})})})});
  f.output(f.node("Div", {ex, f.node("ReduceSum", {ex, f.ints("sax", {-1})})}));
  return f.build();
}

std::string bytes(const Model& m) {
  auto b = serializeModel(m);
  return b ? *b : std::string();
}

}  // namespace

class TestPasses : public QObject {
  Q_OBJECT
 private slots:
  void registryIsConsistent() {
    std::set<std::string_view> ids;
    for (const auto& p : builtinPasses()) {
      const PassInfo& i = p->info();
      QVERIFY2(ids.insert(i.id).second, std::string(i.id).c_str());
      QVERIFY(!i.summary.empty());
      if (i.runtimeSpecific) QVERIFY(i.level == OptLevel::Aggressive);
      QCOMPARE(findPass(i.id), p.get());
    }
    QVERIFY(!findPass("no_such_pass"));
    // The ids the rules name as fixes exist.
    for (const char* id : {"fold_bn_into_conv", "fuse_matmul_add_into_gemm", "fuse_layernorm", "fuse_softmax", "fuse_gelu",
                           "eliminate_slice_concat", "merge_reshapes", "cancel_transposes"})
      QVERIFY2(findPass(id), id);
  }

  // docs/optimizer.md has a row per pass: | `id` | level | …
  void levelsAreDocumented() {
    std::ifstream in(test::sourceDir() / "docs" / "optimizer.md");
    QVERIFY(in.good());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    for (const auto& p : builtinPasses()) {
      std::string row = "| `" + std::string(p->info().id) + "` | " + std::string(levelName(p->info().level)) + " |";
      QVERIFY2(doc.find(row) != std::string::npos, row.c_str());
    }
  }

  void oneRunRewritesEveryMatch() {
    const Model m = kitchenSink();
    for (const auto& p : builtinPasses()) {
      Model once = m;
      auto first = p->run(once, {});
      Model twice = once;
      auto second = p->run(twice, {});
      QVERIFY2(second.empty(), std::string(p->info().id).c_str());
      QCOMPARE(bytes(twice), bytes(once));
      if (first.empty()) QCOMPARE(bytes(once), bytes(m));  // untouched when nothing matched
    }
  }

  void pipelinePerLevel_data() {
    QTest::addColumn<int>("level");
    QTest::newRow("conservative") << int(OptLevel::Conservative);
    QTest::newRow("moderate") << int(OptLevel::Moderate);
    QTest::newRow("aggressive") << int(OptLevel::Aggressive);
  }
  void pipelinePerLevel() {
    QFETCH(int, level);
    const Model m = kitchenSink();
    Model opt = m;
    std::set<std::string> applied;
    for (const auto& p : builtinPasses())
      if (int(p->info().level) <= level)
        for (const auto& r : p->run(opt, {})) applied.insert(r.pass);
    QCOMPARE(graphProblem(opt), std::string());
    QVERIFY2(onnxCheck(opt).ok(), onnxCheck(opt).ok() ? "" : onnxCheck(opt).error().describe().c_str());
    auto c = compareModels(m, opt, level == 0 ? Tolerance{1e-5, 1e-6} : Tolerance{1e-4, 1e-5});
    QVERIFY(c.ok());
    QVERIFY2(c->equal, c->message.c_str());
    std::set<std::string> expected{"fold_constants", "eliminate_nop_pad", "eliminate_cast_roundtrip", "merge_reshapes",
                                   "push_transpose_through_elementwise", "eliminate_slice_concat"};
    if (level >= int(OptLevel::Moderate))
      expected.insert({"fuse_matmul_add_into_gemm", "fold_add_into_bias", "fuse_layernorm", "fuse_softmax"});
    if (level >= int(OptLevel::Aggressive)) expected.insert("fuse_gelu");
    for (const auto& e : expected) QVERIFY2(applied.count(e), e.c_str());
    for (const Node& n : opt.graph.nodes) QVERIFY2(!n.is("Transpose") && !n.is("Pad") && !n.is("Cast"), n.name.c_str());
    qInfo("level %s: %zu → %zu nodes", std::string(levelName(OptLevel(level))).c_str(), m.graph.nodes.size(), opt.graph.nodes.size());
  }

  // What the GUI does: apply one finding's fix pass, anchored at the finding's nodes.
  void findingsAreFixedByTheirPass_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("vit_ti_16 (LayerNorm, GELU)") << "vit_ti_16.onnx";
    QTest::newRow("mobilenet_v2 (Conv+BN)") << "mobilenet_v2.onnx";
    QTest::newRow("PaddleOCR cls (MatMul+Add 2-D)") << "ch_ppocr_mobile_v2.0_cls_infer.onnx";
  }
  void findingsAreFixedByTheirPass() {
    QFETCH(QString, file);
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto loaded = loadModel(test::corpusModel(file.toStdString()));
    QVERIFY(loaded.ok());
    Model m = *loaded;
    ShapeOptions so;
    if (file.startsWith("ch_ppocr"))
      so.dims = {{"p2o.DynamicDimension.0", 1}, {"p2o.DynamicDimension.1", 48}, {"p2o.DynamicDimension.2", 192}};
    (void)inferShapes(m, so);
    auto dev = loadDevice("cpu-host");
    QVERIFY(dev.ok());
    auto state = AnalysisState::create(m, *dev, {}, Goal::Latency, Scenario::Edge);
    auto findings = runRules(state->context());
    std::set<std::string> verifiedRule;
    int fixed = 0;
    for (const Finding& f : findings) {
      if (!f.hasFix() || !findPass(f.fixPass)) continue;
      const Pass* pass = findPass(f.fixPass);
      PassContext ctx;
      ctx.anchors.insert(f.nodes[0]);
      Model copy = m;
      auto rewrites = pass->run(copy, ctx);
      QVERIFY2(rewrites.size() == 1, (f.id + " → " + f.fixPass + ": " + std::to_string(rewrites.size()) + " rewrites").c_str());
      // The pass replaced the finding's anchor and nothing of another finding of its rule (an
      // activation after a folded BatchNormalization is in the finding but stays). What it
      // replaced beyond the finding's nodes — an attention's projections and head split, which
      // ONNX Runtime's Attention computes too — hangs together with them through replaced nodes.
      const auto& before = rewrites[0].nodesBefore;
      QVERIFY2(std::find(before.begin(), before.end(), f.nodes[0]) != before.end(), f.id.c_str());
      for (const Finding& other : findings)
        if (other.rule == f.rule && other.id != f.id)
          for (const auto& n : before)
            QVERIFY2(std::find(other.nodes.begin(), other.nodes.end(), n) == other.nodes.end(), (f.id + " took " + other.id + ": " + n).c_str());
      std::set<std::string> reached;
      for (const auto& n : before)
        if (std::find(f.nodes.begin(), f.nodes.end(), n) != f.nodes.end()) reached.insert(n);
      const GraphIndex idx(m.graph);
      for (bool grew = true; grew;) {
        grew = false;
        for (const auto& n : before) {
          if (reached.count(n)) continue;
          const long i = idx.indexOfName(n);
          for (size_t j : idx.successors(static_cast<size_t>(i)))
            grew |= reached.count(m.graph.nodes[j].name) && reached.insert(n).second;
          for (size_t j : idx.predecessors(static_cast<size_t>(i)))
            grew |= reached.count(m.graph.nodes[j].name) && reached.insert(n).second;
        }
      }
      for (const auto& n : before) QVERIFY2(reached.count(n), (f.id + ": " + n + " apart from the finding").c_str());
      QCOMPARE(graphProblem(copy), std::string());
      if (verifiedRule.insert(f.rule).second) {  // numerics once per rule (the corpus test does all)
        auto c = compareModels(m, copy, toleranceOf(*pass), InputOptions{.dims = so.dims});
        QVERIFY(c.ok());
        QVERIFY2(c->equal, (f.id + ": " + c->message).c_str());
      }
      ++fixed;
    }
    QVERIFY(fixed > 0);
    qInfo("%d findings fixed one at a time by their pass", fixed);
  }
};

QTEST_GUILESS_MAIN(TestPasses)
#include "tst_passes.moc"
