#include "profile/attachment_import.h"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "profile/csv_table.h"
#include "profile/json_file.h"
#include "util/input_file.h"
#include "util/read_limits.h"

namespace msa {

namespace {

using nlohmann::json;

// Milliseconds per unit, or nullopt when `u` is not a time unit.
std::optional<double> unitScale(std::string u) {
  u = lowercase(trimmed(u));
  if (u == "ms" || u == "msec" || u == "millisecond" || u == "milliseconds") return 1.0;
  if (u == "us" || u == "\xc2\xb5s" || u == "\xce\xbcs" || u == "usec" || u == "microseconds") return 1e-3;
  if (u == "ns" || u == "nanoseconds") return 1e-6;
  if (u == "s" || u == "sec" || u == "seconds") return 1e3;
  return std::nullopt;
}

struct TimeName {
  bool isTime = false;
  std::optional<double> scale;  // from the name's unit suffix
};

// "latency", "latency_ms", "time(us)", "Duration (µs)", "elapsed[ns]".
TimeName parseTimeName(const std::string& raw) {
  std::string n = lowercase(trimmed(raw));
  TimeName out;
  for (std::string_view base : {"latency", "time", "duration", "elapsed"}) {
    if (!n.starts_with(base)) continue;
    std::string rest = trimmed(std::string_view(n).substr(base.size()));
    if (rest.empty()) {
      out.isTime = true;
      return out;
    }
    // Strip one pair of brackets or a leading separator around the unit.
    if ((rest.front() == '(' && rest.back() == ')') || (rest.front() == '[' && rest.back() == ']'))
      rest = trimmed(std::string_view(rest).substr(1, rest.size() - 2));
    else if (rest.front() == '_' || rest.front() == '-' || rest.front() == ' ')
      rest = trimmed(std::string_view(rest).substr(1));
    if (auto s = unitScale(rest)) {
      out.isTime = true;
      out.scale = s;
    }
    return out;
  }
  return out;
}

// A number, or a numeric string with an optional unit ("1.5 ms"): value and the unit's scale.
std::optional<std::pair<double, std::optional<double>>> scalarValue(const json& v) {
  if (v.is_number()) return std::pair{v.get<double>(), std::optional<double>{}};
  if (!v.is_string()) return std::nullopt;
  std::string s = trimmed(v.get<std::string>());
  size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.' || s[end] == '-' ||
                            s[end] == '+' || s[end] == 'e' || s[end] == 'E'))
    ++end;
  auto num = parseNumber(std::string_view(s).substr(0, end));
  if (!num) return std::nullopt;
  std::string unit = trimmed(std::string_view(s).substr(end));
  if (unit.empty()) return std::pair{*num, std::optional<double>{}};
  auto scale = unitScale(unit);
  if (!scale) return std::nullopt;
  return std::pair{*num, scale};
}

struct NodeTimes {
  std::vector<double> samplesMs;
  std::map<std::string, double> metrics;
  bool hasTime = false;
};

// The metrics, one at a time (each dropped from the parser's tree once read).
class MetricReader {
 public:
  explicit MetricReader(const std::string& label) : m_label(label), m_budget(label, "metrics") {}

  Status add(size_t i, const json& item) {
    const std::string at = "metrics[" + std::to_string(i) + "]";
    const std::string& label = m_label;
    if (!item.is_object()) return Error::model(at + " is not an object", label);
    if (!m_budget.add()) return m_budget.error();
    auto kind = item.find("kind"), name = item.find("name");
    auto target = item.contains("target") ? item.find("target") : item.find("identifier");
    if (kind == item.end() || !kind->is_string()) return Error::model(at + " has no \"kind\"", label);
    if (name == item.end() || !name->is_string()) return Error::model(at + " has no \"name\"", label);
    if (target == item.end() || !target->is_string())
      return Error::model(at + " has no \"target\" (or \"identifier\")", label);
    const std::string k = kind->get<std::string>();
    if (k != "node" && k != "model" && k != "graph") return Ok{};
    const std::string metric = name->get<std::string>();
    std::string node = target->get<std::string>();
    if (auto nl = node.find('\n'); nl != std::string::npos) node.resize(nl);

    TimeName tn = parseTimeName(metric);
    const json& value = item.contains("value") ? item["value"] : json();
    if (!tn.isTime) {
      if (k == "node" && value.is_number()) {
        if (!nodes.count(node)) order.push_back(node);
        nodes[node].metrics.emplace(metric, value.get<double>());
      }
      return Ok{};
    }
    std::optional<double> typeScale;
    if (auto t = item.find("type"); t != item.end() && t->is_string()) typeScale = unitScale(t->get<std::string>());
    std::vector<double> samples;
    auto addSample = [&](const json& v) -> bool {
      auto s = scalarValue(v);
      if (!s || s->first < 0) return false;
      double scale = tn.scale.value_or(typeScale.value_or(s->second.value_or(1.0)));
      if (!durationProblem(s->first * scale).empty()) return false;
      samples.push_back(s->first * scale);
      return true;
    };
    bool good = value.is_array() ? !value.empty() : addSample(value);
    if (value.is_array()) {
      if (!m_budget.add(value.size())) return m_budget.error();
      for (const json& v : value) good = good && addSample(v);
    }
    if (!good) {
      std::string shown = value.dump(-1, ' ', false, json::error_handler_t::replace);
      if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
      return Error::model(at + ": '" + metric + "' of '" + node + "' is not a non-negative time (" + shown + ")", label);
    }
    if (k == "node") {
      if (!nodes.count(node)) order.push_back(node);
      NodeTimes& nt = nodes[node];
      if (!nt.hasTime) {
        nt.samplesMs = std::move(samples);
        nt.hasTime = true;
      }
    } else if (modelSamples.empty()) {
      modelSamples = std::move(samples);
    }
    return Ok{};
  }

