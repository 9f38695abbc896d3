#include "rules/texts.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "rules/catalog.h"

namespace msa {
namespace {

using json = nlohmann::json;

std::string_view langKey(Lang l) { return l == Lang::Zh ? "zh" : "en"; }

// A section of the catalog ("_ui", "_texts", …), empty when no file has one.
const json& section(const json& cat, const char* name) {
  static const json empty = json::object();
  auto it = cat.find(name);
  return it != cat.end() ? *it : empty;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.3f", v);
  return buf;
}

std::string field(const json& entry, Lang lang, const char* key) {
  for (Lang l : {lang, Lang::En}) {
    auto it = entry.find(langKey(l));
    if (it != entry.end() && it->contains(key)) return (*it)[key].get<std::string>();
  }
  return {};
}

// The string of a {"en": …, "zh": …} entry in `lang` (English when it has no such language).
std::string inLang(const json& entry, Lang lang) {
  auto l = entry.find(langKey(lang));
  if (l == entry.end()) l = entry.find("en");
  return l != entry.end() && l->is_string() ? l->get<std::string>() : std::string();
}

// Phrase references inside a value: "@{key|name=value|…}", with \ escaping '\', '|', '{' and '}'
// inside names and values (which may themselves hold phrases).
constexpr std::string_view kOpen = "@{";

std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '|' || c == '{' || c == '}') out += '\\';
    out += c;
  }
  return out;
}

std::string renderIn(std::string_view value, Lang lang, const json& cat, int depth);

// Fills {placeholders} of `tmpl`: from `params` (values rendered in `lang`), then the built-ins.
std::string fill(std::string_view tmpl, const Finding& f, Lang lang, const json& cat, int depth) {
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl[i] != '{') {
      out += tmpl[i++];
      continue;
    }
    size_t close = tmpl.find('}', i);
    if (close == std::string_view::npos) {
      out += tmpl.substr(i);
      break;
    }
    std::string key(tmpl.substr(i + 1, close - i - 1));
    std::string value;
    bool known = true;
    if (auto it = f.params.find(key); it != f.params.end()) value = renderIn(it->second, lang, cat, depth + 1);
    else if (key == "node") value = f.nodes.empty() ? "" : f.nodes.front();
    else if (key == "nodes") {
      for (size_t k = 0; k < f.nodes.size(); ++k) value += (k ? ", " : "") + f.nodes[k];
    } else if (key == "count") value = std::to_string(f.nodes.size());
    else if (key == "impact_ms") value = fmt(f.impact.ms);
    else if (key == "current_ms") value = fmt(f.impact.currentMs);
    else if (key == "fixed_ms") value = fmt(f.impact.fixedMs);
    else if (key == "speedup_local") value = fmt(f.speedupLocal);
    else known = false;
    out += known ? value : "{" + key + "}";
    i = close + 1;
  }
  return out;
}

std::string renderIn(std::string_view value, Lang lang, const json& cat, int depth) {
  if (value.find(kOpen) == std::string_view::npos || depth > 8) return std::string(value);
  const json& texts = section(cat, "_texts");
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    const size_t open = value.find(kOpen, i);
    if (open == std::string_view::npos) {
      out += value.substr(i);
      break;
    }
    out += value.substr(i, open - i);
    // Split the reference into the key and name=value arguments at unescaped '|' up to its '}'.
    std::vector<std::string> parts(1);
    size_t j = open + kOpen.size();
    for (; j < value.size(); ++j) {
      const char c = value[j];
      if (c == '\\' && j + 1 < value.size()) {
        parts.back() += value[++j];
        continue;
      }
      if (c == '}') break;
      if (c == '|') {
        parts.emplace_back();
        continue;
      }
      parts.back() += c;
    }
    Finding args;
    for (size_t k = 1; k < parts.size(); ++k) {
      const size_t eq = parts[k].find('=');
      if (eq != std::string::npos) args.params[parts[k].substr(0, eq)] = parts[k].substr(eq + 1);
    }
    auto entry = texts.find(parts[0]);
    out += entry == texts.end() ? parts[0] : fill(inLang(*entry, lang), args, lang, cat, depth + 1);
    i = j + 1;
  }
  return out;
}

}  // namespace

bool parseLang(std::string_view s, Lang& out) {
  if (s.starts_with("zh")) out = Lang::Zh;
  else if (s.starts_with("en") || s == "C") out = Lang::En;
  else return false;
  return true;
}

std::string phrase(std::string_view key, const std::map<std::string, std::string>& args) {
  std::string s(kOpen);
  s += escaped(key);
  for (const auto& [name, value] : args) s += "|" + escaped(name) + "=" + escaped(value);
  return s + "}";
}

std::string phraseList(const std::vector<std::string>& items, std::string_view separator) {
  std::string s;
  for (size_t k = 0; k < items.size(); ++k) s += (k ? phrase(separator) : std::string()) + items[k];
  return s;
}

