// Shape inference in one pass over the IR (shape_pass.h) against ONNX's whole-graph inference
// with folding rounds (ShapeOptions::onePass = false), on every model at hand: the corpus, the
// ONNX backend suite, generated language models and bit-flipped corpus files. The value types
// must be identical, dim for dim, except for the names inference makes up for dims it cannot
// name ("unk__N": numbered in the order nodes are inferred, which the passes do differently).
#include <QtTest>

#include <chrono>
#include <fstream>
#include <map>
#include <random>

#include "large_models.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model/shape_pass.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

bool madeUp(const std::string& param) { return param.rfind("unk__", 0) == 0; }

std::string describe(const TypeInfo& t) {
  std::string s = std::to_string(static_cast<int>(t.kind)) + ":" + std::to_string(static_cast<int>(t.elem));
  if (!t.shape) return s + " rank?";
  s += " [";
  for (const Dim& d : t.shape->dims)
    s += (d.known() ? std::to_string(d.value) : madeUp(d.param) ? std::string("?") : d.param.empty() ? "_" : d.param) + ",";
  return s + "]";
}

// Every value type the graph holds (value_info, then graph outputs, which win), by name.
std::map<std::string, std::string> types(const Graph& g) {
  std::map<std::string, std::string> out;
  for (const ValueInfo& v : g.valueInfo) out[v.name] = describe(v.type);
  for (const ValueInfo& v : g.outputs) out["output:" + v.name] = describe(v.type);
  return out;
}

struct Run {
  std::map<std::string, std::string> types;
  size_t withShape = 0;
  double ms = 0;
  bool ok = false;
};

Run infer(Model m, bool onePass, const ShapeOptions& base = {}) {
  ShapeOptions o = base;
  o.onePass = onePass;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = inferShapes(m, o);
  Run run;
  run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  run.ok = r.ok();
  if (r) run.withShape = r->valuesWithShape;
  run.types = types(m.graph);
  return run;
}

struct Tally {
  int models = 0, onePass = 0, identical = 0;
  std::vector<std::string> differences;
  double legacyMs = 0, onePassMs = 0;
};

// Both ways on one model; a difference is recorded with the first value that differs.
void compare(const std::string& label, const Model& m, Tally& tally, const ShapeOptions& options = {}) {
  ++tally.models;
  tally.onePass += onePassApplies(m);
  const Run legacy = infer(m, false, options);
  const Run one = infer(m, true, options);
  tally.legacyMs += legacy.ms;
  tally.onePassMs += one.ms;
  if (legacy.ok == one.ok && legacy.types == one.types) {
    ++tally.identical;
    return;
  }
  std::string what = label + ": ";
  if (legacy.ok != one.ok) what += "one failed; ";
  for (const auto& [name, t] : legacy.types) {
    auto it = one.types.find(name);
    if (it == one.types.end()) {
      what += "'" + name + "' " + t + " only before";
      break;
    }
    if (it->second != t) {
      what += "'" + name + "' " + t + " before, " + it->second + " now";
      break;
    }
  }
  if (legacy.types.size() < one.types.size())
    for (const auto& [name, t] : one.types)
      if (!legacy.types.count(name)) {
        what += "; '" + name + "' " + t + " only now";
        break;
      }
  tally.differences.push_back(what);
}

void report(const char* what, const Tally& t) {
  qInfo("%s: %d models (%d in one pass), %d identical; inference %.0f ms before, %.0f ms now", what, t.models,
        t.onePass, t.identical, t.legacyMs, t.onePassMs);
  for (size_t i = 0; i < t.differences.size() && i < 40; ++i) qWarning("  %s", t.differences[i].c_str());
}

}  // namespace

class TestShapePass : public QObject {
  Q_OBJECT
 private slots:
  void corpusIsIdentical() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    Tally t;
    for (const fs::path& p : test::corpusModels()) {
      auto m = loadModel(p);
      if (!m) continue;
      compare(p.filename().string(), *m, t);
    }
    report("corpus", t);
    QVERIFY(t.models >= 10);
    QCOMPARE(t.identical, t.models);
  }

  void backendSuiteIsIdentical() {
    const fs::path root = test::onnxTestData();
    if (!fs::exists(root)) QSKIP("no libonnx-testdata");
    Tally t;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.path().extension() == ".onnx") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      auto m = loadModel(p);
      if (!m) continue;
      compare(fs::relative(p, root).string(), *m, t);
    }
    report("backend suite", t);
    QVERIFY(t.models >= 900);
    QCOMPARE(t.identical, t.models);
  }

  // Language models as exporters write them, with the dims bound and left symbolic.
  void generatedModelsAreIdentical() {
    test::TempDir dir("shape_pass");
    Tally t;
    tools::WriteOptions dynamic;
    tools::WriteOptions fixed;
    fixed.dynamicShapes = false;
    fixed.float16 = true;
    ShapeOptions bound;
    bound.dims = {{"batch", 1}, {"sequence", 128}};
    for (const auto& [name, o] : {std::pair("dynamic", dynamic), std::pair("static_fp16", fixed)}) {
      auto llama = tools::writeLlama(tools::llamaFor({1000, 0}, o), o, dir / ("llama_" + std::string(name) + ".onnx"));
      QVERIFY(llama.ok());
      auto bert = tools::writeBert(tools::bertFor({1000, 0}, o), o, dir / ("bert_" + std::string(name) + ".onnx"));
      QVERIFY(bert.ok());
      for (const fs::path& p : {llama->model, bert->model}) {
        auto m = loadModel(p);
        QVERIFY(m.ok());
        compare(p.filename().string() + " (dims bound)", *m, t, bound);
        compare(p.filename().string() + " (symbolic)", *m, t);
      }
    }
    report("generated", t);
    QCOMPARE(t.onePass, t.models);
    QCOMPARE(t.identical, t.models);
  }

  // Corrupted files that still load (bit flips in three corpus models): the same types, or the
  // same failure, both ways.
  void bitFlippedFilesAreIdentical() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    test::TempDir dir("shape_pass_flips");
    Tally t;
    std::mt19937_64 rng(20261202);
    for (const char* name : {"bert_like_encoder.onnx", "mobilenet_v2.onnx", "squeezenet1_1.onnx"}) {
      std::ifstream in(test::corpusModel(name), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      QVERIFY(!bytes.empty());
      for (int k = 0; k < 100; ++k) {
        std::string mutated = bytes;
        // Flips in the graph structure (the front of the file), where they change something.
        const size_t span = std::min<size_t>(mutated.size(), 64 * 1024);
        for (int f = 0; f < 4; ++f) mutated[rng() % span] ^= static_cast<char>(1u << (rng() % 8));
        const fs::path p = dir / (std::string(name) + "." + std::to_string(k) + ".onnx");
        std::ofstream(p, std::ios::binary).write(mutated.data(), static_cast<std::streamsize>(mutated.size()));
        auto m = loadModel(p);
        if (!m) continue;
        compare(p.filename().string(), *m, t);
      }
    }
    report("bit flips", t);
    QVERIFY(t.models >= 30);
    QCOMPARE(t.identical, t.models);
  }
};

QTEST_GUILESS_MAIN(TestShapePass)
#include "tst_shape_pass.moc"
