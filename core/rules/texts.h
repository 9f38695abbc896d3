#pragma once
// Finding texts, rendered at the edges from a catalog (resources/rules/<family>.json, compiled in):
// per rule id and language a title, a suggestion, and TREx-style hazard / mitigation / help.
// Templates use {param} placeholders filled from Finding::params and a few built-ins:
// {node} (anchor), {nodes}, {count}, {impact_ms}, {current_ms}, {fixed_ms}, {speedup_local}.
#include <map>
#include <string>
#include <string_view>

#include "rules/finding.h"

namespace msa {

enum class Lang { En, Zh };
bool parseLang(std::string_view s, Lang& out);  // "en", "zh", "zh_CN"…

struct FindingText {
  std::string title, suggestion, hazard, mitigation, help;
};

FindingText renderFinding(const Finding& f, Lang lang);
// A legality blocker key ("multi_consumer:x") as a sentence.
std::string renderBlocker(std::string_view key, Lang lang);
// Fills {placeholders} in a template; unknown placeholders are left as they are.
std::string fillTemplate(std::string_view tmpl, const Finding& f);
// A report label or sentence from the catalog's "_ui" section ("report.latency"…), with
// {placeholders} filled from `params`; the key itself when the catalog has no entry.
std::string uiText(std::string_view key, Lang lang, const std::map<std::string, std::string>& params = {});
bool hasUiText(std::string_view key, Lang lang);
// True when the catalog has an entry for the rule in both languages (used by tests).
bool hasTexts(std::string_view rule);

}  // namespace msa
