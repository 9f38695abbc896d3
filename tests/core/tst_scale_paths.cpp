// The paths written for large graphs answer exactly what the plain per-node code answers: the
// batch GELU matcher against matchGeluAt node by node, on graphs where a value feeds several
// GELUs or a thousand consumers, on generated models and on the corpus.
#include <QtTest>

#include "large_models.h"
#include "model/graph_index.h"
#include "model/graph_patterns.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "test_paths.h"

using namespace msa;

namespace {

std::string describe(const std::optional<PatternMatch>& m) {
  if (!m) return "-";
  std::string s = m->label + ":";
  for (size_t k : m->members) s += " " + std::to_string(k);
  for (const auto& b : m->blockers) s += " !" + b;
  return s;
}

// matchGeluAll against matchGeluAt for every node; returns how many GELUs were found.
int compareGelu(const Graph& g) {
  GraphIndex idx(g);
  const auto all = matchGeluAll(idx);
  if (all.size() != g.nodes.size()) return -1;
  int found = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const std::string slow = describe(matchGeluAt(idx, i)), fast = describe(all[i]);
    if (slow != fast) {
      qWarning("node %zu (%s): per node %s, batch %s", i, g.nodes[i].name.c_str(), slow.c_str(), fast.c_str());
      return -1;
    }
    found += all[i].has_value();
  }
  return found;
}

// GraphIndex against a plain scan of the graph: first producer, every use in order, the type
// from the highest-ranking source (initializer, Constant, value_info, input, output), constants,
// node ids and names. Returns the number of values checked, -1 on a difference.
int compareIndex(const Graph& g) {
  GraphIndex idx(g);
  std::vector<std::string> names;
  for (const Node& n : g.nodes) {
    names.insert(names.end(), n.inputs.begin(), n.inputs.end());
    names.insert(names.end(), n.outputs.begin(), n.outputs.end());
  }
  for (const Tensor& t : g.initializers) names.push_back(t.name);
  for (const auto* list : {&g.inputs, &g.outputs, &g.valueInfo})
    for (const ValueInfo& v : *list) names.push_back(v.name);
  names.push_back("no such value");
  int checked = 0;
  for (const std::string& v : names) {
    if (v.empty()) continue;
    long producer = -1;
    std::vector<std::pair<size_t, size_t>> uses;
    const TypeInfo* type = nullptr;
    const Tensor *init = nullptr, *constant = nullptr;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const auto& o : n.outputs)
        if (o == v && producer < 0) producer = static_cast<long>(i);
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == v) uses.push_back({i, k});
      if (!constant && n.is("Constant") && n.outputs.size() == 1 && n.outputs[0] == v)
        if (const Attribute* a = n.attr("value"); a && !a->tensors.empty()) constant = &a->tensors[0];
    }
    for (const Tensor& t : g.initializers)
      if (!init && t.name == v) init = &t;
    TypeInfo fromTensor;
    if (init || constant) {
      const Tensor* t = init ? init : constant;
      fromTensor = TypeInfo::tensor(t->dtype, Shape::of(t->dims));
      type = &fromTensor;
    }
    for (const ValueInfo& vi : g.valueInfo)
      if (vi.name == v) type = &vi.type;
    bool input = false, output = false;
    for (const ValueInfo& vi : g.inputs)
      if (vi.name == v) {
        input = true;
        if (vi.type.kind != TypeInfo::Kind::None) type = &vi.type;
      }
    for (const ValueInfo& vi : g.outputs)
      if (vi.name == v) {
        output = true;
        const bool better = !type || !type->shape || (vi.type.shape && vi.type.shape->fullyKnown());
        if (vi.type.kind != TypeInfo::Kind::None && better) type = &vi.type;
      }
    const TypeInfo* got = idx.type(v);
    bool same = idx.producer(v) == producer && idx.isGraphInput(v) == input && idx.isGraphOutput(v) == output &&
                idx.initializer(v) == init && idx.constant(v) == (init ? (input ? nullptr : init) : constant) &&
                (got == nullptr) == (type == nullptr);
    if (same && got) same = got->kind == type->kind && got->elem == type->elem && got->shape == type->shape;
    const auto cs = idx.consumers(v);
    same = same && cs.size() == uses.size();
    for (size_t k = 0; same && k < cs.size(); ++k) same = cs[k].node == uses[k].first && cs[k].operand == uses[k].second;
    if (!same) {
      qWarning("GraphIndex differs from a scan on '%s'", v.c_str());
      return -1;
    }
    ++checked;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    long byName = -1;
    for (size_t j = 0; j < g.nodes.size() && byName < 0; ++j)
      if (g.nodes[j].name == g.nodes[i].name) byName = static_cast<long>(j);
    if (idx.indexOfName(g.nodes[i].name) != byName || idx.indexOf(g.nodes[i].id) < 0) return -1;
  }
  return checked;
}

}  // namespace

