// The pass manager and verification on small graphs built here with seeded random weights, run
// for real by ONNX Runtime: runtime-specific fusions keep the outputs, a deliberately broken pass
// is rolled back (bisected to the one bad rewrite), one finding is applied alone, levels and
// --only/--skip select what runs, Polygraphy's tolerance semantics, the checker's skip list.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/rewrite.h"
#include "optimize/optimizer.h"
#include "optimize/verify.h"
#include "test_paths.h"

using namespace msa;

namespace {

// A model under construction with seeded N(0, scale) float weights.
struct Builder {
  Model model;
  std::mt19937 rng{42};
  explicit Builder(int opset = 17) {
    model.opsets.push_back({"", opset});
    model.graph.name = "test";
  }

  Builder& input(const std::string& name, std::vector<int64_t> dims) {
    model.graph.inputs.push_back({name, TypeInfo::tensor(DType::Float, Shape::of(dims)), {}, {}});
    return *this;
  }
  Builder& weight(const std::string& name, std::vector<int64_t> dims, double scale = 0.5, double mean = 0) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::normal_distribution<float> dist(static_cast<float>(mean), static_cast<float>(scale));
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = dist(rng);
    model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, dims, v));
    return *this;
  }
  Builder& positive(const std::string& name, std::vector<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::uniform_real_distribution<float> dist(0.5f, 1.5f);
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = dist(rng);
    model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, dims, v));
    return *this;
  }
  Builder& scalar(const std::string& name, float v) {
    model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, {}, std::vector<float>{v}));
    return *this;
  }
  Builder& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                std::vector<Attribute> attrs = {}, const std::string& name = {}) {
    Node n;
    n.opType = op;
    n.name = name;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attributes = std::move(attrs);
    model.graph.addNode(std::move(n));
    return *this;
  }
  Builder& output(const std::string& name, std::vector<int64_t> dims) {
    model.graph.outputs.push_back({name, TypeInfo::tensor(DType::Float, Shape::of(dims)), {}, {}});
    return *this;
  }
};

size_t countOp(const Model& m, std::string_view op) {
  size_t n = 0;
  for (const Node& x : m.graph.nodes) n += x.opType == op;
  return n;
}

// Three Conv -> Relu blocks on [1,4,8,8].
Model convChain() {
  Builder b;
  b.input("x", {1, 4, 8, 8});
  std::string in = "x";
  for (int i = 0; i < 3; ++i) {
    const std::string k = std::to_string(i);
    b.weight("w" + k, {4, 4, 3, 3}).weight("b" + k, {4});
    b.node("Conv", {in, "w" + k, "b" + k}, {"c" + k}, {Attribute::makeInts("pads", {1, 1, 1, 1})}, "conv" + k);
    b.node("Relu", {"c" + k}, {"r" + k}, {}, "relu" + k);
    in = "r" + k;
  }
  b.output(in, {1, 4, 8, 8});
  return b.model;
}

// A test-only pass: replaces every Conv's weight, anchored like a real pass. For one Conv it
// doubles the weight (a wrong rewrite); for the others it writes an exact copy (a harmless one).
class CorruptOneWeight final : public Pass {
 public:
  explicit CorruptOneWeight(std::string victim) : m_victim(std::move(victim)) {}
  const PassInfo& info() const override { return m_info; }
  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    std::vector<Rewrite> done;
    Graph& g = model.graph;
    std::vector<NodeId> convs;
    // Idempotent like a real pass: a Conv whose weight it already wrote is left alone.
    for (const Node& n : g.nodes)
      if (n.is("Conv") && ctx.matches(n.name) && n.inputs[1].rfind(n.name + "_w", 0) != 0) convs.push_back(n.id);
    for (NodeId id : convs) {
      Node* n = g.findNode(id);
      const Tensor* w = g.findInitializer(n->inputs[1]);
      auto v = w->toDouble();
      if (n->name == m_victim)
        for (auto& x : v) x *= 2;
      Tensor copy = Tensor::fromDoubles({}, w->dtype, w->dims, v);
      const std::string name = n->name;
      std::string wName = addInitializer(g, std::move(copy), name + "_w");
      g.findNode(id)->inputs[1] = wName;
      done.push_back({std::string(m_info.id), {}, {name}, {name}, false, {}});
    }
    removeDeadCode(g);
    return done;
  }

 private:
  std::string m_victim;
  PassInfo m_info{"corrupt_one_weight", OptLevel::Conservative, false, "test only: doubles one Conv's weight"};
};

}  // namespace

