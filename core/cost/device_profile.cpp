#include "cost/device_profile.h"
#include "util/input_file.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "util/embedded.h"

namespace msa {

using nlohmann::json;

std::string_view figureOriginName(FigureOrigin o) {
  switch (o) {
    case FigureOrigin::Quoted: return "quoted";
    case FigureOrigin::Derived: return "derived";
    case FigureOrigin::Assumed: return "assumed";
    case FigureOrigin::Calibrated: return "calibrated";
  }
  return "assumed";
}

namespace {

constexpr std::string_view kSchema = "msadvisor-device/1";
constexpr double kTera = 1e12, kGiga = 1e9, kMicro = 1e-6, kMebi = 1024.0 * 1024.0;

// Reads one profile file, collecting the first error with the key path where it happened.
class Parser {
 public:
  Parser(const json& root, std::string label) : m_root(root), m_label(std::move(label)) {}

  Result<DeviceProfile> run() {
    DeviceProfile p;
    if (!m_root.is_object()) return fail("", "the file must hold a JSON object");
    static const std::vector<std::string> known = {
        "schema", "id", "display_name", "display_name_zh", "kind", "soc", "notes", "sources", "peak_tflops",
        "memory_bandwidth_gbps", "launch_overhead_us", "cube_block", "c0", "default_precision",
        "elide_metadata_ops", "fold_constants", "alternatives", "l2_bandwidth_gbps", "l2_size_mib", "task_floor_us",
        "link_bandwidth_gbps"};
    for (const auto& [k, v] : m_root.items())
      if (std::find(known.begin(), known.end(), k) == known.end() && !k.starts_with("_"))
        return fail(k, "unknown key (a typo? keys starting with '_' are ignored)");
    std::string schema;
    if (!str(m_root, "schema", "schema", schema)) return m_error;
    if (schema != kSchema) return fail("schema", "expected \"" + std::string(kSchema) + "\", got \"" + schema + "\"");
    if (!str(m_root, "id", "id", p.id) || !str(m_root, "display_name", "display_name", p.displayName)) return m_error;
    if (m_root.contains("display_name_zh") && !str(m_root, "display_name_zh", "display_name_zh", p.displayNameZh)) return m_error;
    std::string kind;
    if (!str(m_root, "kind", "kind", kind)) return m_error;
    if (kind == "npu") p.kind = DeviceProfile::Kind::Npu;
    else if (kind == "cpu") p.kind = DeviceProfile::Kind::Cpu;
    else return fail("kind", "must be \"npu\" or \"cpu\"");
    if (m_root.contains("soc") && !str(m_root, "soc", "soc", p.soc)) return m_error;

    const json* sources = object(m_root, "sources", "sources");
    if (!sources) return m_error;
    for (const auto& [k, v] : sources->items()) {
      if (!v.is_string() || v.get<std::string>().empty()) return fail("sources." + k, "must be a non-empty string");
      p.sources[k] = v.get<std::string>();
    }
    m_sources = &p.sources;

    const json* peaks = object(m_root, "peak_tflops", "peak_tflops");
    if (!peaks) return m_error;
    if (peaks->empty()) return fail("peak_tflops", "needs at least one unit");
    for (const auto& [unitName, perType] : peaks->items()) {
      ComputeUnit unit;
      if (unitName == "cube") unit = ComputeUnit::Cube;
      else if (unitName == "vector") unit = ComputeUnit::Vector;
      else if (unitName == "all") unit = ComputeUnit::None;
      else return fail("peak_tflops." + unitName, "unknown unit (cube, vector or all)");
      const std::string path = "peak_tflops." + unitName;
      if (!perType.is_object() || perType.empty()) return fail(path, "must be an object of element type -> figure");
      for (const auto& [typeName, fig] : perType.items()) {
        auto t = dtypeFromName(typeName);
        if (!t) return fail(path + "." + typeName, "unknown element type (float16, float32, int8…)");
        Figure f;
        if (!figureValue(fig, path + "." + typeName, kTera, f, true)) return m_error;
        p.peaks[{unit, *t}] = f;
      }
    }
    if (!figure(m_root, "memory_bandwidth_gbps", kGiga, p.memoryBandwidth, true)) return m_error;
    if (!figure(m_root, "launch_overhead_us", kMicro, p.launchOverhead, false)) return m_error;
    for (auto [key, scale, f] : {std::tuple{"l2_bandwidth_gbps", kGiga, &p.l2Bandwidth},
                                 std::tuple{"l2_size_mib", kMebi, &p.l2Size}, std::tuple{"task_floor_us", kMicro, &p.taskFloor}})
      if (m_root.contains(key) && !figure(m_root, key, scale, *f, true)) return m_error;
    if (m_root.contains("link_bandwidth_gbps")) {
      const json* links = object(m_root, "link_bandwidth_gbps", "link_bandwidth_gbps");
      if (!links) return m_error;
      for (const auto& [transport, fig] : links->items())
        if (!figureValue(fig, "link_bandwidth_gbps." + transport, kGiga, p.linkBandwidth[transport], true)) return m_error;
    }
    const bool npu = p.kind == DeviceProfile::Kind::Npu;
    if (npu || m_root.contains("cube_block"))
      if (!figure(m_root, "cube_block", 1, p.cubeBlock, true)) return m_error;
    if (npu || m_root.contains("c0")) {
      const json* c0 = object(m_root, "c0", "c0");
      if (!c0) return m_error;
      for (const auto& [typeName, fig] : c0->items()) {
        auto t = dtypeFromName(typeName);
        if (!t) return fail("c0." + typeName, "unknown element type");
        if (!figureValue(fig, "c0." + typeName, 1, p.c0[*t], true)) return m_error;
      }
    }
    const json* prec = object(m_root, "default_precision", "default_precision");
    if (!prec) return m_error;
    std::string policy;
    if (!str(*prec, "policy", "default_precision.policy", policy)) return m_error;
    if (policy == "fp32_to_fp16") p.precision = PrecisionPolicy::Fp32ToFp16;
    else if (policy == "keep_model") p.precision = PrecisionPolicy::KeepModel;
    else return fail("default_precision.policy", "must be \"fp32_to_fp16\" or \"keep_model\"");
    if (!provenance(*prec, "default_precision", p.precisionFigure)) return m_error;
    if (!flag(m_root, "elide_metadata_ops", p.elideMetadataOps, p.elideFigure)) return m_error;
    if (!flag(m_root, "fold_constants", p.foldConstants, p.foldFigure)) return m_error;
    return p;
  }

