// Ascend format assignment, simulated from resources/ascend/op_formats.json: a forward pass in
// execution order gives every executed node the format it runs in and every edge whose two ends
// disagree a TransData. What GE really does is richer (format selection also looks backwards,
// fuses Reshape+Transpose into ConfusionTranspose…); docs/rules.md lists what is left out.
#include "rules/format_ascend.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "util/embedded.h"

namespace msa {
namespace {

struct OpTable {
  std::map<std::string, OpFormatEntry, std::less<>> ops;
  OpFormatEntry fallback;
  std::map<std::string, std::string, std::less<>> sources;
};

FormatClass parseClass(const std::string& s) {
  if (s == "heavy") return FormatClass::Heavy;
  if (s == "cube") return FormatClass::Cube;
  if (s == "agnostic") return FormatClass::Agnostic;
  if (s == "binary") return FormatClass::Binary;
  if (s == "concat") return FormatClass::Concat;
  if (s == "softmax") return FormatClass::Softmax;
  return FormatClass::Plain;
}

OpFormatEntry parseEntry(const nlohmann::json& j) {
  OpFormatEntry e;
  e.cls = parseClass(j.value("class", "plain"));
  e.reshape = j.value("reshape", false);
  e.origin = j.value("origin", "assumed");
  e.source = j.value("source", "assumption");
  e.note = j.value("note", "");
  return e;
}

const OpTable& table() {
  // Compiled in; a malformed file is a build defect, caught by tst_format_rules.
  static const OpTable t = [] {
    OpTable out;
    auto j = nlohmann::json::parse(embedded::find("ascend/op_formats.json"), nullptr, false);
    if (!j.is_object()) {
      embedded::recordTableError("ascend/op_formats.json", "not a JSON object");
      return out;
    }
    if (j.contains("default")) out.fallback = parseEntry(j["default"]);
    if (auto it = j.find("ops"); it != j.end() && it->is_object())
      for (auto& [op, e] : it->items()) out.ops[op] = parseEntry(e);
    if (auto it = j.find("sources"); it != j.end() && it->is_object())
      for (auto& [k, v] : it->items())
        if (v.is_string()) out.sources[k] = v.get<std::string>();
    return out;
  }();
  return t;
}

int64_t ceilTo(int64_t v, int64_t m) { return m > 0 ? (v + m - 1) / m * m : v; }

int c0For(const DeviceProfile& d, DType t) {
  if (auto it = d.c0.find(t); it != d.c0.end() && it->second.value > 0) return static_cast<int>(it->second.value);
  return dtypeSize(t) == 1 ? 32 : 16;
}

}  // namespace

std::string_view formatName(TensorFormat f) {
  switch (f) {
    case TensorFormat::Plain: return "ND/NCHW";
    case TensorFormat::Nc1hwc0: return "NC1HWC0";
    case TensorFormat::FractalNz: return "FRACTAL_NZ";
  }
  return "ND/NCHW";
}

const OpFormatEntry& opFormatEntry(std::string_view opType) {
  const auto& t = table();
  auto it = t.ops.find(opType);
  return it == t.ops.end() ? t.fallback : it->second;
}

std::string opFormatSource(std::string_view key) {
  const auto& s = table().sources;
  auto it = s.find(key);
  return it == s.end() ? std::string(key) : it->second;
}

double formatBytes(const std::vector<int64_t>& dims, DType type, TensorFormat format, int c0, bool foldRows) {
  const double esize = std::max(1, dtypeSize(type));
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(std::max<int64_t>(d, 0));
  const size_t r = dims.size();
  if (format == TensorFormat::Nc1hwc0 && (r == 4 || r == 3) && dims[1] > 0)
    return n / static_cast<double>(dims[1]) * static_cast<double>(ceilTo(dims[1], c0)) * esize;
  if (format == TensorFormat::FractalNz && r >= 1) {
    const int64_t n0 = esize == 1 ? 32 : 16;
    const int64_t cols = dims[r - 1];
    int64_t rows = r >= 2 ? dims[r - 2] : 1;
    if (foldRows && cols > 0) rows = static_cast<int64_t>(n) / cols;
    if (cols > 0 && rows > 0)
      return n / static_cast<double>(rows * cols) * static_cast<double>(ceilTo(rows, 16) * ceilTo(cols, n0)) * esize;
  }
  return n * esize;
}

namespace {

// The forward pass. Shapes come from the IR; a value without a known shape keeps its producer in
// the origin layout, so nothing is claimed about it. Values are numbered once up front, so the
// pass itself does no string lookups (10,000-node graphs in a few milliseconds).
class Simulator {
 public:
  explicit Simulator(const AnalysisContext& ctx) : m_ctx(ctx), m_g(*ctx.graph) {}

