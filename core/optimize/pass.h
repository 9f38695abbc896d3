#pragma once
// A rewrite pass: a pattern, a legality check and a rewrite on the IR. Passes are small named
// units; the pass manager (optimizer.h) chooses them by level and verifies what they did.
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "util/progress.h"

namespace msa {

enum class OptLevel {
  Conservative,  // exact in real arithmetic; only the rounding of folded constants can differ
  Moderate,      // + rewrites that change the order or algorithm of float math (fused LayerNorm…)
  Aggressive,    // + runtime-specific operators (ONNX Runtime contrib ops, Ascend fused-op hints)
};
std::string_view levelName(OptLevel l);
bool parseLevel(std::string_view s, OptLevel& out);

// One applied rewrite, recorded so the UI can show it and undo it.
struct Rewrite {
  std::string pass;
  std::string finding;                   // id of the finding it resolves, when known
  std::vector<std::string> nodesBefore;  // names of the nodes it removed or replaced
  std::vector<std::string> nodesAfter;   // names of the nodes standing in their place
  bool runtimeSpecific = false;          // uses operators only one runtime understands
  std::string note;                      // e.g. "opset raised to 17 for LayerNormalization"
};

struct PassInfo {
  std::string_view id;       // "fold_bn_into_conv"
  OptLevel level;            // the lowest level that applies it
  bool runtimeSpecific;      // writes operators outside the standard ONNX domain
  std::string_view summary;  // one line for listings and docs
  // Runs once, after every other pass reached its fixed point: a whole-graph rewrite whose result
  // the other passes should not touch again (ort_offline_optimize).
  bool runsLast = false;
  // For a runtime-specific pass, the operators it writes ("com.microsoft BiasGelu"), said before
  // Apply; from `standardFromOpset` on (when set) it writes standard ONNX instead.
  std::string_view writes;
  int standardFromOpset = 0;
};

struct PassContext {
  // When non-empty, only matches anchored at these node names are rewritten (applying one
  // finding from the UI); otherwise every legal match is.
  std::set<std::string, std::less<>> anchors;
  const Progress* progress = nullptr;
  // Where a pass says why it declined a match it would otherwise rewrite (the optimizer reports
  // these as warnings); may be null.
  std::vector<std::string>* diagnostics = nullptr;
  void note(std::string s) const {
    if (diagnostics) diagnostics->push_back(std::move(s));
  }
  bool matches(std::string_view nodeName) const { return anchors.empty() || anchors.count(nodeName) != 0; }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const PassInfo& info() const = 0;
  // Rewrites every legal match in model.graph; returns what it did (empty: nothing matched).
  virtual std::vector<Rewrite> run(Model& model, const PassContext& ctx) const = 0;
};

// Every built-in pass, in the order the optimizer runs them.
std::span<const std::unique_ptr<Pass>> builtinPasses();
const Pass* findPass(std::string_view id);

}  // namespace msa
