#include "profile/msprof_import.h"
#include "util/input_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

#include "profile/csv_table.h"
#include "profile/kernel_origin.h"
#include "profile/msprof_timeline.h"
#include "profile/op_summary_reader.h"
#include "profile/npu_folder.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

bool naturalLess(const fs::path& a, const fs::path& b) {
  // op_summary_0_1_10.csv after op_summary_0_1_9.csv; rank10 after rank2.
  static const std::regex num("(\\d+)");
  auto key = [](const std::string& s) {
    std::vector<std::pair<std::string, long long>> k;
    std::smatch m;
    std::string rest = s;
    while (std::regex_search(rest, m, num)) {
      k.emplace_back(m.prefix().str(), std::stoll(m[1].str().substr(0, 15)));
      rest = m.suffix().str();
    }
    k.emplace_back(rest, -1);
    return k;
  };
  return key(a.filename().string()) < key(b.filename().string());
}

template <class NameTest>
std::vector<fs::path> entries(const fs::path& dir, const NameTest& test, bool directories) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const bool ok = directories ? e.is_directory(ec) : e.is_regular_file(ec);
    if (ok && test(e.path().filename().string())) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end(), naturalLess);
  return out;
}
auto matching(const std::regex& re) {
  return [&re](const std::string& name) { return std::regex_match(name, re); };
}
std::vector<fs::path> filesMatching(const fs::path& dir, const std::regex& re) { return entries(dir, matching(re), false); }
std::vector<fs::path> dirsMatching(const fs::path& dir, const std::regex& re) { return entries(dir, matching(re), true); }

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

const std::regex kOpSummaryRe("op_summary.*\\.csv", std::regex::icase);
const std::regex kOldOpSummaryRe("op_summary_(\\d+)_(\\d+)_(\\d+)\\.csv", std::regex::icase);
const std::regex kKernelDetailsRe("kernel_details.*\\.csv", std::regex::icase);
const std::regex kFusionRe("fusion_op.*\\.csv", std::regex::icase);
const std::regex kInfoRe("info\\.json\\.\\d+");
const std::regex kDeviceRe("device_\\d+");
const std::regex kTimelineRe("(msprof|task_time|step_trace|hccl)_.*\\.json|trace_view.*\\.json", std::regex::icase);
const std::regex kChipFileRe("profiler_info.*\\.json|profiler_metadata\\.json");

// A run: an msprof PROF_* folder or a framework profiler's (training::isFrameworkRunName).
bool isRunName(const std::string& name) { return name.starts_with("PROF_") || training::isFrameworkRunName(name); }
std::vector<fs::path> runFolders(const fs::path& dir) { return entries(dir, isRunName, true); }

std::string rel(const fs::path& p, const fs::path& base) {
  std::error_code ec;
  auto r = fs::relative(p, base, ec);
  return ec || r.empty() ? p.filename().string() : r.string();
}

// The op summaries of one folder: several old-style files of one device and model are its
// iterations; files of several models keep the first model's (and say so).
std::vector<fs::path> pickOpSummaries(std::vector<fs::path> files, std::vector<std::string>& warnings) {
  if (files.size() <= 1) return files;
  std::map<std::string, std::vector<fs::path>> runs;
  std::vector<std::string> order;
  for (const auto& f : files) {
    std::smatch m;
    std::string name = f.filename().string();
    std::string run = std::regex_match(name, m, kOldOpSummaryRe) ? m[1].str() + "_" + m[2].str() : name;
    if (!runs.count(run)) order.push_back(run);
    runs[run].push_back(f);
  }
  if (runs.size() == 1) return files;
  std::string list;
  for (const auto& r : order) list += (list.empty() ? "" : ", ") + runs[r].front().filename().string();
  warnings.push_back(std::to_string(runs.size()) + " op summaries of different models or runs (" + list + "): read " +
                     runs[order.front()].front().filename().string() + "; pass a file for another");
  return runs[order.front()];
}

