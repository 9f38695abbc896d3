#include "profile/profile_import.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "profile/attachment_import.h"
#include "profile/csv_table.h"
#include "profile/msprof_import.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

std::string head(const fs::path& p, size_t n) {
  std::ifstream in(p, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(in.gcount()));
  return s;
}

size_t firstNonSpace(const std::string& s) {
  size_t i = s.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

Result<ProfileData> importOrtTrace(const fs::path& file, const Model& model, const Progress& progress) {
  progress.report("reading the ONNX Runtime trace", 0.0);
  auto trace = loadOrtTrace(file);
  if (!trace) return trace.error();
  if (progress.cancelled()) return Error::cancelled();
  // The first run of a session pays for allocation and kernel selection: leave it out when
  // there are others (the CLI's --warmup plays that part for traces it records itself).
  const int skip = trace->runs.size() > 1 ? 1 : 0;
  auto p = profileFromTrace(*trace, skip, file.string());
  if (!p) return p.error();
  mapToIr(*p, model, nullptr);
  p->device = "cpu";
  p->runtime = "onnxruntime";
  p->source = "imported:" + file.filename().string();
  progress.report("reading the ONNX Runtime trace", 1.0);
  return p;
}

Result<ProfileData> importMsadvisorJson(const fs::path& file, const Model& model) {
  std::ifstream in(file, std::ios::binary);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Error::model(std::string("malformed JSON: ") + e.what(), file.string());
  }
  auto p = profileFromJson(j, file.string());
  if (!p) return p.error();
  // Measured once, imported now: the report says where the numbers came from.
  p->source = "imported:" + file.filename().string() + (p->source.empty() ? "" : " (" + p->source + ")");
  // Re-match against this model: the profile may come from another version of it.
  p->unmatched.clear();
  p->irNodesNotRun.clear();
  for (NodeProfile& n : p->nodes) {
    std::erase_if(n.irNodes, [&](const std::string& ir) { return !model.graph.findNodeByName(ir); });
    if (n.irNodes.empty() && !n.inserted) {
      if (model.graph.findNodeByName(n.name)) n.irNodes = {n.name};
      else p->unmatched.push_back(n.name);
    }
  }
  std::set<std::string> covered;
  for (const NodeProfile& n : p->nodes) covered.insert(n.irNodes.begin(), n.irNodes.end());
  for (const Node& n : model.graph.nodes)
    if (!covered.count(n.name)) p->irNodesNotRun.push_back(n.name);
  return p;
}

}  // namespace

const char* profileFormatName(ProfileFormat f) {
  switch (f) {
    case ProfileFormat::Unknown: return "unknown";
    case ProfileFormat::OrtJson: return "ONNX Runtime profile JSON";
    case ProfileFormat::MsprofCsv: return "msprof CSV";
    case ProfileFormat::MsprofDir: return "msprof folder";
    case ProfileFormat::NetronAttachment: return "Netron attachment";
    case ProfileFormat::MsadvisorJson: return "msadvisor profile JSON";
  }
  return "unknown";
}

Result<ProfileFormat> detectProfileFormat(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return ProfileFormat::MsprofDir;
  if (!fs::is_regular_file(path, ec)) return Error::model("no such file or folder", path.string());
  std::string h = head(path, 1 << 16);
  size_t i = firstNonSpace(h);
  if (i >= h.size()) return Error::model("empty file", path.string());
  if (h[i] == '[') return ProfileFormat::OrtJson;  // a Chrome trace: an array of events
  if (h[i] == '{') {
    if (h.find("\"traceEvents\"") != std::string::npos) return ProfileFormat::OrtJson;
    if (h.find(kAttachmentSignature) != std::string::npos) return ProfileFormat::NetronAttachment;
    // The keys may come late in a big object: look at the whole document.
    std::ifstream in(path, std::ios::binary);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return Error::model("malformed JSON", path.string());
    if (j.contains("traceEvents")) return ProfileFormat::OrtJson;
    if (j.value("signature", std::string()) == kAttachmentSignature) return ProfileFormat::NetronAttachment;
    if (j.contains("nodes") && j["nodes"].is_array()) return ProfileFormat::MsadvisorJson;
    return Error::model("a JSON object that is no known profile (no traceEvents, no netron:attachment "
                        "signature, no nodes array)",
                        path.string());
  }
  // CSV: decide from the header line.
  std::string firstLine = h.substr(i, h.find_first_of("\r\n", i) - i);
  auto header = CsvTable::parse(firstLine, path.string());
  if (header && isOpSummaryHeader(header->header())) return ProfileFormat::MsprofCsv;
  if (header && header->column({"Fusion Op"}))
    return Error::model("this is a fusion_op csv: import the op_summary csv (or the PROF_ folder) next to it",
                        path.string());
  return Error::model("unknown profile format (expected ONNX Runtime JSON, msprof op_summary/kernel_details "
                      "CSV, a PROF_ folder or a Netron attachment)",
                      path.string());
}

Result<ProfileData> importProfile(const fs::path& path, const Model& model, const Progress& progress) {
  auto format = detectProfileFormat(path);
  if (!format) return format.error();
  switch (*format) {
    case ProfileFormat::MsprofCsv:
    case ProfileFormat::MsprofDir: return importMsprof(path, model, progress);
    case ProfileFormat::NetronAttachment: return importAttachment(path, model);
    case ProfileFormat::MsadvisorJson: return importMsadvisorJson(path, model);
    case ProfileFormat::OrtJson: return importOrtTrace(path, model, progress);
    case ProfileFormat::Unknown: break;
  }
  return Error::model("unknown profile format", path.string());
}

}  // namespace msa
