// Chrome-trace JSON from the PyTorch profilers: Kineto's `{"traceEvents": […]}`, the legacy
// autograd exporter's bare list (pid "CPU functions", no categories), and torch_npu's
// trace_view.json (a bare list; lanes named by process_name metadata: "Python", "CANN",
// "Ascend Hardware"; timestamps as decimal strings). The file is parsed with a callback that
// converts each event as soon as it is complete and drops it from the DOM, so a trace of a
// million events costs its converted form, not a JSON tree.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "profile/ascend_ops.h"
#include "profile/json_file.h"
#include "profile/profile_data.h"
#include "profile/run_trace.h"
#include "util/input_file.h"
#include "util/read_limits.h"

namespace msa::training {
namespace {

// An id-like number of the file as an integer: integers as written, a float only when whole and
// in range (a fuzzed 4.2e21 was converted to long long: undefined behaviour), else `otherwise`.
long long integerOr(const nlohmann::json& v, long long otherwise) {
  if (v.is_number_integer()) return v.get<long long>();
  if (!v.is_number_float()) return otherwise;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::trunc(d) && std::abs(d) < 9.0e18 ? static_cast<long long>(d) : otherwise;
}

using nlohmann::json;

struct Abort {};  // thrown from the parser callback to stop at the first error or a cancel

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What an event is, from its category; nullopt: not something we analyse.
enum class Cat { Host, Annotation, Kernel, Memcpy, Memset, Runtime, ByLane, Skip };

Cat categoryOf(const std::string& cat) {
  if (cat.empty()) return Cat::ByLane;
  const std::string c = lower(cat);
  if (c == "cpu_op" || c == "operator") return Cat::Host;
  if (c == "user_annotation") return Cat::Annotation;
  if (c == "kernel") return Cat::Kernel;
  if (c == "gpu_memcpy" || c == "memcpy") return Cat::Memcpy;
  if (c == "gpu_memset" || c == "memset") return Cat::Memset;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime") return Cat::Runtime;
  return Cat::Skip;  // python_function, gpu_user_annotation, overhead, flows, counters, …
}

std::string idKey(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return std::to_string(v.get<double>());
  return {};
}

struct Flow {
  std::string thread;  // pid/tid key
  double tsUs = 0;
};

class Reader {
 public:
  Reader(const std::string& label, const Progress& progress)
      : m_label(label), m_progress(progress), m_budget(label, "events") {}

  // `parse(callback)` parses the text with the callback; `source` says why a stream ended early
  // (a read limit, corrupt compressed data); `unclosed` whether the text ends without its ']'.
  template <typename Parse>
  Result<TrainingTrace> run(Parse&& parse, const std::function<std::optional<Error>()>& source,
                            const std::function<bool(size_t errorByte)>& unclosed) {
    const json::parser_callback_t cb = [this](int depth, json::parse_event_t ev, json& parsed) {
      return callback(depth, ev, parsed);
    };
    try {
      json doc = parse(cb);
      if (!m_error && !doc.is_object() && !doc.is_array())
        return Error::model("not a Chrome trace: expected a JSON object with 'traceEvents' or a list of events", m_label);
      if (!m_error && doc.is_object() && !m_sawEvents)
        return Error::model("a JSON object without 'traceEvents': not a PyTorch profiler trace", m_label);
      if (doc.is_object()) {
        if (auto it = doc.find("deviceProperties"); it != doc.end() && it->is_array() && !it->empty()) m_gpuProperties = true;
        if (auto it = doc.find("msadvisor"); it != doc.end())
          if (auto s = readModuleMemory(*it); !s) return s.error();
      }
    } catch (const Abort&) {
    } catch (const json::out_of_range& e) {  // a number beyond double: 1e999
      return Error::model(std::string("not valid JSON (") + e.what() + ")", m_label);
    } catch (const json::parse_error& e) {
      if (auto why = source()) return *why;
      std::string msg = "not valid JSON at byte " + std::to_string(e.byte) + " (after " + std::to_string(m_index) + " events)";
      if (m_rootArray && unclosed(e.byte))
        msg += ": the list of events is not closed — an interrupted torch_npu analysis leaves trace_view.json without its final ']'";
      return Error::model(msg, m_label);
    }
    if (m_error) return *m_error;
    if (auto why = source()) return *why;
    return finish();
  }

