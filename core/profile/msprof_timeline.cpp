#include "profile/msprof_timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <climits>
#include <optional>

#include <nlohmann/json.hpp>

#include "profile/csv_table.h"
#include "profile/json_file.h"
#include "util/read_limits.h"

namespace msa {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<double> traceNumber(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return parseNumber(v.get<std::string>());
  return std::nullopt;
}

std::string opTypeFromScopedName(const std::string& name) {
  if (name.find('/') == std::string::npos && name.find("-op") == std::string::npos) return "";
  std::string last = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  if (auto p = last.rfind("-op"); p != std::string::npos) last.resize(p);
  return last;
}

namespace {

// A pid, tid or iteration id: a number (or numeric string) that fits an integer.
std::optional<long long> integerIn(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  auto v = traceNumber(*it);
  return v ? integerOf(*v) : std::nullopt;
}

}  // namespace

namespace {

// An "X" event as far as the timeline needs it: read as the parser completes it, so that the file
// never stands as a JSON tree.
struct TimelineEvent {
  size_t index = 0;
  long long pid = 0, tid = -1;
  double ts = 0;
  std::optional<double> dur;
  std::string name, cat, taskType;
  bool hasArgs = false;  // an "args" object
  bool iterationArg = false;
  std::optional<long long> iterationId;
};

// The events of one timeline file and its lane names (pid -> process, (pid, tid) -> thread).
struct TimelineFile {
  std::vector<TimelineEvent> events;
  std::map<long long, std::string> process;
  std::map<std::pair<long long, long long>, std::string> thread;
};

Result<TimelineFile> readTimelineFile(const fs::path& file) {
  TimelineFile out;
  RecordBudget budget(file.string(), "events");
  bool rootArray = false, sawEvents = false;
  std::string topKey;
  size_t index = 0;
  auto event = [&](const json& e) -> Status {
    const size_t i = index++;
    if (!e.is_object()) return Ok{};
    const std::string ph = stringAt(e, "ph");
    const auto pid = integerIn(e, "pid"), tid = integerIn(e, "tid");
    if (ph == "M") {
      auto args = e.find("args");
      if (!pid || args == e.end() || !args->is_object()) return Ok{};
      const std::string name = stringAt(*args, "name");
      if (!args->contains("name") || !(*args)["name"].is_string()) return Ok{};
      if (stringAt(e, "name") == "process_name") out.process[*pid] = name;
      if (stringAt(e, "name") == "thread_name" && tid) out.thread[{*pid, *tid}] = name;
      return Ok{};
    }
    if (ph != "X") return Ok{};
    auto tsIt = e.find("ts"), durIt = e.find("dur");
    const auto ts = tsIt != e.end() ? traceNumber(*tsIt) : std::nullopt;
    if (!pid || !ts) return Error::model("event " + std::to_string(i) + ": no pid or ts", file.string());
    if (!budget.add()) return budget.error();
    TimelineEvent t;
    t.index = i;
    t.pid = *pid;
    t.tid = tid.value_or(-1);
    t.ts = *ts;
    if (durIt != e.end()) t.dur = traceNumber(*durIt);
    t.name = stringAt(e, "name");
    t.cat = stringAt(e, "cat");
    if (auto args = e.find("args"); args != e.end() && args->is_object()) {
      t.hasArgs = true;
      t.taskType = stringAt(*args, "Task Type");
      t.iterationArg = args->contains("Iteration Time(ns)");
      t.iterationId = integerIn(*args, "Iteration ID");
    }
    out.events.push_back(std::move(t));
    return Ok{};
  };
  auto read = readJsonFile(file, [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth == 0 && ev == json::parse_event_t::array_start) rootArray = true;
    if (depth == 1 && ev == json::parse_event_t::key) topKey = parsed.get<std::string>();
    if (depth == 1 && !rootArray && topKey == "traceEvents" && ev == json::parse_event_t::array_start) sawEvents = true;
    const bool inEvents = rootArray ? depth == 1 : (depth == 2 && sawEvents && topKey == "traceEvents");
    if (!inEvents || (ev != json::parse_event_t::object_end && ev != json::parse_event_t::value)) return true;
    if (auto s = event(parsed); !s) throw StopReading{s.error()};
    return false;
  });
  if (!read) return read.error();
  if (!rootArray && !sawEvents) return Error::model("not a timeline: expected an array of trace events", file.string());
  return out;
}

}  // namespace

