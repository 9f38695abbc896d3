// TransData findings on Ascend: simulated from the op format table, or measured when an msprof
// profile with TransData rows is at hand. Conversions are grouped by what forces them: the run of
// origin-layout ops they enter and leave (their "island"), so a Reshape→Transpose→Reshape in the
// middle of a 5HD chain is one finding with its two TransData, not two findings.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "cost/device_profile.h"
#include "profile/profile_data.h"
#include "rules/format_ascend.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

// msadvisor's TransData categories (ascend.md §1.3).
constexpr const char* kNotSupport = "Ops_Not_Support_Heavy_Format";
constexpr const char* kReshape = "Reshape_Ops_Interrupts_Format";
constexpr const char* kBetween = "Transform_Between_5HD_And_NZ";
constexpr const char* kOther = "Other_Transform";

struct Conversion {
  std::string runtimeName;            // measured TransData; empty when simulated
  long producer = -1, consumer = -1;  // IR node indices; -1 = graph input / output
  std::string value;
  TensorFormat from = TensorFormat::Plain, to = TensorFormat::Plain;
  std::string fromText, toText;
  std::vector<int64_t> dims;
  double bytes = 0;  // read + written, with padding
  double ms = 0;
  bool measured = false;
};

// A phrase of format.json's _texts with its arguments.
struct Text {
  std::string key;
  std::map<std::string, std::string> args;
  std::string value() const { return phrase(key, args); }
};

