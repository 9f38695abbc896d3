#include <vector>

#include "optimize/pass.h"
#include "optimize/passes/pass_util.h"

namespace msa {

std::string_view levelName(OptLevel l) {
  switch (l) {
    case OptLevel::Conservative: return "conservative";
    case OptLevel::Moderate: return "moderate";
    case OptLevel::Aggressive: return "aggressive";
  }
  return "conservative";
}

bool parseLevel(std::string_view s, OptLevel& out) {
  for (OptLevel l : {OptLevel::Conservative, OptLevel::Moderate, OptLevel::Aggressive})
    if (levelName(l) == s) {
      out = l;
      return true;
    }
  return false;
}

std::span<const std::unique_ptr<Pass>> builtinPasses() {
  static const std::vector<std::unique_ptr<Pass>> passes = [] {
    std::vector<std::unique_ptr<Pass>> v;
    // Clean-ups that expose patterns first, then folds, then fusions; dead code last.
    v.push_back(makeEliminateIdentity());
    v.push_back(makeFoldConstants());
    v.push_back(makeEliminateNopCast());
    v.push_back(makeEliminateCastRoundtrip());
    v.push_back(makeEliminateNopPad());
    v.push_back(makeEliminateNopExpand());
    v.push_back(makeEliminateNopReshape());
    v.push_back(makeMergeReshapes());
    v.push_back(makeCancelTransposes());
    v.push_back(makePushTransposeThroughElementwise());
    v.push_back(makeEliminateSliceConcat());
    v.push_back(makeFoldBnIntoConv());
    v.push_back(makeFoldBnIntoGemm());
    v.push_back(makeFuseMatMulAddIntoGemm());
    v.push_back(makeFoldAddIntoBias());
    v.push_back(makeFuseLayerNorm());
    v.push_back(makeFuseSoftmax());
    v.push_back(makeEliminateDeadCode());
    // Aggressive, runtime-specific: after the portable passes, so they fuse what those left.
    // fuse_gelu writes com.microsoft Gelu below opset 20 (ONNX Gelu from 20 on, still aggressive).
    v.push_back(makeFuseGelu());
    // Before fuse_matmul_scale, which would take the scores' MatMul·scale out of the pattern.
    v.push_back(makeFuseAttention());
    v.push_back(makeFuseSkipLayerNorm());
    v.push_back(makeFuseSkipRmsNorm());
    v.push_back(makeFuseRotary());
    v.push_back(makeFuseConvActivation());
    v.push_back(makeFuseGemmActivation());
    v.push_back(makeFuseMatMulBiasActivation());
    v.push_back(makeFuseMatMulScale());
    v.push_back(makeOrtOfflineOptimize());  // runs last, once
    return v;
  }();
  return passes;
}

const Pass* findPass(std::string_view id) {
  for (const auto& p : builtinPasses())
    if (p->info().id == id) return p.get();
  return nullptr;
}

}  // namespace msa