 private:
  Error fail(const std::string& key, const std::string& msg) {
    m_error = Error::device(key.empty() ? msg : "key '" + key + "': " + msg);
    m_error.file = m_label;
    return m_error;
  }

  bool str(const json& j, const char* key, const std::string& path, std::string& out) {
    if (!j.contains(key)) return fail(path, "missing"), false;
    if (!j[key].is_string() || j[key].get<std::string>().empty()) return fail(path, "must be a non-empty string"), false;
    out = j[key].get<std::string>();
    return true;
  }

  const json* object(const json& j, const char* key, const std::string& path) {
    if (!j.contains(key)) return fail(path, "missing"), nullptr;
    if (!j[key].is_object()) return fail(path, "must be an object"), nullptr;
    return &j[key];
  }

  // origin, source (a key of "sources"), formula (required when derived), note.
  bool provenance(const json& j, const std::string& path, Figure& f) {
    std::string origin;
    if (!str(j, "origin", path + ".origin", origin)) return false;
    if (origin == "quoted") f.origin = FigureOrigin::Quoted;
    else if (origin == "derived") f.origin = FigureOrigin::Derived;
    else if (origin == "assumed") f.origin = FigureOrigin::Assumed;
    else if (origin == "calibrated") f.origin = FigureOrigin::Calibrated;
    else return fail(path + ".origin", "must be quoted, derived, assumed or calibrated"), false;
    if (!str(j, "source", path + ".source", f.source)) return false;
    if (!m_sources->count(f.source)) return fail(path + ".source", "'" + f.source + "' is not a key of \"sources\""), false;
    if (j.contains("formula") && !str(j, "formula", path + ".formula", f.formula)) return false;
    if (f.origin == FigureOrigin::Derived && f.formula.empty())
      return fail(path + ".formula", "a derived figure must say how it was computed"), false;
    if (j.contains("note") && !str(j, "note", path + ".note", f.note)) return false;
    return true;
  }

  // {"value": true|false, "origin", "source"}
  bool flag(const json& parent, const char* key, bool& out, Figure& f) {
    const json* j = object(parent, key, key);
    if (!j) return false;
    if (!j->contains("value") || !(*j)["value"].is_boolean())
      return fail(std::string(key) + ".value", "must be true or false"), false;
    out = (*j)["value"].get<bool>();
    f.value = out ? 1 : 0;
    return provenance(*j, key, f);
  }

  bool figure(const json& parent, const char* key, double scale, Figure& f, bool positive) {
    if (!parent.contains(key)) return fail(key, "missing"), false;
    return figureValue(parent[key], key, scale, f, positive);
  }