std::string dimsText(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

bool heavy(TensorFormat f) { return f != TensorFormat::Plain; }

TensorFormat parseFormat(std::string s) {
  if (s.starts_with("FORMAT_")) s = s.substr(7);
  if (s.starts_with("NC1HWC0") || s == "NHWC1C0" || s == "NDC1HWC0") return TensorFormat::Nc1hwc0;
  if (s.starts_with("FRACTAL")) return TensorFormat::FractalNz;
  return TensorFormat::Plain;
}

std::vector<int64_t> dimsOf(const AnalysisContext& ctx, std::string_view v) {
  const Shape* s = ctx.index->shape(v);
  return s && s->fullyKnown() ? s->values() : std::vector<int64_t>{};
}

// A Reshape or Transpose of a channel/pixel shuffle (Reshape→Transpose→Reshape).
bool inShuffle(const AnalysisContext& ctx, size_t i) {
  const Node& n = ctx.node(i);
  if (n.is("Transpose")) return isShuffleTranspose(ctx, i);
  if (!n.is("Reshape") || n.outputs.empty()) return false;
  for (const Use& u : ctx.index->consumers(n.outputs[0]))
    if (isShuffleTranspose(ctx, u.node)) return true;
  long p = ctx.index->producer(n.input(0));
  return p >= 0 && isShuffleTranspose(ctx, static_cast<size_t>(p));
}

// Why node i cannot stay in the heavy format, and what would let it.
std::pair<Text, Text> explain(const AnalysisContext& ctx, size_t i, int c0) {
  const Node& n = ctx.node(i);
  const OpFormatEntry& e = opFormatEntry(n.opType);
  const std::string op = n.opType, c0s = std::to_string(c0);
  auto out = dimsOf(ctx, n.output(0));
  if (inShuffle(ctx, i)) return {{"transdata.why.shuffle", {{"op", op}}}, {"transdata.remedy.shuffle", {}}};
  if (e.reshape) return {{"transdata.why.reshape", {{"op", op}}}, {"transdata.remedy.reshape", {{"op", op}}}};
  if (n.is("Concat")) {
    int64_t axis = n.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(out.size());
    std::string chans, padded;
    for (const auto& in : n.inputs) {
      auto d = dimsOf(ctx, in);
      if (d.size() < 2) continue;
      chans += (chans.empty() ? "" : ", ") + std::to_string(d[1]);
      padded += (padded.empty() ? "" : ", ") + std::to_string((d[1] + c0 - 1) / c0 * c0);
    }
    if (axis == 1)
      return {{"transdata.why.concat_channels", {{"channels", chans}, {"c0", c0s}}},
              {"transdata.remedy.concat_channels", {{"channels", chans}, {"padded", padded}, {"c0", c0s}}}};
    return {{"transdata.why.concat_axis", {{"axis", std::to_string(axis)}}}, {"transdata.remedy.concat_axis", {}}};
  }
  if (e.cls == FormatClass::Binary) {
    std::string shapes;
    for (const auto& in : n.inputs) shapes += (shapes.empty() ? "" : " × ") + dimsText(dimsOf(ctx, in));
    const Text why{"transdata.why.binary", {{"op", op}, {"shapes", shapes}, {"c0", c0s}}};
    if (out.size() == 4 && out[1] % c0 != 0)
      return {why, {"transdata.remedy.binary_channels", {{"channels", std::to_string(out[1])}, {"c0", c0s}}}};
    return {why, {"transdata.remedy.binary_nz", {}}};
  }
  if (n.is("Pad") && !n.outputs.empty()) {
    for (const Use& u : ctx.index->consumers(n.outputs[0])) {
      const Node& c = ctx.node(u.node);
      if (!c.is("Conv") && !c.is("AveragePool") && !c.is("MaxPool")) continue;
      return {{"transdata.why.pad", {{"consumer", c.opType}}}, {"transdata.remedy.pad", {{"consumer", c.opType}}}};
    }
  }
  if (e.cls == FormatClass::Softmax && out.size() >= 2) {
    int64_t a = out[out.size() - 2], b = out.back();
    auto up = [](int64_t v) { return std::to_string((v + 15) / 16 * 16); };
    return {{"transdata.why.softmax", {{"op", op}, {"rows", std::to_string(a)}, {"cols", std::to_string(b)}}},
            {"transdata.remedy.softmax",
             {{"rows", std::to_string(a)}, {"cols", std::to_string(b)}, {"rows16", up(a)}, {"cols16", up(b)}}}};
  }
  if (e.cls == FormatClass::Cube || e.cls == FormatClass::Heavy)
    return {{"transdata.why.other_heavy", {{"op", op}}}, {"transdata.remedy.other_heavy", {}}};
  return {{"transdata.why.no_kernel", {{"op", op}, {"origin", e.origin + ", " + e.source}}},
          {"transdata.remedy.no_kernel", {{"op", op}}}};
}

class TransDataFindings {
 public:
  TransDataFindings(const AnalysisContext& ctx, int c0) : m_ctx(ctx), m_c0(c0) {}

  void add(Conversion c) { m_conv.push_back(std::move(c)); }

  // Groups and emits. `island[i]` is the island id of node i (itself when alone).
  void emit(const std::vector<size_t>& island, double latencyMs, std::vector<Finding>& out) const {
    std::map<std::string, Place> places;  // by island, ordered and reproducible
    for (size_t k = 0; k < m_conv.size(); ++k) {
      const Conversion& c = m_conv[k];
      std::string boundary = c.value;
      long forcing = heavy(c.from) ? c.consumer                       // the consumer cannot take the heavy format
                                   : walkBack(c.producer, boundary);  // where the origin layout comes from
      long anchor = forcing;
      if (anchor >= 0 && !(heavy(c.from) && heavy(c.to)))
        anchor = static_cast<long>(island[static_cast<size_t>(anchor)]);
      const std::string key =
          anchor >= 0 ? "n" + std::to_string(1000000000 + anchor) : (heavy(c.from) ? "out:" : "in:") + boundary;
      Place& p = places[key];
      if (p.members.empty()) {
        p.anchor = anchor;
        p.forcing = forcing;
        p.input = key.starts_with("in:");
        p.boundary = boundary;
      }
      p.members.push_back(k);
      p.ms += c.ms;
    }
    double total = 0;
    for (const auto& c : m_conv) total += c.ms;
    // Places forced by the same kind of op for the same reason are one finding.
    std::map<std::string, std::vector<Place*>> causes;
    for (auto& [key, p] : places) {
      const Conversion& first = m_conv[p.members.front()];
      if (p.anchor < 0 && !heavy(first.from) && smallChannel(first)) {
        out.push_back(smallChannelFinding(first, p.boundary));
        continue;
      }
      classify(p);
      const std::string who = p.anchor >= 0 ? m_ctx.node(p.whyNode).opType : (p.input ? "<input>" : "<output>");
      causes[p.category + "|" + who + "|" + p.variant].push_back(&p);
    }
    for (auto& [key, group] : causes) {
      std::stable_sort(group.begin(), group.end(), [](const Place* a, const Place* b) { return a->ms > b->ms; });
      out.push_back(groupFinding(group, total, latencyMs));
    }
  }

  size_t size() const { return m_conv.size(); }

 private:
  const AnalysisContext& m_ctx;
  int m_c0;
  std::vector<Conversion> m_conv;

  // The conversions around one island of origin-layout ops (or at one graph input/output).
  struct Place {
    long anchor = -1, forcing = -1;
    size_t whyNode = 0;
    bool input = false;
    std::string boundary;  // the graph input/output value when anchor < 0
    std::vector<size_t> members;
    double ms = 0;
    std::string category, variant;
  };

  void classify(Place& p) const {
    const Conversion& first = m_conv[p.members.front()];
    bool shuffle = false;
    if (p.anchor >= 0) {
      p.whyNode = p.forcing >= 0 ? static_cast<size_t>(p.forcing) : static_cast<size_t>(p.anchor);
      if (heavy(first.from) && heavy(first.to)) p.category = kBetween;
      else p.category = opFormatEntry(m_ctx.node(p.whyNode).opType).reshape ? kReshape : kNotSupport;
      shuffle = inShuffle(m_ctx, p.whyNode);
    } else {
      p.category = kOther;
    }
    // At the model's edge, or around a real permutation: reported, no saving claimed.
    p.variant = shuffle ? "shuffle" : p.category == kOther ? "boundary" : "removable";
  }

  // A first-layer input with C ≤ 4 converted to NC1HWC0 for a convolution (ascend.md §1.3).
  bool smallChannel(const Conversion& c) const {
    return c.dims.size() == 4 && c.dims[1] > 0 && c.dims[1] <= 4 && c.to == TensorFormat::Nc1hwc0 && c.consumer >= 0 &&
           m_ctx.node(static_cast<size_t>(c.consumer)).is("Conv");
  }

  Finding smallChannelFinding(const Conversion& c, const std::string& input) const {
    Finding f;
    f.rule = "format.small_channel";
    f.category = Category::Format;
    const size_t conv = static_cast<size_t>(c.consumer);
    f.nodes = {m_ctx.node(conv).name};
    if (!c.runtimeName.empty()) f.runtimeNodes = {c.runtimeName};
    const int64_t ch = c.dims[1];
    // With AIPP + small channel the conversion is done by the AIPP hardware and the first
    // convolution reads C0=4 blocks instead of C0=16: its cube work shrinks by 4/C0.
    const double convMs = m_ctx.timeMs(conv);
    const double convSaved = convMs * (1.0 - 4.0 / m_c0);
    f.impact.currentMs = c.ms + convMs;
    f.impact.fixedMs = convMs - convSaved;
    f.impact.ms = f.impact.rawMs = c.ms + convSaved;
    f.impact.source = c.measured ? ImpactSource::Both : ImpactSource::Estimated;
    f.impact.method = phrase(c.measured ? "method.transdata.small_channel_measured" : "method.transdata.small_channel_estimated");
    f.params["input"] = input;
    f.params["channels"] = std::to_string(ch);
    f.params["c0"] = std::to_string(m_c0);
    f.params["padding_factor"] =
        std::to_string(m_c0 / static_cast<int>(ch)) + "." + std::to_string((m_c0 * 10 / static_cast<int>(ch)) % 10);
    f.params["transdata_ms"] = formatQuantity(c.ms, "ms");
    f.params["bytes"] = formatQuantity(c.bytes, "B");
    f.params["source"] = phrase(c.measured ? "transdata.source.measured" : "transdata.source.simulated");
    return f;
  }

  Finding groupFinding(const std::vector<Place*>& group, double total, double latencyMs) const {
    Finding f;
    f.rule = "format.transdata";
    f.category = Category::Format;
    const Place& top = *group.front();
    if (top.anchor >= 0) {
      auto [why, remedy] = explain(m_ctx, top.whyNode, m_c0);
      f.params["why"] = why.value();
      f.params["remedy"] = remedy.value();
      f.params["op"] = m_ctx.node(top.whyNode).opType;
    } else {
      f.params["op"] = phrase(top.input ? "transdata.op.input" : "transdata.op.output");
      f.params["why"] = phrase(top.input ? "transdata.why.input" : "transdata.why.output");
      f.params["remedy"] = phrase("transdata.remedy.edge");
    }
    double ms = 0, bytes = 0;
    bool measured = true;
    size_t count = 0;
    int listed = 0;
    std::vector<std::string> list;
    std::set<long> named;
    auto addNode = [&](long e) {
      if (e >= 0 && named.insert(e).second) f.nodes.push_back(m_ctx.node(static_cast<size_t>(e)).name);
    };
    for (const Place* p : group)
      addNode(p->anchor >= 0 ? static_cast<long>(p->whyNode) : -1);  // every place's op first
    for (const Place* p : group)
      for (size_t k : p->members) {
        const Conversion& c = m_conv[k];
        ms += c.ms;
        bytes += c.bytes;
        ++count;
        measured = measured && c.measured;
        if (!c.runtimeName.empty()) f.runtimeNodes.push_back(c.runtimeName);
        addNode(c.producer);
        addNode(c.consumer);
        if (listed++ >= 6) continue;
        const std::string from = c.producer >= 0 ? m_ctx.node(static_cast<size_t>(c.producer)).name
                                                 : phrase("transdata.endpoint.input", {{"value", c.value}});
        const std::string to = c.consumer >= 0 ? m_ctx.node(static_cast<size_t>(c.consumer)).name
                                               : phrase("transdata.endpoint.output", {{"value", c.value}});
        const std::string what = (c.runtimeName.empty() ? std::string() : c.runtimeName + " ") + c.fromText + "→" +
                                 c.toText + " " + dimsText(c.dims);
        list.push_back(
            phrase("transdata.conversion",
                   {{"what", what}, {"from", from}, {"to", to}, {"size", formatQuantity(c.bytes, "B")}, {"time", formatQuantity(c.ms, "ms")}}));
      }
    if (listed > 6) list.push_back(phrase("transdata.more", {{"count", std::to_string(listed - 6)}}));
    if (f.nodes.empty())
      f.nodes.push_back(m_conv[top.members.front()].value);  // never: a conversion has a node on one side
    f.params["category"] = top.category;
    f.params["variant"] = top.variant;
    f.params["places"] = std::to_string(group.size());
    f.params["conversions"] = phraseList(list);
    f.params["transdata_count"] = std::to_string(count);
    f.params["bytes"] = formatQuantity(bytes, "B");
    f.params["source"] = phrase(measured ? "transdata.source.measured" : "transdata.source.simulated");
    // A simulated run's estimated latency leaves the TransData out; a measured one includes them.
    const double run = measured ? latencyMs : latencyMs + total;
    f.params["transdata_share"] = formatPercent(run > 0 ? total / run : 0.0);
    f.params["transdata_total"] = std::to_string(m_conv.size());
    f.impact.currentMs = ms;
    const bool expected = top.variant != "removable";
    f.impact.fixedMs = expected ? ms : 0;
    f.impact.ms = f.impact.rawMs = expected ? 0 : ms;
    f.impact.source = measured ? ImpactSource::Measured : ImpactSource::Estimated;
    f.impact.method = phrase(top.variant == "shuffle" ? "method.transdata.shuffle"
                             : expected               ? "method.transdata.edge"
                             : measured               ? "method.transdata.measured"
                                                      : "method.transdata.simulated");
    return f;
  }

  // Follows format-following operators (unary elementwise, Cast) back to the node that put the
  // data in the origin layout; -1 when it is a graph input (named in `input`). Binary ops and
  // softmax stop the walk: they may have chosen the origin layout themselves.
  long walkBack(long p, std::string& input) const {
    for (int guard = 0; p >= 0 && guard < 64; ++guard) {
      const Node& nd = m_ctx.node(static_cast<size_t>(p));
      if (opFormatEntry(nd.opType).cls != FormatClass::Agnostic) return p;
      std::string next;
      int data = 0;
      for (const auto& in : nd.inputs)
        if (!in.empty() && !m_ctx.index->constant(in)) {
          ++data;
          next = in;
        }
      if (data != 1) return p;
      long q = m_ctx.index->producer(next);
      if (q < 0) input = next;
      p = q;
    }
    return p;
  }
};

bool isAscendProfile(const ProfileData& p) {
  return p.caps.ascend;
}

}  // namespace

