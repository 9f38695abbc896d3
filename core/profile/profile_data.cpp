// Local implementation of the ProfileData helpers for the importers branch; the `ort` branch
// owns this file and its version replaces this one on merge (keep the two compatible).
#include "profile/profile_data.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

namespace msa {

Stats Stats::of(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  auto pct = [&](double p) {
    double pos = p * static_cast<double>(samples.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, samples.size() - 1);
    double f = pos - static_cast<double>(lo);
    return samples[lo] * (1 - f) + samples[hi] * f;
  };
  s.count = static_cast<int>(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  s.median = pct(0.5);
  s.p10 = pct(0.1);
  s.p90 = pct(0.9);
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean = sum / static_cast<double>(samples.size());
  return s;
}

double ProfileData::sumNodeMedians() const {
  double sum = 0;
  for (const auto& n : nodes) sum += n.timeMs.median;
  return sum;
}

const NodeProfile* ProfileData::find(std::string_view runtimeName) const {
  for (const auto& n : nodes)
    if (n.name == runtimeName) return &n;
  return nullptr;
}

std::map<std::string, double> ProfileData::timePerIrNode(const std::map<std::string, double>& weights) const {
  std::map<std::string, double> out;
  for (const auto& n : nodes) {
    if (n.irNodes.empty()) continue;
    double total = 0;
    for (const auto& ir : n.irNodes) {
      auto it = weights.find(ir);
      total += it == weights.end() ? 0 : it->second;
    }
    for (const auto& ir : n.irNodes) {
      double share = 1.0 / static_cast<double>(n.irNodes.size());
      if (total > 0) {
        auto it = weights.find(ir);
        share = (it == weights.end() ? 0 : it->second) / total;
      }
      out[ir] += n.timeMs.median * share;
    }
  }
  return out;
}

namespace {

nlohmann::json statsJson(const Stats& s) {
  return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"mean", s.mean},
          {"min", s.min},       {"max", s.max}, {"count", s.count}};
}

Stats statsFrom(const nlohmann::json& j) {
  Stats s;
  if (!j.is_object()) return s;
  s.median = j.value("median", 0.0);
  s.p10 = j.value("p10", s.median);
  s.p90 = j.value("p90", s.median);
  s.mean = j.value("mean", s.median);
  s.min = j.value("min", s.p10);
  s.max = j.value("max", s.p90);
  s.count = j.value("count", 0);
  return s;
}

std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

nlohmann::json toJson(const ProfileData& p) {
  nlohmann::json j;
  j["device"] = p.device;
  j["runtime"] = p.runtime;
  j["source"] = p.source;
  j["optimization"] = p.optimization;
  j["threads"] = p.threads;
  j["iterations"] = p.iterations;
  j["warmup"] = p.warmup;
  j["input_shapes"] = p.inputShapes;
  j["latency_ms"] = statsJson(p.latencyMs);
  j["sum_node_medians_ms"] = p.sumNodeMedians();
  j["nodes"] = nlohmann::json::array();
  for (const auto& n : p.nodes) {
    nlohmann::json e{{"name", n.name},
                     {"op_type", n.opType},
                     {"ir_nodes", n.irNodes},
                     {"inserted", n.inserted},
                     {"median_ms", n.timeMs.median},
                     {"p10_ms", n.timeMs.p10},
                     {"p90_ms", n.timeMs.p90},
                     {"mean_ms", n.timeMs.mean},
                     {"min_ms", n.timeMs.min},
                     {"max_ms", n.timeMs.max},
                     {"count", n.timeMs.count},
                     {"kernel", n.kernel},
                     {"input_shapes", n.inputShapes},
                     {"output_shapes", n.outputShapes}};
    if (!n.inputDtypes.empty()) e["input_dtypes"] = n.inputDtypes;
    if (!n.outputDtypes.empty()) e["output_dtypes"] = n.outputDtypes;
    if (!n.inputFormats.empty()) e["input_formats"] = n.inputFormats;
    if (!n.outputFormats.empty()) e["output_formats"] = n.outputFormats;
    if (!n.metrics.empty()) e["metrics"] = n.metrics;
    if (!n.producerIrNode.empty()) e["producer_ir_node"] = n.producerIrNode;
    if (!n.consumerIrNode.empty()) e["consumer_ir_node"] = n.consumerIrNode;
    j["nodes"].push_back(std::move(e));
  }
  j["unmatched"] = p.unmatched;
  if (!p.deviceInfo.empty()) j["device_info"] = p.deviceInfo;
  return j;
}

Result<ProfileData> profileFromJson(const nlohmann::json& j, const std::string& label) {
  if (!j.is_object()) return Error::model("not a profile: the top level is not a JSON object", label);
  auto nodesIt = j.find("nodes");
  if (nodesIt == j.end() || !nodesIt->is_array())
    return Error::model("not a profile: no \"nodes\" array", label);
  ProfileData p;
  try {
    p.device = j.value("device", "");
    p.runtime = j.value("runtime", "");
    p.source = j.value("source", "");
    p.optimization = j.value("optimization", "");
    p.threads = j.value("threads", 0);
    p.iterations = j.value("iterations", 0);
    p.warmup = j.value("warmup", 0);
    if (auto it = j.find("input_shapes"); it != j.end() && it->is_object())
      for (const auto& [k, v] : it->items())
        if (v.is_string()) p.inputShapes[k] = v.get<std::string>();
    if (auto it = j.find("latency_ms"); it != j.end()) p.latencyMs = statsFrom(*it);
    size_t index = 0;
    for (const auto& e : *nodesIt) {
      if (!e.is_object() || !e.contains("name"))
        return Error::model("nodes[" + std::to_string(index) + "] has no name", label);
      NodeProfile n;
      n.name = e.at("name").get<std::string>();
      n.opType = e.value("op_type", "");
      n.irNodes = strings(e, "ir_nodes");
      n.inserted = e.value("inserted", false);
      n.timeMs.median = e.value("median_ms", 0.0);
      n.timeMs.p10 = e.value("p10_ms", n.timeMs.median);
      n.timeMs.p90 = e.value("p90_ms", n.timeMs.median);
      n.timeMs.mean = e.value("mean_ms", n.timeMs.median);
      n.timeMs.min = e.value("min_ms", n.timeMs.p10);
      n.timeMs.max = e.value("max_ms", n.timeMs.p90);
      n.timeMs.count = e.value("count", 0);
      n.kernel = e.value("kernel", "");
      n.inputShapes = strings(e, "input_shapes");
      n.outputShapes = strings(e, "output_shapes");
      n.inputDtypes = strings(e, "input_dtypes");
      n.outputDtypes = strings(e, "output_dtypes");
      n.inputFormats = strings(e, "input_formats");
      n.outputFormats = strings(e, "output_formats");
      if (auto it = e.find("metrics"); it != e.end() && it->is_object())
        for (const auto& [k, v] : it->items())
          if (v.is_number()) n.metrics[k] = v.get<double>();
      n.producerIrNode = e.value("producer_ir_node", "");
      n.consumerIrNode = e.value("consumer_ir_node", "");
      p.nodes.push_back(std::move(n));
      ++index;
    }
    p.unmatched = strings(j, "unmatched");
    if (auto it = j.find("device_info"); it != j.end() && it->is_object())
      for (const auto& [k, v] : it->items())
        if (v.is_number()) p.deviceInfo[k] = v.get<double>();
  } catch (const nlohmann::json::exception& e) {
    return Error::model(std::string("malformed profile: ") + e.what(), label);
  }
  return p;
}

}  // namespace msa
