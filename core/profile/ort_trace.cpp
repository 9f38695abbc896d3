#include "profile/ort_trace.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/input_file.h"
#include "util/read_limits.h"
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

namespace {

struct Abort {};  // thrown from the parser callback at the first error

// Converts each event as the parser completes it and drops it from the tree: a profile of a
// million events costs its converted form, not a JSON tree ten times the text.
class TraceReader {
 public:
  TraceReader(const std::string& label, bool rawBytes) : m_label(label), m_raw(rawBytes), m_budget(label, "events") {}

  // `parse(callback)` runs the parser; `source` says why a stream ended early (a read limit).
  template <typename Parse>
  Result<OrtTrace> run(Parse&& parse, const std::function<std::optional<Error>()>& source) {
    const json::parser_callback_t cb = [this](int depth, json::parse_event_t ev, json& parsed) {
      return callback(depth, ev, parsed);
    };
    json doc;
    try {
      doc = parse(cb);
    } catch (const Abort&) {
      return *m_error;
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
      if (auto why = source()) return *why;
      return Error::model(std::string("not valid JSON (") + e.what() + ")", m_label);
    }
    if (auto why = source()) return *why;
    if (doc.is_object() && !m_sawEvents)
      return Error::model("a JSON object without 'traceEvents': not an ONNX Runtime profile", m_label);
    if (!m_rootArray && !m_sawEvents) return Error::model("not an ONNX Runtime profile: expected a list of trace events", m_label);
    std::stable_sort(m_t.runs.begin(), m_t.runs.end(), [](const OrtRun& a, const OrtRun& b) { return a.tsUs < b.tsUs; });
    std::stable_sort(m_t.kernels.begin(), m_t.kernels.end(), [](const OrtKernelEvent& a, const OrtKernelEvent& b) {
      return a.tsUs != b.tsUs ? a.tsUs < b.tsUs : a.durUs > b.durUs;  // a parent before the children it holds
    });
    assignParents(m_t.kernels);
    assignRuns(m_t);
    return std::move(m_t);
  }

 private:
  bool callback(int depth, json::parse_event_t ev, json& parsed) {
    if (depth == 0 && ev == json::parse_event_t::array_start) m_rootArray = true;
    if (depth == 1 && ev == json::parse_event_t::key) m_topKey = parsed.get<std::string>();
    if (depth == 1 && !m_rootArray && m_topKey == "traceEvents" && ev == json::parse_event_t::value)
      fail(Error::model("not an ONNX Runtime profile: expected a list of trace events", m_label));
    if (depth == 1 && !m_rootArray && m_topKey == "traceEvents" && ev == json::parse_event_t::array_start) m_sawEvents = true;
    const bool inEvents = m_rootArray ? depth == 1 : (depth == 2 && m_topKey == "traceEvents" && m_sawEvents);
    if (!inEvents) return true;
    if (ev == json::parse_event_t::value) fail(Error::model("event " + std::to_string(m_index) + ": not an object", m_label));
    if (ev != json::parse_event_t::object_end) return true;
    if (auto s = addEvent(m_index++, parsed); !s) fail(s.error());
    return false;  // converted: dropped from the tree
  }

  [[noreturn]] void fail(Error e) {
    m_error = std::move(e);
    throw Abort{};
  }

  std::string raw(std::string s) const { return m_raw ? restoreRawBytes(s) : s; }

  Status addEvent(size_t i, const json& e) {
    if (!e.is_object()) return Error::model("event " + std::to_string(i) + ": not an object", m_label);
    EventReader r(m_label, i, e);
    auto nameIt = e.find("name");
    if (nameIt == e.end() || !nameIt->is_string()) return r.fail("'name' is missing or not a string");
    const std::string& name = nameIt->get_ref<const std::string&>();
    const std::string ph = stringField(e, {"ph"});
    if (!ph.empty() && ph != "X") return Ok{};  // metadata, instants, counters
    const std::string cat = stringField(e, {"cat"});
    if (name == "model_run" && (cat.empty() || cat == "Session")) {
      auto ts = r.time("ts");
      if (!ts) return ts.error();
      auto dur = r.time("dur");
      if (!dur) return dur.error();
      if (const std::string why = durationProblem(*dur / 1000.0); !why.empty()) return r.fail("'dur' " + why);
      if (!m_budget.add()) return m_budget.error();
      m_t.runs.push_back({*ts, *dur});
      return Ok{};
    }
    if (name.size() < kKernelSuffix.size() || !name.ends_with(kKernelSuffix) || (!cat.empty() && cat != "Node")) return Ok{};
    OrtKernelEvent k;
    k.eventIndex = i;
    k.node = raw(name.substr(0, name.size() - kKernelSuffix.size()));
    auto ts = r.time("ts");
    if (!ts) return ts.error();
    auto dur = r.time("dur");
    if (!dur) return dur.error();
    if (const std::string why = durationProblem(*dur / 1000.0); !why.empty()) return r.fail("'dur' " + why);
    k.tsUs = *ts;
    k.durUs = *dur;
    if (auto a = e.find("args"); a != e.end() && !a->is_null()) {
      if (!a->is_object()) return r.fail("'args' is not an object");
      k.opType = raw(stringField(*a, {"op_name", "op_type"}));
      k.provider = stringField(*a, {"provider", "execution_provider"});
      if (auto s = r.typeShapes(*a, "input_type_shape", k.inputShapes, k.inputDtypes); !s) return s.error();
      if (auto s = r.typeShapes(*a, "output_type_shape", k.outputShapes, k.outputDtypes); !s) return s.error();
    }
    if (!m_budget.add()) return m_budget.error();
    m_t.kernels.push_back(std::move(k));
    return Ok{};
  }

  const std::string& m_label;
  bool m_raw;
  RecordBudget m_budget;
  OrtTrace m_t;
  std::optional<Error> m_error;
  size_t m_index = 0;
  bool m_rootArray = false, m_sawEvents = false;
  std::string m_topKey;
};

}  // namespace

Result<OrtTrace> parseOrtTrace(std::string_view text, const std::string& label) {
  bool protectedBytes = false;  // node names that are not UTF-8, written by the runtime as they are
  const std::string safe = protectInvalidUtf8InJson(text, &protectedBytes);
  TraceReader reader(label, protectedBytes);
  return reader.run([&](const json::parser_callback_t& cb) { return json::parse(safe.begin(), safe.end(), cb); },
                    [] { return std::optional<Error>(); });
}

Result<OrtTrace> loadOrtTrace(const std::filesystem::path& file) {
  auto in = InputStream::open(file);
  if (!in) return in.error();
  // Names are bytes: repaired on the way for the parser (util/utf8.h), restored once read.
  JsonRepairBuffer repaired((*in)->buffer());
  std::istream text(&repaired);
  const std::string label = file.string();
  TraceReader reader(label, false);
  auto t = reader.run([&](const json::parser_callback_t& cb) { return json::parse(text, cb); }, [&] { return (*in)->error(); });
  if (t && repaired.changed())
    for (OrtKernelEvent& k : t->kernels) {
      k.node = restoreRawBytes(k.node);
      k.opType = restoreRawBytes(k.opType);
      k.parent = restoreRawBytes(k.parent);
    }
  return t;
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
