#pragma once
// ONNX's backend test suite (libonnx-testdata) as test cases: a model.onnx with its
// test_data_set_* inputs and reference outputs, and the control run (the original file through
// ONNX Runtime) that tells a case the runtime cannot judge from a bug of ours.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "profile/ort_session.h"

namespace msa::test {

enum class Outcome { Pass, Fail, Skip };

struct CaseResult {
  Outcome outcome = Outcome::Pass;
  std::string reason;
};

struct BackendCase {
  std::filesystem::path dir;
  std::filesystem::path file;  // dir / "model.onnx"
  Model model;
  std::vector<std::vector<DataValue>> inputs, references;  // per data set
};

// The case folders of one suite folder ("node", "pytorch-converted"…), sorted; empty if absent.
std::vector<std::filesystem::path> backendCases(const std::string& folder);

// Loads a case; on failure `why` says whether it is a skip (no data) or a failure (import).
std::optional<BackendCase> loadBackendCase(const std::filesystem::path& dir, CaseResult* why);

// The control: the original file, as ONNX Runtime reads it, must reproduce the references.
// nullopt when it does; otherwise a Skip naming the runtime's limitation.
std::optional<CaseResult> controlRun(const BackendCase& c);

// Runs `s` on every data set; "" when all outputs match the references (ONNX's rtol 1e-3,
// atol 1e-7), otherwise what went wrong. `runFailed` tells a runtime error from a mismatch.
std::string runAndCompare(const OrtSession& s, const BackendCase& c, bool* runFailed);

// The first line of a runtime message, without the wrapper's prefix.
std::string firstLine(std::string s);

// Counts outcomes and prints FAIL/SKIP lines with their reasons as they come.
class Tally {
 public:
  void add(const std::string& name, const CaseResult& r);
  int passed() const { return m_passed; }
  int failed() const { return m_failed; }
  int skipped() const { return m_skipped; }
  int total() const { return m_passed + m_failed + m_skipped; }
  void print(const std::string& label) const;  // "label: N passed, N failed, N skipped"

 private:
  int m_passed = 0, m_failed = 0, m_skipped = 0;
};

}  // namespace msa::test