  FormatSimulation run() {
    FormatSimulation& s = m_sim;
    s.ran = true;
    s.c0 = c0For(*m_ctx.device, m_ctx.device->computeType(DType::Float));
    const size_t n = m_g.nodes.size();
    s.nodeFormat.assign(n, TensorFormat::Plain);
    s.runs.assign(n, false);
    number();
    bool sorted = true;
    for (size_t i = 0; i < n && sorted; ++i)
      for (int v : m_in[i]) sorted = sorted && (v < 0 || m_val[static_cast<size_t>(v)].producer < static_cast<long>(i));
    std::vector<size_t> order;
    if (!sorted) order = m_g.topologicalOrder();
    for (size_t k = 0; k < n; ++k) {
      if (m_ctx.progress && (k & 1023) == 0 && m_ctx.progress->cancelled()) break;
      visit(sorted ? k : order[k]);
    }
    for (const ValueInfo& o : m_g.outputs)
      if (auto it = m_id.find(o.name); it != m_id.end())
        if (TensorFormat f = m_val[static_cast<size_t>(it->second)].format; f != TensorFormat::Plain)
          convert(it->second, f, TensorFormat::Plain, -1);
    return std::move(m_sim);
  }

 private:
  struct Value {
    std::string_view name;
    long producer = -1;  // node index; -1 for graph inputs, initializers, outer values
    const Shape* shape = nullptr;
    bool constant = false;
    TensorFormat format = TensorFormat::Plain;
    bool fold = false;                // FRACTAL_NZ whose leading dims fold into the rows
    int converted[3] = {-1, -1, -1};  // transData index per target format
  };

  const AnalysisContext& m_ctx;
  const Graph& m_g;
  FormatSimulation m_sim;
  std::unordered_map<std::string_view, int> m_id;
  std::vector<Value> m_val;
  std::vector<std::vector<int>> m_in;  // per node, per input: value id (-1 when omitted)
  std::vector<int> m_out0;             // per node: its first output's id (-1 when none)

  int idOf(std::string_view v) {
    if (v.empty()) return -1;
    auto [it, fresh] = m_id.emplace(v, static_cast<int>(m_val.size()));
    if (fresh) {
      Value x;
      x.name = v;
      x.producer = m_ctx.index->producer(v);
      x.shape = m_ctx.index->shape(v);
      x.constant = m_ctx.index->constant(v) != nullptr;
      m_val.push_back(x);
    }
    return it->second;
  }

  void number() {
    const size_t n = m_g.nodes.size();
    m_in.resize(n);
    m_out0.assign(n, -1);
    m_val.reserve(3 * n);
    m_id.reserve(3 * n);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = m_g.nodes[i];
      for (const auto& in : node.inputs) m_in[i].push_back(idOf(in));
      if (!node.outputs.empty()) m_out0[i] = idOf(node.outputs[0]);
    }
  }

  Value& val(int id) { return m_val[static_cast<size_t>(id)]; }
  const Value& val(int id) const { return m_val[static_cast<size_t>(id)]; }
  bool known(int id) const { return id >= 0 && val(id).shape && val(id).shape->fullyKnown(); }
  size_t rankOf(int id) const { return id >= 0 && val(id).shape ? val(id).shape->rank() : 0; }
  std::vector<int64_t> dimsOf(int id) const { return known(id) ? val(id).shape->values() : std::vector<int64_t>{}; }
  int input(size_t i, size_t k) const { return k < m_in[i].size() ? m_in[i][k] : -1; }