  bool figureValue(const json& j, const std::string& path, double scale, Figure& f, bool positive) {
    if (!j.is_object()) return fail(path, "must be an object {\"value\", \"origin\", \"source\"}"), false;
    if (!j.contains("value") || !j["value"].is_number())
      return fail(path + ".value", "must be a number"), false;
    const double v = j["value"].get<double>();
    if (!(v >= 0) || (positive && v == 0) || !std::isfinite(v))
      return fail(path + ".value", positive ? "must be a positive number" : "must be a non-negative number"), false;
    f.value = v * scale;
    return provenance(j, path, f);
  }

  const json& m_root;
  std::string m_label;
  const std::map<std::string, std::string>* m_sources = nullptr;
  Error m_error;
};

std::string dtypeKey(DType t) { return std::string(dtypeName(t)); }

}  // namespace

std::optional<double> DeviceProfile::peak(ComputeUnit unit, DType type) const {
  if (unit == ComputeUnit::Memory) return std::nullopt;
  auto find = [&](ComputeUnit u, DType t) -> std::optional<double> {
    auto it = peaks.find({u, t});
    if (it != peaks.end()) return it->second.value;
    it = peaks.find({ComputeUnit::None, t});  // "all": CPUs
    if (it != peaks.end()) return it->second.value;
    return std::nullopt;
  };
  if (unit == ComputeUnit::None) unit = ComputeUnit::Vector;
  if (auto p = find(unit, type)) return p;
  std::vector<DType> chain;
  if (isFloating(type)) {
    // The cube has no float32 path on most Ascend parts: ATC runs such convolutions in float16.
    chain = unit == ComputeUnit::Cube ? std::vector<DType>{DType::Float16, DType::Float}
                                      : std::vector<DType>{DType::Float, DType::Float16};
  } else {
    chain = {DType::Int32, DType::Float, DType::Float16};
    if (type == DType::UInt8 || type == DType::Int8) chain.insert(chain.begin(), DType::Int8);
  }
  for (DType t : chain)
    if (auto p = find(unit, t)) return p;
  return std::nullopt;
}

DType DeviceProfile::computeType(DType modelType) const {
  if (precision == PrecisionPolicy::Fp32ToFp16 && (modelType == DType::Float || modelType == DType::Double))
    return DType::Float16;
  return modelType;
}

double DeviceProfile::memorySeconds(double bytes) const {
  const double hbm = memoryBandwidth.value;
  if (l2Bandwidth.value > 0 && l2Size.value > 0)
    return std::max(bytes / l2Bandwidth.value, hbm > 0 ? std::max(0.0, bytes - l2Size.value) / hbm : 0.0);
  return hbm > 0 ? bytes / hbm : 0.0;
}

std::optional<double> DeviceProfile::ridgePoint(ComputeUnit unit, DType type) const {
  auto p = peak(unit, type);
  if (!p || memoryBandwidth.value <= 0) return std::nullopt;
  return *p / memoryBandwidth.value;
}

DeviceProfile DeviceProfile::withCalibration(const Calibration& c) const {
  DeviceProfile p = *this;
  const std::string key = "calibration";
  p.sources[key] = c.source.empty() ? "measured on this machine" : c.source;
  auto calibrated = [&](double v) {
    Figure f;
    f.value = v;
    f.origin = FigureOrigin::Calibrated;
    f.source = key;
    return f;
  };
  for (const auto& [type, v] : c.flopsPerSecond) {
    bool any = false;
    for (auto& [k, f] : p.peaks)
      if (k.second == type) f = calibrated(v), any = true;
    if (!any) p.peaks[{ComputeUnit::None, type}] = calibrated(v);
  }
  if (c.bytesPerSecond) p.memoryBandwidth = calibrated(*c.bytesPerSecond);
  if (c.launchOverheadSeconds) p.launchOverhead = calibrated(*c.launchOverheadSeconds);
  return p;
}

std::vector<std::pair<std::string, const Figure*>> DeviceProfile::figures() const {
  std::vector<std::pair<std::string, const Figure*>> out;
  for (const auto& [k, f] : peaks) {
    std::string unit = k.first == ComputeUnit::None ? "all" : std::string(unitName(k.first));
    out.emplace_back("peak_tflops." + unit + "." + dtypeKey(k.second), &f);
  }
  out.emplace_back("memory_bandwidth_gbps", &memoryBandwidth);
  out.emplace_back("launch_overhead_us", &launchOverhead);
  if (l2Bandwidth.value > 0) out.emplace_back("l2_bandwidth_gbps", &l2Bandwidth);
  if (l2Size.value > 0) out.emplace_back("l2_size_mib", &l2Size);
  if (taskFloor.value > 0) out.emplace_back("task_floor_us", &taskFloor);
  for (const auto& [transport, f] : linkBandwidth) out.emplace_back("link_bandwidth_gbps." + transport, &f);
  if (kind == Kind::Npu || cubeBlock.value > 0) out.emplace_back("cube_block", &cubeBlock);
  for (const auto& [t, f] : c0) out.emplace_back("c0." + dtypeKey(t), &f);
  out.emplace_back("default_precision", &precisionFigure);
  out.emplace_back("elide_metadata_ops", &elideFigure);
  out.emplace_back("fold_constants", &foldFigure);
  return out;
}

json DeviceProfile::toJson() const {
  auto fig = [](const Figure& f, double scale) {
    json j{{"value", f.value / scale}, {"origin", figureOriginName(f.origin)}, {"source", f.source}};
    if (!f.formula.empty()) j["formula"] = f.formula;
    if (!f.note.empty()) j["note"] = f.note;
    return j;
  };
  json j;
  j["schema"] = kSchema;
  j["id"] = id;
  j["display_name"] = displayName;
  if (!displayNameZh.empty()) j["display_name_zh"] = displayNameZh;
  j["kind"] = kind == Kind::Npu ? "npu" : "cpu";
  if (!soc.empty()) j["soc"] = soc;
  j["sources"] = sources;
  json peaksJ = json::object();
  for (const auto& [k, f] : peaks)
    peaksJ[k.first == ComputeUnit::None ? "all" : std::string(unitName(k.first))][dtypeKey(k.second)] = fig(f, kTera);
  j["peak_tflops"] = peaksJ;
  j["memory_bandwidth_gbps"] = fig(memoryBandwidth, kGiga);
  j["launch_overhead_us"] = fig(launchOverhead, kMicro);
  if (l2Bandwidth.value > 0) j["l2_bandwidth_gbps"] = fig(l2Bandwidth, kGiga);
  if (l2Size.value > 0) j["l2_size_mib"] = fig(l2Size, kMebi);
  if (taskFloor.value > 0) j["task_floor_us"] = fig(taskFloor, kMicro);
  for (const auto& [transport, f] : linkBandwidth) j["link_bandwidth_gbps"][transport] = fig(f, kGiga);
  if (kind == Kind::Npu || cubeBlock.value > 0) j["cube_block"] = fig(cubeBlock, 1);
  if (!c0.empty()) {
    json c = json::object();
    for (const auto& [t, f] : c0) c[dtypeKey(t)] = fig(f, 1);
    j["c0"] = c;
  }
  json prec = fig(precisionFigure, 1);
  prec.erase("value");
  prec["policy"] = precision == PrecisionPolicy::Fp32ToFp16 ? "fp32_to_fp16" : "keep_model";
  j["default_precision"] = prec;
  json elide = fig(elideFigure, 1);
  elide["value"] = elideMetadataOps;
  j["elide_metadata_ops"] = elide;
  json fold = fig(foldFigure, 1);
  fold["value"] = foldConstants;
  j["fold_constants"] = fold;
  return j;
}

Result<DeviceProfile> parseDevice(std::string_view text, const std::string& label) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    Error err = Error::device(std::string("not valid JSON: ") + e.what());
    err.file = label;
    return err;
  }
  return Parser(root, label).run();
}

