#include "profile/profile_data.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>

#include <nlohmann/json.hpp>

namespace msa {
namespace {

using nlohmann::json;

json statsJson(const Stats& s) {
  return {{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"mean", s.mean},
          {"min", s.min},       {"max", s.max}, {"count", s.count}};
}

// Reads JSON written by toJson() or by another tool: each problem names where it is.
class Reader {
 public:
  explicit Reader(std::string label) : m_label(std::move(label)) {}

  Error error(const std::string& where, const std::string& what) const {
    return Error::model(where + ": " + what, m_label);
  }

  Status number(const json& j, const char* key, const std::string& where, double& out, bool required) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) return error(where, std::string("'") + key + "' is missing");
      return Ok{};
    }
    if (!it->is_number()) return error(where, std::string("'") + key + "' is not a number");
    out = it->get<double>();
    if (!std::isfinite(out)) return error(where, std::string("'") + key + "' is not finite");
    return Ok{};
  }

  // A count (threads, iterations, ranks…): a number that fits an int; casting 1e300 is undefined.
  Status count(const json& j, const char* key, const std::string& where, int& out) const {
    double v = out;
    if (auto s = number(j, key, where, v, false); !s) return s;
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      return error(where, std::string("'") + key + "' is out of range");
    out = static_cast<int>(v);
    return Ok{};
  }

  Status string(const json& j, const char* key, const std::string& where, std::string& out, bool required) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) return error(where, std::string("'") + key + "' is missing");
      return Ok{};
    }
    if (!it->is_string()) return error(where, std::string("'") + key + "' is not a string");
    out = it->get<std::string>();
    return Ok{};
  }

  Status strings(const json& j, const char* key, const std::string& where, std::vector<std::string>& out) const {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Ok{};
    if (!it->is_array()) return error(where, std::string("'") + key + "' is not a list");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& e = (*it)[i];
      if (e.is_string()) out.push_back(e.get<std::string>());
      else if (e.is_array() || e.is_number()) out.push_back(e.dump());  // shapes given as [1,3,224,224]
      else return error(where, std::string("'") + key + "'[" + std::to_string(i) + "] is not a string");
    }
    return Ok{};
  }

 private:
  std::string m_label;
};

}  // namespace

std::string durationProblem(double ms) {
  if (!std::isfinite(ms)) return "is not a finite number";
  if (ms < 0) return "is negative";
  if (ms > kMaxDurationMs) return "is longer than a year: no profile holds such a time";
  return {};
}

Stats Stats::of(std::vector<double> samples) { return withZeros(std::move(samples), 0); }

double interquartileMean(std::vector<double> samples) {
  const size_t n = samples.size();
  if (n == 0) return 0;
  std::sort(samples.begin(), samples.end());
  // Quarter weights at fractional edges, so that the result moves smoothly with n.
  const double lo = static_cast<double>(n) / 4, hi = 3 * static_cast<double>(n) / 4;
  double sum = 0, weight = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = std::clamp(std::min(static_cast<double>(i + 1), hi) - std::max(static_cast<double>(i), lo), 0.0, 1.0);
    sum += w * samples[i];
    weight += w;
  }
  return weight > 0 ? sum / weight : samples[n / 2];
}

Stats Stats::withZeros(std::vector<double> samples, size_t zeros) {
  Stats s;
  const size_t n = samples.size() + zeros;
  if (n == 0) return s;
  std::sort(samples.begin(), samples.end());
  // The sorted samples with `zeros` zeros merged in where they belong (samples may be negative).
  const size_t neg = static_cast<size_t>(std::lower_bound(samples.begin(), samples.end(), 0.0) - samples.begin());
  auto at = [&](size_t i) { return i < neg ? samples[i] : i < neg + zeros ? 0.0 : samples[i - zeros]; };
  auto q = [&](double p) {
    double pos = p * static_cast<double>(n - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, n - 1);
    double f = pos - static_cast<double>(lo);
    return at(lo) + (at(hi) - at(lo)) * f;
  };
  s.median = q(0.5);
  s.p10 = q(0.1);
  s.p90 = q(0.9);
  s.min = at(0);
  s.max = at(n - 1);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  s.count = static_cast<int>(std::min<size_t>(n, INT_MAX));
  return s;
}

