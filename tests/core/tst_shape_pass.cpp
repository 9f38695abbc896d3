// Shape inference in one pass over the IR (shape_pass.h) against ONNX's whole-graph inference
// with folding rounds (ShapeOptions::onePass = false), on every model at hand: the corpus, the
// ONNX backend suite, generated language models and bit-flipped corpus files. The value types
// must be identical, dim for dim, except for the names inference makes up for dims it cannot
// name ("unk__N": numbered in the order nodes are inferred, which the passes do differently).
// A difference is reported as a refinement (known better now) or a loss, with the first value.
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

// Whether `now` knows at least what `before` knew: the same kind, element type and rank where
// those were known, every known dim the same, every named dim named the same or known.
bool refines(const TypeInfo& before, const TypeInfo& now) {
  if (before.kind == TypeInfo::Kind::None) return true;
  if (now.kind != before.kind || (before.elem != DType::Undefined && now.elem != before.elem)) return false;
  if (!before.shape) return true;
  if (!now.shape || now.shape->dims.size() != before.shape->dims.size()) return false;
  for (size_t i = 0; i < before.shape->dims.size(); ++i) {
    const Dim& b = before.shape->dims[i];
    const Dim& n = now.shape->dims[i];
    if (b.known() && n.value != b.value) return false;
    if (!b.known() && !b.param.empty() && !madeUp(b.param) && !n.known() && n.param != b.param) return false;
  }
  return true;
}

std::string describe(const TypeInfo& t) {
  std::string s = std::to_string(static_cast<int>(t.kind)) + ":" + std::to_string(static_cast<int>(t.elem));
  if (!t.shape) return s + " rank?";
  s += " [";
  for (const Dim& d : t.shape->dims)
    s += (d.known() ? std::to_string(d.value) : madeUp(d.param) ? std::string("?") : d.param.empty() ? "_" : d.param) + ",";
  return s + "]";
}

// Every value type the graph holds (value_info, then graph outputs), by name.
std::map<std::string, TypeInfo> types(const Graph& g) {
  std::map<std::string, TypeInfo> out;
  for (const ValueInfo& v : g.valueInfo) out[v.name] = v.type;
  for (const ValueInfo& v : g.outputs) out["output:" + v.name] = v.type;
  return out;
}

struct Run {
  std::map<std::string, TypeInfo> types;
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
  run.types = types(m.graph);
  return run;
}

struct Tally {
  int models = 0, onePass = 0, identical = 0, refined = 0;
  std::vector<std::string> losses, refinements;
  double legacyMs = 0, onePassMs = 0;
};

// Both ways on one model: identical, refined (the first value known better is recorded) or a
// loss (the first value known worse is recorded).
void compare(const std::string& label, const Model& m, Tally& tally, const ShapeOptions& options = {}) {
  ++tally.models;
  tally.onePass += onePassApplies(m);
  const Run legacy = infer(m, false, options);
  const Run one = infer(m, true, options);
  tally.legacyMs += legacy.ms;
  tally.onePassMs += one.ms;
  auto same = [](const std::map<std::string, TypeInfo>& a, const std::map<std::string, TypeInfo>& b) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia->first != ib->first || describe(ia->second) != describe(ib->second)) return false;
    return true;
  };
  if (legacy.ok == one.ok && same(legacy.types, one.types)) {
    ++tally.identical;
    return;
  }
  std::string lost, better;
  if (legacy.ok != one.ok) lost = "one of them failed";
  for (const auto& [name, t] : legacy.types) {
    auto it = one.types.find(name);
    if (lost.empty() && (it == one.types.end() ? t.kind != TypeInfo::Kind::None : !refines(t, it->second)))
      lost = "'" + name + "' " + describe(t) + " before, " + (it == one.types.end() ? "nothing" : describe(it->second)) + " now";
    if (better.empty() && it != one.types.end() && describe(it->second) != describe(t))
      better = "'" + name + "' " + describe(t) + " before, " + describe(it->second) + " now";
  }
  for (const auto& [name, t] : one.types)
    if (better.empty() && !legacy.types.count(name)) better = "'" + name + "' " + describe(t) + " only now";
  if (!lost.empty()) {
    tally.losses.push_back(label + ": " + lost);
  } else {
    ++tally.refined;
    tally.refinements.push_back(label + ": " + better);
  }
}

void report(const char* what, const Tally& t) {
  qInfo("%s: %d models (%d without subgraphs), %d identical, %d refined, %zu with a loss; inference %.0f ms before, %.0f ms now",
        what, t.models, t.onePass, t.identical, t.refined, t.losses.size(), t.legacyMs, t.onePassMs);
  for (size_t i = 0; i < t.refinements.size() && i < 40; ++i) qInfo("  refined %s", t.refinements[i].c_str());
  for (size_t i = 0; i < t.losses.size() && i < 40; ++i) qWarning("  LOSS %s", t.losses[i].c_str());
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
        // One file at a time: 300 copies of these models are 4 GB, more than a CI disk may hold.
        const fs::path p = dir / (std::string(name) + "." + std::to_string(k) + ".onnx");
        {
          std::ofstream out(p, std::ios::binary);
          out.write(mutated.data(), static_cast<std::streamsize>(mutated.size()));
          out.close();
          QVERIFY2(out.good(), qPrintable("cannot write " + QString::fromStdString(p.string())));
        }
        auto m = loadModel(p);
        if (m) {
          const size_t losses = t.losses.size();
          compare(p.filename().string(), *m, t);
          if (t.losses.size() > losses)  // kept for a look: the directory goes with the test
            fs::copy_file(p, test::binaryDir() / ("shape_pass_loss_" + p.filename().string()),
                          fs::copy_options::overwrite_existing);
        }
        fs::remove(p);
      }
    }
    report("bit flips", t);
    QVERIFY(t.models >= 30);
    QCOMPARE(t.identical, t.models);
  }
};

QTEST_GUILESS_MAIN(TestShapePass)
#include "tst_shape_pass.moc"