std::vector<std::string> builtinDevices() {
  std::vector<std::string> ids;
  for (const embedded::File& f : embedded::files())
    if (f.name.starts_with("devices/") && f.name.ends_with(".json"))
      ids.emplace_back(f.name.substr(8, f.name.size() - 8 - 5));
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<DeviceProfile> loadDevice(std::string_view idOrPath) {
  const std::string name(idOrPath);
  if (std::string_view bytes = embedded::find("devices/" + name + ".json"); !bytes.empty())
    return parseDevice(bytes, "devices/" + name + ".json (built in)");
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool looksLikePath = name.find('/') != std::string::npos || name.ends_with(".json");
  if (!looksLikePath || !fs::exists(name, ec)) {
    std::string known;
    for (const auto& id : builtinDevices()) known += (known.empty() ? "" : ", ") + id;
    return Error::device("no device '" + name + "': give a built-in id (" + known + ") or a path to a JSON profile");
  }
  if (fs::is_directory(name, ec)) {
    Error e = Error::device("is a directory, not a device profile");
    e.file = name;
    return e;
  }
  if (auto s = checkInput(name); !s) {  // a FIFO or a device is refused, not waited on
    Error e = Error::device(s.error().message);
    e.file = name;
    return e;
  }
  if (fs::file_size(name, ec) > (16u << 20)) {
    Error e = Error::device("too large for a device profile (over 16 MB)");
    e.file = name;
    return e;
  }
  std::ifstream in(name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) {
    Error e = Error::device("cannot be read");
    e.file = name;
    return e;
  }
  return parseDevice(ss.str(), name);
}

}  // namespace msa