double ProfileData::sumNodeMedians() const {
  double sum = 0;
  for (const NodeProfile& n : nodes)
    if (n.parent.empty()) sum += n.timeMs.median;
  return sum;
}

const NodeProfile* ProfileData::find(std::string_view runtimeName) const {
  for (const NodeProfile& n : nodes)
    if (n.name == runtimeName) return &n;
  return nullptr;
}

std::map<std::string, double> ProfileData::timePerIrNode(const std::map<std::string, double>& weights) const {
  std::map<std::string, double> out;
  for (const NodeProfile& n : nodes) {
    if (n.irNodes.empty()) continue;
    double total = 0;
    bool allWeighted = true;
    for (const auto& ir : n.irNodes) {
      auto it = weights.find(ir);
      if (it == weights.end() || !(it->second > 0)) allWeighted = false;
      else total += it->second;
    }
    for (const auto& ir : n.irNodes) {
      double share = allWeighted && total > 0 ? weights.at(ir) / total : 1.0 / static_cast<double>(n.irNodes.size());
      out[ir] += n.timeMs.median * share;
    }
  }
  return out;
}

nlohmann::json toJson(const Measurement& m) {
  if (!m.measured) return nullptr;
  json j{{"threads", m.threads},
         {"threads_basis", m.threadsBasis},
         {"contended", m.contended},
         {"cpu_share", m.cpuShare},
         {"load", m.load},
         {"runnable", m.runnable},
         {"steal_share", m.stealShare},
         {"blocks", m.blocks},
         {"blocks_set_aside", m.blocksSetAside},
         {"uncontended_ms", m.uncontendedMs},
         {"uncontended_basis", m.uncontendedBasis}};
  if (m.oneThreadMs > 0 && m.threadsMs > 0) j["one_thread"] = {{"ms", m.oneThreadMs}, {"threads_ms", m.threadsMs}};
  return j;
}

