#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "advisor/report.h"
#include "profile/json_file.h"
#include "profile/profile_data.h"
#include "util/input_file.h"
#include "util/read_limits.h"

namespace msa {
namespace {

double number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_object() && v.contains("median") && v["median"].is_number()) return v["median"].get<double>();
  return -1;
}

// A node's time in either format: profile entries carry median_ms; report rows carry measured_ms
// (or -1) and estimated_ms.
double nodeTime(const nlohmann::json& n) {
  for (const char* key : {"median_ms", "measured_ms", "estimated_ms"})
    if (n.contains(key) && n[key].is_number() && n[key].get<double>() >= 0) return n[key].get<double>();
  return -1;
}

bool sameNode(const Node& a, const Node& b) {
  if (a.opType != b.opType || a.domain != b.domain || a.inputs != b.inputs || a.outputs != b.outputs) return false;
  if (a.attributes.size() != b.attributes.size()) return false;
  for (const Attribute& x : a.attributes) {
    const Attribute* y = b.attr(x.name);
    if (!y || y->type != x.type || y->i != x.i || y->f != x.f || y->s != x.s || y->ints != x.ints ||
        y->floats != x.floats || y->strings != x.strings)
      return false;
  }
  return true;
}

}  // namespace

TimingTable timingTableOf(const Report& r, const std::string& label) {
  TimingTable t;
  t.label = label;
  t.totalMs = r.latencyMs;
  t.nodes.reserve(r.nodes.size());
  for (const NodeReport& n : r.nodes) t.nodes.emplace_back(n.name, n.measuredMs >= 0 ? n.measuredMs : n.estimatedMs);
  return t;
}

Result<TimingTable> timingTableFromJson(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    return Error::model("neither a profile nor an analysis report (no \"nodes\" array)", label);
  TimingTable t;
  t.label = label;
  t.totalMs = j.contains("latency_ms") ? number(j["latency_ms"]) : -1;
  size_t k = 0;
  for (const auto& n : j["nodes"]) {
    if (!n.is_object() || !n.contains("name") || !n["name"].is_string())
      return Error::model("nodes[" + std::to_string(k) + "] has no name", label);
    double ms = nodeTime(n);
    if (ms >= 0) t.nodes.emplace_back(n["name"].get<std::string>(), ms);
    ++k;
  }
  if (t.totalMs < 0) {
    t.totalMs = 0;
    for (const auto& [name, ms] : t.nodes) t.totalMs += ms;
  }
  return t;
}

Status checkTimingTableFile(const std::filesystem::path& file) {
  if (auto s = checkInput(file); !s) return s;
  const JsonOutline o = outlineJsonFile(file);
  if (o.error) return *o.error;
  if (!o.valid) return Error::model("not valid JSON", file.string());
  if (!o.object || !o.has("nodes", nlohmann::json::value_t::array))
    return Error::model("neither a profile nor an analysis report (no \"nodes\" array)", file.string());
  return Ok{};
}

Result<TimingTable> readTimingTable(const std::filesystem::path& file) {
  if (auto s = checkTimingTableFile(file); !s) return s.error();
  const std::string label = file.string();
  TimingTable t;
  t.label = label;
  RecordBudget budget(label, "nodes", CountLimit::Names);
  std::string topKey;
  size_t k = 0;
  auto j = readJsonFile(file, [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (depth == 1 && ev == E::key) topKey = parsed.get<std::string>();
    if (depth != 2 || topKey != "nodes" || (ev != E::object_end && ev != E::value)) return true;
    if (!parsed.is_object() || !parsed.contains("name") || !parsed["name"].is_string())
      throw StopReading{Error::model("nodes[" + std::to_string(k) + "] has no name", label)};
    if (!budget.add()) throw StopReading{budget.error()};
    const double ms = nodeTime(parsed);
    if (const std::string why = durationProblem(ms); ms >= 0 && !why.empty())
      throw StopReading{Error::model("nodes[" + std::to_string(k) + "]: its time " + why, label)};
    if (ms >= 0) t.nodes.emplace_back(parsed["name"].get<std::string>(), ms);
    ++k;
    return false;
  });
  if (!j) return j.error();
  t.totalMs = j->contains("latency_ms") ? number((*j)["latency_ms"]) : -1;
  if (const std::string why = durationProblem(t.totalMs); t.totalMs >= 0 && !why.empty())
    return Error::model("latency_ms: " + why, label);
  if (t.totalMs < 0) {
    t.totalMs = 0;
    for (const auto& [name, ms] : t.nodes) t.totalMs += ms;
  }
  return t;
}

TimingComparison compareTimings(const TimingTable& a, const TimingTable& b, double relThreshold,
                                double absThresholdMs) {
  TimingComparison c;
  c.totalA = a.totalMs;
  c.totalB = b.totalMs;
  std::map<std::string, NodeDelta> rows;
  for (const auto& [name, ms] : a.nodes) {
    auto& r = rows[name];
    r.name = name;
    r.aMs += ms;
    r.inA = true;
  }
  for (const auto& [name, ms] : b.nodes) {
    auto& r = rows[name];
    r.name = name;
    r.bMs += ms;
    r.inB = true;
  }
  for (auto& [name, r] : rows) {
    r.deltaMs = r.bMs - r.aMs;
    r.ratio = r.aMs > 0 ? r.bMs / r.aMs : 0;
    bool beyond = std::fabs(r.deltaMs) > absThresholdMs && std::fabs(r.deltaMs) > relThreshold * r.aMs;
    if (beyond) (r.deltaMs > 0 ? c.regressions : c.improvements).push_back(name);
    c.nodes.push_back(r);
  }
  std::sort(c.nodes.begin(), c.nodes.end(),
            [](const NodeDelta& x, const NodeDelta& y) { return std::fabs(x.deltaMs) > std::fabs(y.deltaMs); });
  return c;
}

ModelDiff diffModels(const Model& a, const Model& b) {
  ModelDiff d;
  std::map<std::string_view, const Node*> inB;
  for (const Node& n : b.graph.nodes) inB[n.name] = &n;
  for (const Node& n : a.graph.nodes) {
    auto it = inB.find(n.name);
    if (it == inB.end()) d.removed.push_back(n.name);
    else if (!sameNode(n, *it->second)) d.changed.push_back(n.name);
  }
  for (const Node& n : b.graph.nodes)
    if (!a.graph.findNodeByName(n.name)) d.added.push_back(n.name);
  return d;
}

nlohmann::json toJson(const TimingComparison& c) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& r : c.nodes) {
    nlohmann::json row{{"name", r.name}, {"a_ms", r.inA ? nlohmann::json(r.aMs) : nlohmann::json(nullptr)},
                       {"b_ms", r.inB ? nlohmann::json(r.bMs) : nlohmann::json(nullptr)}, {"delta_ms", r.deltaMs},
                       {"ratio", r.inA && r.aMs > 0 ? nlohmann::json(r.ratio) : nlohmann::json(nullptr)}};
    nodes.push_back(std::move(row));
  }
  return {{"total_ms", {{"a", c.totalA}, {"b", c.totalB}}},
          {"total_ratio", c.totalA > 0 ? c.totalB / c.totalA : 0.0},
          {"nodes", nodes},
          {"regressions", c.regressions},
          {"improvements", c.improvements}};
}

nlohmann::json toJson(const ModelDiff& d) {
  return {{"added", d.added}, {"removed", d.removed}, {"changed", d.changed}};
}

}  // namespace msa
