#include "report/json_schema.h"

#include <cmath>
#include <regex>
#include <set>

namespace msa {
namespace {

using json = nlohmann::json;

const std::set<std::string> kAnnotations{"title", "description", "$comment", "$id", "$schema", "examples", "default", "$defs"};
const std::set<std::string> kKeywords{"type",    "properties", "required", "additionalProperties", "items",    "enum",
                                      "const",   "minimum",    "maximum",  "exclusiveMinimum",     "minLength", "minItems",
                                      "pattern", "anyOf",      "$ref"};

std::string pointerEscape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool hasType(const json& v, const std::string& t) {
  if (t == "null") return v.is_null();
  if (t == "boolean") return v.is_boolean();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "number") return v.is_number();
  if (t == "integer") {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
      const double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
  }
  return false;
}

class Validator {
 public:
  explicit Validator(const json& root) : m_root(root) {}
  std::vector<SchemaError> errors;

  void check(const json& v, const json& schema, const std::string& path) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) fail(path, "no value is allowed here");
      return;
    }
    if (!schema.is_object()) {
      fail(path, "schema error: a schema must be an object or a boolean");
      return;
    }
    for (auto it = schema.begin(); it != schema.end(); ++it)
      if (!kKeywords.count(it.key()) && !kAnnotations.count(it.key())) fail(path, "schema error: unsupported keyword '" + it.key() + "'");
    if (auto ref = schema.find("$ref"); ref != schema.end()) {
      const json* target = resolve(ref->get<std::string>());
      if (!target) fail(path, "schema error: unresolved $ref " + ref->get<std::string>());
      else check(v, *target, path);
    }
    if (auto t = schema.find("type"); t != schema.end()) {
      bool ok = false;
      std::string names;
      if (t->is_string()) {
        names = t->get<std::string>();
        ok = hasType(v, names);
      } else
        for (const auto& x : *t) {
          ok = ok || hasType(v, x.get<std::string>());
          names += (names.empty() ? "" : " or ") + x.get<std::string>();
        }
      if (!ok) {
        fail(path, "expected " + names + ", got " + v.type_name());
        return;  // the other keywords would only repeat it
      }
    }
    if (auto e = schema.find("enum"); e != schema.end()) {
      bool ok = false;
      std::string names;
      for (const auto& x : *e) {
        ok = ok || x == v;
        names += (names.empty() ? "" : ", ") + x.dump();
      }
      if (!ok) fail(path, "expected one of " + names + ", got " + v.dump());
    }
    if (auto c = schema.find("const"); c != schema.end() && *c != v) fail(path, "expected " + c->dump() + ", got " + v.dump());
    if (v.is_number()) {
      const double d = v.get<double>();
      if (auto m = schema.find("minimum"); m != schema.end() && d < m->get<double>()) fail(path, "below the minimum " + m->dump());
      if (auto m = schema.find("maximum"); m != schema.end() && d > m->get<double>()) fail(path, "above the maximum " + m->dump());
      if (auto m = schema.find("exclusiveMinimum"); m != schema.end() && d <= m->get<double>())
        fail(path, "must be greater than " + m->dump());
    }
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (auto m = schema.find("minLength"); m != schema.end() && s.size() < m->get<size_t>()) fail(path, "shorter than " + m->dump());
      if (auto p = schema.find("pattern"); p != schema.end()) {
        try {
          if (!std::regex_search(s, std::regex(p->get<std::string>(), std::regex::ECMAScript)))
            fail(path, "does not match " + p->get<std::string>());
        } catch (const std::regex_error&) {
          fail(path, "schema error: bad pattern " + p->get<std::string>());
        }
      }
    }
    if (v.is_array()) {
      if (auto m = schema.find("minItems"); m != schema.end() && v.size() < m->get<size_t>())
        fail(path, "fewer than " + m->dump() + " items");
      if (auto items = schema.find("items"); items != schema.end())
        for (size_t i = 0; i < v.size(); ++i) check(v[i], *items, path + "/" + std::to_string(i));
    }
    if (v.is_object()) {
      if (auto req = schema.find("required"); req != schema.end())
        for (const auto& k : *req)
          if (!v.contains(k.get<std::string>())) fail(path, "missing required key '" + k.get<std::string>() + "'");
      const auto props = schema.find("properties");
      const auto extra = schema.find("additionalProperties");
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string child = path + "/" + pointerEscape(it.key());
        if (props != schema.end() && props->contains(it.key())) check(it.value(), (*props)[it.key()], child);
        else if (extra != schema.end()) {
          if (extra->is_boolean() && !extra->get<bool>()) fail(child, "key '" + it.key() + "' is not allowed");
          else if (extra->is_object()) check(it.value(), *extra, child);
        }
      }
    }
    if (auto any = schema.find("anyOf"); any != schema.end()) {
      bool ok = false;
      for (const auto& alt : *any) {
        Validator sub(m_root);
        sub.check(v, alt, path);
        if (sub.errors.empty()) {
          ok = true;
          break;
        }
      }
      if (!ok) fail(path, "matches none of the anyOf alternatives");
    }
  }

 private:
  void fail(const std::string& path, std::string msg) { errors.push_back({path.empty() ? "/" : path, std::move(msg)}); }

  const json* resolve(const std::string& ref) const {
    if (!ref.starts_with("#/")) return nullptr;
    const json* cur = &m_root;
    size_t pos = 2;
    while (pos <= ref.size()) {
      size_t next = ref.find('/', pos);
      std::string token = ref.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
      if (!cur->is_object() || !cur->contains(token)) return nullptr;
      cur = &(*cur)[token];
      if (next == std::string::npos) break;
      pos = next + 1;
    }
    return cur;
  }

  const json& m_root;
};

}  // namespace

std::vector<SchemaError> validateJson(const nlohmann::json& document, const nlohmann::json& schema) {
  Validator v(schema);
  v.check(document, schema, "");
  return v.errors;
}

}  // namespace msa