void ascendFormatFindings(const AnalysisContext& ctx, std::vector<Finding>& out) {
  const ProfileData* rp = ctx.runtimeProfile;
  bool measuredRows = false;
  if (rp)
    for (const auto& n : rp->nodes) measuredRows |= n.opType == "TransData";
  const bool npu = ctx.device && ctx.device->kind == DeviceProfile::Kind::Npu;
  if (!measuredRows && (!npu || (rp && isAscendProfile(*rp)))) return;  // nothing measured says there is none
  const int c0 = npu ? [&] {
    auto it = ctx.device->c0.find(ctx.device->computeType(DType::Float));
    return it != ctx.device->c0.end() ? static_cast<int>(it->second.value) : 16;
  }() : 16;
  TransDataFindings td(ctx, c0);
  const size_t n = ctx.graph->nodes.size();
  std::vector<bool> member(n, false);
  double latency = ctx.latencyMs;
  if (measuredRows) {
    for (const NodeProfile& p : rp->nodes) {
      if (p.opType != "TransData") continue;
      Conversion c;
      c.runtimeName = p.name;
      c.measured = true;
      c.ms = p.timeMs.median;
      c.producer = p.producerIrNode.empty() ? -1 : ctx.index->indexOfName(p.producerIrNode);
      c.consumer = p.consumerIrNode.empty() ? -1 : ctx.index->indexOfName(p.consumerIrNode);
      c.fromText = p.inputFormats.empty() ? "?" : p.inputFormats[0];
      c.toText = p.outputFormats.empty() ? "?" : p.outputFormats[0];
      c.from = parseFormat(c.fromText);
      c.to = parseFormat(c.toText);
      // The logical shape is the origin-layout side's.
      const auto& shapes = heavy(c.from) ? p.outputShapes : p.inputShapes;
      if (!shapes.empty()) {
        std::string s = shapes[0];
        for (char& ch : s)
          if (ch == '[' || ch == ']') ch = ' ';
        for (size_t pos = 0; pos < s.size();) {
          size_t end = s.find(',', pos);
          try {
            c.dims.push_back(std::stoll(s.substr(pos, end - pos)));
          } catch (...) {
            c.dims.clear();
            break;
          }
          if (end == std::string::npos) break;
          pos = end + 1;
        }
      }
      if (c.producer >= 0) c.value = ctx.node(static_cast<size_t>(c.producer)).output(0);
      else if (c.consumer >= 0) c.value = ctx.node(static_cast<size_t>(c.consumer)).input(0);
      c.bytes = formatBytes(c.dims, DType::Float16, c.from, c0) + formatBytes(c.dims, DType::Float16, c.to, c0);
      td.add(std::move(c));
    }
    for (size_t i = 0; i < n; ++i)
      member[i] = opFormatEntry(ctx.node(i).opType).reshape && ctx.node(i).isDefaultDomain();
    if (rp->latencyMs.median > 0) latency = rp->latencyMs.median;
    else latency = rp->sumNodeMedians();
  } else {
    FormatSimulation sim = simulateAscendFormats(ctx);
    for (const SimTransData& t : sim.transData) {
      Conversion c;
      c.producer = t.producer;
      c.consumer = t.consumer;
      c.value = t.value;
      c.from = t.from;
      c.to = t.to;
      c.fromText = std::string(formatName(t.from));
      c.toText = std::string(formatName(t.to));
      c.dims = t.dims;
      c.bytes = t.bytesIn + t.bytesOut;
      c.ms = t.ms;
      td.add(std::move(c));
    }
    for (size_t i = 0; i < n; ++i) member[i] = sim.runs[i] && sim.nodeFormat[i] == TensorFormat::Plain;
  }
  if (td.size() == 0) return;
  td.emit(connectedRuns(ctx, member), latency, out);
}

}  // namespace msa
