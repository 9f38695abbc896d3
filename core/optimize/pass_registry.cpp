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
    v.push_back(makeEliminateIdentity());
    v.push_back(makeCancelTransposes());
    v.push_back(makeFoldBnIntoConv());
    v.push_back(makeFoldBnIntoGemm());
    v.push_back(makeEliminateDeadCode());
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
