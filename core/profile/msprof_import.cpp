#include "profile/msprof_import.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "profile/csv_table.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

// Column aliases across CANN generations and torch_npu's kernel_details.csv.
const std::initializer_list<std::string_view> kName{"Op Name", "Name"};
const std::initializer_list<std::string_view> kType{"OP Type", "Type"};
const std::initializer_list<std::string_view> kTask{"Task Type", "Accelerator Core"};
const std::initializer_list<std::string_view> kDuration{"Task Duration(us)", "Duration(us)"};
const std::initializer_list<std::string_view> kStart{"Task Start Time(us)", "Task Start Time", "Start Time(us)"};
const std::initializer_list<std::string_view> kWait{"Task Wait Time(us)", "Wait Time(us)"};
const std::initializer_list<std::string_view> kBlock{"Block Dim", "Block Num"};
const std::initializer_list<std::string_view> kMixBlock{"Mix Block Dim", "Mix Block Num"};
const std::initializer_list<std::string_view> kInfer{"Infer ID", "Step Id"};

// Identifiers and text columns: never metrics.
const std::set<std::string> kNotMetrics{
    "device_id", "model name", "model id", "task id", "stream id", "infer id", "op name", "op type",
    "op state", "task type", "task start time(us)", "task start time", "task duration(us)",
    "task wait time(us)", "block dim", "block num", "mix block dim", "mix block num", "hf32 eligible",
    "input shapes", "input data types", "input formats", "output shapes", "output data types",
    "output formats", "context id", "step id", "name", "type", "accelerator core", "start time(us)",
    "duration(us)", "wait time(us)", "device id"};

bool missing(std::string_view v) {
  std::string_view t = trimmedView(v);
  return t.empty() || equalsNoCase(t, "n/a") || equalsNoCase(t, "na") || t == "-" || equalsNoCase(t, "nan");
}

// Columns whose cells must be numbers (or missing): a bad value there is an error.
bool strictlyNumeric(const std::string& header) {
  std::string h = lowercase(header);
  return h.ends_with("_ratio") || h.ends_with("cycles") || h.ends_with("(us)");
}

std::string where(const CsvRow& r) { return "line " + std::to_string(r.line); }

bool naturalLess(const fs::path& a, const fs::path& b) {
  // op_summary_0_1_10.csv after op_summary_0_1_9.csv.
  static const std::regex num("(\\d+)");
  std::string sa = a.filename().string(), sb = b.filename().string();
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
  return key(sa) < key(sb);
}

std::vector<fs::path> filesMatching(const fs::path& dir, const std::regex& re) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && std::regex_match(e.path().filename().string(), re)) out.push_back(e.path());
  std::sort(out.begin(), out.end(), naturalLess);
  return out;
}

std::vector<fs::path> dirsMatching(const fs::path& dir, const std::regex& re) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && std::regex_match(e.path().filename().string(), re)) out.push_back(e.path());
  std::sort(out.begin(), out.end(), naturalLess);
  return out;
}

const std::regex kOpSummaryRe("op_summary.*\\.csv", std::regex::icase);
const std::regex kOldOpSummaryRe("op_summary_(\\d+)_(\\d+)_(\\d+)\\.csv", std::regex::icase);
const std::regex kKernelDetailsRe("kernel_details.*\\.csv", std::regex::icase);
const std::regex kFusionRe("fusion_op.*\\.csv", std::regex::icase);
const std::regex kInfoRe("info\\.json\\.\\d+");
const std::regex kDeviceRe("device_\\d+");

// The op summaries of one run in `dir`: several old-style files of one device and model are
// its iterations; anything else ambiguous is refused.
Result<std::vector<fs::path>> pickOpSummaries(const fs::path& dir, std::vector<fs::path> files) {
  if (files.size() <= 1) return files;
  std::set<std::string> runs;
  for (const auto& f : files) {
    std::smatch m;
    std::string name = f.filename().string();
    if (std::regex_match(name, m, kOldOpSummaryRe)) runs.insert(m[1].str() + "_" + m[2].str());
    else runs.insert(name);
  }
  if (runs.size() == 1) return files;
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ", ") + f.filename().string();
  return Error::model("several op summaries of different runs (" + list + "): pass one file", dir.string());
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