nlohmann::json toJson(const ProfileData& p) {
  json j;
  j["device"] = p.device;
  j["runtime"] = p.runtime;
  j["source"] = p.source;
  j["optimization"] = p.optimization;
  j["threads"] = p.threads;
  j["iterations"] = p.iterations;
  j["warmup"] = p.warmup;
  j["input_shapes"] = p.inputShapes;
  j["latency_ms"] = statsJson(p.latencyMs);
  if (!p.stepSource.empty()) j["step_source"] = p.stepSource;
  if (p.rowsSpanMs > 0) j["rows_span_ms"] = p.rowsSpanMs;
  j["measurement"] = toJson(p.measurement);
  j["sum_node_median_ms"] = p.sumNodeMedians();
  j["nodes"] = json::array();
  for (const NodeProfile& n : p.nodes) {
    json e{{"name", n.name},
           {"op_type", n.opType},
           {"median_ms", n.timeMs.median},
           {"p10_ms", n.timeMs.p10},
           {"p90_ms", n.timeMs.p90},
           {"mean_ms", n.timeMs.mean},
           {"min_ms", n.timeMs.min},
           {"max_ms", n.timeMs.max},
           {"count", n.timeMs.count},
           {"kernel", n.kernel},
           {"input_shapes", n.inputShapes},
           {"output_shapes", n.outputShapes},
           {"ir_nodes", n.irNodes},
           {"inserted", n.inserted}};
    if (!n.inputDtypes.empty()) e["input_dtypes"] = n.inputDtypes;
    if (!n.outputDtypes.empty()) e["output_dtypes"] = n.outputDtypes;
    if (!n.inputFormats.empty()) e["input_formats"] = n.inputFormats;
    if (!n.outputFormats.empty()) e["output_formats"] = n.outputFormats;
    if (!n.metrics.empty()) e["metrics"] = n.metrics;
    if (!n.neighbours.empty()) e["neighbours"] = n.neighbours;
    if (!n.parent.empty()) e["parent"] = n.parent;
    if (!n.producerIrNode.empty()) e["producer_ir_node"] = n.producerIrNode;
    if (!n.consumerIrNode.empty()) e["consumer_ir_node"] = n.consumerIrNode;
    if (n.calls != 1) e["calls"] = n.calls;
    if (!n.opState.empty()) e["op_state"] = n.opState;
    if (!n.origin.from.empty())
      e["origin"] = {{"framework_op", n.origin.frameworkOp}, {"launch_op", n.origin.launchOp}, {"module", n.origin.module},
                     {"source_line", n.origin.sourceLine}, {"from", n.origin.from}};
    j["nodes"].push_back(std::move(e));
  }
  j["unmatched"] = p.unmatched;
  j["ir_nodes_not_run"] = p.irNodesNotRun;
  if (!p.deviceInfo.empty()) j["device_info"] = p.deviceInfo;
  if (!p.importer.empty()) j["importer"] = p.importer;
  j["capabilities"] = {{"device_tasks", p.caps.deviceTasks}, {"ascend", p.caps.ascend},   {"shapes", p.caps.shapes},
                       {"pmu_metrics", p.caps.pmuMetrics},   {"timeline", p.caps.timeline}, {"runtime_graph", p.caps.runtimeGraph}};
  if (!p.warnings.empty()) j["warnings"] = p.warnings;
  if (!p.files.empty()) j["files"] = p.files;
  if (p.ranks != 1) j["ranks"] = p.ranks;
  if (!p.rank.empty()) j["rank"] = p.rank;
  if (!p.metricSets.empty()) j["metric_sets"] = p.metricSets;
  if (!p.chipBasis.empty()) j["chip"] = p.chipBasis;
  if (p.tasks > 0) j["tasks"] = p.tasks;
  if (!p.stepBreakdownMs.empty()) j["step_breakdown_ms"] = p.stepBreakdownMs;
  return j;
}

