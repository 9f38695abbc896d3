#include "rules/catalog.h"

#include <cstdio>
#include <mutex>

#include <nlohmann/json.hpp>

#include "util/embedded.h"

namespace msa {
namespace {

using json = nlohmann::json;

std::mutex& catalogMutex() {
  static std::mutex m;
  return m;
}

Status merge(json& all, const json& file, const std::string& label) {
  if (!file.is_object()) return Error::model("a rule family description must be a JSON object", label);
  for (const auto& [key, value] : file.items()) {
    if (key == "_family") {
      if (!value.is_object() || !value.contains("id") || !value["id"].is_string())
        return Error::model("_family needs an \"id\"", label);
      const std::string id = value["id"].get<std::string>();
      if (all["_families"].contains(id)) return Error::model("the rule family '" + id + "' is described twice", label);
      all["_families"][id] = value;
    } else if (key.starts_with("_")) {
      if (!value.is_object()) return Error::model(key + " must be an object", label);
      if (all.contains(key)) all[key].update(value);
      else all[key] = value;
    } else {
      if (all.contains(key)) return Error::model("the rule '" + key + "' is described twice", label);
      all[key] = value;
    }
  }
  return Ok{};
}

std::shared_ptr<const json>& current() {
  static std::shared_ptr<const json> c = [] {
    auto all = std::make_shared<json>(json::object());
    (*all)["_families"] = json::object();
    for (const auto& f : embedded::files()) {
      if (!f.name.starts_with("rules/")) continue;
      auto parsed = json::parse(f.bytes, nullptr, false);
      if (auto s = merge(*all, parsed, std::string(f.name)); !s) embedded::recordTableError(f.name, s.error().message);
    }
    return std::shared_ptr<const json>(std::move(all));
  }();
  return c;
}

}  // namespace

std::shared_ptr<const json> catalogSnapshot() {
  const std::lock_guard<std::mutex> lock(catalogMutex());
  return current();
}

Status addToCatalog(const json& file, const std::string& label) {
  const std::lock_guard<std::mutex> lock(catalogMutex());
  auto next = std::make_shared<json>(*current());
  if (auto s = merge(*next, file, label); !s) return s;
  current() = std::move(next);
  return Ok{};
}

}  // namespace msa