class TestOptimizer : public QObject {
  Q_OBJECT

 private slots:
  // Each runtime-specific fusion on a graph it should fuse: applied once, verified, the fused
  // op in place, the absorbed ops gone.
  void fusions_data() {
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("pass");
    QTest::addColumn<QString>("fusedOp");
    QTest::addColumn<QString>("goneOp");
    QTest::newRow("conv+relu") << "conv:Relu" << "fuse_conv_activation" << "FusedConv" << "Relu";
    QTest::newRow("conv+leakyrelu") << "conv:LeakyRelu" << "fuse_conv_activation" << "FusedConv" << "LeakyRelu";
    QTest::newRow("conv+sigmoid") << "conv:Sigmoid" << "fuse_conv_activation" << "FusedConv" << "Sigmoid";
    QTest::newRow("conv+tanh") << "conv:Tanh" << "fuse_conv_activation" << "FusedConv" << "Tanh";
    QTest::newRow("conv+hardsigmoid") << "conv:HardSigmoid" << "fuse_conv_activation" << "FusedConv" << "HardSigmoid";
    QTest::newRow("conv+clip") << "conv:Clip" << "fuse_conv_activation" << "FusedConv" << "Clip";
    QTest::newRow("gemm+relu") << "gemm:Relu" << "fuse_gemm_activation" << "FusedGemm" << "Relu";
    QTest::newRow("gemm+leakyrelu") << "gemm:LeakyRelu" << "fuse_gemm_activation" << "FusedGemm" << "LeakyRelu";
    QTest::newRow("gemm+elu") << "gemm:Elu" << "fuse_gemm_activation" << "FusedGemm" << "Elu";
    QTest::newRow("gemm+tanh") << "gemm:Tanh" << "fuse_gemm_activation" << "FusedGemm" << "Tanh";
    QTest::newRow("matmul+bias+erf gelu") << "gelu:erf" << "fuse_matmul_bias_activation" << "BiasGelu" << "Erf";
    QTest::newRow("matmul+bias+gelu (x*0.5 first)") << "gelu:half" << "fuse_matmul_bias_activation" << "BiasGelu" << "Erf";
    QTest::newRow("matmul/scale") << "matmul:Div" << "fuse_matmul_scale" << "FusedMatMul" << "Div";
  }