Result<ProfileData> profileFromJson(const nlohmann::json& j, const std::string& label) {
  Reader r(label);
  if (!j.is_object()) return Error::model("a profile is a JSON object", label);
  if (j.contains("error") && !j.contains("nodes")) {
    std::string msg = j["error"].is_object() && j["error"].contains("message") && j["error"]["message"].is_string()
                          ? j["error"]["message"].get<std::string>()
                          : j["error"].dump();
    return Error::model("the file records a failed profile: " + msg, label);
  }
  ProfileData p;
  if (auto s = r.string(j, "device", "profile", p.device, false); !s) return s.error();
  if (auto s = r.string(j, "runtime", "profile", p.runtime, false); !s) return s.error();
  if (auto s = r.string(j, "source", "profile", p.source, false); !s) return s.error();
  if (auto s = r.string(j, "optimization", "profile", p.optimization, false); !s) return s.error();
  for (auto [key, field] : {std::pair{"threads", &p.threads}, {"iterations", &p.iterations}, {"warmup", &p.warmup}})
    if (auto s = r.count(j, key, "profile", *field); !s) return s.error();
  if (auto it = j.find("input_shapes"); it != j.end() && it->is_object())
    for (auto& [k, val] : it->items()) p.inputShapes[k] = val.is_string() ? val.get<std::string>() : val.dump();
  if (auto it = j.find("latency_ms"); it != j.end()) {
    if (!it->is_object()) return r.error("profile", "'latency_ms' is not an object");
    Stats& s = p.latencyMs;
    if (auto st = r.number(*it, "median", "latency_ms", s.median, true); !st) return st.error();
    for (auto [key, field] : {std::pair{"p10", &s.p10}, {"p90", &s.p90}, {"mean", &s.mean}, {"min", &s.min}, {"max", &s.max}})
      if (auto st = r.number(*it, key, "latency_ms", *field, false); !st) return st.error();
    s.count = 0;
    if (auto st = r.count(*it, "count", "latency_ms", s.count); !st) return st.error();
    for (auto [key, v] : {std::pair{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}, {"mean", s.mean}, {"min", s.min}, {"max", s.max}})
      if (const std::string why = durationProblem(v); !why.empty()) return r.error("latency_ms", std::string("'") + key + "' " + why);
  }
  if (auto it = j.find("measurement"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return r.error("profile", "'measurement' is not an object");
    Measurement& m = p.measurement;
    m.measured = true;
    for (auto [key, field] : {std::pair{"threads", &m.threads}, {"runnable", &m.runnable}, {"blocks", &m.blocks},
                              {"blocks_set_aside", &m.blocksSetAside}})
      if (auto st = r.count(*it, key, "measurement", *field); !st) return st.error();
    for (auto [key, field] : {std::pair{"cpu_share", &m.cpuShare}, {"load", &m.load}, {"steal_share", &m.stealShare},
                              {"uncontended_ms", &m.uncontendedMs}})
      if (auto st = r.number(*it, key, "measurement", *field, false); !st) return st.error();
    if (auto st = r.string(*it, "threads_basis", "measurement", m.threadsBasis, false); !st) return st.error();
    if (auto st = r.string(*it, "uncontended_basis", "measurement", m.uncontendedBasis, false); !st) return st.error();
    if (auto c = it->find("contended"); c != it->end() && !c->is_null()) {
      if (!c->is_boolean()) return r.error("measurement", "'contended' is not true or false");
      m.contended = c->get<bool>();
    }
    if (auto one = it->find("one_thread"); one != it->end() && one->is_object()) {
      if (auto st = r.number(*one, "ms", "measurement.one_thread", m.oneThreadMs, false); !st) return st.error();
      if (auto st = r.number(*one, "threads_ms", "measurement.one_thread", m.threadsMs, false); !st) return st.error();
    }
  }
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array()) return r.error("profile", "'nodes' is missing or not a list");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const json& e = (*nodes)[i];
    const std::string where = "nodes[" + std::to_string(i) + "]";
    if (!e.is_object()) return r.error(where, "not an object");
    NodeProfile n;
    if (auto s = r.string(e, "name", where, n.name, true); !s) return s.error();
    if (auto s = r.string(e, "op_type", where, n.opType, false); !s) return s.error();
    if (auto s = r.number(e, "median_ms", where, n.timeMs.median, true); !s) return s.error();
    for (auto [key, field] : {std::pair{"p10_ms", &n.timeMs.p10}, {"p90_ms", &n.timeMs.p90}, {"mean_ms", &n.timeMs.mean},
                              {"min_ms", &n.timeMs.min}, {"max_ms", &n.timeMs.max}})
      if (auto s = r.number(e, key, where, *field, false); !s) return s.error();
    n.timeMs.count = 0;
    if (auto s = r.count(e, "count", where, n.timeMs.count); !s) return s.error();
    for (auto [key, v] : {std::pair{"median_ms", n.timeMs.median}, {"p10_ms", n.timeMs.p10}, {"p90_ms", n.timeMs.p90},
                          {"mean_ms", n.timeMs.mean}, {"min_ms", n.timeMs.min}, {"max_ms", n.timeMs.max}})
      if (const std::string why = durationProblem(v); !why.empty()) return r.error(where, std::string("'") + key + "' " + why);
    if (auto s = r.string(e, "kernel", where, n.kernel, false); !s) return s.error();
    if (auto s = r.string(e, "parent", where, n.parent, false); !s) return s.error();
    if (auto s = r.string(e, "producer_ir_node", where, n.producerIrNode, false); !s) return s.error();
    if (auto s = r.string(e, "consumer_ir_node", where, n.consumerIrNode, false); !s) return s.error();
    for (auto [key, field] : {std::pair{"input_shapes", &n.inputShapes}, {"output_shapes", &n.outputShapes},
                              {"ir_nodes", &n.irNodes}, {"input_dtypes", &n.inputDtypes},
                              {"output_dtypes", &n.outputDtypes}, {"input_formats", &n.inputFormats},
                              {"output_formats", &n.outputFormats}, {"neighbours", &n.neighbours}})
      if (auto s = r.strings(e, key, where, *field); !s) return s.error();
    if (auto it = e.find("inserted"); it != e.end() && !it->is_null()) {
      if (!it->is_boolean()) return r.error(where, "'inserted' is not true or false");
      n.inserted = it->get<bool>();
    }
    if (auto it = e.find("metrics"); it != e.end() && it->is_object())
      for (auto& [k, val] : it->items())
        if (val.is_number()) n.metrics[k] = val.get<double>();
    if (auto s = r.number(e, "calls", where, n.calls, false); !s) return s.error();
    if (auto s = r.string(e, "op_state", where, n.opState, false); !s) return s.error();
    if (auto it = e.find("origin"); it != e.end() && it->is_object())
      for (auto [key, field] : {std::pair{"framework_op", &n.origin.frameworkOp}, {"launch_op", &n.origin.launchOp},
                                {"module", &n.origin.module}, {"source_line", &n.origin.sourceLine}, {"from", &n.origin.from}})
        if (auto s = r.string(*it, key, where + ".origin", *field, false); !s) return s.error();
    p.nodes.push_back(std::move(n));
  }
  if (auto s = r.strings(j, "unmatched", "profile", p.unmatched); !s) return s.error();
  if (auto s = r.strings(j, "ir_nodes_not_run", "profile", p.irNodesNotRun); !s) return s.error();
  if (auto it = j.find("device_info"); it != j.end() && it->is_object())
    for (auto& [k, val] : it->items())
      if (val.is_number()) p.deviceInfo[k] = val.get<double>();
  if (auto s = r.string(j, "importer", "profile", p.importer, false); !s) return s.error();
  if (auto it = j.find("capabilities"); it != j.end() && it->is_object()) {
    for (auto [key, field] : {std::pair{"device_tasks", &p.caps.deviceTasks}, {"ascend", &p.caps.ascend},
                              {"shapes", &p.caps.shapes}, {"pmu_metrics", &p.caps.pmuMetrics},
                              {"timeline", &p.caps.timeline}, {"runtime_graph", &p.caps.runtimeGraph}})
      if (auto v = it->find(key); v != it->end() && v->is_boolean()) *field = v->get<bool>();
  } else {
    // Written before capabilities were recorded: what its runtime string said.
    p.caps.ascend = p.runtime.starts_with("msprof") || p.runtime.starts_with("torch_npu") || p.runtime.starts_with("AscendCL");
    p.caps.deviceTasks = p.caps.ascend;
  }
  for (auto [key, field] : {std::pair{"warnings", &p.warnings}, {"files", &p.files}, {"metric_sets", &p.metricSets}})
    if (auto s = r.strings(j, key, "profile", *field); !s) return s.error();
  if (auto s = r.count(j, "ranks", "profile", p.ranks); !s) return s.error();
  if (auto s = r.string(j, "rank", "profile", p.rank, false); !s) return s.error();
  if (auto s = r.string(j, "chip", "profile", p.chipBasis, false); !s) return s.error();
  p.tasks = 0;
  if (auto s = r.count(j, "tasks", "profile", p.tasks); !s) return s.error();
  if (auto it = j.find("step_breakdown_ms"); it != j.end() && it->is_object())
    for (auto& [k, val] : it->items())
      if (val.is_number()) p.stepBreakdownMs[k] = val.get<double>();
  return p;
}

}  // namespace msa
