#include "rules/family_registry.h"

#include <algorithm>
#include <regex>

#include <nlohmann/json.hpp>

#include "rules/catalog.h"

namespace msa {
namespace {

using json = nlohmann::json;

LangText langText(const json& j) {
  LangText t;
  if (!j.is_object()) return t;
  if (j.contains("en") && j["en"].is_string()) t.en = j["en"].get<std::string>();
  if (j.contains("zh") && j["zh"].is_string()) t.zh = j["zh"].get<std::string>();
  return t;
}

std::vector<CategoryInfo> categoriesOf(const json& cat) {
  std::vector<CategoryInfo> out;
  const json families = cat.value("_families", json::object());  // named: items() does not keep a temporary alive
  for (const auto& [familyId, family] : families.items()) {
    const json categories = family.value("categories", json::object());
    for (const auto& [id, c] : categories.items()) {
      CategoryInfo info;
      info.category = Category::named(id);
      info.family = familyId;
      info.order = c.value("order", 1000);
      info.colour = c.value("colour", std::string());
      info.dock = c.value("dock", std::string());
      info.title = langText(c.value("title", json::object()));
      info.shortTitle = langText(c.value("short", json::object()));
      if (info.shortTitle.en.empty()) info.shortTitle = info.title;
      info.advice = langText(c.value("advice", json::object()));
      out.push_back(std::move(info));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const CategoryInfo& a, const CategoryInfo& b) {
    return a.order != b.order ? a.order < b.order : a.category.id() < b.category.id();
  });
  return out;
}

// The problems of a catalog's descriptions, as "label: key: what" sentences (empty when none).
std::string problems(const json& cat, const std::string& label) {
  std::string out;
  auto fail = [&](const std::string& where, const std::string& what) {
    out += (out.empty() ? "" : "; ") + label + ": " + where + ": " + what;
  };
  const json docks = cat.value("_docks", json::object());
  for (const auto& [id, d] : docks.items()) {
    const LangText t = langText(d.value("title", json::object()));
    const LangText e = langText(d.value("empty", json::object()));
    if (t.en.empty() || t.zh.empty()) fail("_docks." + id, "needs a title in en and zh");
    if (e.en.empty() || e.zh.empty()) fail("_docks." + id, "needs an empty text in en and zh");
  }
  static const std::regex colour("#[0-9a-fA-F]{6}");
  std::vector<std::string> seen;
  const json families = cat.value("_families", json::object());
  for (const auto& [familyId, family] : families.items()) {
    const json categories = family.value("categories", json::object());
    for (const auto& [id, c] : categories.items()) {
      const std::string where = "_family " + familyId + " category " + id;
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) fail(where, "declared by two families");
      seen.push_back(id);
      const LangText t = langText(c.value("title", json::object()));
      if (t.en.empty() || t.zh.empty()) fail(where, "needs a title in en and zh");
      if (!std::regex_match(c.value("colour", std::string()), colour)) fail(where, "needs a colour \"#rrggbb\"");
      const std::string dock = c.value("dock", std::string());
      if (dock.empty()) fail(where, "needs a dock");
      else if (!docks.contains(dock)) fail(where, "names the dock '" + dock + "' that no _docks describes");
    }
  }
  return out;
}

}  // namespace

std::vector<RuleFamilyInfo> ruleFamilies() {
  const auto cat = catalogSnapshot();
  std::vector<RuleFamilyInfo> out;
  const json families = cat->value("_families", json::object());
  for (const auto& [id, family] : families.items()) {
    RuleFamilyInfo f;
    f.id = id;
    f.kind = family.value("kind", std::string("graph"));
    const json categories = family.value("categories", json::object());
    for (const auto& [c, desc] : categories.items()) f.categories.push_back(Category::named(c));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<CategoryInfo> categoryInfos() { return categoriesOf(*catalogSnapshot()); }

std::vector<FindingDock> findingDocks() {
  const auto cat = catalogSnapshot();
  const auto categories = categoriesOf(*cat);
  std::vector<FindingDock> out;
  const json docks = cat->value("_docks", json::object());
  for (const auto& [id, d] : docks.items()) {
    const std::string& dockId = id;  // clang 14 cannot capture a structured binding
    if (std::none_of(categories.begin(), categories.end(), [&](const CategoryInfo& c) { return c.dock == dockId; }))
      continue;
    FindingDock dock;
    dock.id = id;
    dock.order = d.value("order", 1000);
    dock.title = langText(d.value("title", json::object()));
    dock.empty = langText(d.value("empty", json::object()));
    out.push_back(std::move(dock));
  }
  std::stable_sort(out.begin(), out.end(), [](const FindingDock& a, const FindingDock& b) {
    return a.order != b.order ? a.order < b.order : a.id < b.id;
  });
  return out;
}

CategoryInfo categoryInfo(Category c) {
  for (CategoryInfo& info : categoryInfos())
    if (info.category == c) return info;
  CategoryInfo unknown;
  unknown.category = c;
  unknown.order = 1 << 20;
  unknown.colour = "#7f8c8d";
  unknown.title.en = std::string(c.id());
  unknown.shortTitle = unknown.title;
  const auto docks = findingDocks();
  if (!docks.empty()) unknown.dock = docks.back().id;
  return unknown;
}

std::string categoryTitle(Category c, Lang lang) { return categoryInfo(c).title.in(lang); }
std::string categoryShortTitle(Category c, Lang lang) { return categoryInfo(c).shortTitle.in(lang); }
std::string categoryColour(Category c) { return categoryInfo(c).colour; }
int categoryOrder(Category c) { return categoryInfo(c).order; }

Status registerRuleFamily(std::string_view jsonText, const std::string& label) {
  json file = json::parse(jsonText, nullptr, false);
  if (file.is_discarded()) return Error::model("malformed JSON", label);
  if (!file.contains("_family")) return Error::model("a rule family description needs a _family section", label);
  // Check the description together with what is there already (its categories may use an
  // existing dock), then add it.
  json trial = *catalogSnapshot();
  json families = trial.value("_families", json::object());
  const std::string id = file["_family"].value("id", std::string());
  if (id.empty()) return Error::model("_family needs an \"id\"", label);
  if (families.contains(id)) return Error::model("the rule family '" + id + "' is described twice", label);
  families[id] = file["_family"];
  trial["_families"] = families;
  if (file.contains("_docks") && file["_docks"].is_object()) {
    if (trial.contains("_docks")) trial["_docks"].update(file["_docks"]);
    else trial["_docks"] = file["_docks"];
  }
  if (const std::string p = problems(trial, label); !p.empty()) return Error::model(p, label);
  return addToCatalog(file, label);
}

Status validateRuleFamilies() {
  if (const std::string p = problems(*catalogSnapshot(), "resources/rules"); !p.empty()) return Error::model(p);
  return Ok{};
}

}  // namespace msa