fs::path findFusionOps(const fs::path& dir, const fs::path& opSummary) {
  auto files = filesMatching(dir, kFusionRe);
  if (files.empty()) return {};
  // Old layout: fusion_op_<dev>_<model>_<iter>.csv pairs with op_summary_<dev>_<model>_<iter>.csv.
  std::string suffix = opSummary.filename().string();
  if (suffix.starts_with("op_summary")) suffix = suffix.substr(10);
  for (const auto& f : files)
    if (f.filename().string() == "fusion_op" + suffix) return f;
  return files.front();
}

// info.json.N next to the file, one level up (device_N/summary/), or in a device_N/ beside
// the export folder (PROF_x/mindstudio_profiler_output/).
fs::path findInfo(const fs::path& dir) {
  std::vector<fs::path> places{dir, dir.parent_path()};
  for (const auto& d : dirsMatching(dir.parent_path(), kDeviceRe)) places.push_back(d);
  for (const auto& d : dirsMatching(dir, kDeviceRe)) places.push_back(d);
  for (const auto& p : places)
    if (auto files = filesMatching(p, kInfoRe); !files.empty()) return files.front();
  return {};
}

// What sits beside a kernel table or timeline in `dir` (and its run folder above).
void addSiblings(MsprofFiles& f, const fs::path& dir) {
  f.info = findInfo(dir);
  for (const fs::path& d : {dir, dir.parent_path()}) {
    for (const auto& c : filesMatching(d, kChipFileRe))
      if (std::find(f.chipFiles.begin(), f.chipFiles.end(), c) == f.chipFiles.end()) f.chipFiles.push_back(c);
  }
  if (isFile(dir / "trace_view.json")) f.traceView = dir / "trace_view.json";
  if (isFile(dir / "step_trace_time.csv")) f.stepTraceTime = dir / "step_trace_time.csv";
}

void setRoot(MsprofFiles& f, const fs::path& dir) {
  // The run folder: the PROF_* / *_ascend_pt / *_ascend_ms around the export folder, or the folder itself.
  fs::path root = dir;
  for (fs::path p = dir; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    if (isRunName(p.filename().string())) {
      root = p;
      break;
    }
    if (p.parent_path() == p) break;
  }
  f.root = root;
  f.label = root.filename().string();
}

// The timeline files of one device folder (older generation) or export folder.
std::vector<fs::path> timelineFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const fs::path& d : {dir / "timeline", dir}) {
    auto files = filesMatching(d, kTimelineRe);
    // msprof_*.json carries every lane of the iterations it covers; the per-kind files are its
    // parts, but the step trace beside it holds every iteration of the run (10 where msprof_*.json
    // holds the first): read it too.
    std::vector<fs::path> whole;
    for (const auto& f : files)
      if (lowercase(f.filename().string()).starts_with("msprof_")) whole.push_back(f);
    if (!whole.empty()) {
      std::vector<fs::path> read{whole.front()};
      for (const auto& f : files)
        if (lowercase(f.filename().string()).starts_with("step_trace_")) read.push_back(f);
      return read;
    }
    if (!files.empty()) return files;
  }
  return out;
}

struct Located {
  std::vector<MsprofFiles> runs;
  bool childRuns = false;  // found in PROF_* children (a group or runs side by side)
  bool ranks = false;      // *_ascend_pt / *_ascend_ms or device_N folders: one per rank
  std::vector<std::string> warnings;
};

