#include "profile/profile_import.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "profile/acl_profiler.h"
#include "profile/attachment_import.h"
#include "profile/csv_table.h"
#include "profile/job.h"
#include "profile/json_file.h"
#include "profile/kineto_import.h"
#include "profile/msprof_import.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"
#include "profile/trt_import.h"
#include "util/input_file.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

constexpr size_t kHead = 1 << 16;

// The first `n` bytes as they are on disk (a gzip file's magic, not its content).
std::string head(const fs::path& p, size_t n) {
  auto fd = openInput(p);
  if (!fd) return {};
  std::string s(n, '\0');
  size_t got = 0;
  for (ssize_t r; got < n && (r = ::read(fd->get(), s.data() + got, n - got)) != 0;) {
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    got += static_cast<size_t>(r);
  }
  s.resize(got);
  return s;
}

size_t firstNonSpace(std::string_view s) {
  size_t i = s.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

char firstChar(std::string_view h) {
  const size_t i = firstNonSpace(h);
  return i < h.size() ? h[i] : '\0';
}

bool gzipped(std::string_view h) { return h.size() >= 2 && h[0] == '\x1f' && h[1] == '\x8b'; }

// `"key" : "value"` anywhere in the head, whatever the spacing.
bool hasPair(std::string_view h, std::string_view key, std::string_view value) {
  const std::string k = "\"" + std::string(key) + "\"";
  for (size_t p = h.find(k); p != std::string_view::npos; p = h.find(k, p + 1)) {
    size_t i = p + k.size();
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i;
    if (i >= h.size() || h[i] != ':') continue;
    ++i;
    while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i;
    if (h.substr(i).starts_with("\"" + std::string(value) + "\"")) return true;
  }
  return false;
}

// `"key" : "` : the key's value is a string (torch_npu writes "ts" as a string, Kineto a number).
bool stringValue(std::string_view h, std::string_view key) {
  const std::string k = "\"" + std::string(key) + "\"";
  for (size_t p = h.find(k); p != std::string_view::npos; p = h.find(k, p + 1)) {
    size_t i = p + k.size();
    while (i < h.size() && std::isspace(static_cast<unsigned char>(h[i]))) ++i;
    if (i >= h.size() || h[i] != ':') continue;
    ++i;
    while (i < h.size() && std::isspace(static_cast<unsigned char>(h[i]))) ++i;
    return i < h.size() && h[i] == '"';
  }
  return false;
}

bool hasKey(std::string_view h, std::string_view key) { return h.find("\"" + std::string(key) + "\"") != std::string_view::npos; }

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// ---- msadvisor's own profile --json -------------------------------------------------------

// What a file bigger than its head is (keys may come late in a big object), read without its
// tree: a 100 MB trace held as a tree takes a gigabyte. The last one is kept: two importers ask.
const JsonOutline& outlineOf(const fs::path& p) {
  thread_local fs::path last;
  thread_local fs::file_time_type lastTime;
  thread_local JsonOutline outline;
  std::error_code ec;
  const auto time = fs::last_write_time(p, ec);
  if (p != last || time != lastTime) {
    outline = outlineJsonFile(p);
    last = p;
    lastTime = time;
  }
  return outline;
}

bool msadvisorCanRead(const fs::path& p, std::string_view h) {
  if (isDir(p) || firstChar(h) != '{' || hasKey(h, "traceEvents") || h.find(kAttachmentSignature) != std::string_view::npos)
    return false;
  if (!hasKey(h, "nodes") && h.size() < kHead) return false;
  if (h.size() < kHead) {
    const nlohmann::json j = nlohmann::json::parse(h, nullptr, false);
    return !j.is_discarded() && j.is_object() && j.contains("nodes") && j["nodes"].is_array() && !j.contains("traceEvents") &&
           !j.contains("signature");
  }
  const JsonOutline& o = outlineOf(p);
  return o.valid && o.object && o.has("nodes", nlohmann::json::value_t::array) && !o.keys.count("traceEvents") &&
         !o.keys.count("signature");
}

Result<ProfileData> msadvisorRead(const fs::path& file, const Model* model, const Progress&) {
  auto j = readJsonFile(file);
  if (!j) return j.error();
  auto p = profileFromJson(*j, file.string());
  if (!p) return p.error();
  // Measured once, imported now: the report says where the numbers came from.
  p->source = "imported:" + file.filename().string() + (p->source.empty() ? "" : " (" + p->source + ")");
  if (p->importer.empty()) p->importer = "msadvisor";
  if (!model) return p;
  // Re-match against this model: the profile may come from another version of it.
  p->unmatched.clear();
  p->irNodesNotRun.clear();
  for (NodeProfile& n : p->nodes) {
    std::erase_if(n.irNodes, [&](const std::string& ir) { return !model->graph.findNodeByName(ir); });
    if (n.irNodes.empty() && !n.inserted) {
      if (model->graph.findNodeByName(n.name)) n.irNodes = {n.name};
      else p->unmatched.push_back(n.name);
    }
  }
  std::set<std::string> covered;
  for (const NodeProfile& n : p->nodes) covered.insert(n.irNodes.begin(), n.irNodes.end());
  for (const Node& n : model->graph.nodes)
    if (!covered.count(n.name)) p->irNodesNotRun.push_back(n.name);
  return p;
}

// ---- Netron attachment --------------------------------------------------------------------

bool netronCanRead(const fs::path& p, std::string_view h) {
  if (isDir(p) || firstChar(h) != '{') return false;
  if (h.find(kAttachmentSignature) != std::string_view::npos) return true;
  if (h.size() < kHead) return false;
  const JsonOutline& o = outlineOf(p);
  return o.valid && o.object && o.signature == kAttachmentSignature;
}

Result<ProfileData> netronRead(const fs::path& p, const Model* model, const Progress&) {
  const Model empty;
  auto r = importAttachment(p, model ? *model : empty);
  if (r) {
    r->importer = "netron";
    if (!model) r->unmatched.clear();
  }
  return r;
}

// ---- Ascend: msprof and torch_npu ---------------------------------------------------------

bool ascendCanRead(const fs::path& p, std::string_view h) {
  if (!training::clusterSummaryCsv(p).empty()) return true;  // msprof-analyze's summary of a job
  if (isDir(p)) return locateMsprofRuns(p).ok();
  if (gzipped(h)) return false;
  const char c = firstChar(h);
  if (c == '[' || c == '{') {
    if (h.find("\"Ascend Hardware\"") != std::string_view::npos) return true;
    if (hasPair(h, "cat", "async_npu") || hasKey(h, "Iteration Time(ns)") || hasKey(h, "DeviceInfo")) return true;
    if (c == '[' && hasPair(h, "cat", "cpu_op") && stringValue(h, "ts")) return true;  // torch_npu trace_view.json
    // A JSON file of a run (profiler_info_0.json, communication.json, …): the run around it.
    return !ascendRunAround(p).empty() && !hasPair(h, "cat", "Node") && !hasKey(h, "schemaVersion");
  }
  // CSV: an op table by its header, or another table of a run.
  const size_t i = firstNonSpace(h);
  const std::string firstLine(h.substr(i, h.find_first_of("\r\n", i) - i));
  auto header = CsvTable::parse(firstLine, p.string());
  if (header && isOpSummaryHeader(header->header())) return true;
  return !ascendRunAround(p).empty() && (header.ok() || p.filename().string().find("info") != std::string::npos);
}

Result<ProfileData> ascendRead(const fs::path& p, const Model* model, const Progress& progress) {
  auto r = importMsprof(p, model, progress);
  if (!r && !training::clusterSummaryCsv(p).empty())
    return Error::model("msprof-analyze's cluster summary holds no kernel table: open it without a model (analyze --profile, "
                        "training, File ▸ Open Profile) for the job's ranks, or a rank's own folder for its kernels",
                        p.string());
  return r;
}

// ---- PyTorch profiler (Kineto) ------------------------------------------------------------

bool kinetoCanRead(const fs::path& p, std::string_view h) {
  if (isDir(p)) return false;
  if (gzipped(h)) return true;  // ONNX Runtime never compresses its profiles
  const char c = firstChar(h);
  if (c != '{' && c != '[') return false;
  if (hasPair(h, "cat", "Node") || hasPair(h, "cat", "Session")) return false;
  return hasKey(h, "schemaVersion") || hasKey(h, "deviceProperties") || hasPair(h, "cat", "cpu_op") ||
         hasPair(h, "cat", "kernel") || hasPair(h, "cat", "user_annotation") || hasPair(h, "cat", "Operator");
}

Result<ProfileData> kinetoRead(const fs::path& p, const Model* model, const Progress& progress) {
  return importKineto(p, model, progress);
}

// ---- ONNX Runtime -------------------------------------------------------------------------

bool ortCanRead(const fs::path& p, std::string_view h) {
  if (isDir(p) || gzipped(h)) return false;
  const char c = firstChar(h);
  return c == '[' || (c == '{' && hasKey(h, "traceEvents"));
}

Result<ProfileData> ortRead(const fs::path& file, const Model* model, const Progress& progress) {
  progress.report("reading the ONNX Runtime trace", 0.0);
  auto trace = loadOrtTrace(file);
  if (!trace) return trace.error();
  if (progress.cancelled()) return Error::cancelled();
  // The first run of a session pays for allocation and kernel selection: leave it out when
  // there are others (the CLI's --warmup plays that part for traces it records itself).
  const int skip = trace->runs.size() > 1 ? 1 : 0;
  auto p = profileFromTrace(*trace, skip, file.string());
  if (!p) return p.error();
  if (model) mapToIr(*p, *model, nullptr);
  p->device = "cpu";
  p->runtime = "onnxruntime";
  p->source = "imported:" + file.filename().string();
  p->importer = "onnxruntime";
  p->tasks = static_cast<int>(trace->kernels.size());
  p->caps.shapes = std::any_of(p->nodes.begin(), p->nodes.end(), [](const NodeProfile& n) { return !n.inputShapes.empty(); });
  p->caps.runtimeGraph = p->optimization != "disabled";
  p->files = {file.string()};
  progress.report("reading the ONNX Runtime trace", 1.0);
  return p;
}

Result<ProfileData> trtRead(const fs::path& p, const Model* model, const Progress&) { return importTensorRt(p, model); }

const ProfileImporter kImporters[] = {
    {"msadvisor", "msadvisor's own profile --json output", msadvisorCanRead, msadvisorRead, "*.json"},
    {"netron", "a Netron attachment (netron:attachment)", netronCanRead, netronRead, "*.json"},
    {"tensorrt", "trtexec --exportProfile JSON", trtCanRead, trtRead, "*.json"},
    {"ascend", "Ascend msprof / torch_npu: op_summary, kernel_details, PROF_*, *_ascend_pt and *_ascend_ms folders, msprof timelines",
     ascendCanRead, ascendRead, "*.csv *.json *.json.*"},
    {"kineto", "PyTorch profiler (Kineto) Chrome trace, .json or .json.gz", kinetoCanRead, kinetoRead, "*.json *.json.gz"},
    {"onnxruntime", "ONNX Runtime profile JSON", ortCanRead, ortRead, "*.json"},
};

std::string cpuUnavailable() { return ""; }
std::string aclUnavailable() { return aclBackendAvailable() ? "" : aclUnavailableMessage(); }

const ProfilerBackend kBackends[] = {
    {"cpu", "this machine's CPU through ONNX Runtime", ProfileCapabilities{false, false, true, false, true, true},
     cpuUnavailable},
    {"acl", "an Ascend NPU through AscendCL (ATC + the profiling subscription)",
     ProfileCapabilities{true, true, false, false, false, true}, aclUnavailable},
};

}  // namespace

