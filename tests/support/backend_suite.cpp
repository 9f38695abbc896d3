#include "backend_suite.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "model/onnx_io.h"
#include "profile/model_inputs.h"
#include "profile/value_compare.h"
#include "test_paths.h"

namespace fs = std::filesystem;

namespace msa::test {
namespace {

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

}  // namespace

std::vector<fs::path> backendCases(const std::string& folder) {
  const fs::path root = onnxTestData() / folder;
  std::vector<fs::path> cases;
  if (!fs::is_directory(root)) return cases;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string firstLine(std::string s) {
  for (const char* prefix : {"ONNX Runtime cannot load the model: ", "ONNX Runtime failed to run the model: "})
    if (s.rfind(prefix, 0) == 0) s.erase(0, std::strlen(prefix));
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  if (s.size() > 300) s = s.substr(0, 300) + "…";
  return s;
}

std::optional<BackendCase> loadBackendCase(const fs::path& dir, CaseResult* why) {
  BackendCase c;
  c.dir = dir;
  c.file = dir / "model.onnx";
  if (!fs::exists(c.file)) {
    *why = {Outcome::Skip, "no model.onnx"};
    return std::nullopt;
  }
  auto sets = dataSets(dir);
  if (sets.empty()) {
    *why = {Outcome::Skip, "no test_data_set_* (the folder only names a download)"};
    return std::nullopt;
  }
  auto model = loadModel(c.file);
  if (!model) {
    *why = {Outcome::Fail, "import: " + model.error().describe()};
    return std::nullopt;
  }
  c.model = std::move(*model);
  for (const auto& set : sets) {
    InputOptions lenient;
    lenient.checkShapes = false;  // a few data sets disagree with their model: the control run judges
    auto in = loadInputs(c.model, set, lenient);
    if (!in) {
      *why = {Outcome::Fail, "inputs: " + in.error().describe()};
      return std::nullopt;
    }
    auto ref = loadReferences(c.model, set);
    if (!ref) {
      *why = {Outcome::Fail, "references: " + ref.error().describe()};
      return std::nullopt;
    }
    c.inputs.push_back(std::move(*in));
    c.references.push_back(std::move(*ref));
  }
  return c;
}

std::string runAndCompare(const OrtSession& s, const BackendCase& c, bool* runFailed) {
  *runFailed = false;
  for (size_t d = 0; d < c.inputs.size(); ++d) {
    auto out = s.run(c.inputs[d]);
    if (!out) {
      *runFailed = true;
      return firstLine(out.error().message);
    }
    const auto& refs = c.references[d];
    if (out->size() != refs.size())
      return std::to_string(out->size()) + " outputs, the reference has " + std::to_string(refs.size());
    for (size_t k = 0; k < out->size(); ++k) {
      Comparison cmp = compareValues((*out)[k], refs[k]);
      if (!cmp.equal)
        return "test_data_set_" + std::to_string(d) + " output " + std::to_string(k) + ": " + cmp.firstMismatch + " (" +
               std::to_string(cmp.mismatches) + " mismatches, max abs error " + std::to_string(cmp.maxAbsError) + ")";
    }
  }
  return {};
}

std::optional<CaseResult> controlRun(const BackendCase& c) {
  auto original = OrtSession::fromFile(c.file);
  if (!original) {
    const std::string msg = firstLine(original.error().message);
    const std::string runtime = "ONNX Runtime " + ortVersion().substr(12);
    const std::string marker = "Could not find an implementation for ";
    if (auto at = msg.find(marker); at != std::string::npos) {
      std::string op = msg.substr(at + marker.size());
      op = op.substr(0, op.find(')') + 1);
      return CaseResult{Outcome::Skip, runtime + " has no kernel for " + op + " (the original does not load either)"};
    }
    return CaseResult{Outcome::Skip, runtime + " cannot load the original either: " + msg};
  }
  bool runFailed = false;
  if (std::string why = runAndCompare(*original, c, &runFailed); !why.empty())
    return CaseResult{Outcome::Skip, std::string(runFailed ? "ONNX Runtime fails on the original too: "
                                                           : "ONNX Runtime's result on the original differs from the reference: ") +
                                         why};
  return std::nullopt;
}

void Tally::add(const std::string& name, const CaseResult& r) {
  switch (r.outcome) {
    case Outcome::Pass: ++m_passed; break;
    case Outcome::Fail:
      ++m_failed;
      std::printf("FAIL %s: %s\n", name.c_str(), r.reason.c_str());
      break;
    case Outcome::Skip:
      ++m_skipped;
      std::printf("SKIP %s: %s\n", name.c_str(), r.reason.c_str());
      break;
  }
}

void Tally::print(const std::string& label) const {
  std::printf("%s: %d passed, %d failed, %d skipped\n", label.c_str(), m_passed, m_failed, m_skipped);
  std::fflush(stdout);
}

}  // namespace msa::test
