#include "profile/ort_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/utf8.h"

namespace msa {
namespace {

using nlohmann::json;

constexpr std::string_view kKernelSuffix = "_kernel_time";
constexpr double kSlackUs = 1.0;  // timestamps are whole microseconds: allow rounding at span ends

bool isControlFlow(std::string_view op) { return op == "If" || op == "Loop" || op == "Scan" || op == "SequenceMap"; }

class EventReader {
 public:
  EventReader(const std::string& label, size_t index, const json& e) : m_label(label), m_index(index), m_e(e) {}

  Error fail(const std::string& what) const {
    std::string where = "event " + std::to_string(m_index);
    if (auto it = m_e.find("name"); it != m_e.end() && it->is_string()) where += " ('" + it->get<std::string>() + "')";
    return Error::model(where + ": " + what, m_label);
  }

  Result<double> time(const char* key) const {
    auto it = m_e.find(key);
    if (it == m_e.end()) return fail(std::string("'") + key + "' is missing");
    double v = 0;
    if (it->is_number()) v = it->get<double>();
    else if (it->is_string()) {  // a few writers quote numbers
      try {
        size_t pos = 0;
        v = std::stod(it->get<std::string>(), &pos);
        if (pos != it->get<std::string>().size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        return fail(std::string("'") + key + "' is not a number");
      }
    } else {
      return fail(std::string("'") + key + "' is not a number");
    }
    if (!std::isfinite(v) || v < 0) return fail(std::string("'") + key + "' is negative or not finite");
    return v;
  }

  // args.input_type_shape: [{"float": [1,3,224,224]}, …] (ORT ≥ 1.6); tolerate its absence.
  Status typeShapes(const json& args, const char* key, std::vector<std::string>& shapes,
                    std::vector<std::string>& dtypes) const {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return Ok{};
    if (!it->is_array()) return fail(std::string("args.") + key + " is not a list");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& entry = (*it)[i];
      if (!entry.is_object() || entry.size() != 1)
        return fail(std::string("args.") + key + "[" + std::to_string(i) + "] is not a {dtype: shape} pair");
      // entry.begin() iterates entry itself; a binding to *entry.items().begin() would refer to a
      // proxy that dies at the end of the statement (ASan: stack-use-after-scope).
      const auto pair = entry.begin();
      const std::string& dtype = pair.key();
      const json& dims = pair.value();
      if (!dims.is_array()) return fail(std::string("args.") + key + "[" + std::to_string(i) + "] has no dims list");
      std::string s = "[";
      for (size_t d = 0; d < dims.size(); ++d) {
        if (!dims[d].is_number_integer()) return fail(std::string("args.") + key + "[" + std::to_string(i) + "] has a non-integer dim");
        s += (d ? "," : "") + std::to_string(dims[d].get<int64_t>());
      }
      shapes.push_back(s + "]");
      dtypes.push_back(dtype);
    }
    return Ok{};
  }

 private:
  const std::string& m_label;
  size_t m_index;
  const json& m_e;
};

std::string stringField(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = obj.find(k); it != obj.end() && it->is_string()) return it->get<std::string>();
  return {};
}

void assignParents(std::vector<OrtKernelEvent>& kernels) {
  std::vector<const OrtKernelEvent*> open;
  for (OrtKernelEvent& k : kernels) {
    while (!open.empty() && open.back()->tsUs + open.back()->durUs + kSlackUs < k.tsUs) open.pop_back();
    if (!open.empty() && k.tsUs + k.durUs <= open.back()->tsUs + open.back()->durUs + kSlackUs) k.parent = open.back()->node;
    if (isControlFlow(k.opType)) open.push_back(&k);
  }
}

void assignRuns(OrtTrace& t) {
  if (!t.runs.empty()) {
    for (OrtKernelEvent& k : t.kernels) {
      auto it = std::upper_bound(t.runs.begin(), t.runs.end(), k.tsUs + kSlackUs,
                                 [](double ts, const OrtRun& r) { return ts < r.tsUs; });
      if (it == t.runs.begin()) continue;
      --it;
      if (k.tsUs <= it->tsUs + it->durUs + kSlackUs) k.run = static_cast<int>(it - t.runs.begin());
    }
    return;
  }
  // No model_run events (a trimmed trace): a run ends when a top-level node comes round again.
  t.runsInferred = true;
  std::set<std::string> seen;
  int run = -1;
  for (OrtKernelEvent& k : t.kernels) {
    if (k.parent.empty() && (run < 0 || seen.count(k.node))) {
      ++run;
      seen.clear();
      t.runs.push_back({k.tsUs, 0});
    }
    if (k.parent.empty()) seen.insert(k.node);
    k.run = run;
    OrtRun& r = t.runs.back();
    r.durUs = std::max(r.durUs, k.tsUs + k.durUs - r.tsUs);
  }
}

}  // namespace