  void fusions() {
    QFETCH(QString, pattern);
    QFETCH(QString, pass);
    QFETCH(QString, fusedOp);
    QFETCH(QString, goneOp);
    const std::string kind = pattern.section(u':', 0, 0).toStdString(), act = pattern.section(u':', 1).toStdString();
    Builder b;
    if (kind == "conv") {
      b.input("x", {1, 3, 10, 10}).weight("w", {8, 3, 3, 3}).weight("b", {8});
      b.node("Conv", {"x", "w", "b"}, {"c"}, {}, "conv");
      const std::string into = "c";
      std::vector<std::string> in{into};
      std::vector<Attribute> attrs;
      if (act == "Clip") {
        b.scalar("lo", -0.5f).scalar("hi", 0.75f);
        in = {into, "lo", "hi"};
      }
      if (act == "LeakyRelu") attrs.push_back(Attribute::makeFloat("alpha", 0.2f));
      if (act == "HardSigmoid") attrs.push_back(Attribute::makeFloat("alpha", 0.3f));
      b.node(act, in, {"y"}, attrs, "act").output("y", {1, 8, 8, 8});
    } else if (kind == "gemm") {
      b.input("x", {2, 16}).weight("w", {8, 16}).weight("c", {8});
      b.node("Gemm", {"x", "w", "c"}, {"g"}, {Attribute::makeInt("transB", 1)}, "gemm");
      std::vector<Attribute> attrs;
      if (act == "LeakyRelu") attrs.push_back(Attribute::makeFloat("alpha", 0.1f));
      b.node(act, {"g"}, {"y"}, attrs, "act").output("y", {2, 8});
    } else if (kind == "gelu") {
      b.input("x", {1, 4, 16}).weight("w", {16, 32}).weight("bias", {32});
      b.scalar("sqrt2", 1.4142135381698608f).scalar("one", 1.f).scalar("half", 0.5f);
      b.node("MatMul", {"x", "w"}, {"m"}, {}, "mm").node("Add", {"m", "bias"}, {"a"}, {}, "bias_add");
      b.node("Div", {"a", "sqrt2"}, {"d"}).node("Erf", {"d"}, {"e"}).node("Add", {"e", "one"}, {"p"});
      if (act == "erf") b.node("Mul", {"a", "p"}, {"q"}).node("Mul", {"q", "half"}, {"y"});
      else b.node("Mul", {"a", "half"}, {"h"}).node("Mul", {"h", "p"}, {"y"});
      b.output("y", {1, 4, 32});
    } else {
      b.input("q", {1, 2, 4, 8}).input("k", {1, 2, 8, 4}).scalar("s", 2.8284271f);
      b.node("MatMul", {"q", "k"}, {"m"}, {}, "mm").node("Div", {"m", "s"}, {"y"}, {}, "scale").output("y", {1, 2, 4, 4});
    }
    OptimizeOptions o;
    o.level = OptLevel::Aggressive;
    o.only = {pass.toStdString()};
    auto r = optimize(b.model, o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    for (const auto& rb : r->rolledBack) qWarning("rolled back: %s", rb.reason.c_str());
    QVERIFY(r->rolledBack.empty());
    QCOMPARE(r->applied.size(), size_t(1));
    QVERIFY(r->applied[0].runtimeSpecific);
    QCOMPARE(countOp(r->model, fusedOp.toStdString()), size_t(1));
    QCOMPARE(countOp(r->model, goneOp.toStdString()), size_t(0));
    QCOMPARE(r->model.opset("com.microsoft"), int64_t(1));
    QVERIFY(r->verification && r->verification->passed);
    QVERIFY(r->verification->maxAbsError < 1e-3);
    // The checker cannot judge com.microsoft operators and says so.
    QVERIFY(!r->checker.skipped.empty());
    QVERIFY(r->checker.skipped[0].find(fusedOp.toStdString()) != std::string::npos);
  }

  // Not fused: the Conv's result has a second reader; a Clip whose bound is computed at run time;
  // Conv -> Add -> Relu (FusedConv's Sum input: ONNX Runtime 1.21 mishandles it at ORT_ENABLE_ALL).
  void fusionLegality() {
    Builder b;
    b.input("x", {1, 3, 6, 6}).weight("w", {4, 3, 1, 1});
    b.node("Conv", {"x", "w"}, {"c"}, {}, "conv").node("Relu", {"c"}, {"y"}, {}, "relu");
    b.node("Sigmoid", {"c"}, {"z"}, {}, "other_reader");
    b.output("y", {1, 4, 6, 6}).output("z", {1, 4, 6, 6});
    OptimizeOptions o;
    o.level = OptLevel::Aggressive;
    o.only = {"fuse_conv_activation"};
    auto r = optimize(b.model, o);
    QVERIFY(r.ok());
    QVERIFY(r->applied.empty());

    Builder c;
    c.input("x", {1, 3, 6, 6}).input("hi", {}).weight("w", {4, 3, 1, 1});
    c.node("Conv", {"x", "w"}, {"c"}, {}, "conv").node("Clip", {"c", "", "hi"}, {"y"}, {}, "clip").output("y", {1, 4, 6, 6});
    auto r2 = optimize(c.model, o);
    QVERIFY(r2.ok());
    QVERIFY(r2->applied.empty());

    Builder d;
    d.input("x", {1, 3, 6, 6}).input("z", {1, 4, 6, 6}).weight("w", {4, 3, 1, 1});
    d.node("Conv", {"x", "w"}, {"c"}, {}, "conv").node("Add", {"c", "z"}, {"s"}, {}, "add");
    d.node("Relu", {"s"}, {"y"}, {}, "relu").output("y", {1, 4, 6, 6});
    auto r3 = optimize(d.model, o);
    QVERIFY(r3.ok());
    QVERIFY(r3->applied.empty());
  }

  // A pass that corrupts one weight among several harmless rewrites: the bad one is found by
  // bisection and rolled back with the verification failure; the good ones stay; the result verifies.
  void brokenPassIsRolledBack_data() {
    QTest::addColumn<QString>("victim");
    QTest::newRow("first") << "conv0";
    QTest::newRow("middle") << "conv1";
    QTest::newRow("last") << "conv2";
  }

  void brokenPassIsRolledBack() {
    QFETCH(QString, victim);
    const Model m = convChain();
    CorruptOneWeight broken(victim.toStdString());
    OptimizeOptions o;
    o.passes = {&broken};
    auto r = optimize(m, o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(r->rolledBack.size(), size_t(1));
    QCOMPARE(r->rolledBack[0].rewrite.pass, std::string("corrupt_one_weight"));
    QCOMPARE(r->rolledBack[0].rewrite.nodesBefore, std::vector<std::string>{victim.toStdString()});
    QVERIFY2(r->rolledBack[0].reason.find("output 'r2'") != std::string::npos, r->rolledBack[0].reason.c_str());
    QVERIFY(r->rolledBack[0].reason.find("beyond atol") != std::string::npos);
    QCOMPARE(r->applied.size(), size_t(2));
    for (const auto& a : r->applied) QVERIFY(a.nodesBefore[0] != victim.toStdString());
    QVERIFY(r->verification && r->verification->passed);
    QCOMPARE(r->verification->maxAbsError, 0.0);  // the kept rewrites are exact copies
    // The victim kept its original weight.
    const Node* v = r->model.graph.findNodeByName(victim.toStdString());
    QVERIFY(v);
    QCOMPARE(v->inputs[1], "w" + victim.toStdString().substr(4));
  }

  // Without verification nothing is rolled back: the broken rewrite ships, and the final check
  // (what `optimize --verify --no-rollback` does) catches it.
  void withoutVerificationTheFinalCheckFails() {
    const Model m = convChain();
    CorruptOneWeight broken("conv1");
    OptimizeOptions o;
    o.passes = {&broken};
    o.verify = false;
    auto r = optimize(m, o);
    QVERIFY(r.ok());
    QCOMPARE(r->applied.size(), size_t(3));
    QVERIFY(!r->verification);
    auto v = Verifier::create(m, o.verification);
    QVERIFY(v.ok());
    VerifyResult res = v->check(r->model);
    QVERIFY(!res.passed);
    QVERIFY(res.failure.find("output 'r2'") != std::string::npos);
  }

  void applyOneFinding() {
    Builder b;
    b.input("x", {1, 3, 6, 6}).weight("w", {4, 3, 3, 3}).weight("g", {4}).weight("beta", {4}).weight("mean", {4});
    b.positive("var", {4});
    b.node("Conv", {"x", "w"}, {"c"}, {}, "conv");
    b.node("BatchNormalization", {"c", "g", "beta", "mean", "var"}, {"n"}, {}, "bn");
    b.node("Relu", {"n"}, {"y"}, {}, "relu").output("y", {1, 4, 4, 4});
    Model m = b.model;
    Finding f;
    f.id = "fusion.conv_bn@conv";
    f.rule = "fusion.conv_bn";
    f.nodes = {"conv", "bn"};
    f.fixPass = "fold_bn_into_conv";
    auto rw = applyFinding(m, f);
    QVERIFY2(rw.ok(), rw.ok() ? "" : rw.error().describe().c_str());
    QCOMPARE(rw->size(), size_t(1));
    QCOMPARE((*rw)[0].finding, f.id);
    QCOMPARE((*rw)[0].nodesBefore, (std::vector<std::string>{"conv", "bn"}));
    QCOMPARE(countOp(m, "BatchNormalization"), size_t(0));
    const VerifyOptions vo;
    auto v = Verifier::create(b.model, vo);
    QVERIFY(v.ok());
    v->setTolerance(toleranceFor(OptLevel::Conservative));
    QVERIFY(v->check(m).passed);
    // Applying it again: the pattern is gone.
    auto again = applyFinding(m, f);
    QVERIFY(!again.ok());
    QVERIFY(again.error().message.find("no longer") != std::string::npos);
    // Advice only, and not legal: refused with the reason.
    Finding advice = f;
    advice.fixPass.clear();
    QVERIFY(applyFinding(m, advice).error().message.find("advice only") != std::string::npos);
    Finding illegal = f;
    illegal.legal = false;
    illegal.blockers = {"multi_consumer:c"};
    // In words: the blocker rendered, never the finding's or the pass's internal id.
    const std::string why = applyFinding(m, illegal).error().message;
    QVERIFY2(why.find("the intermediate 'c' has several consumers") != std::string::npos, why.c_str());
    QVERIFY2(why.find("multi_consumer") == std::string::npos && why.find(f.id) == std::string::npos, why.c_str());
    QVERIFY2(again.error().message.find(f.id) == std::string::npos &&
                 again.error().message.find(f.fixPass) == std::string::npos,
             again.error().message.c_str());
  }

  // A finding list maps each applied rewrite to the finding it resolves; the others become advice.
  void findingsAreMatched() {
    Builder b;
    b.input("x", {1, 3, 6, 6}).weight("w", {4, 3, 3, 3}).weight("g", {4}).weight("beta", {4}).weight("mean", {4});
    b.positive("var", {4});
    b.node("Conv", {"x", "w"}, {"c"}, {}, "conv");
    b.node("BatchNormalization", {"c", "g", "beta", "mean", "var"}, {"n"}, {}, "bn");
    b.node("Relu", {"n"}, {"y"}, {}, "relu").output("y", {1, 4, 4, 4});
    std::vector<Finding> findings(3);
    findings[0].id = "fusion.conv_bn@conv";
    findings[0].nodes = {"conv", "bn"};
    findings[0].fixPass = "fold_bn_into_conv";
    findings[1].id = "precision.fp16@conv";
    findings[1].category = Category::Precision;
    findings[1].nodes = {"conv"};
    findings[2].id = "fusion.conv_act@conv";
    findings[2].nodes = {"conv", "relu"};
    findings[2].fixPass = "fuse_conv_activation";
    OptimizeOptions o;
    o.findings = findings;
    auto r = optimize(b.model, o);
    QVERIFY(r.ok());
    auto folded = std::find_if(r->applied.begin(), r->applied.end(), [](const Rewrite& w) { return w.pass == "fold_bn_into_conv"; });
    QVERIFY(folded != r->applied.end());
    QCOMPARE(folded->finding, findings[0].id);
    QCOMPARE(r->advice.size(), size_t(2));
    QCOMPARE(r->advice[0].finding, findings[1].id);
    QVERIFY(r->advice[0].reason.find("precision") != std::string::npos);
    QCOMPARE(r->advice[1].finding, findings[2].id);
    QVERIFY2(r->advice[1].reason.find("--level aggressive") != std::string::npos, r->advice[1].reason.c_str());
  }

  void passSelection() {
    OptimizeOptions o;
    o.only = {"no_such_pass"};
    auto a = selectPasses(o);
    QVERIFY(!a.ok());
    QCOMPARE(a.error().kind, ErrorKind::Usage);
    QVERIFY(a.error().message.find("no_such_pass") != std::string::npos);
    o.only = {"fuse_conv_activation"};
    auto b = selectPasses(o);
    QVERIFY(!b.ok());
    QVERIFY(b.error().message.find("needs --level aggressive") != std::string::npos);
    o.only.clear();
    auto c = selectPasses(o);
    QVERIFY(c.ok());
    for (const Pass* p : *c) {
      QCOMPARE(p->info().level, OptLevel::Conservative);
      QVERIFY(!p->info().runtimeSpecific);
    }
    o.level = OptLevel::Aggressive;
    o.skip = {"ort_offline_optimize", "fold_bn_into_conv"};
    auto d = selectPasses(o);
    QVERIFY(d.ok());
    QVERIFY(std::none_of(d->begin(), d->end(), [](const Pass* p) { return p->info().id == "fold_bn_into_conv"; }));
    QVERIFY(std::any_of(d->begin(), d->end(), [](const Pass* p) { return p->info().id == "fuse_conv_activation"; }));
    // Registry order: runtime-specific passes come after every portable one.
    bool seenRuntime = false;
    for (const auto& p : builtinPasses()) {
      if (p->info().runtimeSpecific) seenRuntime = true;
      else QVERIFY2(!seenRuntime, std::string(p->info().id).c_str());
    }
  }

  // Polygraphy: an element fails only where both the absolute and the relative error exceed.
  void toleranceSemantics_data() {
    QTest::addColumn<double>("actual");
    QTest::addColumn<double>("expected");
    QTest::addColumn<bool>("passes");
    QTest::newRow("large value, small relative error") << 1000.5 << 1000.0 << true;    // abs 0.5 > atol, rel 5e-4 < rtol
    QTest::newRow("tiny value, large relative error") << 2e-6 << 1e-6 << true;         // rel 1 > rtol, abs 1e-6 < atol
    QTest::newRow("both exceeded") << 1.1 << 1.0 << false;
    QTest::newRow("zero reference, abs within atol") << 5e-4 << 0.0 << true;
    QTest::newRow("zero reference, abs beyond atol") << 5e-2 << 0.0 << false;
  }

  void toleranceSemantics() {
    QFETCH(double, actual);
    QFETCH(double, expected);
    QFETCH(bool, passes);
    Tolerance t;
    t.atol = 1e-3;
    t.rtol = 1e-3;
    t.bothExceeded = true;
    auto a = DataValue::of(Tensor::fromValues("a", DType::Double, {1}, std::vector<double>{actual}));
    auto e = DataValue::of(Tensor::fromValues("e", DType::Double, {1}, std::vector<double>{expected}));
    QCOMPARE(compareValues(a, e, t).equal, passes);
    // Tighter per level, loosest at aggressive.
    QVERIFY(toleranceFor(OptLevel::Conservative).atol < toleranceFor(OptLevel::Moderate).atol);
    QVERIFY(toleranceFor(OptLevel::Moderate).rtol < toleranceFor(OptLevel::Aggressive).rtol);
    QVERIFY(toleranceFor(OptLevel::Aggressive).bothExceeded);
  }

  // The float32 re-rounding of an exact rewrite: an element near zero in an output of scale 20
  // is off by ~1e-4 absolute (written first: a fixed atol of 1e-5 failed such rewrites), while a
  // real mistake on the same element (1e-2) still fails; the worst element's share of its
  // tolerance is reported (≤ 1 within).
  void toleranceScalesWithTheOutput() {
    const Tolerance t = toleranceFor(OptLevel::Conservative);
    QVERIFY(t.scaleAtol);
    auto tensor = [](const char* name, std::vector<float> v) {
      return DataValue::of(Tensor::fromValues(name, DType::Float, {int64_t(v.size())}, v));
    };
    const auto e = tensor("e", {20.f, -17.5f, 3e-3f, 0.25f});
    const auto rounded = tensor("a", {20.f, -17.5f, 3e-3f + 1.6e-4f, 0.25f});
    const auto wrong = tensor("a", {20.f, -17.5f, 3e-3f + 1e-2f, 0.25f});
    const Comparison ok = compareValues(rounded, e, t);
    QVERIFY2(ok.equal, ok.firstMismatch.c_str());
    QVERIFY(ok.maxAbsError > t.atol && ok.maxRelError > t.rtol);  // both maxima beyond, yet within
    QVERIFY(ok.worstToleranceRatio > 0.5 && ok.worstToleranceRatio <= 1.0);
    const Comparison bad = compareValues(wrong, e, t);
    QVERIFY(!bad.equal);
    QVERIFY(bad.worstToleranceRatio > 1.0);
    Tolerance fixed = t;
    fixed.scaleAtol = false;
    QVERIFY(!compareValues(rounded, e, fixed).equal);
  }

  // Element tolerances alone pass anything far below atol: compare_outputs(zeros, randn*1e-9)
  // passed at 1e-5/1e-5. Relative to the output's magnitude it fails; a faithful re-rounding at
  // the same magnitude still passes; references that cannot tell are named as such.
  void tinyOutputsAreComparedToTheirMagnitude() {
    const Tolerance t = toleranceFor(OptLevel::Conservative);
    std::mt19937 rng(7);
    std::normal_distribution<double> n01;
    std::vector<double> reference(1000), rounded(1000), zeros(1000, 0.0), shuffled(1000);
    for (size_t i = 0; i < reference.size(); ++i) {
      reference[i] = n01(rng) * 1e-9;
      rounded[i] = reference[i] * (1 + 1e-7 * n01(rng));  // float re-rounding at this magnitude
    }
    shuffled = reference;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);  // a broken rewrite: the same values, wrong places
    auto value = [](const std::vector<double>& v) { return DataValue::of(Tensor::fromValues("y", DType::Double, {1, 1000}, v)); };
    Tolerance elementsOnly = t;
    elementsOnly.relToMagnitude = 0;
    QVERIFY(compareValues(value(zeros), value(reference), elementsOnly).equal);  // today's hole
    const Comparison z = compareValues(value(zeros), value(reference), t);
    QVERIFY2(!z.equal, "zeros against randn*1e-9 must not pass");
    QVERIFY(z.firstMismatch.find("largest |expected|") != std::string::npos);
    QVERIFY(std::isnan(z.cosine));
    const Comparison wrong = compareValues(value(shuffled), value(reference), t);
    QVERIFY(!wrong.equal);
    QVERIFY(wrong.cosine < 0.5);
    QVERIFY(wrong.top1Agreement == 0.0 || wrong.top1Agreement == 1.0);
    const Comparison ok = compareValues(value(rounded), value(reference), t);
    QVERIFY2(ok.equal, ok.firstMismatch.c_str());
    QVERIFY(ok.cosine > 0.999999);
    QCOMPARE(ok.top1Agreement, 1.0);
    // Every |reference| within atol: the reference cannot tell on its elements.
    QCOMPARE(ok.degenerate, std::string("tiny"));
    QCOMPARE(compareValues(value(reference), value(zeros), t).degenerate, std::string("all_zero"));
    QCOMPARE(compareValues(value(std::vector<double>(1000, 3.0)), value(std::vector<double>(1000, 3.0)), t).degenerate,
             std::string("constant"));
    std::vector<double> withNan = rounded;
    withNan[5] = std::nan("");
    QCOMPARE(compareValues(value(withNan), value(withNan), t).degenerate, std::string("not_finite"));
    std::vector<double> real(1000);
    for (double& x : real) x = n01(rng);
    QVERIFY(compareValues(value(real), value(real), t).degenerate.empty());
  }

  // A model whose outputs are degenerate on the given inputs verifies as "inconclusive", not
  // "match"; a deliberately broken rewrite on it still fails.
  void degenerateReferenceIsInconclusive() {
    Builder b;
    // y = 0 * (x W): the output is all zero whatever the inputs.
    b.input("x", {1, 8}).weight("w", {8, 8}).scalar("zero", 0.0f);
    b.node("MatMul", {"x", "w"}, {"h"}, {}, "mm");
    b.node("Mul", {"h", "zero"}, {"y"}, {}, "mul").output("y", {1, 8});
    const VerifyOptions vo;  // a named value: GCC 12 misreads a temporary's map as uninitialised
    auto v = Verifier::create(b.model, vo);
    QVERIFY2(v, v ? "" : v.error().describe().c_str());
    const VerifyResult same = v->check(b.model, false);
    QVERIFY(same.passed);
    QVERIFY(same.inconclusive);
    const std::string text = inconclusiveText(same, Lang::En);
    QVERIFY2(text.find("these inputs do not exercise the model") != std::string::npos, text.c_str());
    QVERIFY2(text.find("'y' is all zero") != std::string::npos && text.find("--inputs DIR") != std::string::npos, text.c_str());
    QVERIFY(!inconclusiveText(same, Lang::Zh).empty() && inconclusiveText(same, Lang::Zh) != text);
    // A rewrite that breaks the graph (the zero becomes one) fails, degenerate reference or not.
    Model broken = b.model;
    for (Tensor& t : broken.graph.initializers)
      if (t.name == "zero") t = Tensor::fromValues("zero", DType::Float, {}, std::vector<float>{1.0f});
    const VerifyResult bad = v->check(broken, false);
    QVERIFY(!bad.passed);
    QVERIFY(!bad.inconclusive);
    // A model whose outputs vary with its inputs is conclusive.
    Builder real;
    real.input("x", {1, 8}).weight("w", {8, 8});
    real.node("MatMul", {"x", "w"}, {"y"}, {}, "mm").output("y", {1, 8});
    auto rv = Verifier::create(real.model, vo);
    QVERIFY(rv);
    const VerifyResult fine = rv->check(real.model, false);
    QVERIFY(fine.passed && !fine.inconclusive);
    QVERIFY(inconclusiveText(fine, Lang::En).empty());
  }

  void checkerSaysWhatItSkips() {
    Builder b(18);
    b.input("x", {1, 4}).node("Relu", {"x"}, {"y"}).output("y", {1, 4});
    CheckerResult c = checkModel(b.model);
    QVERIFY(!c.ran);
    QVERIFY(c.skipped[0].find("opset 18") != std::string::npos);

    Builder ok(13);
    ok.input("x", {1, 4}).node("Relu", {"x"}, {"y"}).output("y", {1, 4});
    CheckerResult c2 = checkModel(ok.model);
    QVERIFY(c2.ran && c2.passed);

    Builder bad(13);
    bad.input("x", {1, 4}).node("Relu", {"x", "x"}, {"y"}).output("y", {1, 4});  // Relu takes one input
    CheckerResult c3 = checkModel(bad.model);
    QVERIFY(c3.ran && !c3.passed);
    QVERIFY(!c3.message.empty());
  }

  // ONNX Runtime's own graph, imported back: labelled runtime-specific, metadata says for what.
  void ortOfflineOptimize() {
    const Model m = convChain();
    OptimizeOptions o;
    o.level = OptLevel::Aggressive;
    o.only = {"ort_offline_optimize"};
    auto r = optimize(m, o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(r->applied.size(), size_t(1));
    QVERIFY(r->applied[0].runtimeSpecific);
    QVERIFY(r->applied[0].note.find("machine-specific") != std::string::npos);
    QVERIFY(!r->model.metadataValue("msadvisor.runtime_specific").empty());
    QVERIFY(r->verification && r->verification->passed);
    QCOMPARE(countOp(r->model, "Relu"), size_t(0));  // fused into the runtime's Conv
    test::TempDir dir("ortoffline");
    QVERIFY(saveModel(r->model, dir / "out.onnx").ok());
    auto back = loadModel(dir / "out.onnx");
    QVERIFY(back.ok());
    QCOMPARE(back->graph.nodes.size(), r->model.graph.nodes.size());
  }
};

QTEST_GUILESS_MAIN(TestOptimizer)
#include "tst_optimizer.moc"