fs::path findInfo(const fs::path& dir) {
  // Next to the file, one level up (device_N/summary/), or in a device_N/ beside the export
  // folder (PROF_x/mindstudio_profiler_output/).
  std::vector<fs::path> places{dir, dir.parent_path()};
  for (const auto& d : dirsMatching(dir.parent_path(), kDeviceRe)) places.push_back(d);
  for (const auto& d : dirsMatching(dir, kDeviceRe)) places.push_back(d);
  for (const auto& p : places)
    if (auto files = filesMatching(p, kInfoRe); !files.empty()) return files.front();
  return {};
}

Result<MsprofFiles> fromDirectory(const fs::path& dir, int depth) {
  MsprofFiles out;
  for (const fs::path& d : {dir, dir / "summary", dir / "mindstudio_profiler_output"}) {
    auto files = filesMatching(d, kOpSummaryRe);
    if (files.empty()) continue;
    auto picked = pickOpSummaries(d, std::move(files));
    if (!picked) return picked.error();
    out.opSummaries = std::move(*picked);
    out.fusionOps = findFusionOps(d, out.opSummaries.front());
    out.info = findInfo(d);
    return out;
  }
  for (const fs::path& d : {dir, dir / "ASCEND_PROFILER_OUTPUT"}) {
    auto files = filesMatching(d, kKernelDetailsRe);
    if (files.empty()) continue;
    if (files.size() > 1) return Error::model("several kernel_details files: pass one", d.string());
    out.opSummaries = files;
    out.kernelDetails = true;
    out.fusionOps = findFusionOps(d, files.front());
    out.info = findInfo(d);
    return out;
  }
  // device_N/summary/ of the older layout.
  std::vector<fs::path> devices;
  for (const auto& d : dirsMatching(dir, kDeviceRe))
    if (!filesMatching(d / "summary", kOpSummaryRe).empty()) devices.push_back(d);
  if (devices.size() > 1) {
    std::string list;
    for (const auto& d : devices) list += (list.empty() ? "" : ", ") + d.filename().string();
    return Error::model("profiles of several devices (" + list + "): pass one device folder", dir.string());
  }
  if (devices.size() == 1) return fromDirectory(devices.front(), depth + 1);
  // A folder holding one PROF_* (msprof) or *_ascend_pt (torch_npu) folder.
  if (depth < 2) {
    auto runs = dirsMatching(dir, std::regex("PROF_.*|.*_ascend_pt"));
    if (runs.size() == 1) return fromDirectory(runs.front(), depth + 1);
    if (runs.size() > 1)
      return Error::model(std::to_string(runs.size()) + " profiling runs (PROF_* folders) here: pass one", dir.string());
  }
  return Error::model("no op_summary_*.csv or kernel_details.csv found (looked in the folder, summary/, "
                      "mindstudio_profiler_output/, device_*/summary/, ASCEND_PROFILER_OUTPUT/, PROF_*/)",
                      dir.string());
}

}  // namespace

bool isOpSummaryHeader(const std::vector<std::string>& header) {
  bool name = false, duration = false;
  for (const auto& h : header) {
    std::string l = lowercase(trimmed(h));
    name = name || l == "op name" || l == "name";
    duration = duration || l == "task duration(us)" || l == "duration(us)";
  }
  return name && duration;
}

Result<MsprofFiles> locateMsprof(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return fromDirectory(path, 0);
  if (!fs::is_regular_file(path, ec)) return Error::model("no such file or folder", path.string());
  MsprofFiles out;
  out.opSummaries = {path};
  out.kernelDetails = std::regex_match(path.filename().string(), kKernelDetailsRe);
  out.fusionOps = findFusionOps(path.parent_path(), path);
  out.info = findInfo(path.parent_path());
  return out;
}

