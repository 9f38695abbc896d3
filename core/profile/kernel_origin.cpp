#include "profile/kernel_origin.h"
#include "util/input_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "profile/csv_table.h"
#include "profile/msprof_timeline.h"

namespace msa {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string key(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return std::to_string(v.get<double>());
  return {};
}

struct Span {
  double ts = 0, end = 0;
  std::string name, stack;
  int parent = -1;
};

// Spans of one thread, nested: parent = the innermost span containing it.
struct Lane {
  std::vector<Span> spans;
  void nest() {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.end > b.end;
    });
    std::vector<int> open;
    for (size_t i = 0; i < spans.size(); ++i) {
      while (!open.empty() && spans[static_cast<size_t>(open.back())].end < spans[i].ts) open.pop_back();
      spans[i].parent = open.empty() ? -1 : open.back();
      open.push_back(static_cast<int>(i));
    }
  }
  // The innermost span holding t, -1 when none.
  int at(double t) const {
    auto it = std::upper_bound(spans.begin(), spans.end(), t, [](double v, const Span& s) { return v < s.ts; });
    if (it == spans.begin()) return -1;
    int i = static_cast<int>(it - spans.begin()) - 1;
    while (i >= 0 && spans[static_cast<size_t>(i)].end < t) i = spans[static_cast<size_t>(i)].parent;
    return i;
  }
};

bool libraryFrame(const std::string& f) {
  return f.find("site-packages/") != std::string::npos || f.find("dist-packages/") != std::string::npos ||
         f.find("/lib/python") != std::string::npos || f.starts_with("<") || f.find("torch_npu/") != std::string::npos;
}

}  // namespace

std::string userSourceLine(const std::string& stack) {
  size_t b = 0;
  while (b < stack.size()) {
    size_t e = stack.find(';', b);
    if (e == std::string::npos) e = stack.size();
    std::string frame = trimmed(std::string_view(stack).substr(b, e - b));
    b = e + 1;
    if (frame.empty() || libraryFrame(frame)) continue;
    // The last two path components: "imagenet_script/main.py(345): train".
    const size_t paren = frame.find('(');
    const size_t last = frame.rfind('/', paren == std::string::npos ? std::string::npos : paren);
    if (last != std::string::npos && last > 0) {
      const size_t before = frame.rfind('/', last - 1);
      frame = frame.substr(before == std::string::npos ? 0 : before + 1);
    }
    return frame;
  }
  return "";
}

NodeProfile::Origin originFromName(const std::string& name) {
  NodeProfile::Origin o;
  if (name.starts_with("aclnn")) {
    o.launchOp = name.substr(0, name.find('_'));
    o.from = "name";
  }
  return o;
}