  // Known at build time: an initializer, a Constant, or computed only from such values.
  bool isStatic(int id) const {
    const Value& v = val(id);
    return v.constant || (v.producer >= 0 && !m_sim.runs[static_cast<size_t>(v.producer)]);
  }

  void visit(size_t i) {
    const Node& node = m_g.nodes[i];
    const OpCost& c = m_ctx.cost->nodes[i];
    if (node.is("Constant") || (c.foldable && m_ctx.device->foldConstants)) return;
    m_sim.runs[i] = true;
    std::vector<size_t> data;  // positions of the inputs computed at run time
    for (size_t k = 0; k < m_in[i].size(); ++k)
      if (m_in[i][k] >= 0 && !isStatic(m_in[i][k])) data.push_back(k);
    const OpFormatEntry& e = node.isDefaultDomain() ? opFormatEntry(node.opType) : table().fallback;
    TensorFormat f = choose(i, node, e, data);
    m_sim.nodeFormat[i] = f;
    const int out = m_out0[i];
    if (f == TensorFormat::FractalNz && out >= 0) {
      // A MatMul against a 2-D weight runs as one matrix with the batch dims in M.
      bool fold = e.cls == FormatClass::Cube ? rankOf(input(i, 1)) == 2 : false;
      for (size_t k : data) fold |= e.cls != FormatClass::Cube && val(m_in[i][k]).fold;
      if (fold) {
        val(out).fold = true;
        if (e.cls == FormatClass::Cube && input(i, 0) >= 0) val(input(i, 0)).fold = true;
      }
    }
    for (size_t k : data) {
      const int v = m_in[i][k];
      TensorFormat want = required(i, e, f, k);
      if (val(v).format != want) convert(v, val(v).format, want, static_cast<long>(i));
    }
    if (f != TensorFormat::Plain && out >= 0) val(out).format = f;
  }

  // The format the node runs in.
  TensorFormat choose(size_t i, const Node& node, const OpFormatEntry& e, const std::vector<size_t>& data) const {
    const int out = m_out0[i];
    if (out < 0 || !known(out)) return TensorFormat::Plain;
    const size_t outRank = rankOf(out);
    auto fromInput = [&](size_t k) { return val(m_in[i][k]).format; };
    switch (e.cls) {
      case FormatClass::Heavy: {
        const bool oneD = node.is("Conv") || node.is("ConvTranspose") || node.opType.ends_with("Pool");
        const bool fourD = outRank == 4 || (oneD && outRank == 3);
        if (!fourD || node.outputs.size() > 1 || !known(input(i, 0))) return TensorFormat::Plain;
        return TensorFormat::Nc1hwc0;
      }
      case FormatClass::Cube:
        return outRank >= 2 && rankOf(input(i, 0)) >= 2 ? TensorFormat::FractalNz : TensorFormat::Plain;
      case FormatClass::Agnostic: return data.empty() ? TensorFormat::Plain : fromInput(data[0]);
      case FormatClass::Binary:
        for (TensorFormat cand : {TensorFormat::Nc1hwc0, TensorFormat::FractalNz})
          for (size_t k : data)
            if (fromInput(k) == cand && binaryAllows(i, cand)) return cand;
        return TensorFormat::Plain;
      case FormatClass::Concat:
        for (size_t k : data)
          if (fromInput(k) == TensorFormat::Nc1hwc0 && concatAllows(i, node)) return TensorFormat::Nc1hwc0;
        return TensorFormat::Plain;
      case FormatClass::Softmax: {
        if (data.empty()) return TensorFormat::Plain;
        TensorFormat in = fromInput(data[0]);
        if (in == TensorFormat::Nc1hwc0 && outRank == 4) return in;
        if (in == TensorFormat::FractalNz && lastTwoAligned(out)) return in;
        return TensorFormat::Plain;
      }
      case FormatClass::Plain: return TensorFormat::Plain;
    }
    return TensorFormat::Plain;
  }

  // The format input k must be in when the node runs in f.
  TensorFormat required(size_t i, const OpFormatEntry& e, TensorFormat f, size_t k) const {
    if (f == TensorFormat::Plain) return TensorFormat::Plain;
    switch (e.cls) {
      case FormatClass::Heavy: return k == 0 ? f : TensorFormat::Plain;
      case FormatClass::Cube: return k <= 1 && rankOf(m_in[i][k]) >= 2 ? f : TensorFormat::Plain;
      default: return rankOf(m_in[i][k]) == rankOf(m_out0[i]) ? f : TensorFormat::Plain;
    }
  }