Result<std::vector<AscendOpRecord>> readOpSummary(const fs::path& csv, bool everyRow) {
  auto text = readTextFile(csv);
  if (!text) return text.error();
  const std::string label = csv.string();

  struct Columns {
    std::optional<size_t> name, duration, type, task, start, wait, block, mixBlock, infer;
    std::optional<size_t> inShapes, inTypes, inFormats, outShapes, outTypes, outFormats;
    std::vector<size_t> metrics;  // every other column that is not an identifier or text
    std::vector<std::string> names;
  } col;
  std::vector<AscendOpRecord> out;
  std::vector<bool> textual;  // lenient metric columns that turned out to hold text
  // Metric slots: wait time, block dims, then the metric columns.
  auto metricNames = std::make_shared<std::vector<std::string>>();
  std::unordered_set<std::string> seen;  // shapes and formats are parsed once per op name

  auto onHeader = [&](const CsvHeader& h) -> Status {
    col.names = h.names;
    col.name = h.column(kName);
    col.duration = h.column(kDuration);
    if (!col.name || !col.duration) {
      std::string miss = !col.name ? "'Op Name' (or 'Name')" : "'Task Duration(us)' (or 'Duration(us)')";
      return Error::model("line 1: missing the required column " + miss +
                              "; is this an op_summary or kernel_details export?",
                          label);
    }
    col.type = h.column(kType), col.task = h.column(kTask), col.start = h.column(kStart);
    col.wait = h.column(kWait), col.block = h.column(kBlock), col.mixBlock = h.column(kMixBlock);
    col.infer = h.column(kInfer);
    col.inShapes = h.column({"Input Shapes"}), col.inTypes = h.column({"Input Data Types"});
    col.inFormats = h.column({"Input Formats"}), col.outShapes = h.column({"Output Shapes"});
    col.outTypes = h.column({"Output Data Types"}), col.outFormats = h.column({"Output Formats"});
    for (size_t c = 0; c < h.names.size(); ++c)
      if (!h.names[c].empty() && !kNotMetrics.count(lowercase(h.names[c]))) col.metrics.push_back(c);
    textual.assign(h.names.size(), false);
    *metricNames = {"wait_time(us)", "block_dim", "mix_block_dim"};
    for (size_t c : col.metrics) metricNames->push_back(h.names[c]);
    return Ok{};
  };

  auto onRow = [&](const CsvRow& r) -> Status {
    const auto& f = r.fields;
    auto bad = [&](size_t c) {
      return Error::model(where(r) + ": '" + f[c] + "' in column '" + col.names[c] + "' is not a number", label);
    };
    auto number = [&](std::optional<size_t> c, double& dst) -> Status {
      if (!c || missing(f[*c])) return Ok{};
      auto v = parseNumber(f[*c]);
      if (!v) return bad(*c);
      dst = *v;
      return Ok{};
    };
    AscendOpRecord rec;
    rec.line = r.line;
    rec.metricNames = metricNames;
    rec.metricValues.assign(metricNames->size(), std::nan(""));
    rec.name = trimmed(f[*col.name]);
    if (rec.name.empty()) return Error::model(where(r) + ": empty op name", label);
    if (col.type) rec.opType = trimmed(f[*col.type]);
    if (col.task) rec.taskType = trimmed(f[*col.task]);
    auto d = parseNumber(f[*col.duration]);
    if (!d) return bad(*col.duration);
    if (*d < 0) return Error::model(where(r) + ": negative duration " + trimmed(f[*col.duration]), label);
    rec.durationUs = *d;
    if (auto s = number(col.start, rec.startUs); !s) return s;
    if (col.start && !missing(f[*col.start]) && rec.startUs < 0)
      return Error::model(where(r) + ": negative start time", label);
    double iter = -1;
    if (auto s = number(col.infer, iter); !s) return s;
    rec.iteration = static_cast<long long>(iter);
    size_t slot = 0;
    for (auto c : {col.wait, col.block, col.mixBlock}) {
      if (auto s = number(c, rec.metricValues[slot++]); !s) return s;
    }
    for (size_t c : col.metrics) {
      double& dst = rec.metricValues[slot++];
      if (textual[c] || missing(f[c])) continue;
      auto v = parseNumber(f[c]);
      if (!v) {
        if (strictlyNumeric(col.names[c])) return bad(c);
        textual[c] = true;  // a text column of a newer CANN: not a metric
        continue;
      }
      dst = *v;
    }
    if (seen.insert(rec.name).second || everyRow) {
      if (col.inShapes) rec.inputShapes = splitAscendShapes(f[*col.inShapes]);
      if (col.outShapes) rec.outputShapes = splitAscendShapes(f[*col.outShapes]);
      if (col.inTypes) rec.inputDtypes = splitAscendDtypes(f[*col.inTypes]);
      if (col.outTypes) rec.outputDtypes = splitAscendDtypes(f[*col.outTypes]);
      if (col.inFormats) rec.inputFormats = splitAscendFormats(f[*col.inFormats]);
      if (col.outFormats) rec.outputFormats = splitAscendFormats(f[*col.outFormats]);
    }
    out.push_back(std::move(rec));
    return Ok{};
  };

  if (auto s = scanCsv(*text, label, onHeader, onRow); !s) return s.error();
  if (out.empty()) return Error::model("no op rows after the header", label);
  // Drop the columns that turned out to be text (their earlier numeric-looking cells too).
  for (size_t i = 0; i < col.metrics.size(); ++i)
    if (textual[col.metrics[i]])
      for (auto& rec : out) rec.metricValues[3 + i] = std::nan("");
  return out;
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
    if (name.empty()) return Error::model(where(r) + ": empty 'Fusion Op'", t.label());
    char sep = list.find(';') != std::string::npos ? ';' : ',';
    std::vector<std::string> ops;
    std::stringstream ss(list);
    for (std::string op; std::getline(ss, op, sep);)
      if (auto o = trimmed(op); !o.empty()) ops.push_back(o);
    if (ops.empty()) return Error::model(where(r) + ": empty 'Original Ops' for '" + name + "'", t.label());
    auto& dst = out[name];
    for (auto& o : ops)
      if (std::find(dst.begin(), dst.end(), o) == dst.end()) dst.push_back(std::move(o));
  }
  return out;
}