Result<Located> fromDirectory(const fs::path& dir, int depth) {
  Located out;
  for (const fs::path& d : {dir, dir / "summary", dir / "mindstudio_profiler_output"}) {
    auto files = filesMatching(d, kOpSummaryRe);
    if (files.empty()) continue;
    MsprofFiles f;
    f.opSummaries = pickOpSummaries(std::move(files), out.warnings);
    f.fusionOps = findFusionOps(d, f.opSummaries.front());
    addSiblings(f, d);
    setRoot(f, d);
    out.runs.push_back(std::move(f));
    return out;
  }
  for (const fs::path& d : {dir, dir / "ASCEND_PROFILER_OUTPUT"}) {
    auto files = filesMatching(d, kKernelDetailsRe);
    if (files.empty()) continue;
    if (files.size() > 1)
      out.warnings.push_back(std::to_string(files.size()) + " kernel_details files in " + d.filename().string() + ": read " +
                             files.front().filename().string());
    MsprofFiles f;
    f.opSummaries = {files.front()};
    f.kernelDetails = true;
    f.fusionOps = findFusionOps(d, files.front());
    addSiblings(f, d);
    setRoot(f, d);
    out.runs.push_back(std::move(f));
    return out;
  }
  // device_N/ of a raw PROF_* folder: summary/ tables, else the timeline.
  std::vector<MsprofFiles> devices;
  for (const auto& d : dirsMatching(dir, kDeviceRe)) {
    MsprofFiles f;
    if (auto tables = filesMatching(d / "summary", kOpSummaryRe); !tables.empty()) {
      f.opSummaries = pickOpSummaries(std::move(tables), out.warnings);
      f.fusionOps = findFusionOps(d / "summary", f.opSummaries.front());
      addSiblings(f, d / "summary");
    } else if (auto tl = timelineFiles(d); !tl.empty()) {
      f.timeline = std::move(tl);
      addSiblings(f, d);
    } else {
      continue;
    }
    setRoot(f, d);
    f.label = dir.filename().string() + "/" + d.filename().string();
    devices.push_back(std::move(f));
  }
  if (!devices.empty()) {
    out.ranks = devices.size() > 1;
    out.runs = std::move(devices);
    return out;
  }
  // An export folder with a timeline only (mindstudio_profiler_output/msprof_*.json, a
  // torch_npu output without kernel_details.csv).
  for (const fs::path& d : {dir, dir / "mindstudio_profiler_output", dir / "ASCEND_PROFILER_OUTPUT"}) {
    if (auto tl = filesMatching(d, kTimelineRe); !tl.empty() && d.filename() != "timeline") {
      MsprofFiles f;
      f.timeline = timelineFiles(d);
      addSiblings(f, d);
      setRoot(f, d);
      out.runs.push_back(std::move(f));
      return out;
    }
  }
  // A folder holding runs: PROF_* (a PROF_GROUP, or runs side by side) or framework run folders (ranks).
  if (depth < 3) {
    auto children = runFolders(dir);
    if (children.empty())  // PROF_GROUP_x/PROF_<metric>/PROF_x: the metric folders are not PROF_-named runs
      for (const auto& e : dirsMatching(dir, std::regex(".*")))
        if (!dirsMatching(e, std::regex("PROF_.*")).empty()) children.push_back(e);
    bool anyPt = false;
    for (const auto& c : children) {
      auto sub = fromDirectory(c, depth + 1);
      if (!sub) continue;
      anyPt = anyPt || training::isFrameworkRunName(c.filename().string()) || sub->ranks;
      for (auto& w : sub->warnings) out.warnings.push_back(std::move(w));
      for (auto& r : sub->runs) out.runs.push_back(std::move(r));
      if (sub->ranks) break;  // several devices under one run: its ranks, analysed one level up
    }
    if (!out.runs.empty()) {
      out.ranks = anyPt;
      out.childRuns = !anyPt && out.runs.size() > 1;
      return out;
    }
  }
  return Error::model("no Ascend profile found: no op_summary_*.csv, kernel_details.csv or msprof timeline (looked in "
                      "the folder, summary/, mindstudio_profiler_output/, device_*/summary/, device_*/timeline/, "
                      "ASCEND_PROFILER_OUTPUT/, PROF_*/, *_ascend_pt/, *_ascend_ms/)." +
                          training::databaseOnlyNote(dir),
                      dir.string());
}

// The first line of a CSV names an op and a duration column.
bool opTableHeader(const fs::path& file) {
  if (!checkInput(file)) return false;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  if (!std::getline(in, line)) return false;
  if (line.starts_with("\xEF\xBB\xBF")) line = line.substr(3);
  auto t = CsvTable::parse(line, file.string());
  return t && isOpSummaryHeader(t->header());
}

