// The large-model generator (tests/tools) against the product: the generated decoders and
// encoders are valid ONNX (checker, one ONNX Runtime run), import with every node and external
// weight, get every shape the generator knows from shape inference, and their repeated layers
// get the same findings, layer for layer.
#include <QtTest>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "large_models.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "onnx_verify.h"
#include "optimize/optimizer.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

ShapeOptions binding(const tools::WriteOptions& o) {
  ShapeOptions s;
  s.dims = {{"batch", o.batch}, {"sequence", o.sequence}};
  return s;
}

// Every value the generator knows has that exact shape after import and inference.
void checkShapes(const Model& m, const tools::Written& w) {
  GraphIndex idx(m.graph);
  int checked = 0;
  for (const auto& [name, dims] : w.expectedShapes) {
    const Shape* s = idx.shape(name);
    QVERIFY2(s, ("no shape for " + name).c_str());
    QVERIFY2(s->fullyKnown(), (name + " has shape " + s->str()).c_str());
    QVERIFY2(s->values() == dims, (name + ": " + s->str() + " vs " + Shape::of(dims).str()).c_str());
    QCOMPARE(static_cast<int>(idx.dtype(name)), w.expectedTypes.at(name));
    ++checked;
  }
  QVERIFY(checked > 100);
}

// "<rule> <node names with each layer index relative to the anchor's>" for every finding
// anchored in a layer, per layer.
std::vector<std::multiset<std::string>> findingsPerLayer(const Report& r, const tools::Written& w) {
  std::vector<std::multiset<std::string>> out(w.layerScopes.size());
  const std::regex layer(R"((layers?)\.(\d+)(/|$))");
  for (const Finding& f : r.findings) {
    std::smatch m;
    if (f.nodes.empty() || !std::regex_search(f.nodes[0], m, layer)) continue;
    const int anchor = std::stoi(m[2]);
    std::string sig = f.rule;
    bool local = true;  // within the anchor's layer and its neighbours; else a whole-graph summary
    for (const std::string& n : f.nodes) {
      std::string rel;
      auto begin = n.cbegin();
      for (std::smatch k; std::regex_search(begin, n.cend(), k, layer); begin = k.suffix().first) {
        const int offset = std::stoi(k[2]) - anchor;
        local = local && std::abs(offset) <= 1;
        rel += std::string(k.prefix()) + std::string(k[1]) + "." + (offset < 0 ? "" : "+") + std::to_string(offset) +
               std::string(k[3]);
      }
      sig += " " + rel + std::string(begin, n.cend());
    }
    if (local) out[static_cast<size_t>(anchor)].insert(sig);
  }
  return out;
}

void checkRepeatedFindings(const Model& m, const tools::Written& w) {
  auto device = loadDevice("ascend910b");
  QVERIFY(device.ok());
  auto report = analyze(m, *device, {}, AnalyzeOptions{});
  QVERIFY2(report.ok(), report.ok() ? "" : report.error().describe().c_str());
  const auto perLayer = findingsPerLayer(*report, w);
  QVERIFY(perLayer.size() >= 3);
  QVERIFY2(!perLayer[1].empty(), "no finding in a layer: nothing compared");
  // The last layer feeds the final norm instead of another layer: compared up to the one before.
  for (size_t i = 1; i + 1 < perLayer.size(); ++i) {
    if (perLayer[i] == perLayer[1]) continue;
    std::string diff;
    for (const auto& s : perLayer[i])
      if (!perLayer[1].count(s)) diff += "\n  + " + s;
    for (const auto& s : perLayer[1])
      if (!perLayer[i].count(s)) diff += "\n  - " + s;
    QFAIL(("layer " + std::to_string(i) + " differs from layer 1:" + diff).c_str());
  }
  qInfo("%zu findings per layer, identical over layers 1..%zu", perLayer[1].size(), perLayer.size() - 2);
}

}  // namespace