 private:
  bool callback(int depth, json::parse_event_t ev, json& parsed) {
    if (m_error) throw Abort{};
    if (depth == 0 && ev == json::parse_event_t::array_start) m_rootArray = true;
    if (depth == 1 && ev == json::parse_event_t::key) m_topKey = parsed.get<std::string>();
    const bool inEvents = m_rootArray ? depth == 1 : (depth == 2 && m_topKey == "traceEvents");
    if (depth == 1 && !m_rootArray && ev == json::parse_event_t::array_start && m_topKey == "traceEvents") m_sawEvents = true;
    if (!inEvents || ev != json::parse_event_t::object_end) {
      if (inEvents && ev == json::parse_event_t::value) {  // a number or string where an event should be
        fail(m_index++, parsed, "not an object");
        throw Abort{};
      }
      return true;
    }
    const size_t index = m_index++;
    if ((index & 4095) == 0 && m_progress.cancelled()) {
      m_error = Error::cancelled();
      throw Abort{};
    }
    if (auto s = addEvent(index, parsed); !s) {
      m_error = s.error();
      throw Abort{};
    }
    return false;  // converted: drop it from the DOM
  }

  // patch_pytorch's block: {"modules": [{"path", "type", "saved_bytes", "output_bytes", "calls"}]}.
  Status readModuleMemory(const json& block) {
    auto mods = block.is_object() ? block.find("modules") : block.end();
    if (!block.is_object() || mods == block.end() || !mods->is_array())
      return Error::model("the \"msadvisor\" block has no \"modules\" list", m_label);
    for (size_t i = 0; i < mods->size(); ++i) {
      const json& m = (*mods)[i];
      auto num = [&](const char* k) { return m.is_object() && m.contains(k) && m[k].is_number() ? m[k].get<double>() : -1.0; };
      if (!m.is_object() || !m.contains("path") || !m["path"].is_string() || num("saved_bytes") < 0)
        return Error::model("msadvisor.modules[" + std::to_string(i) + "] needs a \"path\" and non-negative \"saved_bytes\"",
                            m_label);
      m_moduleMemory.push_back({m["path"].get<std::string>(), stringAt(m, "type"), num("saved_bytes"),
                                std::max(0.0, num("output_bytes")), std::max(0.0, num("calls"))});
    }
    return Ok{};
  }

  // Kineto's profile_memory events: "[memory]" instants with args Addr and Bytes (negative: a
  // free). An allocation is paired with the next free of its address on the same device.
  Status addMemoryEvent(size_t index, const json& e) {
    auto a = e.find("args");
    if (a == e.end() || !a->is_object()) return Ok{};
    auto bytes = a->find("Bytes"), addr = a->find("Addr");
    if (bytes == a->end() || addr == a->end() || !bytes->is_number()) return Ok{};
    auto ts = number(index, e, "ts", true);
    if (!ts) return ts.error();
    const long long device = a->contains("Device Type") ? integerOr((*a)["Device Type"], 0) : 0;
    const std::string key = std::to_string(device) + "/" + idKey(*addr);
    const double b = bytes->get<double>();
    if (b > 0) {
      if (!m_budget.add()) return m_budget.error();
      m_openBlocks[key] = m_blocks.size();
      m_blocks.push_back({b, *ts, -1, {}});
      m_blockDevice.push_back(device);
    } else if (auto it = m_openBlocks.find(key); it != m_openBlocks.end()) {
      m_blocks[it->second].releaseUs = *ts;
      m_openBlocks.erase(it);
    }
    return Ok{};
  }