MsprofFiles fromTable(const fs::path& file) {
  MsprofFiles f;
  f.opSummaries = {file};
  f.kernelDetails = std::regex_match(file.filename().string(), kKernelDetailsRe);
  f.fusionOps = findFusionOps(file.parent_path(), file);
  addSiblings(f, file.parent_path());
  setRoot(f, file.parent_path());
  return f;
}

// Records of one run, iterations numbered from `iterationBase` when the files do not say.
struct RunRecords {
  std::vector<AscendOpRecord> records;
  std::vector<std::string> warnings, metricSets;
  std::vector<MsprofTimeline::Iteration> iterations;
  bool shapes = false, timeline = false;
};

Result<RunRecords> readRun(const MsprofFiles& f, const Progress& progress) {
  RunRecords out;
  if (!f.timeline.empty()) {
    auto tl = readMsprofTimeline(f.timeline);
    if (!tl) return tl.error();
    out.records = std::move(tl->tasks);
    out.iterations = std::move(tl->iterations);
    out.timeline = true;
    return out;
  }
  for (size_t k = 0; k < f.opSummaries.size(); ++k) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("reading op summary", static_cast<double>(k) / static_cast<double>(f.opSummaries.size()));
    auto t = readOpSummaryTable(f.opSummaries[k], /*everyRow=*/true);
    if (!t) return t.error();
    for (auto& w : t->warnings) out.warnings.push_back(std::move(w));
    if (!t->metricSet.empty() && std::find(out.metricSets.begin(), out.metricSets.end(), t->metricSet) == out.metricSets.end())
      out.metricSets.push_back(t->metricSet);
    out.shapes = out.shapes || t->hasShapes;
    // One file per iteration (op_summary_<dev>_<model>_<iter>.csv) when the rows carry no id.
    const bool ids = std::all_of(t->rows.begin(), t->rows.end(), [](const AscendOpRecord& r) { return r.iteration >= 0; });
    for (auto& r : t->rows) {
      if (!ids && f.opSummaries.size() > 1) r.iteration = static_cast<long long>(k);
      out.timeline = out.timeline || r.startUs >= 0;
      out.records.push_back(std::move(r));
    }
  }
  return out;
}

// Runs of one program (one per --aic-metrics mode) become iterations of one profile: the
// same kernels in the same order; each record keeps every run's metric columns.
bool sameProgram(const std::vector<RunRecords>& runs) {
  for (size_t k = 1; k < runs.size(); ++k) {
    if (runs[k].records.size() != runs[0].records.size()) return false;
    for (size_t i = 0; i < runs[0].records.size(); ++i)
      if (runs[k].records[i].name != runs[0].records[i].name) return false;
  }
  return true;
}

RunRecords mergeRuns(std::vector<RunRecords> runs) {
  auto names = std::make_shared<std::vector<std::string>>();
  std::unordered_map<std::string, size_t> slot;
  for (const auto& run : runs)
    for (const auto& r : run.records)
      if (r.metricNames)
        for (const auto& n : *r.metricNames)
          if (slot.emplace(n, names->size()).second) names->push_back(n);
  // The metrics of record i, from every run.
  std::vector<std::vector<double>> values(runs[0].records.size(), std::vector<double>(names->size(), std::nan("")));
  for (const auto& run : runs)
    for (size_t i = 0; i < run.records.size(); ++i) {
      const auto& r = run.records[i];
      if (!r.metricNames) continue;
      for (size_t k = 0; k < r.metricValues.size(); ++k)
        if (!std::isnan(r.metricValues[k]) && std::isnan(values[i][slot[(*r.metricNames)[k]]]))
          values[i][slot[(*r.metricNames)[k]]] = r.metricValues[k];
    }
  RunRecords out;
  for (size_t k = 0; k < runs.size(); ++k) {
    for (auto& w : runs[k].warnings) out.warnings.push_back(std::move(w));
    for (auto& m : runs[k].metricSets)
      if (std::find(out.metricSets.begin(), out.metricSets.end(), m) == out.metricSets.end()) out.metricSets.push_back(m);
    out.shapes = out.shapes || runs[k].shapes;
    out.timeline = out.timeline || runs[k].timeline;
    for (size_t i = 0; i < runs[k].records.size(); ++i) {
      AscendOpRecord r = std::move(runs[k].records[i]);
      r.iteration = static_cast<long long>(k);
      r.metricNames = names;
      r.metricValues = values[i];
      out.records.push_back(std::move(r));
    }
  }
  return out;
}