class TestLargeModels : public QObject {
  Q_OBJECT
 private slots:
  void nodeCountsAndSizesArePredicted() {
    for (int64_t nodes : {1000, 10000, 50000}) {
      const tools::LlamaSpec l = tools::llamaFor({nodes, 0});
      QVERIFY(tools::llamaNodeCount(l) >= nodes);
      QVERIFY(tools::llamaNodeCount(l) < nodes + 100);  // whole layers, one too many at most
      const tools::BertSpec b = tools::bertFor({nodes, 0});
      QVERIFY(tools::bertNodeCount(b) >= nodes && tools::bertNodeCount(b) < nodes + 100);
    }
    const int64_t eightGb = int64_t(8) << 30;
    const tools::LlamaSpec big = tools::llamaFor({1000, eightGb}, {.float16 = true});
    QVERIFY(std::llabs(tools::llamaWeightBytes(big, true) - eightGb) < eightGb / 10);
    QVERIFY(tools::llamaNodeCount(big) >= 1000 && tools::llamaNodeCount(big) < 1100);
    const tools::LlamaSpec wide = tools::llamaFor({50000, int64_t(1) << 30});
    QVERIFY(tools::llamaNodeCount(wide) >= 50000 && tools::llamaNodeCount(wide) < 50100);
    QVERIFY(std::llabs(tools::llamaWeightBytes(wide, false) - (int64_t(1) << 30)) < (int64_t(1) << 30) / 5);
    const tools::BertSpec bertBig = tools::bertFor({10000, int64_t(2) << 30});
    QVERIFY(tools::bertNodeCount(bertBig) >= 10000 && tools::bertNodeCount(bertBig) < 10100);
  }

  // A small decoder with real weights: ONNX's checker accepts it and ONNX Runtime runs it.
  void generatedModelsAreValidOnnx() {
    test::TempDir dir("large_valid");
    tools::WriteOptions o;
    o.fill = tools::Fill::Random;
    o.sequence = 16;
    tools::LlamaSpec l = tools::withHidden(tools::LlamaSpec{}, 64);
    l.layers = 2;
    l.vocab = 500;
    l.maxPositions = 64;
    auto w = tools::writeLlama(l, o, dir / "llama.onnx");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().describe().c_str());
    auto m = loadModel(w->model);
    QVERIFY(m.ok());
    QVERIFY2(test::onnxCheck(*m).ok(), test::onnxCheck(*m).ok() ? "" : test::onnxCheck(*m).error().message.c_str());
    test::OrtRunOptions run;
    run.dims = {{"batch", 1}, {"sequence", 16}};
    auto out = test::ortRun(*m, run);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QCOMPARE(out->at(0).shape, (std::vector<int64_t>{1, 16, 500}));
    QVERIFY(out->at(0).finite);