  Error fail(size_t index, const json& e, const std::string& what) {
    std::string where = "event " + std::to_string(index);
    if (e.is_object())
      if (auto it = e.find("name"); it != e.end() && it->is_string()) where += " ('" + it->get<std::string>() + "')";
    m_error = Error::model(where + ": " + what, m_label);
    return *m_error;
  }

  Result<double> number(size_t index, const json& e, const char* key, bool required) {
    auto it = e.find(key);
    if (it == e.end() || it->is_null()) {
      if (required) return fail(index, e, std::string("'") + key + "' is missing");
      return -1.0;
    }
    double v = 0;
    if (it->is_number()) {
      v = it->get<double>();
    } else if (it->is_string()) {  // torch_npu writes "1704161511420306.491"
      const std::string& s = it->get_ref<const std::string&>();
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size()) return fail(index, e, std::string("'") + key + "' is not a number");
    } else {
      return fail(index, e, std::string("'") + key + "' is not a number");
    }
    if (!std::isfinite(v) || v < 0) return fail(index, e, std::string("'") + key + "' is negative or not finite");
    return v;
  }

  static std::string dimsText(const json& d) {
    if (d.is_number_integer()) return std::to_string(d.get<long long>());
    if (!d.is_array()) return {};
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + dimsText(d[i]);
    return s + "]";
  }

  Status readArgs(size_t index, const json& e, TraceEvent& ev) {
    auto a = e.find("args");
    if (a == e.end() || a->is_null()) return Ok{};
    if (!a->is_object()) return fail(index, e, "'args' is not an object");
    if (auto d = a->find("Input Dims"); d != a->end() && !d->is_null()) {
      if (d->is_array()) {
        for (const json& in : *d) {
          if (!in.is_array() && !in.is_number_integer()) return fail(index, e, "args 'Input Dims' holds a non-list entry");
          ev.inputDims.push_back(dimsText(in));
        }
      } else if (d->is_string()) {
        ev.inputDims = splitAscendShapes(d->get<std::string>());
      } else {
        return fail(index, e, "args 'Input Dims' is not a list");
      }
    }
    if (auto t = a->find("Input type"); t != a->end() && !t->is_null()) {
      if (t->is_array()) {
        for (const json& in : *t) ev.inputTypes.push_back(in.is_string() ? in.get<std::string>() : std::string());
      } else if (t->is_string()) {
        const std::string& s = t->get_ref<const std::string&>();
        for (size_t b = 0; b <= s.size();) {
          size_t sep = s.find(';', b);
          if (sep == std::string::npos) sep = s.size();
          ev.inputTypes.push_back(s.substr(b, sep - b));
          b = sep + 1;
        }
      } else {
        return fail(index, e, "args 'Input type' is not a list");
      }
    }
    auto integer = [&](std::initializer_list<const char*> keys) -> long long {
      for (const char* k : keys)
        if (auto it = a->find(k); it != a->end() && it->is_number()) return integerOr(*it, -1);
      return -1;
    };
    ev.externalId = integer({"External id"});
    ev.correlation = integer({"correlation", "correlation_id"});
    if (auto t = a->find("Task Type"); t != a->end() && t->is_string()) ev.taskType = t->get<std::string>();
    return Ok{};
  }

  int threadIndex(const std::string& key) {
    auto [it, added] = m_threadIndex.try_emplace(key, static_cast<int>(m_threads.size()));
    if (added) m_threads.push_back({key, false});
    return it->second;
  }