  std::vector<std::string> order;  // node targets in file order
  std::map<std::string, NodeTimes> nodes;
  std::vector<double> modelSamples;

 private:
  const std::string& m_label;
  RecordBudget m_budget;
};

// Reads the document with `parse(callback)`, the metrics streamed through `reader`.
template <typename Parse>
Status readAttachment(Parse&& parse, MetricReader& reader, const std::string& label) {
  std::string topKey;
  bool sawMetrics = false;
  size_t index = 0;
  json j;
  try {
    j = parse([&](int depth, json::parse_event_t ev, json& parsed) {
      if (depth == 1 && ev == json::parse_event_t::key) topKey = parsed.get<std::string>();
      if (depth == 1 && topKey == "metrics" && ev == json::parse_event_t::array_start) sawMetrics = true;
      if (depth != 2 || topKey != "metrics" || !sawMetrics) return true;
      if (ev != json::parse_event_t::object_end && ev != json::parse_event_t::value) return true;
      if (auto s = reader.add(index++, parsed); !s) throw StopReading{s.error()};
      return false;
    });
  } catch (StopReading& stop) {
    return std::move(stop.error);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    return Error::model(std::string("not JSON: ") + e.what(), label);
  }
  if (!j.is_object() || stringAt(j, "signature") != kAttachmentSignature)
    return Error::model("not a Netron attachment: \"signature\" is not \"netron:attachment\"", label);
  if (!j.contains("metrics")) return Error::model("no \"metrics\" array", label);
  if (!sawMetrics) return Error::model("\"metrics\" is not an array", label);
  return Ok{};
}

Result<ProfileData> fromMetrics(MetricReader& reader, const Model& model, const std::string& label) {
  auto& order = reader.order;
  auto& nodes = reader.nodes;
  auto& modelSamples = reader.modelSamples;
  ProfileData p;
  p.runtime = "netron:attachment";
  p.source = "imported:" + label.substr(label.find_last_of('/') + 1);
  int iterations = 0;
  std::map<std::string, const Node*> byName;
  for (const Node& n : model.graph.nodes) byName.emplace(n.name, &n);
  for (const auto& name : order) {
    NodeTimes& nt = nodes[name];
    if (!nt.hasTime) continue;
    NodeProfile n;
    n.name = name;
    n.timeMs = Stats::of(nt.samplesMs);
    n.metrics = std::move(nt.metrics);
    iterations = std::max(iterations, n.timeMs.count);
    if (auto it = byName.find(name); it != byName.end()) {
      n.irNodes = {name};
      n.opType = it->second->opType;
    } else {
      p.unmatched.push_back(name);
    }
    p.nodes.push_back(std::move(n));
  }
  if (p.nodes.empty())
    return Error::model("no node has a time metric (latency, time, duration or elapsed)", label);
  p.iterations = iterations;
  if (!modelSamples.empty()) p.latencyMs = Stats::of(modelSamples);
  for (const Node& n : model.graph.nodes)
    if (!nodes.count(n.name) || !nodes.at(n.name).hasTime) p.irNodesNotRun.push_back(n.name);
  return p;
}

}  // namespace

Result<ProfileData> importAttachmentText(std::string_view text, const Model& model, const std::string& label) {
  MetricReader reader(label);
  if (auto s = readAttachment([&](const json::parser_callback_t& cb) { return json::parse(text.begin(), text.end(), cb); },
                              reader, label);
      !s)
    return s.error();
  return fromMetrics(reader, model, label);
}

Result<ProfileData> importAttachment(const std::filesystem::path& file, const Model& model) {
  auto in = InputStream::open(file);
  if (!in) return in.error();
  const std::string label = file.string();
  MetricReader reader(label);
  auto s = readAttachment([&](const json::parser_callback_t& cb) { return json::parse((*in)->stream(), cb); }, reader, label);
  if ((*in)->error()) return *(*in)->error();
  if (!s) return s.error();
  return fromMetrics(reader, model, label);
}

}  // namespace msa
