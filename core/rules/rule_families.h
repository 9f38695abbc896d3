#pragma once
// The rule families, one factory per file in core/rules. Add a family here and in core/CMakeLists.
#include <memory>
#include <vector>

#include "rules/rule.h"

namespace msa {

using RuleFactory = std::unique_ptr<Rule> (*)();

std::unique_ptr<Rule> makeFusionRules();
std::unique_ptr<Rule> makeFormatRules();
std::unique_ptr<Rule> makeAlignmentRules();
std::unique_ptr<Rule> makeKernelRules();
std::unique_ptr<Rule> makeSmallOpsRules();
std::unique_ptr<Rule> makePrecisionRules();
std::unique_ptr<Rule> makeGraphRules();
std::unique_ptr<Rule> makeRuntimeSettingsRules();
std::unique_ptr<Rule> makeHotspotRules();

inline const std::vector<RuleFactory>& ruleFamilies() {
  static const std::vector<RuleFactory> families = {
      makeFusionRules,
      makeFormatRules,
      makeAlignmentRules,
      makeKernelRules,
      makeSmallOpsRules,
      makePrecisionRules,
      makeGraphRules,
      makeRuntimeSettingsRules,
      makeHotspotRules,
  };
  return families;
}

}  // namespace msa