  Status addEvent(size_t index, const json& e) {
    if (!e.is_object()) return fail(index, e, "not an object");
    auto ph = e.find("ph");
    const std::string phase = ph != e.end() && ph->is_string() ? ph->get<std::string>() : "X";
    const std::string pid = e.contains("pid") ? idKey(e["pid"]) : std::string();
    const std::string tid = e.contains("tid") ? idKey(e["tid"]) : std::string();
    if (phase == "M") {
      auto n = e.find("name");
      auto a = e.find("args");
      if (n != e.end() && *n == "process_name" && a != e.end() && a->is_object())
        if (auto an = a->find("name"); an != a->end() && an->is_string()) m_laneNames[pid] = an->get<std::string>();
      return Ok{};
    }
    if (phase == "s" || phase == "f") {
      auto c = e.find("cat");
      const std::string cat = c != e.end() && c->is_string() ? lower(c->get<std::string>()) : "";
      if (cat != "async_npu" && cat != "ac2g") return Ok{};
      auto ts = number(index, e, "ts", true);
      if (!ts) return ts.error();
      const std::string id = e.contains("id") ? idKey(e["id"]) : std::string();
      if (!m_budget.add()) return m_budget.error();
      (phase == "s" ? m_flowStart : m_flowEnd)[id] = {pid + "/" + tid, *ts};
      return Ok{};
    }
    if (phase == "i" || phase == "I") {
      auto n = e.find("name");
      if (n != e.end() && *n == "[memory]") return addMemoryEvent(index, e);
      return Ok{};
    }
    if (phase != "X") return Ok{};  // counters, B/E pairs: not used
    auto n = e.find("name");
    if (n == e.end() || !n->is_string()) return fail(index, e, "'name' is missing or not a string");
    auto c = e.find("cat");
    if (c != e.end() && !c->is_null() && !c->is_string()) return fail(index, e, "'cat' is not a string");
    Cat cat = categoryOf(c != e.end() && c->is_string() ? c->get<std::string>() : std::string());
    // The python tracer's module ranges (with_stack / with_modules) say which layer ran.
    if (cat == Cat::Skip && c != e.end() && c->is_string() && lower(c->get<std::string>()) == "python_function" &&
        std::string_view(n->get_ref<const std::string&>()).starts_with(kModuleRangePrefix))
      cat = Cat::Annotation;
    if (cat == Cat::Skip) return Ok{};
    auto ts = number(index, e, "ts", true);
    if (!ts) return ts.error();
    auto dur = number(index, e, "dur", true);
    if (!dur) return dur.error();
    if (const std::string why = durationProblem(*dur / 1000.0); !why.empty())
      return fail(index, e, "'dur' of " + std::to_string(*dur) + " µs " + why);
    TraceEvent ev;
    ev.name = n->get<std::string>();
    ev.tsUs = *ts;
    ev.durUs = *dur;
    ev.source = static_cast<int>(index);
    ev.thread = threadIndex(pid + "/" + tid);
    if (auto s = readArgs(index, e, ev); !s) return s;
    switch (cat) {
      case Cat::Host: ev.kind = EventKind::CpuOp; break;
      case Cat::Annotation: ev.kind = EventKind::Annotation; break;
      case Cat::Kernel: ev.kind = EventKind::Kernel; break;
      case Cat::Memcpy: ev.kind = EventKind::Memcpy; break;
      case Cat::Memset: ev.kind = EventKind::Memset; break;
      case Cat::Runtime: ev.kind = EventKind::Runtime; break;
      default: break;
    }
    // Record-function ranges some writers file as operators (legacy, older Kineto, torch_npu).
    if (ev.kind == EventKind::CpuOp && (ev.name.find('#') != std::string::npos || ev.name.starts_with(kModuleRangePrefix)))
      ev.kind = EventKind::Annotation;
    if (!m_budget.add()) return m_budget.error();
    m_events.push_back(std::move(ev));
    if (cat == Cat::ByLane) m_lanes.emplace_back(m_events.size() - 1, pid);
    if (cat == Cat::ByLane) m_needLanes = true;
    return Ok{};
  }