// Step time per torch_npu step_trace_time.csv row: computing + exposed communication + free;
// and the breakdown's medians over the steps.
std::vector<double> stepTimesMs(const fs::path& csv, std::vector<std::string>& warnings, std::map<std::string, double>& breakdown) {
  std::vector<double> out;
  auto rows = training::readStepTraceTime(csv);
  if (!rows) {
    warnings.push_back(csv.filename().string() + ": " + rows.error().message + " (step times taken from the kernels)");
    return out;
  }
  std::map<std::string, std::vector<double>> parts;
  for (const auto& r : *rows) {
    if (r.totalUs() <= 0) continue;
    out.push_back(r.totalUs() / 1000.0);
    parts["computing"].push_back(r.computingUs / 1000.0);
    parts["communication"].push_back(r.communicationUs / 1000.0);
    parts["communication_not_overlapped"].push_back(r.communicationNotOverlappedUs / 1000.0);
    parts["overlapped"].push_back(r.overlappedUs / 1000.0);
    parts["free"].push_back(r.freeUs / 1000.0);
  }
  for (auto& [k, v] : parts) breakdown[k] = Stats::of(std::move(v)).median;
  return out;
}

// Steps at the start much slower than the rest (1.5x their median: compilation, allocator growth)
// are a warm-up: removed from `steps` (kept when fewer than three steps remain); how many.
int leaveOutWarmup(std::vector<double>& steps) {
  int dropped = 0;
  while (steps.size() >= 4) {
    std::vector<double> rest(steps.begin() + 1, steps.end());
    if (!(steps.front() > 1.5 * Stats::of(rest).median)) break;
    steps.erase(steps.begin());
    ++dropped;
  }
  return dropped;
}

// The step trace's split of the steady iterations (msprof timeline: FP_BP and Reduce spans), in
// the keys of torch_npu's step_trace_time.csv. The gradient reduction follows the backward pass
// in msprof's step trace: none of it is overlapped.
void stepTraceBreakdown(const std::vector<MsprofTimeline::Iteration>& iterations, int warmup,
                        std::map<std::string, double>& breakdown) {
  std::vector<double> computing, reduce, free;
  for (size_t k = static_cast<size_t>(std::max(0, warmup)); k < iterations.size(); ++k) {
    const auto& it = iterations[k];
    if (it.fpBpUs < 0) continue;
    const double red = std::max(0.0, it.reduceUs);
    computing.push_back(it.fpBpUs / 1000.0);
    reduce.push_back(red / 1000.0);
    free.push_back(std::max(0.0, it.durUs - it.fpBpUs - red) / 1000.0);
  }
  if (computing.empty() || breakdown.count("computing")) return;
  breakdown["computing"] = Stats::of(computing).median;
  breakdown["communication"] = breakdown["communication_not_overlapped"] = Stats::of(reduce).median;
  breakdown["overlapped"] = 0;
  breakdown["free"] = Stats::of(free).median;
}

}  // namespace

bool isOpSummaryHeader(const std::vector<std::string>& header) {
  // An op name, a duration, and a start time or a type: operator_memory.csv has a Name and a
  // Duration(us) too, but it lists allocations.
  bool name = false, duration = false, startOrType = false;
  for (const auto& h : header) {
    std::string l = lowercase(trimmed(h));
    name = name || l == "op name" || l == "name";
    duration = duration || l == "task duration(us)" || l == "duration(us)";
    startOrType = startOrType || l == "task start time(us)" || l == "task start time" || l == "start time(us)" ||
                  l == "op type" || l == "type" || l == "task type" || l == "accelerator core";
  }
  return name && duration && startOrType;
}

