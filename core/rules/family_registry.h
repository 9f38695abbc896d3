#pragma once
// The rule families as they describe themselves in resources/rules/<family>.json: each family's
// "_family" section names its categories with their title, short title, colour, order and the
// dock their findings appear in; "_docks" describes the findings docks (title, empty text, order).
// The report writers, the findings model and the docks read this and nothing else, so a family
// or a category added as data (registerRuleFamily) needs no edit of the UI or the reports.
//
//   "_family": {"id": "fusion", "kind": "graph",
//               "categories": {"fusion": {"order": 10, "colour": "#3b73b9", "dock": "fusion",
//                                          "title": {"en": "Fusion", "zh": "算子融合"},
//                                          "short": {"en": "Fusion", "zh": "融合"}}}},
//   "_docks": {"fusion": {"order": 10, "title": {"en": …, "zh": …}, "empty": {"en": …, "zh": …}}}
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.h"
#include "rules/texts.h"
#include "util/error.h"

namespace msa {

struct LangText {
  std::string en, zh;
  const std::string& in(Lang lang) const { return lang == Lang::Zh && !zh.empty() ? zh : en; }
};

struct CategoryInfo {
  Category category;
  std::string family;   // the family that declares it
  int order = 0;        // reports and docks list categories by it
  std::string colour;   // "#3b73b9"
  std::string dock;     // the findings dock it appears in (a FindingDock id)
  LangText title;       // "Format conversions" (report headings)
  LangText shortTitle;  // "Format" (a table column)
  LangText advice;      // why its findings without a rewrite need a human (optimize's advice list)
};

struct FindingDock {
  std::string id;  // "fusion": the GUI dock "fusionDock" holding the panel "fusionPanel"
  int order = 0;
  LangText title;  // the dock's title
  LangText empty;  // what it shows before an analysis
};

struct RuleFamilyInfo {
  std::string id;    // "fusion", "training"
  std::string kind;  // "graph" (core/rules, over an ONNX graph), "trace" (core/training), "profile"
  std::vector<Category> categories;  // the ones it declares
};

// Every family described so far (built in, then registered), by id.
std::vector<RuleFamilyInfo> ruleFamilies();
// Every declared category, by order; every dock that has categories, by order.
std::vector<CategoryInfo> categoryInfos();
std::vector<FindingDock> findingDocks();
// One category's description; a category nobody declared gets its id as title, grey, and the
// last dock (so it is never lost).
CategoryInfo categoryInfo(Category c);
std::string categoryTitle(Category c, Lang lang);
std::string categoryShortTitle(Category c, Lang lang);
std::string categoryColour(Category c);
int categoryOrder(Category c);

// Adds a rule family described in JSON (the format of resources/rules/<family>.json: its
// _family, _docks, rule texts, _blockers, _ui and _texts). Refused, naming `label` and the key,
// when a category lacks a title, colour or dock, names a dock nobody describes, or repeats an id.
Status registerRuleFamily(std::string_view jsonText, const std::string& label);

// Checks every description: the built-in files must pass (a test runs it).
Status validateRuleFamilies();

}  // namespace msa