Result<KernelOrigins> readKernelOrigins(const fs::path& file, const Progress& progress) {
  if (auto s = checkInput(file); !s) return s.error();  // a FIFO or a device is refused, not waited on
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the file", file.string());
  progress.report("reading trace_view.json", 0);
  std::map<std::string, std::string> process;                    // pid -> name
  std::unordered_map<std::string, Lane> ops, modules;            // pid/tid -> spans
  struct End {
    std::string lane;
    double ts = 0;
  };
  std::unordered_map<std::string, End> flowStart;                // id -> host launch
  std::vector<std::pair<std::string, End>> flowEnd;              // id -> device task start
  std::vector<std::tuple<std::string, std::string, double>> tasks;  // (pid, name, ts) of device tasks
  std::vector<std::pair<double, double>> freq;
  // Keep what attribution needs and drop every event from the DOM as it is read.
  auto keep = [&](int depth, json::parse_event_t ev, json& e) {
    // Events are at depth 1 (a bare array, as torch_npu writes) or 2 ({"traceEvents": […]}).
    if (depth > 2 || ev != json::parse_event_t::object_end || !e.is_object() || !e.contains("pid")) return true;
    const std::string ph = e.value("ph", std::string("X"));
    const std::string pid = e.contains("pid") ? key(e["pid"]) : std::string();
    const std::string tid = e.contains("tid") ? key(e["tid"]) : std::string();
    const std::string cat = e.contains("cat") && e["cat"].is_string() ? e["cat"].get<std::string>() : std::string();
    if (ph == "M") {
      if (e.value("name", "") == "process_name" && e.contains("args") && e["args"].is_object())
        if (auto n = e["args"].find("name"); n != e["args"].end() && n->is_string()) process[pid] = n->get<std::string>();
      return false;
    }
    const auto ts = e.contains("ts") ? traceNumber(e["ts"]) : std::nullopt;
    if (!ts) return false;
    if (ph == "C" && e.value("name", "") == "AI Core Freq" && e.contains("args") && e["args"].is_object()) {
      if (auto mhz = e["args"].find("MHz"); mhz != e["args"].end())
        if (auto v = traceNumber(*mhz)) freq.emplace_back(*ts, *v);
      return false;
    }
    if ((ph == "s" || ph == "f") && cat == "async_npu") {
      const std::string id = e.contains("id") ? key(e["id"]) : std::string();
      if (ph == "s") flowStart[id] = {pid + "/" + tid, *ts};
      else flowEnd.emplace_back(id, End{pid + "/" + tid, *ts});
      return false;
    }
    if (ph != "X") return false;
    const double dur = e.contains("dur") ? traceNumber(e["dur"]).value_or(0.0) : 0.0;
    const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : std::string();
    if (cat == "cpu_op") {
      Span s{*ts, *ts + dur, name, {}, -1};
      if (e.contains("args") && e["args"].is_object())
        if (auto st = e["args"].find("Call stack"); st != e["args"].end() && st->is_string()) s.stack = st->get<std::string>();
      ops[pid + "/" + tid].spans.push_back(std::move(s));
    } else if (cat == "python_function" && name.starts_with("nn.Module:")) {
      modules[pid + "/" + tid].spans.push_back({*ts, *ts + dur, name, {}, -1});
    } else if (cat.empty()) {
      tasks.emplace_back(pid, name, *ts);
    }
    return false;
  };
  try {
    const json rest = json::parse(in, keep);  // what is left once every event was dropped
    (void)rest;
  } catch (const json::exception& e) {
    return Error::model(std::string("malformed JSON: ") + e.what(), file.string());
  }
  for (auto& [k, lane] : ops) lane.nest();
  for (auto& [k, lane] : modules) lane.nest();
  // Device tasks by start time (the flow's end is the task's start, and its id the task's ns).
  std::map<long long, std::string> taskAt;
  for (const auto& [pid, name, ts] : tasks)
    if (process[pid] == "Ascend Hardware") taskAt.emplace(originKey(ts), name);
  KernelOrigins out;
  std::sort(freq.begin(), freq.end());
  out.aicoreFreq = std::move(freq);
  for (const auto& [id, end] : flowEnd) {
    auto s = flowStart.find(id);
    if (s == flowStart.end()) continue;
    auto t = taskAt.find(originKey(end.ts));
    if (t == taskAt.end()) continue;
    NodeProfile::Origin o;
    o.from = "flow";
    if (auto lane = ops.find(s->second.lane); lane != ops.end()) {
      int i = lane->second.at(s->second.ts);
      std::string stack;
      // Innermost to outermost. The framework operator is the outermost one with a namespace
      // ("aten::conv2d", "autograd::engine::evaluate_function: …"), else the outermost that is
      // not a record_function range ("ProfilerStep#50") or a module's forward.
      std::string outermost;
      while (i >= 0) {
        const Span& sp = lane->second.spans[static_cast<size_t>(i)];
        if (o.launchOp.empty()) o.launchOp = sp.name;
        if (sp.name.find("::") != std::string::npos) o.frameworkOp = sp.name;
        if (sp.name.find('#') == std::string::npos && !sp.name.ends_with(".forward")) outermost = sp.name;
        if (stack.empty() && !sp.stack.empty()) stack = sp.stack;
        i = sp.parent;
      }
      if (o.frameworkOp.empty()) o.frameworkOp = outermost;
      o.sourceLine = userSourceLine(stack);
    }
    if (auto lane = modules.find(s->second.lane); lane != modules.end())
      if (int i = lane->second.at(s->second.ts); i >= 0) o.module = lane->second.spans[static_cast<size_t>(i)].name;
    if (o.frameworkOp.empty() && o.module.empty()) continue;
    out.byTask[{t->second, t->first}] = std::move(o);
    ++out.flows;
  }
  progress.report("reading trace_view.json", 1);
  return out;
}

}  // namespace msa
