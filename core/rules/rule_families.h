#pragma once
// The rule families, one factory per file in core/rules. Add a family here and in core/CMakeLists.
#include <memory>
#include <vector>

#include "rules/rule.h"

namespace msa {

using RuleFactory = std::unique_ptr<Rule> (*)();

std::unique_ptr<Rule> makeFusionRules();

inline const std::vector<RuleFactory>& ruleFamilies() {
  static const std::vector<RuleFactory> families = {
      makeFusionRules,
  };
  return families;
}

}  // namespace msa
