#include "rules/ascend_tables.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/device_profile.h"
#include "profile/profile_data.h"
#include "rules/rule_util.h"
#include "util/embedded.h"

namespace msa {
namespace {

using nlohmann::json;

struct AicpuEntry {
  std::string op;  // "*" for any op without its own entry
  std::string cann, source;
  std::vector<DType> aiCoreTypes;  // anything else goes to the AI CPU
  std::vector<DType> aiCoreOutputTypes;  // the outputs' own list (else aiCoreTypes)
  bool listsOutputs = false;
  std::vector<DType> aicpuTypes;   // these go to the AI CPU
  bool listsAiCore = false;
};

struct AicpuTable {
  std::vector<AicpuEntry> entries;
  AicpuCostModel cost;
};

std::vector<DType> typesOf(const json& list) {
  std::vector<DType> out;
  for (const auto& s : list)
    if (auto t = dtypeFromName(s.get<std::string>())) out.push_back(*t);
  return out;
}

// The data files are compiled in and checked by tests: a malformed one is a build defect that
// every analysis reports (util/embedded.h).
json embeddedJson(std::string_view name) {
  std::string_view bytes = embedded::find(name);
  json j = json::parse(bytes, nullptr, false);
  if (!j.is_object()) embedded::recordTableError(name, "not a JSON object");
  return j.is_object() ? j : json::object();
}

double figure(const json& j, const char* key, double dflt) {
  auto it = j.find(key);
  if (it == j.end()) return dflt;
  if (it->is_number()) return it->get<double>();
  if (it->is_object() && it->contains("value") && (*it)["value"].is_number()) return (*it)["value"].get<double>();
  return dflt;
}

const AicpuTable& aicpuTable() {
  static const AicpuTable t = [] {
    AicpuTable table;
    try {
      json j = embeddedJson("ascend/aicpu_ops.json");
      const json ops = j.value("ops", json::array());
      for (const auto& e : ops) {
        AicpuEntry a;
        a.op = e.value("op", "");
        a.cann = e.value("cann", "");
        a.source = e.value("source", "");
        if (e.contains("ai_core_dtypes")) {
          a.listsAiCore = true;
          a.aiCoreTypes = typesOf(e["ai_core_dtypes"]);
        }
        if (e.contains("ai_core_output_dtypes")) {
          a.listsOutputs = true;
          a.aiCoreOutputTypes = typesOf(e["ai_core_output_dtypes"]);
        }
        if (e.contains("aicpu_dtypes")) a.aicpuTypes = typesOf(e["aicpu_dtypes"]);
        if (!a.op.empty()) table.entries.push_back(std::move(a));
      }
      const json est = j.value("estimate", json::object());
      table.cost.overheadSeconds = figure(est, "task_overhead_us", 10) * 1e-6;
      table.cost.bytesPerSecond = figure(est, "bandwidth_gbps", 2) * 1e9;
      table.cost.longTaskSeconds = figure(est, "long_task_us", 20) * 1e-6;
    } catch (const json::exception& e) {  // a defect of the compiled-in file
      embedded::recordTableError("ascend/aicpu_ops.json", e.what());
      table = AicpuTable{};
    }
    return table;
  }();
  return t;
}

struct TileTable {
  struct Fractal {
    int m0 = 16, k0 = 16, n0 = 16;
  };
  std::vector<std::pair<DType, Fractal>> fractal;
  int affineAxis = 256;
  std::vector<std::string> mixSocs;
  double mixInnerMin = 1000, mixMacSeconds = 50e-6;
  int mixAlignBytes = 512;
};

const TileTable& tileTable() {
  static const TileTable t = [] {
    TileTable table;
    try {
      json j = embeddedJson("ascend/matmul_tiles.json");
      const json fractal = j.value("fractal", json::object());
      for (const auto& [name, f] : fractal.items())
        if (auto type = dtypeFromName(name))
          table.fractal.push_back({*type, {f.value("m0", 16), f.value("k0", 16), f.value("n0", 16)}});
      table.affineAxis = static_cast<int>(figure(j, "affine_inner_axis", 256));
      const json mix = j.value("mix_aic", json::object());
      const json socs = mix.value("socs", json::array());
      for (const auto& s : socs) table.mixSocs.push_back(s.get<std::string>());
      table.mixInnerMin = figure(mix, "inner_axis_min", 1000);
      table.mixMacSeconds = figure(mix, "mac_time_min_us", 50) * 1e-6;
      table.mixAlignBytes = static_cast<int>(figure(mix, "alignment_bytes", 512));
    } catch (const json::exception& e) {
      embedded::recordTableError("ascend/matmul_tiles.json", e.what());
      table = TileTable{};
    }
    return table;
  }();
  return t;
}

int64_t roundUp(int64_t v, int64_t m) { return m > 0 ? (v + m - 1) / m * m : v; }

// Adds `item` to a "; "-separated list unless it is already one of its items.
void append(std::string& list, const std::string& item) {
  if (item.empty()) return;
  for (size_t start = 0; start < list.size();) {
    size_t end = list.find("; ", start);
    if (end == std::string::npos) end = list.size();
    if (std::string_view(list).substr(start, end - start) == item) return;
    start = end + 2;
  }
  list += (list.empty() ? "" : "; ") + item;
}

}  // namespace

std::optional<AicpuVerdict> aicpuVerdict(std::string_view opType, std::span<const DType> inputs,
                                         std::span<const DType> outputs) {
  const AicpuTable& t = aicpuTable();
  const bool hasOwn = std::any_of(t.entries.begin(), t.entries.end(), [&](const AicpuEntry& e) { return e.op == opType; });
  AicpuVerdict v;
  bool hit = false;
  for (const AicpuEntry& e : t.entries) {
    // msprof-analyze's generic list skips the ops that have their own (ignore_type).
    if (e.op != opType && !(e.op == "*" && !hasOwn)) continue;
    std::vector<std::string> bad;
    auto check = [&](std::span<const DType> types, const std::vector<DType>& aiCore) {
      for (DType d : types) {
        if (d == DType::Undefined || d == DType::String) continue;
        const bool listed = std::find(aiCore.begin(), aiCore.end(), d) != aiCore.end();
        const bool aicpu = e.listsAiCore ? !listed
                                         : std::find(e.aicpuTypes.begin(), e.aicpuTypes.end(), d) != e.aicpuTypes.end();
        if (aicpu && std::find(bad.begin(), bad.end(), dtypeName(d)) == bad.end()) bad.emplace_back(dtypeName(d));
      }
    };
    check(inputs, e.aiCoreTypes);
    check(outputs, e.listsOutputs ? e.aiCoreOutputTypes : e.aiCoreTypes);
    if (bad.empty()) continue;
    hit = true;
    append(v.cann, e.cann);
    for (const auto& b : bad) append(v.dtypes, b);
    append(v.source, e.source);
    v.genericRule = v.genericRule || e.op == "*";
  }
  if (!hit) return std::nullopt;
  return v;
}

std::optional<AicpuVerdict> aicpuVerdictFor(const AnalysisContext& ctx, size_t node) {
  if (!ctx.device || !isAscendDevice(*ctx.device) || notRunOnDevice(ctx, node)) return std::nullopt;
  const Node& n = ctx.node(node);
  if (!n.isDefaultDomain()) return std::nullopt;
  std::vector<DType> in, out;
  for (const auto& v : n.inputs)
    if (!v.empty()) in.push_back(ctx.index->dtype(v));
  for (const auto& v : n.outputs)
    if (!v.empty()) out.push_back(ctx.index->dtype(v));
  return aicpuVerdict(n.opType, in, out);
}

AscendTasks::AscendTasks(const AnalysisContext& ctx) {
  for (const ProfileData* p : {ctx.runtimeProfile, ctx.profile})
    if (p && isAscendProfile(*p)) {
      m_profile = p;
      break;
    }
  if (!m_profile) return;
  m_byNode.assign(ctx.graph->nodes.size(), nullptr);
  for (const NodeProfile& n : m_profile->nodes) {
    if (n.inserted || !n.parent.empty()) continue;
    for (const auto& ir : n.irNodes)
      if (long i = ctx.index->indexOfName(ir); i >= 0) m_byNode[static_cast<size_t>(i)] = &n;
  }
}

const NodeProfile* AscendTasks::entryFor(size_t node) const {
  return node < m_byNode.size() ? m_byNode[node] : nullptr;
}

std::optional<AicpuImpact> aicpuImpact(const AnalysisContext& ctx, const AscendTasks& tasks, size_t node) {
  AicpuImpact im;
  im.fixedMs = node < ctx.estimatedMs.size() ? ctx.estimatedMs[node] : 0;
  if (const NodeProfile* e = tasks.entryFor(node)) {
    if (e->kernel != "AI_CPU") return std::nullopt;
    im.measured = true;
    im.currentMs = e->timeMs.median / static_cast<double>(std::max<size_t>(1, e->irNodes.size()));
  } else {
    const AicpuCostModel& m = aicpuCostModel();
    const OpCost& c = ctx.cost->nodes[node];
    im.currentMs = (m.overheadSeconds + (m.bytesPerSecond > 0 ? c.bytes() / m.bytesPerSecond : 0)) * 1e3;
  }
  im.fixedMs = std::min(im.fixedMs, im.currentMs);
  return im;
}

bool wideTypesOnly(const AicpuVerdict& v) {
  if (v.dtypes.empty()) return false;
  size_t start = 0;
  while (start < v.dtypes.size()) {
    size_t end = v.dtypes.find("; ", start);
    std::string_view t(v.dtypes.data() + start, (end == std::string::npos ? v.dtypes.size() : end) - start);
    if (t != "int64" && t != "uint64" && t != "double" && t != "complex128") return false;
    start = end == std::string::npos ? v.dtypes.size() : end + 2;
  }
  return true;
}

const AicpuCostModel& aicpuCostModel() { return aicpuTable().cost; }

std::string_view matmulPathName(MatmulPath::Kind k) {
  switch (k) {
    case MatmulPath::Kind::Affine: return "affine";
    case MatmulPath::Kind::Fractal: return "fractal";
    case MatmulPath::Kind::Padded: return "padded";
    case MatmulPath::Kind::MixAic: return "mix_aic";
  }
  return "padded";
}

MatmulPath matmulPath(int64_t m, int64_t k, int64_t n, DType type, std::string_view soc, double macSeconds) {
  const TileTable& t = tileTable();
  TileTable::Fractal f;
  for (const auto& [d, fr] : t.fractal)
    if (d == type) f = fr;
  MatmulPath p;
  p.k = k;
  p.n = n;
  p.affineAxis = t.affineAxis;
  p.alignmentBytes = t.mixAlignBytes;
  p.affine = k % t.affineAxis == 0 && n % t.affineAxis == 0;
  p.fractal = m % f.m0 == 0 && k % f.k0 == 0 && n % f.n0 == 0;
  const int64_t elem = std::max(1, dtypeSize(type));
  bool mixSoc = std::any_of(t.mixSocs.begin(), t.mixSocs.end(), [&](const std::string& s) { return soc.starts_with(s); });
  auto unalignedInner = [&](int64_t axis) {
    return static_cast<double>(axis) > t.mixInnerMin && (axis * elem) % t.mixAlignBytes != 0;
  };
  p.mixAic = mixSoc && macSeconds > t.mixMacSeconds && (unalignedInner(k) || unalignedInner(n));
  p.kind = p.mixAic ? MatmulPath::Kind::MixAic
           : p.affine ? MatmulPath::Kind::Affine
           : p.fractal ? MatmulPath::Kind::Fractal
                       : MatmulPath::Kind::Padded;
  // The nearest shape off the slow path: inner axes padded to the affine multiple (which is also
  // 512-byte aligned for 2-byte types, leaving the MIX path).
  p.alignedK = roundUp(k, t.affineAxis);
  p.alignedN = roundUp(n, t.affineAxis);
  return p;
}

bool isAscendProfile(const ProfileData& p) {
  if (p.caps.ascend) return true;
  for (const NodeProfile& n : p.nodes)
    if (n.kernel == "AI_CORE" || n.kernel == "AI_CPU" || n.kernel == "AI_VECTOR_CORE" || n.kernel.starts_with("MIX_AI"))
      return true;
  return false;
}

bool isAscendDevice(const DeviceProfile& d) {
  return d.kind == DeviceProfile::Kind::Npu && (d.soc.starts_with("Ascend") || d.id.starts_with("ascend"));
}

}  // namespace msa