  bool lastTwoAligned(int id) const {
    auto d = dimsOf(id);
    return d.size() >= 2 && d[d.size() - 1] % 16 == 0 && d[d.size() - 2] % 16 == 0;
  }

  // CANN add.py op_select_format, simplified: NC1HWC0 for equal 4-D shapes, or broadcasting
  // with every channel count equal and a multiple of C0; FRACTAL_NZ when the last two dims
  // match (or a 1-D bias matches the last dim, a multiple of 16). Operands of lower rank are
  // right-aligned to the output as ONNX broadcasting does.
  bool binaryAllows(size_t i, TensorFormat f) const {
    auto out = dimsOf(m_out0[i]);
    if (out.empty()) return false;
    for (int in : m_in[i]) {
      if (in < 0) continue;
      if (!known(in)) return false;
      auto d = dimsOf(in);
      int64_t numel = 1;
      for (int64_t x : d) numel *= x;
      if (numel == 1) {
        if (f == TensorFormat::Nc1hwc0 && out.size() == 4 && out[1] % m_sim.c0 != 0) return false;
        continue;
      }
      if (d.size() > out.size()) return false;
      std::vector<int64_t> full(out.size() - d.size(), 1);
      full.insert(full.end(), d.begin(), d.end());
      if (f == TensorFormat::Nc1hwc0) {
        if (out.size() != 4) return false;
        if (full == out) continue;
        if (full[1] != out[1] || out[1] % m_sim.c0 != 0) return false;
      } else {
        const size_t r = out.size();
        if (r < 2) return false;
        if (d.size() == 1 && d[0] == out[r - 1] && d[0] % 16 == 0) continue;
        if (full[r - 1] != out[r - 1] || full[r - 2] != out[r - 2]) return false;
      }
    }
    return true;
  }

  // CANN concat_v2_d.py _can_process_by_5hd: along H/W always, along C when every input's C is
  // a multiple of C0, never along N.
  bool concatAllows(size_t i, const Node& node) const {
    if (rankOf(m_out0[i]) != 4) return false;
    int64_t axis = node.attrInt("axis", 0);
    if (axis < 0) axis += 4;
    if (axis == 2 || axis == 3) return true;
    if (axis != 1) return false;
    for (int in : m_in[i]) {
      auto d = dimsOf(in);
      if (d.size() != 4 || d[1] % m_sim.c0 != 0) return false;
    }
    return true;
  }

  void convert(int id, TensorFormat from, TensorFormat to, long consumer) {
    Value& v = val(id);
    int& slot = v.converted[static_cast<int>(to)];
    if (slot >= 0) return;  // one TransData per value and target (GE shares it)
    SimTransData t;
    t.value = std::string(v.name);
    t.producer = v.producer;
    t.consumer = consumer;
    t.from = from;
    t.to = to;
    t.dims = dimsOf(id);
    t.dtype = m_ctx.device->computeType(m_ctx.index->dtype(v.name));
    const int c0 = c0For(*m_ctx.device, t.dtype);
    t.bytesIn = formatBytes(t.dims, t.dtype, from, c0, v.fold);
    t.bytesOut = formatBytes(t.dims, t.dtype, to, c0, v.fold);
    OpCost cost;
    cost.known = true;
    cost.unit = OpCost::Unit::Memory;
    cost.computeType = t.dtype;
    cost.bytesRead = t.bytesIn;
    cost.bytesWritten = t.bytesOut;
    t.ms = m_ctx.rooflineMs ? m_ctx.rooflineMs(cost) : 0.0;
    slot = static_cast<int>(m_sim.transData.size());
    m_sim.transData.push_back(std::move(t));
  }
};

}  // namespace

FormatSimulation simulateAscendFormats(const AnalysisContext& ctx) {
  if (!ctx.device || ctx.device->kind != DeviceProfile::Kind::Npu || !ctx.graph) return {};
  return Simulator(ctx).run();
}

}  // namespace msa