// The outermost folder of an Ascend run holding `file` (a PROF_*, a *_ascend_pt/_ms, or the export
// folder itself when nothing above is named), within four levels; empty when there is none.
fs::path ascendRunAround(const fs::path& file) {
  static const std::regex inner("ASCEND_PROFILER_OUTPUT|mindstudio_profiler_output|device_\\d+|timeline|summary");
  fs::path found;
  int up = 0;
  for (fs::path d = file.parent_path(); !d.empty() && up < 4; d = d.parent_path(), ++up) {
    const std::string n = d.filename().string();
    if (isRunName(n)) found = d;
    else if (found.empty() && std::regex_match(n, inner)) found = d;
    if (d.parent_path() == d) break;
  }
  return found;
}

Result<MsprofRuns> locateMsprofRuns(const fs::path& path) {
  std::error_code ec;
  MsprofRuns out;
  if (fs::is_directory(path, ec)) {
    auto l = fromDirectory(path, 0);
    if (!l) return l.error();
    out.warnings = std::move(l->warnings);
    out.runs = std::move(l->runs);
    out.group = l->childRuns;
    if (l->ranks && out.runs.size() > 1) {
      out.ranks = static_cast<int>(out.runs.size());
      out.warnings.push_back(std::to_string(out.ranks) + " ranks or devices here: analysed " + out.runs.front().label +
                             " (pass a rank's folder to analyse another)");
      out.runs.resize(1);
    }
    return out;
  }
  if (!fs::is_regular_file(path, ec)) return Error::model("no such file or folder", path.string());
  const std::string name = path.filename().string();
  if (std::regex_match(name, kOpSummaryRe) || std::regex_match(name, kKernelDetailsRe) || opTableHeader(path)) {
    out.runs.push_back(fromTable(path));
    return out;
  }
  const bool tableBeside = !filesMatching(path.parent_path(), kKernelDetailsRe).empty() ||
                           !filesMatching(path.parent_path(), kOpSummaryRe).empty();
  if (std::regex_match(name, kTimelineRe) && !tableBeside) {
    MsprofFiles f;
    // One lane file of a device's timeline (task_time, hccl, step_trace): the whole timeline.
    f.timeline = timelineFiles(path.parent_path());
    if (f.timeline.front() != path)
      out.warnings.push_back(name + ": read with the device's whole timeline (" + f.timeline.front().filename().string() + ")");
    addSiblings(f, path.parent_path());
    setRoot(f, path.parent_path());
    out.runs.push_back(std::move(f));
    return out;
  }
  // Any other file of a run (info.json.0, l2_cache.csv, trace_view.json, …): the run around it,
  // looked for no higher than the run's own folder.
  if (const fs::path top = ascendRunAround(path); !top.empty()) {
    for (fs::path dir = path.parent_path();; dir = dir.parent_path()) {
      if (auto l = fromDirectory(dir, 2); l && !l->runs.empty()) {
        out.runs = {std::move(l->runs.front())};
        out.warnings = std::move(l->warnings);
        out.warnings.insert(out.warnings.begin(), name + " holds no kernel table: read the run it belongs to, " +
                                                      rel(out.runs.front().root, top.parent_path()));
        return out;
      }
      if (dir == top || dir.parent_path() == dir) break;
    }
  }
  // A CSV outside any run: read as a kernel table (whose reader says what is wrong with it).
  if (lowercase(path.extension().string()) == ".csv") {
    out.runs.push_back(fromTable(path));
    return out;
  }
  return Error::model("not an Ascend profile: no kernel table and no profiling run around the file." + training::databaseOnlyNote(path),
                      path.string());
}

Result<MsprofFiles> locateMsprof(const fs::path& path) {
  auto r = locateMsprofRuns(path);
  if (!r) return r.error();
  return r->runs.front();
}

Result<std::vector<AscendOpRecord>> readOpSummary(const fs::path& csv, bool everyRow) {
  auto t = readOpSummaryTable(csv, everyRow);
  if (!t) return t.error();
  return std::move(t->rows);
}