Result<MsprofTimeline> readMsprofTimeline(const std::vector<fs::path>& files) {
  MsprofTimeline out;
  std::set<std::tuple<std::string, long long, long long>> seenTasks;  // (name, ts, dur) in 10 ns
  std::set<long long> seenIterations;
  std::map<long long, std::pair<double, double>> stepParts;  // iteration -> (FP_BP, Reduce) µs, -1 unknown
  for (const fs::path& file : files) {
    auto read = readTimelineFile(file);
    if (!read) return read.error();
    TimelineFile& f = *read;
    out.files.push_back(file.string());
    for (TimelineEvent& e : f.events) {
      const std::string& proc = f.process[e.pid];
      const std::string& lane = f.thread[{e.pid, e.tid}];
      const std::string& name = e.name;
      // Step trace: "Iteration N" spans (their own process, or a lane of Ascend Hardware), or
      // torch_npu's ProfilerStep#N ranges on the host.
      const bool profilerStep = name.starts_with("ProfilerStep#");
      if (profilerStep || e.cat == "Iteration Time" || e.iterationArg) {
        long long id = static_cast<long long>(out.iterations.size() + 1);
        if (profilerStep) {
          if (auto n = parseNumber(name.substr(13)); n && integerOf(*n)) id = *integerOf(*n);
        } else if (e.iterationId) {
          id = *e.iterationId;
        }
        if (seenIterations.insert(id).second) out.iterations.push_back({id, e.ts, e.dur.value_or(0), -1, -1});
        continue;
      }
      // The step trace's split of an iteration: forward + backward, and the gradient reduction.
      if (e.hasArgs && (name.starts_with("FP_BP Time") || name.starts_with("Reduce_"))) {
        if (e.iterationId && e.dur) {
          auto& parts = stepParts.try_emplace(*e.iterationId, -1.0, -1.0).first->second;
          if (name.starts_with("FP_BP Time")) parts.first = *e.dur;
          else parts.second = std::max(0.0, parts.second) + *e.dur;
        }
        continue;
      }
      AscendOpRecord r;
      if (proc == "Ascend Hardware" && !e.taskType.empty()) {
        if (lane.starts_with("Step Trace")) continue;
        r.taskType = e.taskType;
      } else if (proc == "HCCL" && lane == "Communication Kernel") {
        r.taskType = "HCCL";
      } else {
        continue;
      }
      if (!e.dur || *e.dur < 0) return Error::model("event " + std::to_string(e.index) + ": no duration", file.string());
      r.name = name;
      r.opType = opTypeFromScopedName(name);
      if (r.opType.empty() && r.taskType != "HCCL") r.opType = r.taskType == "AI_CORE" || r.taskType == "AI_CPU" ? "" : r.taskType;
      r.startUs = e.ts;
      r.durationUs = *e.dur;
      r.line = static_cast<int>(std::min<size_t>(e.index, INT_MAX));
      if (!seenTasks.insert({name, std::llround(e.ts * 100), std::llround(*e.dur * 100)}).second) continue;  // in two files
      out.tasks.push_back(std::move(r));
    }
  }
  for (auto& it : out.iterations)
    if (auto p = stepParts.find(it.id); p != stepParts.end()) {
      it.fpBpUs = p->second.first;
      it.reduceUs = p->second.second;
    }
  std::sort(out.iterations.begin(), out.iterations.end(),
            [](const auto& a, const auto& b) { return a.startUs < b.startUs; });
  if (!out.iterations.empty())
    for (AscendOpRecord& r : out.tasks) {
      // The iteration whose span holds the task's start; a task outside every span (an
      // end-of-step copy) goes with the last iteration started before it, else the first.
      auto it = std::upper_bound(out.iterations.begin(), out.iterations.end(), r.startUs,
                                 [](double ts, const auto& iter) { return ts < iter.startUs - 1e-3; });
      r.iteration = it == out.iterations.begin() ? out.iterations.front().id : std::prev(it)->id;
    }
  return out;
}

}  // namespace msa