Result<std::map<std::string, double>> readAscendInfo(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the file", file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Error::model(std::string("malformed JSON: ") + e.what(), file.string());
  }
  auto dev = j.is_object() ? j.find("DeviceInfo") : j.end();
  if (!j.is_object() || dev == j.end() || !dev->is_array() || dev->empty() || !(*dev)[0].is_object())
    return Error::model("no \"DeviceInfo\" entry (is this an msprof info.json?)", file.string());
  const auto& d = (*dev)[0];
  std::map<std::string, double> out;
  for (auto [key, as] : {std::pair{"ai_core_num", "ai_core_num"}, std::pair{"aiv_num", "aiv_num"},
                         std::pair{"ai_cpu_core_num", "ai_cpu_core_num"},
                         std::pair{"aic_frequency", "aic_frequency_mhz"},
                         std::pair{"aiv_frequency", "aiv_frequency_mhz"},
                         std::pair{"hwts_frequency", "hwts_frequency_mhz"}}) {
    auto it = d.find(key);
    if (it == d.end()) continue;
    std::optional<double> v;
    if (it->is_number()) v = it->get<double>();
    else if (it->is_string()) v = parseNumber(it->get<std::string>());
    if (!v) return Error::model(std::string("DeviceInfo.") + key + " is not a number", file.string());
    out[as] = *v;
  }
  return out;
}

Result<ProfileData> importMsprof(const fs::path& path, const Model& model, const Progress& progress) {
  auto files = locateMsprof(path);
  if (!files) return files.error();
  std::vector<AscendOpRecord> records;
  const size_t steps = files->opSummaries.size() + 2;
  size_t step = 0;
  for (const auto& f : files->opSummaries) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("reading op summary", static_cast<double>(step++) / static_cast<double>(steps));
    auto rows = readOpSummary(f);
    if (!rows) return rows.error();
    std::move(rows->begin(), rows->end(), std::back_inserter(records));
  }
  std::map<std::string, std::vector<std::string>> fusions;
  if (!files->fusionOps.empty()) {
    auto f = readFusionOps(files->fusionOps);
    if (!f) return f.error();
    fusions = std::move(*f);
  }
  AscendAggregateOptions opt;
  if (!files->info.empty()) {
    auto info = readAscendInfo(files->info);
    if (!info) return info.error();
    opt.deviceInfo = std::move(*info);
  }
  if (progress.cancelled()) return Error::cancelled();
  progress.report("matching names", static_cast<double>(++step) / static_cast<double>(steps));
  opt.device = "ascend";
  opt.runtime = files->kernelDetails ? "torch_npu profiler (kernel_details)" : "msprof";
  opt.source = "imported:" + files->opSummaries.front().filename().string();
  opt.fusions = fusions.empty() ? nullptr : &fusions;
  ProfileData p = aggregateAscendOps(std::move(records), model.graph, opt);
  progress.report("matching names", 1.0);
  return p;
}

}  // namespace msa
