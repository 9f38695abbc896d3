#include "profile/msprof_timeline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "profile/csv_table.h"
#include "profile/json_file.h"

namespace msa {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Result<json> events(const fs::path& file) {
  auto read = readJsonFile(file);
  if (!read) return read.error();
  json j = std::move(*read);
  if (j.is_object() && j.contains("traceEvents")) j = std::move(j["traceEvents"]);
  if (!j.is_array()) return Error::model("not a timeline: expected an array of trace events", file.string());
  return j;
}

}  // namespace

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

Result<MsprofTimeline> readMsprofTimeline(const std::vector<fs::path>& files) {
  MsprofTimeline out;
  std::set<std::tuple<std::string, long long, long long>> seenTasks;  // (name, ts, dur) in 10 ns
  std::set<long long> seenIterations;
  std::map<long long, std::pair<double, double>> stepParts;  // iteration -> (FP_BP, Reduce) µs, -1 unknown
  for (const fs::path& file : files) {
    auto j = events(file);
    if (!j) return j.error();
    out.files.push_back(file.string());
    // pid -> process name, (pid, tid) -> thread name.
    std::map<long long, std::string> process;
    std::map<std::pair<long long, long long>, std::string> thread;
    for (const json& e : *j) {
      if (!e.is_object() || stringAt(e, "ph") != "M") continue;
      const auto pid = integerIn(e, "pid"), tid = integerIn(e, "tid");
      const json args = e.value("args", json::object());
      if (!pid || !args.is_object() || !args.contains("name") || !args["name"].is_string()) continue;
      if (stringAt(e, "name") == "process_name") process[*pid] = args["name"].get<std::string>();
      if (stringAt(e, "name") == "thread_name" && tid) thread[{*pid, *tid}] = args["name"].get<std::string>();
    }
    for (size_t i = 0; i < j->size(); ++i) {
      const json& e = (*j)[i];
      if (!e.is_object() || stringAt(e, "ph") != "X") continue;
      const auto pid = integerIn(e, "pid"), tid = integerIn(e, "tid");
      const auto ts = traceNumber(e.value("ts", json())), dur = traceNumber(e.value("dur", json()));
      if (!pid || !ts) return Error::model("event " + std::to_string(i) + ": no pid or ts", file.string());
      const std::string& proc = process[*pid];
      const std::string& lane = thread[{*pid, tid.value_or(-1)}];
      const json args = e.value("args", json::object());
      const std::string name = stringAt(e, "name");
      // Step trace: "Iteration N" spans (their own process, or a lane of Ascend Hardware), or
      // torch_npu's ProfilerStep#N ranges on the host.
      const bool profilerStep = name.starts_with("ProfilerStep#");
      if (profilerStep || stringAt(e, "cat") == "Iteration Time" || (args.is_object() && args.contains("Iteration Time(ns)"))) {
        long long id = static_cast<long long>(out.iterations.size() + 1);
        if (profilerStep) {
          if (auto n = parseNumber(name.substr(13)); n && integerOf(*n)) id = *integerOf(*n);
        } else if (auto n = args.is_object() ? integerIn(args, "Iteration ID") : std::nullopt) {
          id = *n;
        }
        if (seenIterations.insert(id).second) out.iterations.push_back({id, *ts, dur.value_or(0), -1, -1});
        continue;
      }
      // The step trace's split of an iteration: forward + backward, and the gradient reduction.
      if (args.is_object() && (name.starts_with("FP_BP Time") || name.starts_with("Reduce_"))) {
        if (auto n = integerIn(args, "Iteration ID"); n && dur) {
          auto& parts = stepParts.try_emplace(*n, -1.0, -1.0).first->second;
          if (name.starts_with("FP_BP Time")) parts.first = *dur;
          else parts.second = std::max(0.0, parts.second) + *dur;
        }
        continue;
      }
      AscendOpRecord r;
      if (proc == "Ascend Hardware" && args.is_object() && args.contains("Task Type") && args["Task Type"].is_string()) {
        if (lane.starts_with("Step Trace")) continue;
        r.taskType = args["Task Type"].get<std::string>();
      } else if (proc == "HCCL" && lane == "Communication Kernel") {
        r.taskType = "HCCL";
      } else {
        continue;
      }
      if (!dur || *dur < 0) return Error::model("event " + std::to_string(i) + ": no duration", file.string());
      r.name = name;
      r.opType = opTypeFromScopedName(name);
      if (r.opType.empty() && r.taskType != "HCCL") r.opType = r.taskType == "AI_CORE" || r.taskType == "AI_CPU" ? "" : r.taskType;
      r.startUs = *ts;
      r.durationUs = *dur;
      r.line = static_cast<int>(i);
      if (!seenTasks.insert({name, std::llround(*ts * 100), std::llround(*dur * 100)}).second) continue;  // in two files
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
      r.iteration = out.iterations.front().id;
      for (const auto& it : out.iterations)
        if (r.startUs >= it.startUs - 1e-3) r.iteration = it.id;
    }
  return out;
}

}  // namespace msa