class TestScalePaths : public QObject {
  Q_OBJECT
 private slots:
  void geluBatchEqualsPerNode() {
    test::ModelBuilder b("gelus", 17);
    const auto x = b.input("x", {2, 8});
    // One value feeding three GELUs: the per-node code reports the first consumer's chain only.
    const auto g1 = b.gelu(x), g2 = b.gelu(x);
    // A value read by many Muls (a rotary table), one of them scaling x by 1/sqrt(2) (the third).
    auto acc = b.add(g1, g2);
    for (int k = 0; k < 40; ++k) acc = b.mul(acc, x);
    auto h = b.mul(x, b.scalar(0.70710678f));
    h = b.erf(h);
    h = b.add(h, b.scalar(1.0f));
    h = b.mul(h, x);
    h = b.mul(h, b.scalar(0.5f));
    b.output(b.add(acc, h), "y");
    const Model m = b.build();
    QCOMPARE(compareGelu(m.graph), 1);
  }

  void geluBatchEqualsPerNodeOnGeneratedModels() {
    test::TempDir dir("scale_paths");
    auto bert = tools::writeBert(tools::bertFor({2000, 0}), {}, dir / "bert.onnx");
    QVERIFY(bert.ok());
    auto m = loadModel(bert->model);
    QVERIFY(m.ok());
    QCOMPARE(compareGelu(m->graph), bert->layers);  // one per layer
    auto llama = tools::writeLlama(tools::llamaFor({2000, 0}), {}, dir / "llama.onnx");
    QVERIFY(llama.ok());
    auto l = loadModel(llama->model);
    QVERIFY(l.ok());
    QCOMPARE(compareGelu(l->graph), 0);
  }

  // Twice-produced values, a shadowed initializer, a Constant named like an initializer, value_info
  // and outputs overriding types, an initializer that is also an input.
  void graphIndexAnswersAsAScan() {
    test::ModelBuilder b("index", 17);
    const auto x = b.input("x", {2, 4});
    const auto w = b.weight("w", {2, 4}, 1.0);
    const auto y = b.add(x, w);
    const auto z = b.mul(y, y);
    b.output(b.add(z, b.constant({2, 4}, std::vector<float>(8, 1.0f))), "out");
    Model m = b.build(true);
    Graph& g = m.graph;
    Node dup = g.nodes[0];  // a second producer of y, later in the file
    dup.name = "dup";
    g.addNode(dup);
    g.inputs.push_back({w, TypeInfo::tensor(DType::Float, Shape{2, 4}), {}, {}});  // overridable weight
    g.valueInfo.push_back({y, TypeInfo::tensor(DType::Float, Shape{9, 9}), {}, {}});  // the last one counts
    g.outputs.push_back({z, TypeInfo{}, {}, {}});  // untyped output: value_info stays
    Node c;  // a Constant whose output is also an initializer
    c.name = "shadow";
    c.opType = "Constant";
    c.outputs = {w};
    c.attributes.push_back(Attribute::makeTensor("value", Tensor::fromValues<float>("t", DType::Float, {1}, {3.0f})));
    g.addNode(c);
    QVERIFY(compareIndex(g) > 5);
  }

  void graphIndexAnswersAsAScanOnGeneratedAndCorpusModels() {
    test::TempDir dir("scale_index");
    auto llama = tools::writeLlama(tools::llamaFor({600, 0}), {}, dir / "llama.onnx");
    QVERIFY(llama.ok());
    auto l = loadModel(llama->model);
    QVERIFY(l.ok());
    QVERIFY(inferShapes(*l, {{{"batch", 1}, {"sequence", 8}}}).ok());
    QVERIFY(compareIndex(l->graph) > 600);
    if (!test::hasCorpus()) return;
    for (const char* name : {"resnet18.onnx", "bert_like_encoder.onnx", "mobilenet_v2.onnx"}) {
      auto m = loadModel(test::corpusModel(name));
      QVERIFY(m.ok());
      (void)inferShapes(*m);
      QVERIFY2(compareIndex(m->graph) > 0, name);
    }
  }

  void geluBatchEqualsPerNodeOnTheCorpus() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    for (const auto& path : test::corpusModels()) {
      auto m = loadModel(path);
      if (!m) continue;
      (void)inferShapes(*m);
      QVERIFY2(compareGelu(m->graph) >= 0, path.filename().c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestScalePaths)
#include "tst_scale_paths.moc"
