#include "profile/op_summary_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <unordered_set>

#include "cost/kernel_cost.h"
#include "profile/csv_table.h"
#include "profile/profile_data.h"

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

// What a well-formed cell of a column looks like: how ragged rows are realigned.
enum class CellKind { Text, Number, Identifier, Shapes, Dtypes, Formats, State, YesNo };

bool missing(std::string_view v) {
  std::string_view t = trimmedView(v);
  return t.empty() || equalsNoCase(t, "n/a") || equalsNoCase(t, "na") || t == "-" || equalsNoCase(t, "nan");
}

CellKind kindOf(const std::string& header) {
  static const std::set<std::string> text{"op name", "name", "model name"};
  static const std::set<std::string> ident{"op type", "type", "task type", "accelerator core"};
  const std::string h = lowercase(trimmed(header));
  if (text.count(h)) return CellKind::Text;
  if (ident.count(h)) return CellKind::Identifier;
  if (h == "input shapes" || h == "output shapes") return CellKind::Shapes;
  if (h == "input data types" || h == "output data types") return CellKind::Dtypes;
  if (h == "input formats" || h == "output formats") return CellKind::Formats;
  if (h == "op state") return CellKind::State;
  if (h == "hf32 eligible") return CellKind::YesNo;
  return CellKind::Number;  // ids, times, block dims and every metric
}

bool wellFormed(CellKind k, std::string_view cell) {
  if (missing(cell)) return true;
  const std::string_view t = trimmedView(cell);
  auto all = [&](auto pred) { return std::all_of(t.begin(), t.end(), [&](char c) { return pred(static_cast<unsigned char>(c)); }); };
  switch (k) {
    case CellKind::Text: return true;
    case CellKind::Number: return parseNumber(t).has_value();
    case CellKind::Identifier:  // op and task types start with a letter: "Conv2D", "AI_CORE", "HCCL"
      return std::isalpha(static_cast<unsigned char>(t.front())) &&
             all([](unsigned char c) { return std::isalnum(c) || c == '_' || c == ' ' || c == '/'; });
    case CellKind::Shapes:
      return all([](unsigned char c) { return std::isdigit(c) || c == ',' || c == ';' || c == '"' || c == ' ' || c == '-'; });
    case CellKind::Dtypes:
    case CellKind::Formats:
      return all([](unsigned char c) { return std::isalnum(c) || c == '_' || c == ';' || c == ':' || c == ' '; });
    case CellKind::State: return equalsNoCase(t, "dynamic") || equalsNoCase(t, "static");
    case CellKind::YesNo: return equalsNoCase(t, "yes") || equalsNoCase(t, "no");
  }
  return true;
}

// Columns whose cells must be numbers (or missing) in a row of the right length: a bad value
// there is an error, not a text column of a newer CANN.
bool strictlyNumeric(const std::string& header) {
  std::string h = lowercase(header);
  return h.ends_with("_ratio") || h.ends_with("cycles") || h.ends_with("(us)");
}

// Identifiers and text columns: never metrics.
const std::set<std::string> kNotMetrics{
    "device_id", "model name", "model id", "task id", "stream id", "infer id", "op name", "op type",
    "op state", "task type", "task start time(us)", "task start time", "task duration(us)",
    "task wait time(us)", "block dim", "block num", "mix block dim", "mix block num", "hf32 eligible",
    "input shapes", "input data types", "input formats", "output shapes", "output data types",
    "output formats", "context id", "step id", "name", "type", "accelerator core", "start time(us)",
    "duration(us)", "wait time(us)", "device id"};

// A ragged row realigned: the cells every consistent placement agrees on, "" elsewhere.
struct Realigned {
  std::vector<std::string> cells;
  size_t unknown = 0;  // columns left empty
  std::string firstUnknown, lastUnknown;
};

