#include "profile/trt_import.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "profile/json_file.h"
#include "util/read_limits.h"

namespace msa {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool inserted(const std::string& name) {
  return name.find("reformatter") != std::string::npos || name.starts_with("Reformatting CopyNode") ||
         name.find("[trainStation") != std::string::npos;
}

std::vector<std::string> members(const std::string& name) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= name.size()) {
    size_t e = name.find(" + ", b);
    if (e == std::string::npos) e = name.size();
    out.push_back(name.substr(b, e - b));
    b = e + 3;
  }
  return out;
}

}  // namespace

bool trtCanRead(const fs::path& path, std::string_view h) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return false;
  size_t i = 0;
  while (i < h.size() && std::isspace(static_cast<unsigned char>(h[i]))) ++i;
  if (i >= h.size() || h[i] != '[') return false;
  return h.find("\"averageMs\"") != std::string_view::npos ||
         (h.find("\"count\"") != std::string_view::npos && h.find("\"timeMs\"") != std::string_view::npos);
}

Result<ProfileData> importTensorRt(const fs::path& file, const Model* model) {
  ProfileData p;
  p.device = "gpu";
  p.runtime = "TensorRT (trtexec --exportProfile)";
  p.source = "imported:" + file.filename().string();
  p.importer = "tensorrt";
  p.caps.runtimeGraph = true;
  p.files = {file.string()};
  double count = 0, latency = 0;
  size_t index = 0;
  RecordBudget layers(file.string(), "layers", CountLimit::Names);
  // One element at a time, dropped once read: a million layers never stand as a JSON tree.
  auto element = [&](const json& e) -> Status {
    const std::string where = "element " + std::to_string(index++);
    if (!e.is_object()) return Error::model(where + ": not an object", file.string());
    if (e.contains("count") && !e.contains("name")) {
      if (!e["count"].is_number()) return Error::model(where + ": 'count' is not a number", file.string());
      count = e["count"].get<double>();
      if (!(count >= 0 && count <= std::numeric_limits<int>::max()))  // cast to int below
        return Error::model(where + ": 'count' is not a run count", file.string());
      return Ok{};
    }
    if (!e.contains("name") || !e["name"].is_string()) return Error::model(where + ": no layer 'name'", file.string());
    auto ms = [&](const char* k) -> std::optional<double> {
      if (!e.contains(k)) return std::nullopt;
      if (!e[k].is_number() || e[k].get<double>() < 0) return std::nullopt;
      return e[k].get<double>();
    };
    auto avg = ms("averageMs"), total = ms("timeMs"), median = ms("medianMs");
    if (!avg && total && count > 0) avg = *total / count;
    if (!avg) return Error::model(where + ": no 'averageMs' (nor 'timeMs' with a count)", file.string());
    for (const auto& v : {avg, median})
      if (v)
        if (const std::string why = durationProblem(*v); !why.empty())
          return Error::model(where + ": the layer's time " + why, file.string());
    if (!layers.add()) return layers.error();
    NodeProfile n;
    n.name = e["name"].get<std::string>();
    n.opType = inserted(n.name) ? "Reformat" : "";
    n.kernel = "TensorRT";
    n.inserted = inserted(n.name);
    n.timeMs.median = median.value_or(*avg);
    n.timeMs.mean = *avg;
    n.timeMs.p10 = n.timeMs.p90 = n.timeMs.min = n.timeMs.max = n.timeMs.median;
    n.timeMs.count = static_cast<int>(count);
    if (auto pct = e.find("percentage"); pct != e.end() && pct->is_number()) n.metrics["percentage"] = pct->get<double>();
    latency += *avg;
    if (model && !n.inserted) {
      for (const std::string& m : members(n.name))
        if (model->graph.findNodeByName(m)) n.irNodes.push_back(m);
      if (n.irNodes.empty()) p.unmatched.push_back(n.name);
    }
    p.nodes.push_back(std::move(n));
    return Ok{};
  };
  bool rootArray = false;
  auto read = readJsonFile(file, [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth == 0 && ev == json::parse_event_t::array_start) rootArray = true;
    if (depth != 1 || !rootArray) return true;
    if (ev != json::parse_event_t::object_end && ev != json::parse_event_t::value) return true;
    if (auto s = element(parsed); !s) throw StopReading{s.error()};
    return false;
  });
  if (!read) return read.error();
  if (!read->is_array()) return Error::model("a TensorRT profile is a JSON array", file.string());
  if (p.nodes.empty()) return Error::model("no layer entries", file.string());
  p.iterations = static_cast<int>(count);
  p.tasks = static_cast<int>(p.nodes.size());
  p.latencyMs.median = p.latencyMs.mean = p.latencyMs.p10 = p.latencyMs.p90 = p.latencyMs.min = p.latencyMs.max = latency;
  p.latencyMs.count = 1;
  return p;
}

}  // namespace msa