Result<OrtTrace> parseOrtTrace(std::string_view text, const std::string& label) {
  json doc;
  bool protectedBytes = false;  // node names that are not UTF-8, written by the runtime as they are
  try {
    const std::string safe = protectInvalidUtf8InJson(text, &protectedBytes);
    doc = json::parse(safe.begin(), safe.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    return Error::model(std::string("not valid JSON (") + e.what() + ")", label);
  }
  const auto raw = [&](std::string s) { return protectedBytes ? restoreRawBytes(s) : s; };
  const json* events = &doc;
  if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it == doc.end()) return Error::model("a JSON object without 'traceEvents': not an ONNX Runtime profile", label);
    events = &*it;
  }
  if (!events->is_array()) return Error::model("not an ONNX Runtime profile: expected a list of trace events", label);

  OrtTrace t;
  for (size_t i = 0; i < events->size(); ++i) {
    const json& e = (*events)[i];
    if (!e.is_object()) return Error::model("event " + std::to_string(i) + ": not an object", label);
    EventReader r(label, i, e);
    auto nameIt = e.find("name");
    if (nameIt == e.end() || !nameIt->is_string()) return r.fail("'name' is missing or not a string");
    const std::string name = nameIt->get<std::string>();
    const std::string ph = stringField(e, {"ph"});
    if (!ph.empty() && ph != "X") continue;  // metadata, instants, counters
    const std::string cat = stringField(e, {"cat"});
    if (name == "model_run" && (cat.empty() || cat == "Session")) {
      auto ts = r.time("ts");
      if (!ts) return ts.error();
      auto dur = r.time("dur");
      if (!dur) return dur.error();
      t.runs.push_back({*ts, *dur});
      continue;
    }
    if (name.size() < kKernelSuffix.size() || !name.ends_with(kKernelSuffix) || (!cat.empty() && cat != "Node")) continue;
    OrtKernelEvent k;
    k.eventIndex = i;
    k.node = raw(name.substr(0, name.size() - kKernelSuffix.size()));
    auto ts = r.time("ts");
    if (!ts) return ts.error();
    auto dur = r.time("dur");
    if (!dur) return dur.error();
    k.tsUs = *ts;
    k.durUs = *dur;
    if (auto a = e.find("args"); a != e.end() && !a->is_null()) {
      if (!a->is_object()) return r.fail("'args' is not an object");
      k.opType = raw(stringField(*a, {"op_name", "op_type"}));
      k.provider = stringField(*a, {"provider", "execution_provider"});
      if (auto s = r.typeShapes(*a, "input_type_shape", k.inputShapes, k.inputDtypes); !s) return s.error();
      if (auto s = r.typeShapes(*a, "output_type_shape", k.outputShapes, k.outputDtypes); !s) return s.error();
    }
    t.kernels.push_back(std::move(k));
  }
  std::stable_sort(t.runs.begin(), t.runs.end(), [](const OrtRun& a, const OrtRun& b) { return a.tsUs < b.tsUs; });
  std::stable_sort(t.kernels.begin(), t.kernels.end(), [](const OrtKernelEvent& a, const OrtKernelEvent& b) {
    return a.tsUs != b.tsUs ? a.tsUs < b.tsUs : a.durUs > b.durUs;  // a parent before the children it holds
  });
  assignParents(t.kernels);
  assignRuns(t);
  return t;
}

Result<OrtTrace> loadOrtTrace(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the trace", file.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseOrtTrace(ss.str(), file.string());
}

Result<ProfileData> profileFromTrace(const OrtTrace& trace, int skipRuns, const std::string& label) {
  const int runs = static_cast<int>(trace.runs.size());
  if (trace.kernels.empty()) return Error::model("the trace holds no '_kernel_time' events (was profiling on?)", label);
  if (skipRuns < 0 || skipRuns >= runs)
    return Error::model("the trace holds " + std::to_string(runs) + " run(s); nothing is left after skipping " +
                            std::to_string(skipRuns),
                        label);
  struct Acc {
    std::map<int, double> perRun;  // run -> summed duration (µs)
    int calls = 0;
    const OrtKernelEvent* first = nullptr;
  };
  std::vector<std::string> order;
  std::unordered_map<std::string, Acc> acc;
  for (const OrtKernelEvent& k : trace.kernels) {
    if (k.run < skipRuns) continue;
    auto [it, fresh] = acc.try_emplace(k.node);
    if (fresh) {
      order.push_back(k.node);
      it->second.first = &k;
    }
    it->second.perRun[k.run] += k.durUs;
    ++it->second.calls;
  }
  ProfileData p;
  p.iterations = runs - skipRuns;
  p.warmup = skipRuns;
  p.optimization = "";
  std::vector<double> lat;
  for (int r = skipRuns; r < runs; ++r) lat.push_back(trace.runs[static_cast<size_t>(r)].durUs / 1000.0);
  p.latencyMs = Stats::of(lat);
  for (const std::string& name : order) {
    const Acc& a = acc.at(name);
    NodeProfile n;
    n.name = name;
    n.opType = a.first->opType;
    n.kernel = a.first->provider;
    n.inputShapes = a.first->inputShapes;
    n.outputShapes = a.first->outputShapes;
    n.inputDtypes = a.first->inputDtypes;
    n.outputDtypes = a.first->outputDtypes;
    n.parent = a.first->parent;
    std::vector<double> samples;
    for (const auto& [run, us] : a.perRun) samples.push_back(us / 1000.0);
    n.timeMs = Stats::of(samples);
    if (a.calls > static_cast<int>(a.perRun.size()))
      n.metrics["calls_per_run"] = static_cast<double>(a.calls) / static_cast<double>(a.perRun.size());
    p.nodes.push_back(std::move(n));
  }
  return p;
}

}  // namespace msa