// Tries every placement of a contiguous run of missing fields (fewer fields than the header)
// or of extra fields merged into one column (a comma inside an unquoted cell); keeps the cells
// that every placement whose cells are all well formed fills with the same value.
std::optional<Realigned> realign(const std::vector<std::string>& f, const std::vector<bool>& quoted,
                                 const std::vector<CellKind>& kinds, const std::vector<std::string>& names) {
  const size_t h = kinds.size(), n = f.size();
  struct Candidate {
    std::vector<std::string> cells;
    std::vector<bool> filled;
  };
  std::vector<Candidate> candidates;
  auto consider = [&](Candidate c) {
    for (size_t col = 0; col < h; ++col)
      if (c.filled[col] && !wellFormed(kinds[col], c.cells[col])) return;
    for (const Candidate& o : candidates)
      if (o.cells == c.cells && o.filled == c.filled) return;
    candidates.push_back(std::move(c));
  };
  if (n < h) {
    const size_t gap = h - n;
    for (size_t p = 0; p <= n; ++p) {
      Candidate c{std::vector<std::string>(h), std::vector<bool>(h, true)};
      for (size_t col = 0; col < h; ++col) {
        if (col >= p && col < p + gap) c.filled[col] = false;
        else c.cells[col] = f[col < p ? col : col - gap];
      }
      consider(std::move(c));
    }
  } else {
    const size_t extra = n - h;
    // Trailing empty fields (a trailing comma) are noise.
    if (std::all_of(f.begin() + static_cast<long>(h), f.end(), [](const std::string& s) { return trimmedView(s).empty(); }))
      consider({std::vector<std::string>(f.begin(), f.begin() + static_cast<long>(h)), std::vector<bool>(h, true)});
    for (size_t m = 0; m < h; ++m) {
      // Only unquoted fields can be the pieces of a cell split at its commas.
      bool splittable = true;
      for (size_t k = 0; k <= extra && splittable; ++k) splittable = m + k >= quoted.size() || !quoted[m + k];
      if (!splittable) continue;
      Candidate c{std::vector<std::string>(h), std::vector<bool>(h, true)};
      for (size_t col = 0; col < h; ++col) {
        if (col < m) c.cells[col] = f[col];
        else if (col > m) c.cells[col] = f[col + extra];
        else {
          c.cells[col] = f[m];
          for (size_t k = 1; k <= extra; ++k) c.cells[col] += "," + f[m + k];
        }
      }
      consider(std::move(c));
    }
  }
  if (candidates.empty()) return std::nullopt;
  Realigned out;
  out.cells.assign(h, std::string());
  for (size_t col = 0; col < h; ++col) {
    bool known = true;
    for (const Candidate& c : candidates)
      known = known && c.filled[col] && c.cells[col] == candidates.front().cells[col];
    if (known) {
      out.cells[col] = candidates.front().cells[col];
      continue;
    }
    if (out.unknown++ == 0) out.firstUnknown = names[col];
    out.lastUnknown = names[col];
  }
  return out;
}

constexpr size_t kMaxWarnings = 50;

}  // namespace

std::string ascendMetricSet(const std::vector<std::string>& header) {
  // Each mode's own columns (msprof's ai_core_metrics_manager); the mode with the most of them
  // wins, the order breaking ties (a file carries one mode, but time and cycle columns are in all).
  struct Mode {
    const char* name;
    std::vector<std::string_view> marks;
  };
  static const Mode modes[] = {
      {"PipelineExecuteUtilization", {"_exe_ratio"}},
      {"ArithmeticUtilization", {"mac_fp16_ratio", "mac_int8_ratio", "vec_fp32_ratio", "vec_fp16_ratio", "vec_int32_ratio",
                                 "vec_misc_ratio", "cube_fops", "vector_fops", "vec_fops", "cube_fp16_ratio"}},
      {"PipeUtilization", {"mac_ratio", "vec_ratio", "scalar_ratio", "mte1_ratio", "mte2_ratio", "mte3_ratio", "fixpipe_ratio"}},
      {"MemoryUB", {"ub_read_bw_vector", "ub_write_bw_vector", "ub_read_bw_scalar", "ub_write_bw_scalar", "ub_read_bw_mte",
                    "ub_write_bw_mte"}},
      {"MemoryL0", {"l0a_read_bw", "l0a_write_bw", "l0b_read_bw", "l0b_write_bw", "l0c_read_bw", "l0c_write_bw"}},
      {"Memory", {"main_mem_read_bw", "main_mem_write_bw", "l2_read_bw", "l2_write_bw", "l1_read_bw", "l1_write_bw"}},
      {"ResourceConflictRatio", {"cflt_ratio", "_wait_ratio"}},
      {"L2Cache", {"read_cache_hit", "write_cache_hit", "cache_miss_allocate", "hit_rate"}},
      {"MemoryAccess", {"_datas(kb)"}},
  };
  const Mode* best = nullptr;
  int bestCount = 0;
  for (const Mode& m : modes) {
    int count = 0;
    for (const std::string& raw : header) {
      const std::string h = lowercase(trimmed(raw));
      for (std::string_view mark : m.marks) {
        // Pipe ratios end their names ("aic_mac_ratio"); the other marks are inside them.
        const bool hit = m.name == std::string_view("PipeUtilization") ? h.ends_with(mark) : h.find(mark) != std::string::npos;
        if (hit) {
          ++count;
          break;
        }
      }
    }
    if (count > bestCount) best = &m, bestCount = count;
  }
  return best ? best->name : "";
}