Result<std::map<std::string, std::vector<std::string>>> readFusionOps(const fs::path& csv) {
  auto table = CsvTable::read(csv);
  if (!table) return table.error();
  const CsvTable& t = *table;
  auto fused = t.column({"Fusion Op"}), originals = t.column({"Original Ops"});
  if (!fused || !originals)
    return Error::model("line 1: missing the required column '" + std::string(!fused ? "Fusion Op" : "Original Ops") +
                            "'",
                        t.label());
  std::map<std::string, std::vector<std::string>> out;
  for (const CsvRow& r : t.rows()) {
    std::string name = trimmed(r.fields[*fused]);
    std::string list = r.fields[*originals];
    if (name.empty()) return Error::model("line " + std::to_string(r.line) + ": empty 'Fusion Op'", t.label());
    char sep = list.find(';') != std::string::npos ? ';' : ',';
    std::vector<std::string> ops;
    std::stringstream ss(list);
    for (std::string op; std::getline(ss, op, sep);)
      if (auto o = trimmed(op); !o.empty()) ops.push_back(o);
    if (ops.empty())
      return Error::model("line " + std::to_string(r.line) + ": empty 'Original Ops' for '" + name + "'", t.label());
    auto& dst = out[name];
    for (auto& o : ops)
      if (std::find(dst.begin(), dst.end(), o) == dst.end()) dst.push_back(std::move(o));
  }
  return out;
}

