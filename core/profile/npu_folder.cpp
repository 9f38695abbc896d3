#include "profile/npu_folder.h"

#include <cmath>
#include <map>

#include "profile/csv_table.h"
#include "profile/msprof_import.h"
#include "util/input_file.h"

namespace msa::training {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOutput = "ASCEND_PROFILER_OUTPUT";

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// kernel_details rows become device events on one lane; the trace's own device tasks are the
// same tasks, so they are dropped, but the launches their flows point at are kept.
Status mergeKernelDetails(TrainingTrace& t, const fs::path& csv) {
  auto rows = readOpSummary(csv, /*everyRow=*/true);
  if (!rows) return rows.error();
  std::map<std::pair<std::string, long long>, std::pair<int, double>> launches;  // (name, ts in 10 ns) -> launch
  std::vector<TraceEvent> kept;
  for (TraceEvent& e : t.events) {
    if (e.onDevice()) {
      if (e.launchTsUs >= 0) launches[{e.name, std::llround(e.tsUs * 100)}] = {e.launchThread, e.launchTsUs};
      continue;
    }
    kept.push_back(std::move(e));
  }
  t.events = std::move(kept);
  const int lane = static_cast<int>(t.threads.size());
  t.threads.push_back({"Ascend Hardware / kernel_details", true});
  for (AscendOpRecord& r : *rows) {
    if (r.startUs < 0)
      return Error::model("line " + std::to_string(r.line) +
                              ": no start time (the 'Start Time(us)' column is missing or empty): the timeline cannot be rebuilt",
                          csv.string());
    TraceEvent e;
    const std::string task = lowercase(r.taskType), name = lowercase(r.name);
    e.kind = name.starts_with("memcpy") || task.find("dma") != std::string::npos ? EventKind::Memcpy : EventKind::Kernel;
    e.name = std::move(r.name);
    e.opType = std::move(r.opType);
    e.taskType = std::move(r.taskType);
    e.tsUs = r.startUs;
    e.durUs = r.durationUs;
    e.thread = lane;
    e.source = r.line;
    e.stepId = r.iteration;
    e.inputDims = std::move(r.inputShapes);
    e.inputTypes = std::move(r.inputDtypes);
    if (!r.outputShapes.empty() || !r.inputFormats.empty()) {
      e.io = static_cast<int>(t.kernelIo.size());
      t.kernelIo.push_back({std::move(r.inputFormats), std::move(r.outputShapes), std::move(r.outputDtypes),
                            std::move(r.outputFormats)});
    }
    if (auto it = launches.find({e.name, std::llround(e.tsUs * 100)}); it != launches.end()) {
      e.launchThread = it->second.first;
      e.launchTsUs = it->second.second;
    }
    t.events.push_back(std::move(e));
  }
  t.files.push_back(csv.string());
  return Ok{};
}

// operator_memory.csv: one row per allocation an operator made on the NPU (Name, Size(KB),
// Allocation Time(us), Release Time(us); an empty release: still held when profiling stopped).
Status readOperatorMemory(TrainingTrace& t, const fs::path& csv) {
  auto table = CsvTable::read(csv);
  if (!table) return table.error();
  const CsvTable& tab = *table;
  auto name = tab.column({"Name"}), size = tab.column({"Size(KB)"}), alloc = tab.column({"Allocation Time(us)"});
  auto release = tab.column({"Release Time(us)"});
  if (!size || !alloc) {
    return Error::model(std::string("line 1: missing the required column '") + (!size ? "Size(KB)" : "Allocation Time(us)") + "'",
                        tab.label());
  }
  for (const CsvRow& r : tab.rows()) {
    auto number = [&](std::optional<size_t> c, bool required) -> Result<double> {
      const std::string cell = c ? trimmed(r.fields[*c]) : std::string();
      if (cell.empty() || equalsNoCase(cell, "N/A")) {
        if (required) return Error::model("line " + std::to_string(r.line) + ": empty '" + tab.header()[*c] + "'", tab.label());
        return -1.0;
      }
      auto v = parseNumber(cell);
      if (!v || *v < 0)
        return Error::model("line " + std::to_string(r.line) + ": '" + cell + "' in column '" + tab.header()[*c] +
                                "' is not a non-negative number",
                            tab.label());
      return *v;
    };
    auto kb = number(size, true);
    if (!kb) return kb.error();
    auto at = number(alloc, true);
    if (!at) return at.error();
    auto rel = number(release, false);
    if (!rel) return rel.error();
    t.allocations.push_back({*kb * 1024.0, *at, *rel, name ? trimmed(r.fields[*name]) : std::string()});
  }
  t.memorySource = "operator_memory";
  t.files.push_back(csv.string());
  return Ok{};
}

}  // namespace

