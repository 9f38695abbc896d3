#pragma once
// Proving an optimized model still computes what the original did: the ONNX checker on its
// structure, then ONNX Runtime runs the original and the candidate on the same inputs and every
// output is compared with Polygraphy's semantics (an element fails only where both the absolute
// and the relative error exceed their tolerance).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "optimize/pass.h"
#include "profile/model_inputs.h"
#include "profile/ort_session.h"
#include "profile/value_compare.h"
#include "rules/texts.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// The tolerance a level's rewrites are held to (docs/optimizer.md, "Verification"):
// conservative 1e-5/1e-5, moderate 1e-4/1e-3, aggressive 1e-3/1e-2 (atol/rtol, both exceeded;
// atol relative to each output's scale, for the float32 re-rounding of rewritten sums).
Tolerance toleranceFor(OptLevel level);

// What libonnx's checker said. libonnx 1.12 knows ai.onnx up to opset 17 and no com.microsoft
// operators: what it cannot judge is listed in `skipped`, never silently passed.
struct CheckerResult {
  bool ran = false;     // false: the whole check was skipped (see `skipped`)
  bool passed = false;  // meaningful when ran
  std::string message;  // the checker's error, first line
  std::vector<std::string> skipped;  // "3 FusedConv nodes (com.microsoft): no schema in libonnx 1.12"
};

CheckerResult checkModel(const Model& model);

struct OutputError {
  std::string name;
  std::string runtime;  // the runtime setting both models ran with: "disabled" or "all"
  double maxAbsError = 0;
  double maxRelError = 0;
  size_t mismatches = 0;  // elements beyond both tolerances
  std::string firstMismatch;
  bool passed = true;
  double worstToleranceRatio = 0;  // the worst element's error over its tolerance (≤ 1: within)
  // Relative to the output's magnitude (value_compare.h): max |Δ| / max |reference|, cosine,
  // top-1 agreement of a [batch, classes] output (-1: not classifier-like), and why the
  // reference cannot tell a right result from a wrong one ("" when it can).
  double maxErrorToMagnitude = 0, cosine = 1, top1Agreement = -1, maxAbsReference = 0;
  std::string degenerate;
};

struct VerifyResult {
  bool passed = false;
  CheckerResult checker;
  std::vector<OutputError> outputs;
  double maxAbsError = 0, maxRelError = 0;  // over every output
  double worstToleranceRatio = 0;           // over every output: ≤ 1 when every element is within tolerance
  Tolerance tolerance;
  std::string failure;  // why it failed: the first failing output, a load error, the checker
  // Passed, but on reference outputs that cannot tell a right result from a wrong one (all zero,
  // far below atol, constant, not finite): the inputs do not exercise the model. Never "match".
  bool inconclusive = false;
};

// "these inputs do not exercise the model (output 'y' is constant): give real inputs (--inputs
// DIR, .npy/.npz)", in `lang`; empty when the verification was conclusive.
std::string inconclusiveText(const VerifyResult& result, Lang lang);

struct VerifyOptions {
  InputOptions inputs;                    // seed, float fill, symbolic dims
  std::filesystem::path inputsDir;        // a folder of NAME.pb / NAME.npy: the user's inputs
  Tolerance tolerance = toleranceFor(OptLevel::Conservative);
  int threads = 0;                        // intra-op threads for the runs (0: the runtime's default)
  // Each setting runs the original and the candidate alike and compares them. Disabled checks the
  // rewrite itself; All checks what users run (the runtime's optimizer on top of ours), which
  // catches graphs the runtime's own transformations mishandle.
  std::vector<GraphOptimization> runtimeLevels{GraphOptimization::Disabled, GraphOptimization::All};
};

// Holds the inputs and the original's outputs, so each candidate costs one session and one run.
class Verifier {
 public:
  // Runs the original once per runtime level (Disabled: the model as written). Fails with a Device
  // error when the runtime cannot run it: then nothing can be verified.
  static Result<Verifier> create(const Model& original, const VerifyOptions& options,
                                 const Progress& progress = Progress::none());

  // Checker (when asked) and outputs against the original's. A candidate the runtime cannot
  // load or run fails verification (with the runtime's message); it is not an error.
  VerifyResult check(const Model& candidate, bool runChecker = true) const;

  const std::vector<DataValue>& inputs() const { return m_inputs; }
  const std::vector<DataValue>& reference() const { return m_reference.front(); }
  std::string inputsSource() const { return m_inputsSource; }  // "seeded N(0,1), seed 1234" or the folder
  void setTolerance(const Tolerance& t) { m_options.tolerance = t; }

 private:
  VerifyOptions m_options;
  std::vector<DataValue> m_inputs;
  std::vector<std::vector<DataValue>> m_reference;  // per runtime level
  std::vector<std::string> m_outputNames;
  std::string m_inputsSource;
};

}  // namespace msa
