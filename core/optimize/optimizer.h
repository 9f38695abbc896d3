#pragma once
// The pass manager: runs the passes a level allows, in registry order, repeated to a fixed point;
// verifies after every pass that changed something and rolls back (bisecting to the offending
// rewrite when that is cheap) what breaks verification; records every applied and rolled-back
// rewrite, the finding each resolves, and the op-count/size table before and after.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/graph.h"
#include "optimize/pass.h"
#include "optimize/verify.h"
#include "rules/finding.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct OptimizeOptions {
  OptLevel level = OptLevel::Conservative;
  std::vector<std::string> only;  // pass ids; empty: every pass of the level
  std::vector<std::string> skip;  // pass ids never run
  bool verify = true;             // compare outputs with the original after each changing pass
  VerifyOptions verification;     // inputs, dims, seed; tolerance: set from `level` unless overridden
  bool toleranceOverride = false;  // true: keep verification.tolerance as given
  // Findings of an analysis of this model: applied rewrites are matched to them (by fixPass and
  // nodes); those needing a human, or a pass the level excludes, are listed as advice.
  std::span<const Finding> findings;
  // Bind the symbolic input dims given in verification.inputs.dims into the model before the
  // passes run (--static): shapes become static, so shape arithmetic folds and shape-dependent
  // fusions match, and the result is specialised to those dims. Off: dynamic dims stay dynamic.
  bool staticDims = false;
  int maxRounds = 8;            // bound on the fixed-point iteration
  int bisectBudget = 16;        // verifications spent finding the offending rewrite of a pass
  // The passes to choose from; empty: builtinPasses(). Tests inject a deliberately broken one here.
  std::vector<const Pass*> passes;
};

struct RolledBack {
  Rewrite rewrite;
  std::string reason;  // the verification failure it caused
};

// Human-needed or out-of-level findings: reported, never applied.
struct Advice {
  std::string finding;  // id
  std::string rule;
  std::string reason;   // "advice only: changes the model's numbers (precision)", "needs --level aggressive"
};

struct ModelStats {
  std::map<std::string, size_t> opCounts;  // op type (domain-qualified outside ai.onnx), all graphs
  size_t nodes = 0;                        // all graphs
  size_t initializers = 0;
  int64_t weightBytes = 0;                 // bytes of initializers, all graphs
};

struct OpsetChange {
  std::string domain;  // "" = ai.onnx
  int64_t from = 0;    // 0: not imported before
  int64_t to = 0;
  std::string pass;    // the pass that needed it
};

struct OptimizeResult {
  Model model;
  OptLevel level = OptLevel::Conservative;
  std::vector<std::string> passesRun;      // ids, in order of the first round
  std::vector<Rewrite> applied;
  std::vector<RolledBack> rolledBack;
  std::vector<Advice> advice;
  std::vector<OpsetChange> opsetChanges;
  CheckerResult checker;                     // libonnx's checker on the final model (always run)
  CheckerResult originalChecker;             // and on the source: its own failures are not the passes'
  std::optional<VerifyResult> verification;  // the final model against the original
  std::string verificationSkipped;           // why there is none (verify off, original does not run)
  std::string inputsSource;
  int rounds = 0;
  ModelStats before, after;
  std::vector<std::string> warnings;  // shape inference problems and the like
};

Result<OptimizeResult> optimize(const Model& model, const OptimizeOptions& options,
                                const Progress& progress = Progress::none());

// Stats of one model (op histogram, node and weight counts).
ModelStats modelStats(const Model& model);

// The passes `options` selects at its level, in run order; a usage error names an unknown pass
// or one above the level ("fuse_conv_activation needs --level aggressive").
Result<std::vector<const Pass*>> selectPasses(const OptimizeOptions& options);

// The GUI's Apply: runs the finding's fix pass anchored at the nodes it names on `model` (in place)
// and returns what it did. Errors: no fix, not legal, unknown pass, or the pattern no longer
// matches (already applied, or the graph changed). No verification: the GUI's Verify does that.
Result<std::vector<Rewrite>> applyFinding(Model& model, const Finding& finding,
                                          const Progress& progress = Progress::none());

// The operators outside the ONNX standard that the finding's fix would write into `model`
// ("com.microsoft BiasGelu"), empty when it writes standard ONNX only. Said before Apply; such a
// fix is not offered when the analysis targets another runtime.
std::string runtimeOperatorsOfFix(const Finding& finding, const Model& model);

// The finding a rewrite resolves: same pass, and the finding's anchor (else any of its nodes) is
// among the rewrite's nodes before. Empty when none.
std::string matchFinding(const Rewrite& r, std::span<const Finding> findings);

}  // namespace msa