bool isFrameworkRunName(std::string_view folderName) {
  return folderName.ends_with("_ascend_pt") || folderName.ends_with("_ascend_ms");
}

std::string databaseOnlyNote(const fs::path& dir) {
  std::error_code ec;
  auto sentence = [](const std::string& what) {
    return " " + what +
           " a database export, which msadvisor does not read: profile again with the tables exported as text "
           "(torch_npu: experimental_config export_type=ExportType.Text; MindSpore: export_type=[ExportType.Text]; "
           "msprof: --type=text).";
  };
  if (fs::is_regular_file(dir, ec)) return dir.extension() == ".db" ? sentence("It is") : std::string();
  // The folder, its export folder, and one level of run folders below (a job).
  std::vector<fs::path> places{dir, dir / kOutput, dir / "mindstudio_profiler_output"};
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && (isFrameworkRunName(e.path().filename().string()) || e.path().filename().string().starts_with("PROF_")))
      for (const fs::path& p : {e.path(), e.path() / kOutput, e.path() / "mindstudio_profiler_output"}) places.push_back(p);
  for (const fs::path& p : places)
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file(ec) && e.path().extension() == ".db") return sentence("It holds " + fs::relative(e.path(), dir, ec).string() + ",");
  return {};
}

Result<fs::path> locateAscendOutput(const fs::path& dir) {
  if (dir.filename() == kOutput) return dir;
  if (isDir(dir / kOutput)) return dir / kOutput;
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory() && isFrameworkRunName(entry.path().filename().string()) && isDir(entry.path() / kOutput))
      found.push_back(entry.path() / kOutput);
  if (ec) return Error::model("cannot list the folder (" + ec.message() + ")", dir.string());
  if (found.size() == 1) return found.front();
  if (found.size() > 1)
    return Error::model("holds " + std::to_string(found.size()) +
                            " *_ascend_pt or *_ascend_ms folders (one per rank or run): pass the one to analyse",
                        dir.string());
  return Error::model("not a torch_npu or MindSpore profiler folder: no ASCEND_PROFILER_OUTPUT inside (and no single "
                      "*_ascend_pt or *_ascend_ms holding one)." + databaseOnlyNote(dir),
                      dir.string());
}