std::string opTypeFromKernelName(const std::string& name) {
  if (name.empty()) return "";
  if (name.starts_with("aclnn")) {  // aclnn<Api>_<Kernel>_<OpType>
    const size_t last = name.rfind('_');
    return last == std::string::npos || last + 1 >= name.size() ? "" : name.substr(last + 1);
  }
  if (name.starts_with("trans_")) {  // trans_<OpType>_<n>, inserted by the graph engine
    const size_t b = 6, e = name.find('_', b);
    return name.substr(b, e == std::string::npos ? std::string::npos : e - b);
  }
  if (name.starts_with("hcom_")) {  // hcom_allReduce__586_0_1
    size_t e = name.find("__");
    if (e == std::string::npos) e = name.find('_', 5);
    return name.substr(0, e);
  }
  if (hasKernelCostFormula(name)) return name;
  // <OpType><index>, or <OpType><index>_<suffix>: the suffix is the task's own type.
  if (const size_t us = name.rfind('_'); us != std::string::npos && us + 1 < name.size()) {
    const std::string tail = name.substr(us + 1);
    if (hasKernelCostFormula(tail)) return tail;
  }
  std::string stem = name;
  while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back()))) stem.pop_back();
  return stem != name && hasKernelCostFormula(stem) ? stem : "";
}