    tools::BertSpec b = tools::withHidden(tools::BertSpec{}, 64);
    b.layers = 2;
    b.vocab = 500;
    b.maxPositions = 64;
    auto wb = tools::writeBert(b, o, dir / "bert.onnx");
    QVERIFY(wb.ok());
    auto mb = loadModel(wb->model);
    QVERIFY(mb.ok());
    QVERIFY(test::onnxCheck(*mb).ok());
    auto outB = test::ortRun(*mb, run);
    QVERIFY2(outB.ok(), outB.ok() ? "" : outB.error().describe().c_str());
    QCOMPARE(outB->at(0).shape, (std::vector<int64_t>{1, 16, 64}));
    QCOMPARE(outB->at(1).shape, (std::vector<int64_t>{1, 64}));
  }

  // The GPT-2-style decoder (issue 25): valid ONNX, runs, every shape known; with static shapes the
  // aggressive optimizer rewrites each layer's attention and its pre-norm Add + LayerNorms into
  // ONNX Runtime's kernels, the outputs verified against the original.
  void gptDecoder() {
    test::TempDir dir("large_gpt");
    tools::WriteOptions o;
    o.fill = tools::Fill::Random;
    o.storage = tools::Storage::Inline;
    o.sequence = 16;
    tools::GptSpec g;
    g.layers = 2;
    g.hidden = 64;
    g.heads = 4;
    g.ffn = 256;
    g.vocab = 200;
    g.maxPositions = 16;
    auto w = tools::writeGpt(g, o, dir / "gpt.onnx");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().describe().c_str());
    auto m = loadModel(w->model);
    QVERIFY(m.ok());
    QCOMPARE(static_cast<int64_t>(m->graph.nodes.size()), w->nodes);
    QVERIFY2(test::onnxCheck(*m).ok(), test::onnxCheck(*m).ok() ? "" : test::onnxCheck(*m).error().message.c_str());
    test::OrtRunOptions run;
    run.dims = {{"batch", 1}, {"sequence", 16}};
    auto out = test::ortRun(*m, run);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QCOMPARE(out->at(0).shape, (std::vector<int64_t>{1, 16, 200}));
    QVERIFY(out->at(0).finite);
    auto shapes = inferShapes(*m, binding(o));
    QVERIFY(shapes.ok());
    checkShapes(*m, *w);

    o.dynamicShapes = false;
    auto ws = tools::writeGpt(g, o, dir / "gpt_static.onnx");
    QVERIFY(ws.ok());
    auto st = loadModel(ws->model);
    QVERIFY(st.ok());
    OptimizeOptions oo;
    oo.level = OptLevel::Aggressive;
    auto r = optimize(*st, oo);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QVERIFY(r->verification && r->verification->passed);
    std::map<std::string, int> applied;
    for (const Rewrite& rw : r->applied) ++applied[rw.pass];
    QCOMPARE(applied["fuse_attention"], 2);
    QCOMPARE(applied["fuse_skip_layernorm"], 5);  // ln_2 of each block, ln_1 of the second and ln_f (sum read on)
    QVERIFY(r->rolledBack.empty());
  }

  void llamaImportsWithEveryNodeAndShape() {
    test::TempDir dir("large_llama");
    tools::WriteOptions o;
    const tools::LlamaSpec spec = tools::llamaFor({1000, 0});
    auto w = tools::writeLlama(spec, o, dir / "llama.onnx");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().describe().c_str());
    QCOMPARE(w->nodes, tools::llamaNodeCount(spec));
    QCOMPARE(static_cast<int>(w->layerScopes.size()), spec.layers);
    // Zero weights in an external file are holes where the filesystem has them.
    QVERIFY(w->dataFileBytes >= w->weightBytes / 2);
    if (w->dataAllocatedBytes > w->dataFileBytes / 2) qWarning("this filesystem wrote the zeros: no sparse file");

    auto m = loadModel(w->model);
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().describe().c_str());
    QCOMPARE(static_cast<int64_t>(m->graph.nodes.size()), w->nodes);
    QCOMPARE(static_cast<int64_t>(m->graph.initializers.size()), w->initializers);
    int external = 0;
    for (const Tensor& t : m->graph.initializers) external += t.external.has_value();
    QVERIFY(external >= spec.layers * 7);  // every projection at least
    auto shapes = inferShapes(*m, binding(o));
    QVERIFY(shapes.ok());
    QVERIFY2(shapes->warnings.empty(), shapes->warnings.empty() ? "" : shapes->warnings[0].c_str());
    checkShapes(*m, *w);
    checkRepeatedFindings(*m, *w);
  }

  void bertImportsWithEveryNodeAndShape() {
    test::TempDir dir("large_bert");
    tools::WriteOptions o;
    o.storage = tools::Storage::Inline;
    const tools::BertSpec spec = tools::bertFor({1000, 0});
    auto w = tools::writeBert(spec, o, dir / "bert.onnx");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().describe().c_str());
    QVERIFY(w->data.empty());
    auto m = loadModel(w->model);
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().describe().c_str());
    QCOMPARE(static_cast<int64_t>(m->graph.nodes.size()), w->nodes);
    for (const Tensor& t : m->graph.initializers) QVERIFY(!t.external);
    auto shapes = inferShapes(*m, binding(o));
    QVERIFY(shapes.ok());
    QVERIFY2(shapes->warnings.empty(), shapes->warnings.empty() ? "" : shapes->warnings[0].c_str());
    checkShapes(*m, *w);
    checkRepeatedFindings(*m, *w);
  }

  // Static shapes (no shape arithmetic) and float16 weights: the shapes still follow.
  void staticFloat16Variant() {
    test::TempDir dir("large_static");
    tools::WriteOptions o;
    o.dynamicShapes = false;
    o.float16 = true;
    tools::LlamaSpec spec = tools::llamaFor({300, 0}, o);
    auto w = tools::writeLlama(spec, o, dir / "llama16.onnx");
    QVERIFY(w.ok());
    QVERIFY(w->symbolicDims.empty());
    QCOMPARE(w->nodes, tools::llamaNodeCount(spec, o));
    auto m = loadModel(w->model);
    QVERIFY(m.ok());
    auto shapes = inferShapes(*m);
    QVERIFY(shapes.ok());
    checkShapes(*m, *w);
  }
};

QTEST_GUILESS_MAIN(TestLargeModels)
#include "tst_large_models.moc"