  // Events without a category take their kind from the lane (process) they are drawn in.
  void classifyByLane() {
    std::vector<bool> drop(m_events.size(), false);
    for (const auto& [i, pid] : m_lanes) {
      TraceEvent& ev = m_events[i];
      auto it = m_laneNames.find(pid);
      const std::string lane = it == m_laneNames.end() ? pid : it->second;
      if (lane == "Ascend Hardware") {
        m_npu = true;
        const std::string tt = lower(ev.taskType), nm = lower(ev.name);
        ev.kind = tt.find("dma") != std::string::npos || nm.starts_with("memcpy") ? EventKind::Memcpy : EventKind::Kernel;
        m_threads[static_cast<size_t>(ev.thread)].device = true;
      } else if (lane == "CANN") {
        ev.kind = EventKind::Runtime;
      } else if (lane == "Python" || lane == "CPU functions" || it == m_laneNames.end()) {
        ev.kind = ev.name.find('#') != std::string::npos || ev.name.starts_with(kModuleRangePrefix) ? EventKind::Annotation
                                                                                                   : EventKind::CpuOp;
        if (lane == "CPU functions") m_legacy = true;
      } else {
        drop[i] = true;  // Overlap Analysis, HCCL, Step Trace, Python GC, …: derived or not ours
      }
    }
    if (std::find(drop.begin(), drop.end(), true) == drop.end()) return;
    // In place: no second copy of the events. Never an event moved onto itself: a self-moved
    // std::string or vector is left empty (ProfilerStep#1 lost its name before a dropped lane).
    size_t kept = 0;
    for (size_t i = 0; i < m_events.size(); ++i) {
      if (drop[i]) continue;
      if (kept != i) m_events[kept] = std::move(m_events[i]);
      ++kept;
    }
    m_events.resize(kept);
  }

  // Kernels learn where they were launched: Kineto pairs runtime calls and kernels by
  // args.correlation; torch_npu draws a torch_to_npu flow from the host op to the task.
  void linkLaunches() {
    std::unordered_map<long long, const TraceEvent*> runtimeByCorrelation;
    for (const TraceEvent& ev : m_events)
      if (ev.kind == EventKind::Runtime && ev.correlation >= 0) runtimeByCorrelation.emplace(ev.correlation, &ev);
    for (TraceEvent& ev : m_events) {
      if (!ev.onDevice() || ev.correlation < 0) continue;
      if (auto it = runtimeByCorrelation.find(ev.correlation); it != runtimeByCorrelation.end()) {
        ev.launchThread = it->second->thread;
        ev.launchTsUs = it->second->tsUs;
      }
    }
    if (m_flowEnd.empty()) return;
    // Device events by (thread, start) to find the task a flow ends on.
    std::map<std::pair<int, double>, size_t> byStart;
    for (size_t i = 0; i < m_events.size(); ++i)
      if (m_events[i].onDevice()) byStart.emplace(std::make_pair(m_events[i].thread, m_events[i].tsUs), i);
    for (const auto& [id, end] : m_flowEnd) {
      auto s = m_flowStart.find(id);
      auto th = m_threadIndex.find(end.thread);
      if (s == m_flowStart.end() || th == m_threadIndex.end()) continue;
      auto it = byStart.lower_bound({th->second, end.tsUs - 0.01});
      if (it == byStart.end() || it->first.first != th->second || it->first.second > end.tsUs + 0.01) continue;
      TraceEvent& ev = m_events[it->second];
      ev.launchThread = threadIndex(s->second.thread);
      ev.launchTsUs = s->second.tsUs;
    }
  }