std::string renderValue(std::string_view value, Lang lang) { return renderIn(value, lang, *catalogSnapshot(), 0); }

std::string fillTemplate(std::string_view tmpl, const Finding& f, Lang lang) {
  return fill(tmpl, f, lang, *catalogSnapshot(), 0);
}

FindingText renderFinding(const Finding& f, Lang lang) {
  FindingText t;
  const auto cat = catalogSnapshot();
  auto it = cat->find(f.rule);
  if (it == cat->end()) {
    t.title = f.rule;
    return t;
  }
  t.title = fill(field(*it, lang, "title"), f, lang, *cat, 0);
  t.suggestion = fill(field(*it, lang, "suggestion"), f, lang, *cat, 0);
  t.hazard = fill(field(*it, lang, "hazard"), f, lang, *cat, 0);
  t.mitigation = fill(field(*it, lang, "mitigation"), f, lang, *cat, 0);
  t.help = fill(field(*it, lang, "help"), f, lang, *cat, 0);
  if (!f.fixDoneBy.empty())
    t.suggestion += (lang == Lang::Zh ? "" : " ") + uiText("finding.fix_done." + f.fixDoneBy, lang, {{"pass", f.fixPass}});
  return t;
}

std::string renderTitle(const Finding& f, Lang lang) {
  const auto cat = catalogSnapshot();
  auto it = cat->find(f.rule);
  return it == cat->end() ? f.rule : fill(field(*it, lang, "title"), f, lang, *cat, 0);
}

std::string titleWithoutPlace(const Finding& f, Lang lang) {
  if (f.nodes.empty()) return renderTitle(f, lang);
  constexpr std::string_view kPlace = "\x01";
  Finding masked = f;
  masked.nodes.front() = kPlace;
  if (auto it = masked.params.find("node"); it != masked.params.end()) it->second = kPlace;
  std::string title = renderTitle(masked, lang);
  // The forms, longest first, separated by '|' ("finding.title_place").
  const std::string forms = uiText("finding.title_place", lang, {{"node", std::string(kPlace)}});
  for (size_t from = 0; from <= forms.size();) {
    const size_t bar = std::min(forms.find('|', from), forms.size());
    const std::string form = forms.substr(from, bar - from);
    if (const size_t at = form.empty() ? std::string::npos : title.find(form); at != std::string::npos) {
      title.erase(at, form.size());
      break;
    }
    from = bar + 1;
  }
  if (title.find(kPlace) != std::string::npos) return renderTitle(f, lang);
  for (size_t at; (at = title.find("  ")) != std::string::npos;) title.erase(at, 1);
  const size_t first = title.find_first_not_of(' '), last = title.find_last_not_of(' ');
  return first == std::string::npos ? std::string() : title.substr(first, last - first + 1);
}

std::string renderBlocker(std::string_view key, Lang lang) {
  auto colon = key.find(':');
  std::string id(key.substr(0, colon));
  std::string arg = colon == std::string_view::npos ? "" : std::string(key.substr(colon + 1));
  const auto cat = catalogSnapshot();
  const json& blockers = section(*cat, "_blockers");
  auto it = blockers.find(id);
  if (it == blockers.end()) return std::string(key);
  Finding f;
  f.params["value"] = arg;
  const std::string tmpl = inLang(*it, lang);
  return tmpl.empty() ? std::string(key) : fill(tmpl, f, lang, *cat, 0);
}

std::string uiText(std::string_view key, Lang lang, const std::map<std::string, std::string>& params) {
  const auto cat = catalogSnapshot();
  const json& ui = section(*cat, "_ui");
  auto it = ui.find(std::string(key));
  if (it == ui.end()) return std::string(key);
  const std::string tmpl = inLang(*it, lang);
  if (tmpl.empty()) return std::string(key);
  Finding f;
  f.params = params;
  return fill(tmpl, f, lang, *cat, 0);
}

bool hasUiText(std::string_view key, Lang lang) {
  const auto cat = catalogSnapshot();
  const json& ui = section(*cat, "_ui");
  auto it = ui.find(std::string(key));
  return it != ui.end() && it->contains(langKey(lang));
}

bool hasTexts(std::string_view rule) {
  const auto cat = catalogSnapshot();
  auto it = cat->find(std::string(rule));
  return it != cat->end() && it->contains("en") && it->contains("zh") && (*it)["en"].contains("title") &&
         (*it)["zh"].contains("title");
}

bool hasPhrase(std::string_view key, Lang lang) {
  const auto cat = catalogSnapshot();
  const json& texts = section(*cat, "_texts");
  auto it = texts.find(std::string(key));
  return it != texts.end() && it->contains(langKey(lang));
}

}  // namespace msa