Result<ProfileData> importMsprof(const fs::path& path, const Model* model, const Progress& progress) {
  auto located = locateMsprofRuns(path);
  if (!located) return located.error();
  std::vector<std::string> warnings = std::move(located->warnings);
  std::vector<RunRecords> runs;
  for (const MsprofFiles& f : located->runs) {
    auto r = readRun(f, progress);
    if (!r) return r.error();
    runs.push_back(std::move(*r));
  }
  RunRecords records;
  if (runs.size() > 1 && sameProgram(runs)) {
    records = mergeRuns(std::move(runs));
  } else {
    if (runs.size() > 1) {
      std::string list;
      for (size_t k = 1; k < located->runs.size(); ++k) list += (list.empty() ? "" : ", ") + located->runs[k].label;
      warnings.push_back(std::to_string(runs.size()) + " profiling runs of different programs here: analysed " +
                         located->runs.front().label + " (not " + list + ")");
    }
    records = std::move(runs.front());
  }
  for (auto& w : records.warnings) warnings.push_back(std::move(w));
  const MsprofFiles& files = located->runs.front();

  std::map<std::string, std::vector<std::string>> fusions;
  if (!files.fusionOps.empty()) {
    auto f = readFusionOps(files.fusionOps);
    if (!f) return f.error();
    fusions = std::move(*f);
  }
  AscendAggregateOptions opt;
  std::string soc;
  if (!files.info.empty()) {
    auto info = readAscendInfo(files.info);
    if (!info) return info.error();
    opt.deviceInfo = std::move(*info);
    soc = socNameIn(files.info);
  }
  for (const auto& c : files.chipFiles)
    if (soc.empty()) soc = socNameIn(c);
  if (progress.cancelled()) return Error::cancelled();

  // Kernel origins (profile-only): trace_view.json's flows, else the aclnn name.
  std::vector<NodeProfile::Origin> origins;
  std::vector<std::pair<double, double>> freq;  // AI Core Freq counter samples (µs, MHz)
  if (!model) {
    KernelOrigins ko;
    if (!files.traceView.empty()) {
      auto read = readKernelOrigins(files.traceView, progress);
      if (read) ko = std::move(*read);
      else warnings.push_back(files.traceView.filename().string() + ": " + read.error().message + " (kernel origins from names only)");
    }
    freq = std::move(ko.aicoreFreq);
    for (AscendOpRecord& r : records.records) {
      NodeProfile::Origin o;
      if (auto it = ko.byTask.find({r.name, originKey(r.startUs)}); it != ko.byTask.end()) o = it->second;
      else o = originFromName(r.name);
      if (o.from.empty()) continue;
      r.origin = static_cast<int>(origins.size());
      origins.push_back(std::move(o));
    }
    opt.origins = &origins;
  }

  progress.report("matching names", 0.9);
  opt.runtime = files.kernelDetails ? "torch_npu profiler (kernel_details)" : files.timeline.empty() ? "msprof" : "msprof (timeline)";
  opt.source = "imported:" + (files.opSummaries.empty() ? files.timeline.front() : files.opSummaries.front()).filename().string();
  opt.fusions = fusions.empty() ? nullptr : &fusions;
  opt.groupByShapes = model == nullptr;
  const Graph empty;
  std::set<long long> rowIterations;  // the iterations the task rows come from
  for (const AscendOpRecord& r : records.records) rowIterations.insert(r.iteration);
  ProfileData p = aggregateAscendOps(std::move(records.records), model ? model->graph : empty, opt);
  if (!model) p.unmatched.clear();

  // Step latency: the step trace's own when it has one.
  std::vector<double> steps;
  if (!files.stepTraceTime.empty()) steps = stepTimesMs(files.stepTraceTime, warnings, p.stepBreakdownMs);
  for (const auto& it : records.iterations) steps.push_back(it.durUs / 1000.0);
  if (!steps.empty() && static_cast<int>(steps.size()) >= p.iterations) {
    p.warmupSteps = leaveOutWarmup(steps);
    p.latencyMs = Stats::of(steps);
    p.stepSource = "step_trace";
    // The task rows of one iteration only, and it was the warm-up: their figures are not the
    // steady state's (a 910A run's all-reduce took 41.6 ms in it and 9.3 ms after).
    if (p.warmupSteps > 0 && rowIterations.size() == 1 && !records.iterations.empty())
      p.rowsFromWarmup = *rowIterations.begin() == records.iterations.front().id;
    stepTraceBreakdown(records.iterations, p.warmupSteps, p.stepBreakdownMs);
  }

  const AscendChip chip = detectAscendChip(p, soc);
  if (chip.aiCores > 0) {
    p.deviceInfo.emplace("ai_core_num", chip.aiCores);
    if (chip.vectorCores > 0 || p.deviceInfo.count("aiv_num")) p.deviceInfo.emplace("aiv_num", chip.vectorCores);
    if (chip.mhz > 0) p.deviceInfo.emplace("aic_frequency_mhz", chip.mhz);
    if (chip.tableMhz > 0) p.deviceInfo.emplace("chip_table_mhz", chip.tableMhz);
  }
  p.device = chip.deviceId.empty() ? "ascend" : chip.deviceId;
  // The AI Core clock over the kernels' span (the counter trace_view.json records).
  if (freq.size() >= 2) {
    double lo = freq.front().second, hi = lo, area = 0, span = 0;
    for (size_t k = 0; k + 1 < freq.size(); ++k) {
      const double dt = freq[k + 1].first - freq[k].first;
      lo = std::min(lo, freq[k].second), hi = std::max(hi, freq[k].second);
      area += freq[k].second * dt, span += dt;
    }
    lo = std::min(lo, freq.back().second), hi = std::max(hi, freq.back().second);
    p.deviceInfo["aic_frequency_min_mhz"] = lo;
    p.deviceInfo["aic_frequency_max_mhz"] = hi;
    if (span > 0) p.deviceInfo["aic_frequency_mean_mhz"] = area / span;
  }
  if (!chip.basis.empty()) p.chipBasis = (chip.soc.empty() ? std::string() : chip.soc + " (") + chip.basis + (chip.soc.empty() ? "" : ")");
  p.importer = "ascend";
  p.caps.deviceTasks = p.caps.ascend = p.caps.runtimeGraph = true;
  p.caps.shapes = records.shapes;
  p.caps.pmuMetrics = !records.metricSets.empty();
  p.caps.timeline = records.timeline;
  p.metricSets = std::move(records.metricSets);
  p.warnings = std::move(warnings);
  p.ranks = located->ranks;
  if (located->ranks > 1) p.rank = files.label;
  for (const auto& run : located->runs) {
    for (const auto* list : {&run.opSummaries, &run.timeline})
      for (const auto& f : *list) p.files.push_back(f.string());
    for (const fs::path* f : {&run.info, &run.fusionOps, &run.stepTraceTime, &run.traceView})
      if (!f->empty()) p.files.push_back(f->string());
  }
  progress.report("matching names", 1.0);
  return p;
}

}  // namespace msa
