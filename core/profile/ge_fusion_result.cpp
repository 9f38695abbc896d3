#include "profile/ge_fusion_result.h"
#include "util/input_file.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace msa {
namespace {

using json = nlohmann::json;
constexpr std::string_view kSessionKey = "session_and_graph_id";

// The top-level JSON values of the text: one for today's layout, one per graph for the older one
// (each graph's object was appended to the file). Returns each value's text and byte offset.
Result<std::vector<std::pair<size_t, std::string_view>>> topLevelValues(std::string_view text,
                                                                        const std::string& label) {
  std::vector<std::pair<size_t, std::string_view>> out;
  int depth = 0;
  bool inString = false, escaped = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (depth == 0) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
      if (c != '{')
        return Error::model("not a fusion_result.json: byte " + std::to_string(i) + " is outside any object", label);
      start = i;
    }
    if (c == '"') inString = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) out.emplace_back(start, text.substr(start, i + 1 - start));
    }
  }
  if (depth != 0 || inString) return Error::model("truncated JSON: an object is not closed", label);
  if (out.empty()) return Error::model("empty: no fusion statistics", label);
  return out;
}

// A count: the writer stores decimal strings ("12"); numbers are accepted too.
Result<long> count(const json& v, const std::string& where, const std::string& label) {
  if (v.is_number_integer()) return v.get<long>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    long n = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && ptr == s.data() + s.size() && !s.empty()) return n;
  }
  return Error::model(where + ": expected an integer count, got " + v.dump(), label);
}

struct Accumulator {
  std::map<std::pair<bool, std::string>, GeFusionResult::Pass> passes;
};

Status readGraph(const json& graph, const std::string& id, const std::string& label, Accumulator& acc) {
  if (!graph.is_object()) return Error::model(id + ": expected an object with graph_fusion / ub_fusion", label);
  for (const auto& [kind, passes] : graph.items()) {
    if (kind == kSessionKey) continue;  // the older layout names the graph inside its object
    const bool ub = kind == "ub_fusion";
    if (!ub && kind != "graph_fusion")
      return Error::model(id + ": unknown entry '" + kind + "' (expected graph_fusion or ub_fusion)", label);
    if (!passes.is_object()) return Error::model(id + " / " + kind + ": expected an object of passes", label);
    for (const auto& [name, counts] : passes.items()) {
      const std::string where = id + " / " + kind + " / " + name;
      if (!counts.is_object()) return Error::model(where + ": expected {\"match_times\", \"effect_times\"}", label);
      if (!counts.contains("match_times") || !counts.contains("effect_times"))
        return Error::model(where + ": match_times or effect_times is missing", label);
      auto match = count(counts["match_times"], where + " / match_times", label);
      if (!match) return match.error();
      auto effect = count(counts["effect_times"], where + " / effect_times", label);
      if (!effect) return effect.error();
      GeFusionResult::Pass& p = acc.passes[{ub, name}];
      p.name = name;
      p.ub = ub;
      p.matchTimes += *match;
      p.effectTimes += *effect;
      if (counts.contains("repository_hit_times")) {
        auto hits = count(counts["repository_hit_times"], where + " / repository_hit_times", label);
        if (!hits) return hits.error();
        p.repositoryHits = std::max(0L, p.repositoryHits) + *hits;
      }
    }
  }
  return Ok{};
}

}  // namespace

const GeFusionResult::Pass* GeFusionResult::find(std::string_view name) const {
  for (const Pass& p : passes)
    if (p.name == name) return &p;
  return nullptr;
}

Result<GeFusionResult> parseGeFusionResult(std::string_view text, const std::string& label) {
  auto values = topLevelValues(text, label);
  if (!values) return values.error();
  GeFusionResult r;
  Accumulator acc;
  for (const auto& [offset, part] : *values) {
    json j = json::parse(part, nullptr, false);
    if (j.is_discarded()) {
      // Parse again with exceptions for the parser's own position and reason.
      try {
        j = json::parse(part);
      } catch (const json::exception& e) {
        return Error::model("malformed JSON in the object at byte " + std::to_string(offset) + ": " + e.what(), label);
      }
    }
    if (j.contains(kSessionKey)) {  // the older layout: {"session_and_graph_id": "0_1", "graph_fusion": …}
      const json& id = j[kSessionKey];
      if (!id.is_string())
        return Error::model(std::string(kSessionKey) + " at byte " + std::to_string(offset) + " is not a string",
                            label);
      r.graphs.push_back(id.get<std::string>());
      if (auto s = readGraph(j, std::string(kSessionKey) + " " + r.graphs.back(), label, acc); !s) return s.error();
      continue;
    }
    for (const auto& [key, graph] : j.items()) {
      if (!key.starts_with(kSessionKey))
        return Error::model("unknown entry '" + key + "' (expected session_and_graph_id_<session>_<graph>)", label);
      std::string id = key.substr(kSessionKey.size());
      if (id.starts_with("_")) id.erase(0, 1);
      r.graphs.push_back(id);
      if (auto s = readGraph(graph, key, label, acc); !s) return s.error();
    }
  }
  for (auto& [key, p] : acc.passes) r.passes.push_back(std::move(p));
  return r;
}

Result<GeFusionResult> readGeFusionResult(const std::filesystem::path& file) {
  if (auto s = checkInput(file); !s) return s.error();  // a FIFO or a device is refused, not waited on
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the file", file.string());
  std::ostringstream text;
  text << in.rdbuf();
  auto r = parseGeFusionResult(text.str(), file.string());
  if (r) r->path = file;
  return r;
}

std::optional<std::filesystem::path> findGeFusionResultNear(const std::filesystem::path& profile) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::is_directory(profile, ec) ? profile : profile.parent_path();
  for (int up = 0; up < 4 && !dir.empty(); ++up) {
    const std::filesystem::path candidate = dir / "fusion_result.json";
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

}  // namespace msa