std::span<const ProfileImporter> profileImporters() { return kImporters; }

bool isProfilePath(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext != ".onnx" && findProfileImporter(path).ok();
}

Result<const ProfileImporter*> findProfileImporter(const fs::path& path) {
  // A FIFO or a device is refused before anything opens it (util/input_file.h).
  if (auto s = checkInput(path, InputKind::FileOrFolder); !s) return s.error();
  std::error_code ec;
  const bool dir = fs::is_directory(path, ec);
  const std::string h = dir ? std::string() : head(path, kHead);
  if (!dir && firstNonSpace(h) >= h.size()) return Error::model("empty file", path.string());
  for (const ProfileImporter& imp : kImporters)
    if (imp.canRead(path, h)) return &imp;
  if (dir) {
    auto why = locateMsprofRuns(path);
    return Error::model(why ? "no profile in the folder" : why.error().message, path.string());
  }
  if (firstChar(h) == '{')
    return Error::model("a JSON object that is no known profile (no traceEvents, no netron:attachment signature, no "
                        "nodes array, no Ascend device info)",
                        path.string());
  const size_t i = firstNonSpace(h);
  auto header = CsvTable::parse(h.substr(i, h.find_first_of("\r\n", i) - i), path.string());
  if (header && header->column({"Fusion Op"}))
    return Error::model("this is a fusion_op csv: import the op_summary csv (or the PROF_ folder) next to it", path.string());
  return Error::model("unknown profile format (expected msprof / torch_npu output, ONNX Runtime or PyTorch profiler "
                      "JSON, trtexec --exportProfile JSON, a Netron attachment or msadvisor's profile --json)",
                      path.string());
}

Result<ProfileData> importProfile(const fs::path& path, const Model* model, const Progress& progress) {
  auto imp = findProfileImporter(path);
  if (!imp) return imp.error();
  auto p = (*imp)->read(path, model, progress);
  if (p && p->importer.empty()) p->importer = std::string((*imp)->id);
  return p;
}

std::span<const ProfilerBackend> profilerBackends() { return kBackends; }

const ProfilerBackend* findProfilerBackend(std::string_view id) {
  for (const ProfilerBackend& b : kBackends)
    if (b.id == id) return &b;
  return nullptr;
}

}  // namespace msa