  Result<TrainingTrace> finish() {
    if (m_needLanes) classifyByLane();
    for (const TraceEvent& ev : m_events)
      if (ev.onDevice()) m_threads[static_cast<size_t>(ev.thread)].device = true;
    linkLaunches();
    TrainingTrace t;
    t.path = m_label;
    t.files.push_back(m_label);
    t.format = m_npu ? "torch_npu" : m_legacy ? "autograd-legacy" : m_rootArray ? "chrome" : "kineto";
    const bool device = std::any_of(m_events.begin(), m_events.end(), [](const TraceEvent& e) { return e.onDevice(); });
    t.device = m_npu ? "npu" : device || m_gpuProperties ? "cuda" : "cpu";
    t.events = std::move(m_events);
    for (const auto& th : m_threads) {
      auto slash = th.label.find('/');
      std::string pid = th.label.substr(0, slash);
      auto lane = m_laneNames.find(pid);
      t.threads.push_back({(lane != m_laneNames.end() ? lane->second : "pid " + pid) + " / " + th.label.substr(slash + 1),
                           th.device});
    }
    if (t.events.empty()) return Error::model("the trace holds no operator or kernel events", m_label);
    if (!m_moduleMemory.empty()) {
      t.moduleMemory = std::move(m_moduleMemory);
      t.memorySource = "saved_tensors";
    } else if (!m_blocks.empty()) {
      // Activations live on the device when there is one: keep its allocations only.
      const bool deviceBlocks = std::any_of(m_blockDevice.begin(), m_blockDevice.end(), [](long long d) { return d != 0; });
      for (size_t i = 0; i < m_blocks.size(); ++i)
        if (!deviceBlocks || m_blockDevice[i] != 0) t.allocations.push_back(std::move(m_blocks[i]));
      t.memorySource = "memory_events";
    }
    finalizeTrace(t);
    return t;
  }

  const std::string& m_label;
  const Progress& m_progress;
  std::optional<Error> m_error;
  RecordBudget m_budget;  // events, flows and allocations held
  size_t m_index = 0;
  bool m_rootArray = false, m_sawEvents = false, m_gpuProperties = false, m_needLanes = false, m_npu = false, m_legacy = false;
  std::string m_topKey;
  std::vector<TraceEvent> m_events;
  std::vector<std::pair<size_t, std::string>> m_lanes;  // event -> its pid, for events whose category left the kind open
  std::map<std::string, std::string> m_laneNames;  // pid -> process_name
  std::vector<TraceThread> m_threads;  // label = "pid/tid" until finish()
  std::unordered_map<std::string, int> m_threadIndex;
  std::unordered_map<std::string, Flow> m_flowStart, m_flowEnd;
  std::vector<ModuleMemory> m_moduleMemory;
  std::vector<MemoryBlock> m_blocks;
  std::vector<long long> m_blockDevice;  // aligned with m_blocks
  std::unordered_map<std::string, size_t> m_openBlocks;  // "device/addr" -> block
};

}  // namespace

Result<TrainingTrace> parseChromeTrace(std::string_view text, const std::string& label, const Progress& progress) {
  progress.report("reading trace", 0);
  Reader r(label, progress);
  auto t = r.run([&](const json::parser_callback_t& cb) { return json::parse(text.begin(), text.end(), cb); },
                 [] { return std::optional<Error>(); },
                 [&](size_t) {
                   std::string_view tail = text;
                   while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back()))) tail.remove_suffix(1);
                   return !tail.ends_with("]");
                 });
  progress.report("reading trace", 1);
  return t;
}

Result<TrainingTrace> loadChromeTrace(const std::filesystem::path& file, const Progress& progress) {
  auto in = InputStream::open(file);
  if (!in) return in.error();
  progress.report("reading trace", 0);
  const std::string label = file.string();
  Reader r(label, progress);
  InputStream& s = **in;
  auto t = r.run([&](const json::parser_callback_t& cb) { return json::parse(s.stream(), cb); },
                 [&] { return s.error(); },
                 // Streamed, the text is not kept: the list is unclosed when the parser ran out of it.
                 [&](size_t errorByte) { return errorByte > s.bytesRead(); });
  progress.report("reading trace", 1);
  if (t) t->path = label;
  return t;
}

}  // namespace msa::training
