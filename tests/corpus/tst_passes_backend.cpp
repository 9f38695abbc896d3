// The rewrite passes through ONNX's backend test suite (Debian libonnx-testdata): every model,
// shapes inferred, gets each level's passes; where something was rewritten, the result must be
// well formed and ONNX Runtime must still match the reference outputs of every test_data_set_*
// (rtol 1e-3, atol 1e-7 as ONNX's backend tests; 1e-3/1e-5 above conservative). Cases the
// runtime cannot run, or gets wrong, from the original are skipped: they judge nothing here.
#include <QtTest>

#include <algorithm>
#include <cstdio>

#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "optimize/pass.h"
#include "pass_check.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::vector<DataValue>> refs;
};

// The data sets of a case, tensor inputs only (sequence/optional cases are not what the passes touch).
bool loadCase(const Model& m, const fs::path& dir, Case& c) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return false;
  for (const auto& set : sets) {
    InputOptions lenient;
    lenient.checkShapes = false;
    auto in = loadInputs(m, set, lenient);
    if (!in) return false;
    std::vector<Tensor> tensors;
    for (auto& v : *in) {
      if (v.kind != DataValue::Kind::Tensor) return false;
      tensors.push_back(std::move(v.tensor));
    }
    std::vector<DataValue> refs;
    for (size_t k = 0; k < m.graph.outputs.size(); ++k) {
      auto v = loadDataValue(set / ("output_" + std::to_string(k) + ".pb"), m.graph.outputs[k].type.kind);
      if (!v || v->kind != DataValue::Kind::Tensor) return false;
      if (v->tensor.dtype == DType::UInt16 && m.graph.outputs[k].type.elem == DType::BFloat16) v->tensor.dtype = DType::BFloat16;
      refs.push_back(std::move(*v));
    }
    c.inputs.push_back(std::move(tensors));
    c.refs.push_back(std::move(refs));
  }
  return true;
}

// "" when the model matches every reference.
std::string matches(const Model& m, const Case& c, const Tolerance& tol) {
  for (size_t d = 0; d < c.inputs.size(); ++d) {
    auto out = test::runOutputs(m, c.inputs[d]);
    if (!out) return out.error().describe();
    auto cmp = test::compareOutputs(*out, c.refs[d], tol);
    if (!cmp.equal) return "test_data_set_" + std::to_string(d) + ": " + cmp.message;
  }
  return {};
}

}  // namespace

class TestPassesBackend : public QObject {
  Q_OBJECT
  int m_models = 0, m_rewritten = 0, m_passed = 0, m_skipped = 0;
  std::vector<std::string> m_failures;
  std::map<std::string, int> m_byPass;

 private slots:
  void suite_data() {
    QTest::addColumn<QString>("dir");
    const fs::path root = test::onnxTestData();
    std::vector<fs::path> dirs;
    for (const char* sub : {"node", "pytorch-converted", "pytorch-operator", "simple"})
      if (fs::exists(root / sub))
        for (const auto& e : fs::directory_iterator(root / sub))
          if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      std::string row = d.parent_path().filename().string() + "/" + d.filename().string();
      QTest::newRow(row.c_str()) << QString::fromStdString(d.string());
    }
  }

  // One case: each level's passes; where anything was rewritten, the references still match.
  void suite() {
    QFETCH(QString, dir);
    const fs::path d = dir.toStdString();
    auto loaded = loadModel(d / "model.onnx");
    if (!loaded) QSKIP("does not import (the backend suite test covers import)");
    ++m_models;
    Model base = *loaded;
    (void)inferShapes(base);
    Case c;
    const bool haveData = loadCase(*loaded, d, c);
    int control = -1;  // does the runtime match the references on the original? (-1: not asked yet)
    for (OptLevel level : {OptLevel::Conservative, OptLevel::Moderate, OptLevel::Aggressive}) {
      Model m = base;
      std::string applied;
      for (const auto& p : builtinPasses())
        if (p->info().level <= level)
          for (const auto& r : p->run(m, {})) {
            applied += " " + r.pass;
            ++m_byPass[r.pass];
          }
      if (applied.empty()) continue;
      ++m_rewritten;
      const std::string label = d.parent_path().filename().string() + "/" + d.filename().string() + " @" +
                                std::string(levelName(level)) + " [" + applied + " ]";
      std::string failure;
      if (auto problem = test::graphProblem(m); !problem.empty()) {
        failure = "graph: " + problem;
      } else {
        if (!haveData) {
          ++m_skipped;
          continue;
        }
        if (control < 0) control = matches(*loaded, c, {}).empty() ? 1 : 0;
        if (control == 0) {
          ++m_skipped;
          continue;
        }
        failure = matches(m, c, level == OptLevel::Conservative ? Tolerance{} : Tolerance{1e-3, 1e-5});
      }
      if (!failure.empty()) {
        m_failures.push_back(label + ": " + failure);
        QFAIL((label + ": " + failure).c_str());
      }
      ++m_passed;
    }
  }

  void cleanupTestCase() {
    for (const auto& [pass, n] : m_byPass) std::printf("  %-36s rewrote %d case-levels\n", pass.c_str(), n);
    std::printf("passes through the backend suite: %d models, %d rewritten (case × level): %d passed, %zu failed, %d skipped\n",
                m_models, m_rewritten, m_passed, m_failures.size(), m_skipped);
  }
};

QTEST_GUILESS_MAIN(TestPassesBackend)
#include "tst_passes_backend.moc"
