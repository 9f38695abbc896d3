#include "rules/texts.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/embedded.h"

namespace msa {
namespace {

const nlohmann::json& catalog() {
  // One file per rule family in resources/rules; "_blockers" and "_ui" entries of all files are merged.
  static const nlohmann::json j = [] {
    nlohmann::json all = nlohmann::json::object();
    for (const auto& f : embedded::files()) {
      if (!f.name.starts_with("rules/")) continue;
      auto parsed = nlohmann::json::parse(f.bytes, nullptr, false);
      if (!parsed.is_object()) continue;
      for (auto& [key, value] : parsed.items()) {
        if (key.starts_with("_") && all.contains(key)) all[key].update(value);
        else all[key] = value;
      }
    }
    return all;
  }();
  return j;
}

std::string_view langKey(Lang l) { return l == Lang::Zh ? "zh" : "en"; }

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.3f", v);
  return buf;
}

std::string field(const nlohmann::json& entry, Lang lang, const char* key) {
  for (Lang l : {lang, Lang::En}) {
    auto it = entry.find(langKey(l));
    if (it != entry.end() && it->contains(key)) return (*it)[key].get<std::string>();
  }
  return {};
}

}  // namespace

bool parseLang(std::string_view s, Lang& out) {
  if (s.starts_with("zh")) out = Lang::Zh;
  else if (s.starts_with("en") || s == "C") out = Lang::En;
  else return false;
  return true;
}

std::string fillTemplate(std::string_view tmpl, const Finding& f) {
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
    if (auto it = f.params.find(key); it != f.params.end()) value = it->second;
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

FindingText renderFinding(const Finding& f, Lang lang) {
  FindingText t;
  const auto& cat = catalog();
  auto it = cat.find(f.rule);
  if (it == cat.end()) {
    t.title = f.rule;
    return t;
  }
  t.title = fillTemplate(field(*it, lang, "title"), f);
  t.suggestion = fillTemplate(field(*it, lang, "suggestion"), f);
  t.hazard = fillTemplate(field(*it, lang, "hazard"), f);
  t.mitigation = fillTemplate(field(*it, lang, "mitigation"), f);
  t.help = fillTemplate(field(*it, lang, "help"), f);
  return t;
}

std::string renderBlocker(std::string_view key, Lang lang) {
  auto colon = key.find(':');
  std::string id(key.substr(0, colon));
  std::string arg = colon == std::string_view::npos ? "" : std::string(key.substr(colon + 1));
  const auto& blockers = catalog().value("_blockers", nlohmann::json::object());
  auto it = blockers.find(id);
  if (it == blockers.end()) return std::string(key);
  Finding f;
  f.params["value"] = arg;
  auto l = it->find(langKey(lang));
  if (l == it->end()) l = it->find("en");
  return l == it->end() ? std::string(key) : fillTemplate(l->get<std::string>(), f);
}

std::string uiText(std::string_view key, Lang lang, const std::map<std::string, std::string>& params) {
  const auto& ui = catalog().value("_ui", nlohmann::json::object());
  auto it = ui.find(std::string(key));
  if (it == ui.end()) return std::string(key);
  auto l = it->find(langKey(lang));
  if (l == it->end()) l = it->find("en");
  if (l == it->end() || !l->is_string()) return std::string(key);
  if (params.empty()) return l->get<std::string>();
  Finding f;
  f.params = params;
  return fillTemplate(l->get<std::string>(), f);
}

bool hasUiText(std::string_view key, Lang lang) {
  const auto& ui = catalog().value("_ui", nlohmann::json::object());
  auto it = ui.find(std::string(key));
  return it != ui.end() && it->contains(langKey(lang));
}

bool hasTexts(std::string_view rule) {
  auto it = catalog().find(std::string(rule));
  return it != catalog().end() && it->contains("en") && it->contains("zh") && (*it)["en"].contains("title") &&
         (*it)["zh"].contains("title");
}

}  // namespace msa
