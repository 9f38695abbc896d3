// Shape arithmetic evaluated outside ONNX's data propagation, and the shapes it lets inference
// resolve (the exporter pattern Shape -> Gather -> Div -> Mul -> Slice of ViT's attention).
#include <QtTest>

#include "model/graph_index.h"
#include "model/shape_inference.h"
#include "model/shape_values.h"

using namespace msa;

namespace {

Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> a = {}) {
  Node n;
  n.opType = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(a);
  return n;
}

Tensor i64(const std::string& name, std::vector<int64_t> v, std::vector<int64_t> dims) {
  return Tensor::fromValues(name, DType::Int64, std::move(dims), v);
}

// x [197,1,576] -> q/k/v slices of 576/3 columns each, the bounds computed from x's shape.
Model qkvSlices() {
  Model m;
  m.opsets.push_back({"", 14});
  Graph& g = m.graph;
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{197, 1, 576}), {}, {}});
  g.initializers.push_back(i64("minus1", {-1}, {1}));
  g.initializers.push_back(i64("zero", {0}, {1}));
  g.initializers.push_back(i64("one", {1}, {1}));
  g.initializers.push_back(i64("three", {3}, {1}));
  g.initializers.push_back(i64("two", {2}, {1}));
  g.addNode(node("Shape", {"x"}, {"shape"}));
  g.addNode(node("Gather", {"shape", "minus1"}, {"width"}, {Attribute::makeInt("axis", 0)}));
  g.addNode(node("Add", {"width", "zero"}, {"width2"}));
  g.addNode(node("Div", {"width2", "three"}, {"third"}));
  g.addNode(node("Mul", {"third", "one"}, {"end_q"}));
  g.addNode(node("Mul", {"third", "two"}, {"end_k"}));
  g.addNode(node("Slice", {"x", "zero", "end_q", "minus1"}, {"q"}));
  g.addNode(node("Slice", {"x", "end_q", "end_k", "minus1"}, {"k"}));
  // Where/Equal/Expand on a shape vector, as in ViT's class-token Expand.
  g.initializers.push_back(i64("target", {-1, -1, 192}, {3}));
  g.initializers.push_back(i64("ones", {1, 1, 1}, {3}));
  g.initializers.push_back(i64("batch", {2}, {1}));
  g.initializers.push_back(Tensor::fromValues("token", DType::Float, {1, 1, 192}, std::vector<float>(192, 0.f)));
  g.addNode(node("Equal", {"target", "minus1"}, {"is_free"}));
  g.addNode(node("Where", {"is_free", "ones", "target"}, {"expand_to"}));
  g.addNode(node("Expand", {"token", "expand_to"}, {"tokens"}));
  // Squeeze with axes, Mod with fmod, Reshape keeping a zero.
  g.initializers.push_back(i64("sq_in", {7}, {1, 1}));
  g.addNode(node("Squeeze", {"sq_in", "zero"}, {"sq"}));
  g.initializers.push_back(i64("neg7", {-7}, {1}));
  g.addNode(node("Mod", {"neg7", "three"}, {"mod_floor"}));
  g.addNode(node("Mod", {"neg7", "three"}, {"mod_trunc"}, {Attribute::makeInt("fmod", 1)}));
  for (const char* o : {"q", "k", "tokens", "sq", "mod_floor", "mod_trunc"}) g.outputs.push_back({o, {}, {}, {}});
  return m;
}

}  // namespace

class TestShapeValues : public QObject {
  Q_OBJECT
 private slots:
  void evaluatesShapeArithmetic() {
    Model m = qkvSlices();
    auto values = evaluateShapeValues(m.graph);
    QCOMPARE(values.at("shape").values, (std::vector<double>{197, 1, 576}));
    QCOMPARE(values.at("third").values, (std::vector<double>{192}));
    QCOMPARE(values.at("end_k").values, (std::vector<double>{384}));
    QCOMPARE(values.at("expand_to").values, (std::vector<double>{1, 1, 192}));
    QCOMPARE(values.at("sq").dims, (std::vector<int64_t>{1}));  // only axis 0 squeezed
    QCOMPARE(values.at("mod_floor").values, (std::vector<double>{2}));   // sign of the divisor
    QCOMPARE(values.at("mod_trunc").values, (std::vector<double>{-1}));  // C fmod
    QVERIFY(!values.count("q"));  // a float activation, not shape arithmetic
  }

  // Node by node (the one shape pass): what it holds is what it gives, weights included, and a
  // node whose first input is unknown is not evaluated.
  void nodeByNodeHoldsWhatItGives() {
    Model m = qkvSlices();
    Graph& g = m.graph;
    g.initializers.push_back(Tensor::fromValues("big", DType::Int64, {2000}, std::vector<int64_t>(2000, 1)));
    g.initializers.push_back(Tensor::fromValues("label", DType::String, {1}, std::vector<std::string>{"a"}));
    const Shape known{197, 1, 576};
    ShapeEvaluator e(g, 1024, [&](std::string_view name) { return name == "x" ? &known : nullptr; });
    for (const char* name : {"minus1", "token", "big", "label", "x", "nowhere"})
      QCOMPARE(e.holds(name), e.value(name) != nullptr);
    QVERIFY(e.holds("three") && !e.holds("big") && !e.holds("label") && !e.holds("x"));
    QCOMPARE(e.value("token")->values.size(), size_t(192));
    // Add(activation, weight): nothing to evaluate.
    QVERIFY(!e.evaluate(node("Add", {"x", "one"}, {"shifted"})));
    // Shape arithmetic through the same evaluator.
    QVERIFY(e.evaluate(node("Shape", {"x"}, {"xs"})));
    const KnownValue* w = e.evaluate(node("Gather", {"xs", "minus1"}, {"xw"}, {Attribute::makeInt("axis", 0)}));
    QVERIFY(w);
    QCOMPARE(w->values, (std::vector<double>{576}));
    QVERIFY(e.holds("xw"));
  }

  void inferenceResolvesWhatItFeeds() {
    Model m = qkvSlices();
    auto r = inferShapes(m);
    QVERIFY(r.ok());
    GraphIndex idx(m.graph);
    const Shape* q = idx.shape("q");
    const Shape* k = idx.shape("k");
    const Shape* t = idx.shape("tokens");
    QVERIFY(q && k && t);
    QCOMPARE(q->str(), std::string("[197,1,192]"));
    QCOMPARE(k->str(), std::string("[197,1,192]"));
    QCOMPARE(t->str(), std::string("[1,1,192]"));
    // The IR keeps its nodes: only types were added.
    QCOMPARE(m.graph.nodes[0].opType, std::string("Shape"));
  }

  void withoutDataPropagationNothingIsFolded() {
    Model m = qkvSlices();
    ShapeOptions o;
    o.dataPropagation = false;
    QVERIFY(inferShapes(m, o).ok());
    GraphIndex idx(m.graph);
    const Shape* q = idx.shape("q");
    QVERIFY(!q || !q->fullyKnown());
  }
};

QTEST_APPLESS_MAIN(TestShapeValues)
#include "tst_shape_values.moc"
