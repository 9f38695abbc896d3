#pragma once
// Finding texts, rendered at the edges from a catalog (resources/rules/<family>.json, compiled in,
// and families registered at run time: rules/catalog.h):
// per rule id and language a title, a suggestion, and TREx-style hazard / mitigation / help.
// Templates use {param} placeholders filled from Finding::params and a few built-ins:
// {node} (anchor), {nodes}, {count}, {impact_ms}, {current_ms}, {fixed_ms}, {speedup_local}.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rules/finding.h"

namespace msa {

enum class Lang { En, Zh };
bool parseLang(std::string_view s, Lang& out);  // "en", "zh", "zh_CN"…

struct FindingText {
  std::string title, suggestion, hazard, mitigation, help;
};

FindingText renderFinding(const Finding& f, Lang lang);
// The title alone (renderFinding(f, lang).title without rendering the other four texts).
std::string renderTitle(const Finding& f, Lang lang);
// The title without the place it names, for a list that shows the place in a column of its own:
// the catalog writes the place in the forms "finding.title_place" lists (" at {node}"); a title
// that names it otherwise ("largest: {node}") is returned whole.
std::string titleWithoutPlace(const Finding& f, Lang lang);
// A legality blocker key ("multi_consumer:x") as a sentence.
std::string renderBlocker(std::string_view key, Lang lang);
// Fills {placeholders} in a template; unknown placeholders are left as they are.
std::string fillTemplate(std::string_view tmpl, const Finding& f, Lang lang = Lang::En);

// Case-dependent parts of a sentence never come from C++: a rule puts a phrase into a param, and
// the param renders as the catalog text `key` (the "_texts" section of a family file) in the
// reader's language, its {placeholders} filled from `args` (which may hold phrases themselves).
std::string phrase(std::string_view key, const std::map<std::string, std::string>& args = {});
// Values (phrases or plain text) joined by a separator phrase: the language's list separator
// ("; " / "；") or "list.comma" (", " / "，").
std::string phraseList(const std::vector<std::string>& items, std::string_view separator = "list.separator");
// A param value as text in `lang`: its phrases rendered.
std::string renderValue(std::string_view value, Lang lang);
bool hasPhrase(std::string_view key, Lang lang);
// A report label or sentence from the catalog's "_ui" section ("report.latency"…), with
// {placeholders} filled from `params`; the key itself when the catalog has no entry.
std::string uiText(std::string_view key, Lang lang, const std::map<std::string, std::string>& params = {});
bool hasUiText(std::string_view key, Lang lang);
// True when the catalog has an entry for the rule in both languages (used by tests).
bool hasTexts(std::string_view rule);

}  // namespace msa