Result<OpSummaryTable> readOpSummaryTable(const fs::path& csv, bool everyRow) {
  auto text = readTextFile(csv);
  if (!text) return text.error();
  const std::string label = csv.string();
  const std::string shortName = csv.filename().string();

  struct Columns {
    std::optional<size_t> name, duration, type, task, start, wait, block, mixBlock, hf32, infer, state;
    std::optional<size_t> inShapes, inTypes, inFormats, outShapes, outTypes, outFormats;
    std::vector<size_t> metrics;  // every other column that is not an identifier or text
    std::vector<std::string> names;
    std::vector<CellKind> kinds;
  } col;
  OpSummaryTable table;
  std::vector<bool> textual;  // lenient metric columns that turned out to hold text
  // wait, block dims, HF32 eligibility, then the metrics
  auto metricNames = std::make_shared<std::vector<std::string>>();
  std::unordered_set<std::string> seen;  // shapes and formats are parsed once per op name
  std::vector<std::string> cells;
  auto warn = [&](int line, const std::string& what) {
    if (table.warnings.size() < kMaxWarnings) table.warnings.push_back(shortName + ": line " + std::to_string(line) + ": " + what);
  };

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
    col.infer = h.column(kInfer), col.state = h.column({"OP State"}), col.hf32 = h.column({"HF32 Eligible"});
    col.inShapes = h.column({"Input Shapes"}), col.inTypes = h.column({"Input Data Types"});
    col.inFormats = h.column({"Input Formats"}), col.outShapes = h.column({"Output Shapes"});
    col.outTypes = h.column({"Output Data Types"}), col.outFormats = h.column({"Output Formats"});
    for (size_t c = 0; c < h.names.size(); ++c) {
      col.kinds.push_back(kindOf(h.names[c]));
      if (!h.names[c].empty() && !kNotMetrics.count(lowercase(h.names[c]))) col.metrics.push_back(c);
    }
    textual.assign(h.names.size(), false);
    // HF32 Eligible: 1 when the float32 kernel ran its cube in HF32 (kernel_cost.h, cubeMacsPerCycle).
    *metricNames = {"wait_time(us)", "block_dim", "mix_block_dim", "hf32_eligible"};
    for (size_t c : col.metrics) metricNames->push_back(h.names[c]);
    table.metricSet = ascendMetricSet(h.names);
    table.kernelDetails = h.column({"Accelerator Core"}).has_value() || h.column({"Name"}).has_value();
    table.hasShapes = col.inShapes || col.outShapes;
    return Ok{};
  };

  auto onRow = [&](const CsvRow& r) -> Status {
    const std::vector<std::string>* fp = &r.fields;
    const bool ragged = r.fields.size() != col.names.size();
    if (ragged) {
      ++table.raggedRows;
      const std::string counts = std::to_string(r.fields.size()) + " fields, the header has " + std::to_string(col.names.size());
      auto re = realign(r.fields, r.quoted, col.kinds, col.names);
      if (!re || trimmedView(re->cells[*col.name]).empty() || missing(re->cells[*col.duration])) {
        ++table.skippedRows;
        warn(r.line, counts + ": skipped (the op name or the duration cannot be told apart)");
        return Ok{};
      }
      cells = std::move(re->cells);
      fp = &cells;
      if (re->unknown == 0) warn(r.line, counts + ": read in full");
      else if (re->unknown == 1) warn(r.line, counts + ": read without '" + re->firstUnknown + "'");
      else warn(r.line, counts + ": read without '" + re->firstUnknown + "' to '" + re->lastUnknown + "'");
    }
    const auto& f = *fp;
    auto bad = [&](size_t c) {
      return Error::model("line " + std::to_string(r.line) + ": '" + f[c] + "' in column '" + col.names[c] +
                              "' is not a number",
                          label);
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
    if (rec.name.empty()) return Error::model("line " + std::to_string(r.line) + ": empty op name", label);
    if (col.type && !missing(f[*col.type])) rec.opType = trimmed(f[*col.type]);
    if (rec.opType.empty()) rec.opType = opTypeFromKernelName(rec.name);
    if (col.task && !missing(f[*col.task])) rec.taskType = trimmed(f[*col.task]);
    if (col.state && !missing(f[*col.state])) rec.opState = lowercase(trimmed(f[*col.state]));
    auto d = parseNumber(f[*col.duration]);
    if (!d) return bad(*col.duration);
    if (*d < 0) return Error::model("line " + std::to_string(r.line) + ": negative duration " + trimmed(f[*col.duration]), label);
    if (const std::string why = durationProblem(*d / 1000.0); !why.empty())
      return Error::model("line " + std::to_string(r.line) + ": the duration " + trimmed(f[*col.duration]) + " µs " + why, label);
    rec.durationUs = *d;
    if (auto s = number(col.start, rec.startUs); !s) return s;
    if (col.start && !missing(f[*col.start]) && rec.startUs < 0)
      return Error::model("line " + std::to_string(r.line) + ": negative start time", label);
    double iter = -1;
    if (auto s = number(col.infer, iter); !s) return s;
    const auto iteration = integerOf(iter);
    if (!iteration)
      return Error::model("line " + std::to_string(r.line) + ": '" + trimmed(f[*col.infer]) + "' in column '" +
                              col.names[*col.infer] + "' is not an iteration number",
                          label);
    rec.iteration = *iteration;
    size_t slot = 0;
    for (auto c : {col.wait, col.block, col.mixBlock})
      if (auto s = number(c, rec.metricValues[slot++]); !s) return s;
    if (col.hf32 && !missing(f[*col.hf32])) rec.metricValues[slot] = equalsNoCase(trimmedView(f[*col.hf32]), "yes") ? 1 : 0;
    ++slot;
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
    table.rows.push_back(std::move(rec));
    return Ok{};
  };

  if (auto s = scanCsv(*text, label, onHeader, onRow, /*raggedRows=*/true); !s) return s.error();
  if (table.rows.empty())
    return Error::model(table.skippedRows > 0 ? "no op row could be read (every row has the wrong field count)"
                                              : "no op rows after the header",
                        label);
  if (table.raggedRows > static_cast<int>(kMaxWarnings))
    table.warnings.push_back(shortName + ": " + std::to_string(table.raggedRows - static_cast<int>(kMaxWarnings)) +
                             " more rows with the wrong field count");
  // Drop the columns that turned out to be text (their earlier numeric-looking cells too).
  for (size_t i = 0; i < col.metrics.size(); ++i)
    if (textual[col.metrics[i]])
      for (auto& rec : table.rows) rec.metricValues[4 + i] = std::nan("");
  return table;
}

}  // namespace msa
