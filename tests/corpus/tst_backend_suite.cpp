// ONNX's own backend test suite (Debian libonnx-testdata): every model is imported into the IR,
// exported again, and the exported bytes run by ONNX Runtime on each test_data_set_*; outputs
// must match the references (rtol 1e-3, atol 1e-7, as ONNX's backend tests). The original file
// runs too, as the control: what the runtime cannot run or gets wrong from the original is
// skipped with its reason; everything else that fails is a bug in our import or export.
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "model/onnx_io.h"
#include "profile/model_inputs.h"
#include "profile/ort_session.h"
#include "profile/value_compare.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

enum class Outcome { Pass, Fail, Skip };

struct CaseResult {
  Outcome outcome = Outcome::Pass;
  std::string reason;
};

std::vector<fs::path> dataSets(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// References: output_<k>.pb for the k-th graph output, read as the output's declared kind.
Result<std::vector<DataValue>> loadReferences(const Model& m, const fs::path& set) {
  std::vector<DataValue> out;
  for (size_t k = 0; k < m.graph.outputs.size(); ++k) {
    fs::path f = set / ("output_" + std::to_string(k) + ".pb");
    auto v = loadDataValue(f, m.graph.outputs[k].type.kind);
    if (!v) return v.error();
    // ONNX up to 1.13 stored bfloat16 test data as its uint16 bit patterns.
    if (v->kind == DataValue::Kind::Tensor && v->tensor.dtype == DType::UInt16 &&
        m.graph.outputs[k].type.elem == DType::BFloat16)
      v->tensor.dtype = DType::BFloat16;
    out.push_back(std::move(*v));
  }
  return out;
}

std::string firstLine(std::string s) {
  for (const char* prefix : {"ONNX Runtime cannot load the model: ", "ONNX Runtime failed to run the model: "})
    if (s.rfind(prefix, 0) == 0) s.erase(0, std::strlen(prefix));
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  if (s.size() > 300) s = s.substr(0, 300) + "…";
  return s;
}

// Runs one session on every data set; "" when all outputs match, otherwise what went wrong.
std::string runAndCompare(const OrtSession& s, const std::vector<std::vector<DataValue>>& inputs,
                          const std::vector<std::vector<DataValue>>& refs, bool* runFailed) {
  *runFailed = false;
  for (size_t d = 0; d < inputs.size(); ++d) {
    auto out = s.run(inputs[d]);
    if (!out) {
      *runFailed = true;
      return firstLine(out.error().message);
    }
    if (out->size() != refs[d].size())
      return std::to_string(out->size()) + " outputs, the reference has " + std::to_string(refs[d].size());
    for (size_t k = 0; k < out->size(); ++k) {
      Comparison c = compareValues((*out)[k], refs[d][k]);
      if (!c.equal)
        return "test_data_set_" + std::to_string(d) + " output " + std::to_string(k) + ": " + c.firstMismatch + " (" +
               std::to_string(c.mismatches) + " mismatches, max abs error " + std::to_string(c.maxAbsError) + ")";
    }
  }
  return {};
}

CaseResult runCase(const fs::path& dir) {
  const fs::path file = dir / "model.onnx";
  if (!fs::exists(file)) return {Outcome::Skip, "no model.onnx"};
  auto sets = dataSets(dir);
  if (sets.empty()) return {Outcome::Skip, "no test_data_set_* (the folder only names a download)"};

  auto model = loadModel(file);
  if (!model) return {Outcome::Fail, "import: " + model.error().describe()};
  auto bytes = serializeModel(*model);
  if (!bytes) return {Outcome::Fail, "export: " + bytes.error().describe()};

  std::vector<std::vector<DataValue>> inputs, refs;
  for (const auto& set : sets) {
    InputOptions lenient;
    lenient.checkShapes = false;  // a few data sets disagree with their model: the control run judges
    auto in = loadInputs(*model, set, lenient);
    if (!in) return {Outcome::Fail, "inputs: " + in.error().describe()};
    auto ref = loadReferences(*model, set);
    if (!ref) return {Outcome::Fail, "references: " + ref.error().describe()};
    inputs.push_back(std::move(*in));
    refs.push_back(std::move(*ref));
  }

  // The control: the original file as ONNX Runtime reads it.
  auto original = OrtSession::fromFile(file);
  if (!original) {
    const std::string msg = firstLine(original.error().message);
    const std::string runtime = "ONNX Runtime " + ortVersion().substr(12);
    const std::string marker = "Could not find an implementation for ";
    if (auto at = msg.find(marker); at != std::string::npos) {
      std::string op = msg.substr(at + marker.size());
      op = op.substr(0, op.find(')') + 1);
      return {Outcome::Skip, runtime + " has no kernel for " + op + " (the original does not load either)"};
    }
    return {Outcome::Skip, runtime + " cannot load the original either: " + msg};
  }
  bool runFailed = false;
  if (std::string why = runAndCompare(*original, inputs, refs, &runFailed); !why.empty())
    return {Outcome::Skip, std::string(runFailed ? "ONNX Runtime fails on the original too: "
                                                 : "ONNX Runtime's result on the original differs from the reference: ") +
                               why};

  auto exported = OrtSession::fromBytes(*bytes, {}, file.string() + " (exported)");
  if (!exported) return {Outcome::Fail, "the exported model does not load: " + firstLine(exported.error().message)};
  if (std::string why = runAndCompare(*exported, inputs, refs, &runFailed); !why.empty())
    return {Outcome::Fail, "exported model: " + why};
  return {};
}

}  // namespace

class TestBackendSuite : public QObject {
  Q_OBJECT
  int m_passed = 0, m_failed = 0, m_skipped = 0;

 private slots:
  void cleanupTestCase() {
    std::printf("backend suite: %d passed, %d failed, %d skipped\n", m_passed, m_failed, m_skipped);
  }

  void folder_data() {
    QTest::addColumn<QString>("folder");
    for (const char* f : {"node", "pytorch-converted", "pytorch-operator", "simple", "real"}) QTest::newRow(f) << f;
  }

  void folder() {
    QFETCH(QString, folder);
    const fs::path root = test::onnxTestData() / folder.toStdString();
    if (!fs::is_directory(root)) QSKIP("libonnx-testdata is not installed");
    std::vector<fs::path> cases;
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory()) cases.push_back(e.path());
    std::sort(cases.begin(), cases.end());
    int passed = 0, failed = 0, skipped = 0;
    std::map<std::string, int> skipKinds;
    for (const auto& dir : cases) {
      CaseResult r = runCase(dir);
      const std::string name = folder.toStdString() + "/" + dir.filename().string();
      switch (r.outcome) {
        case Outcome::Pass: ++passed; break;
        case Outcome::Fail:
          ++failed;
          std::printf("FAIL %s: %s\n", name.c_str(), r.reason.c_str());
          break;
        case Outcome::Skip:
          ++skipped;
          std::printf("SKIP %s: %s\n", name.c_str(), r.reason.c_str());
          break;
      }
    }
    m_passed += passed;
    m_failed += failed;
    m_skipped += skipped;
    std::printf("%s: %d passed, %d failed, %d skipped (of %zu)\n", folder.toStdString().c_str(), passed, failed, skipped,
                cases.size());
    std::fflush(stdout);
    QCOMPARE(failed, 0);
    QVERIFY(passed + skipped == static_cast<int>(cases.size()));
  }
};

QTEST_GUILESS_MAIN(TestBackendSuite)
#include "tst_backend_suite.moc"