Result<std::vector<StepTraceRow>> readStepTraceTime(const fs::path& csv) {
  auto table = CsvTable::read(csv);
  if (!table) return table.error();
  const CsvTable& t = *table;
  auto step = t.column({"Step", "Step Id"}), computing = t.column({"Computing"}), free = t.column({"Free"});
  if (!step || !computing || !free) {
    const char* miss = !step ? "Step" : !computing ? "Computing" : "Free";
    return Error::model(std::string("line 1: missing the required column '") + miss + "'", t.label());
  }
  auto notOverlapped = t.column({"Communication(Not Overlapped)", "Communication (Not Overlapped)"});
  auto overlapped = t.column({"Overlapped"}), comm = t.column({"Communication"});
  auto bubble = t.column({"Bubble"}), preparing = t.column({"Preparing"});
  auto type = t.column({"Type"}), index = t.column({"Index"});
  std::vector<StepTraceRow> out;
  for (const CsvRow& r : t.rows()) {
    auto value = [&](std::optional<size_t> c, double& dst, bool required) -> Status {
      if (!c) return Ok{};
      const std::string cell = trimmed(r.fields[*c]);
      if (cell.empty() || equalsNoCase(cell, "N/A")) {
        if (required) return Error::model("line " + std::to_string(r.line) + ": empty '" + t.header()[*c] + "'", t.label());
        return Ok{};
      }
      auto v = parseNumber(cell);
      if (!v || *v < 0)
        return Error::model("line " + std::to_string(r.line) + ": '" + cell + "' in column '" + t.header()[*c] +
                                "' is not a non-negative number",
                            t.label());
      dst = *v;
      return Ok{};
    };
    StepTraceRow row;
    double stepNumber = -1;
    for (auto s : {value(step, stepNumber, false), value(computing, row.computingUs, true), value(free, row.freeUs, true),
                   value(notOverlapped, row.communicationNotOverlappedUs, false), value(overlapped, row.overlappedUs, false),
                   value(comm, row.communicationUs, false), value(bubble, row.bubbleUs, false),
                   value(preparing, row.preparingUs, false)})
      if (!s) return s.error();
    row.step = static_cast<long long>(stepNumber);
    if (type) row.type = lowercase(trimmed(r.fields[*type]));
    if (index) row.index = trimmed(r.fields[*index]);
    out.push_back(row);
  }
  return out;
}

Result<TrainingTrace> loadTorchNpu(const fs::path& pathOrCsv, const Progress& progress) {
  fs::path out, kernelCsv;
  if (isFile(pathOrCsv)) {
    kernelCsv = pathOrCsv;
    out = pathOrCsv.parent_path();
  } else {
    auto located = locateAscendOutput(pathOrCsv);
    if (!located) return located.error();
    out = *located;
    if (isFile(out / "kernel_details.csv")) kernelCsv = out / "kernel_details.csv";
  }
  const fs::path traceView = out / "trace_view.json";
  const bool haveTrace = isFile(traceView) && !isFile(pathOrCsv);
  if (!haveTrace && kernelCsv.empty())
    return Error::model("neither trace_view.json nor kernel_details.csv in the profiler output." + databaseOnlyNote(out), out.string());

  TrainingTrace t;
  if (haveTrace) {
    auto parsed = loadChromeTrace(traceView, progress);
    if (!parsed) return parsed.error();
    t = std::move(*parsed);
  } else {
    t.path = pathOrCsv.string();
  }
  t.format = "torch_npu";
  t.device = "npu";
  if (!kernelCsv.empty()) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("reading kernel_details.csv", 0.5);
    if (auto s = mergeKernelDetails(t, kernelCsv); !s) return s.error();
  }
  if (isFile(out / "step_trace_time.csv") && !isFile(pathOrCsv)) {
    auto rows = readStepTraceTime(out / "step_trace_time.csv");
    if (!rows) return rows.error();
    t.stepTrace = std::move(*rows);
    t.files.push_back((out / "step_trace_time.csv").string());
  }
  if (isFile(out / "operator_memory.csv") && !isFile(pathOrCsv) && t.memorySource.empty())
    if (auto s = readOperatorMemory(t, out / "operator_memory.csv"); !s) return s.error();
  t.path = pathOrCsv.string();
  if (t.events.empty()) return Error::model("the profiler output holds no operator or kernel events", out.string());
  finalizeTrace(t);
  return t;
}

Result<TrainingTrace> loadTrainingTrace(const fs::path& path, const Progress& progress) {
  if (auto s = checkInput(path, InputKind::FileOrFolder); !s) return s.error();
  if (isDir(path)) return loadTorchNpu(path, progress);
  const std::string name = path.filename().string();
  if (lowercase(name).ends_with(".csv")) return loadTorchNpu(path, progress);
  return loadChromeTrace(path, progress);
}

}  // namespace msa::training
