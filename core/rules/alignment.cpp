// Alignment: shapes that miss the device's blocks, so part of the work is done on padding.
// Only where the device has a matrix unit with a fixed block (Ascend: cube 16×16×16 for float16,
// K = 32 for int8; NC1HWC0 channel block C0); a CPU has no such block and gets no finding.
// - alignment.cube: MatMul/Gemm M, N, K not multiples of the cube block.
// - alignment.channels: Conv input/output channels not multiples of C0.
// - alignment.matmul_inner_axis: msprof-analyze's "affine" MatMul rule (inner axes ×256).
// - alignment.tail_axis: origin-layout vector ops whose last axis is not 32-byte aligned.
// Impact: the share of the node's roofline time that is padding work (padded FLOPs and bytes vs
// the real ones) times the node's time; a memory-bound node loses nothing to compute padding.
#include <algorithm>
#include <cstdio>
#include <map>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "rules/format_ascend.h"
#include "rules/op_sets.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

int64_t up(int64_t v, int64_t m) { return m > 0 ? (v + m - 1) / m * m : v; }
int64_t down(int64_t v, int64_t m) { return m > 0 ? std::max<int64_t>(m, v / m * m) : v; }

// "197 → 208", or "197 → 208 or 192" when rounding down keeps a block too.
std::string rounded(int64_t v, int64_t blk) {
  const std::string to = std::to_string(v) + " → " + std::to_string(up(v, blk));
  if (down(v, blk) == up(v, blk) || down(v, blk) >= v) return to;
  return phrase("alignment.either", {{"a", to}, {"b", std::to_string(down(v, blk))}});
}

std::vector<int64_t> dims(const AnalysisContext& ctx, std::string_view v) {
  const Shape* s = ctx.index->shape(v);
  return s && s->fullyKnown() ? s->values() : std::vector<int64_t>{};
}

// One misaligned node, before grouping.
struct Misfit {
  size_t node;
  std::string signature;   // what groups nodes: op and the misaligned dims
  std::string dimsText;    // "M=197 (→208), K=192, N=576" (a value with phrases, texts.h)
  std::string suggestion;  // nearest aligned dims (likewise)
  double waste = 0;        // padding share of the padded work
  double shareOfTime = 0;  // padding share of the node's roofline time
  double currentMs = 0, impactMs = 0;
  bool measured = false;
};

class AlignmentAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "alignment"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    if (!ctx.device || ctx.device->cubeBlock.value <= 0) return;  // no block to miss (CPU)
    const int64_t block = static_cast<int64_t>(ctx.device->cubeBlock.value);
    std::map<std::string, std::vector<Misfit>> cube, channels, tails;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      if (ctx.progress && (i & 1023) == 0 && ctx.progress->cancelled()) return;
      const Node& n = ctx.node(i);
      if (!n.isDefaultDomain()) continue;
      if (n.is("MatMul") || n.is("Gemm") || n.is("MatMulInteger") || n.is("QLinearMatMul")) {
        if (auto m = matmul(ctx, i, block)) cube[m->signature].push_back(*m);
        if (n.is("MatMul") || n.is("Gemm"))
          if (auto f = innerAxis(ctx, i)) out.push_back(std::move(*f));
      } else if (n.is("Conv") || n.is("ConvInteger") || n.is("QLinearConv")) {
        if (auto m = conv(ctx, i)) channels[m->signature].push_back(*m);
      }
    }
    FormatSimulation sim = simulateAscendFormats(ctx);
    if (sim.ran)
      for (size_t i = 0; i < ctx.graph->nodes.size(); ++i)
        if (auto m = tail(ctx, sim, i)) tails[m->signature].push_back(*m);
    emit(ctx, "alignment.cube", cube, out);
    emit(ctx, "alignment.channels", channels, out);
    emit(ctx, "alignment.tail_axis", tails, out);
  }

 private:
  static int64_t c0(const AnalysisContext& ctx, DType t) {
    if (auto it = ctx.device->c0.find(t); it != ctx.device->c0.end() && it->second.value > 0)
      return static_cast<int64_t>(it->second.value);
    return dtypeSize(t) == 1 ? 32 : 16;
  }

  // Fills the time figures from the node's cost with FLOPs and bytes scaled to the padded shape.
  static bool price(const AnalysisContext& ctx, size_t i, double flopScale, double byteScale, Misfit& m) {
    const OpCost& c = ctx.cost->nodes[i];
    if (!c.known || !ctx.rooflineMs || (c.flops <= 0 && c.bytes() <= 0)) return false;
    OpCost padded = c;
    padded.flops *= flopScale;
    padded.macs *= flopScale;
    padded.bytesRead *= byteScale;
    padded.bytesWritten *= byteScale;
    padded.float32Bytes *= byteScale;
    const double tPad = ctx.rooflineMs(padded), tRaw = ctx.rooflineMs(c);
    if (tPad <= 0 || tPad <= tRaw) return false;
    m.shareOfTime = (tPad - tRaw) / tPad;
    m.measured = ctx.isMeasured(i);
    // Without a measurement the roofline of the padded shape is the best guess of today's time.
    m.currentMs = m.measured ? ctx.timeMs(i) : tPad;
    m.impactMs = m.shareOfTime * m.currentMs;
    return m.shareOfTime >= 0.01;  // below 1 % of the node's time is noise
  }

  static std::optional<Misfit> matmul(const AnalysisContext& ctx, size_t i, int64_t block) {
    const Node& n = ctx.node(i);
    auto a = dims(ctx, n.input(0)), b = dims(ctx, n.input(n.is("QLinearMatMul") ? 3 : 1));
    if (a.size() < 2 || b.size() < 2) return std::nullopt;
    const bool ta = n.is("Gemm") && n.attrInt("transA", 0) != 0, tb = n.is("Gemm") && n.attrInt("transB", 0) != 0;
    int64_t M = ta ? a[a.size() - 1] : a[a.size() - 2];
    const int64_t K = ta ? a[a.size() - 2] : a[a.size() - 1];
    const int64_t N = tb ? b[b.size() - 2] : b[b.size() - 1];
    // A 2-D weight lets the compiler fold the batch dims into M.
    if (b.size() == 2 && !ta)
      for (size_t k = 0; k + 2 < a.size(); ++k) M *= a[k];
    const DType t = ctx.device->computeType(ctx.index->dtype(n.input(0)));
    const int64_t kBlock = dtypeSize(t) == 1 ? 2 * block : block;  // DtypeMKN int8 = 16,32,16
    if (M <= 0 || N <= 0 || K <= 0 || (M % block == 0 && N % block == 0 && K % kBlock == 0)) return std::nullopt;
    // M below one block is the batch of a matrix-vector product (batch-1 inference): not a width
    // the model can change.
    if (M < block && N % block == 0 && K % kBlock == 0) return std::nullopt;
    Misfit m;
    m.node = i;
    const double real = double(M) * N * K, padded = double(up(M, block)) * up(N, block) * up(K, kBlock);
    m.waste = 1.0 - real / padded;
    std::string sig = n.opType;
    std::vector<std::string> text, sugg;
    auto add = [&](const char* name, int64_t v, int64_t blk) {
      if (v % blk == 0) {
        text.push_back(std::string(name) + "=" + std::to_string(v));
        return;
      }
      sig += std::string(" ") + name + "=" + std::to_string(v);
      text.push_back(std::string(name) + "=" + std::to_string(v) + " (→" + std::to_string(up(v, blk)) + ")");
      sugg.push_back(std::string(name) + " " + rounded(v, blk));
    };
    add("M", M, block);
    add("N", N, block);
    add("K", K, kBlock);
    m.signature = sig;
    m.dimsText = phraseList(text, "list.comma");
    m.suggestion = phraseList(sugg, "list.comma");
    // The cube pads FLOPs by the full ratio; its operands and result live in FRACTAL_NZ, whose
    // 16×16 fractals pad the bytes moved too.
    const double Mp = double(up(M, block)), Np = double(up(N, block)), Kp = double(up(K, kBlock));
    const double bytesReal = double(M) * K + double(K) * N + double(M) * N;
    const double bytesPadded = Mp * Kp + Kp * Np + Mp * Np;
    if (!price(ctx, i, padded / real, bytesPadded / bytesReal, m)) return std::nullopt;
    return m;
  }

  static std::optional<Misfit> conv(const AnalysisContext& ctx, size_t i) {
    const Node& n = ctx.node(i);
    auto x = dims(ctx, n.input(0)), w = dims(ctx, n.input(n.is("QLinearConv") ? 3 : 1));
    if (x.size() < 3 || w.size() != x.size()) return std::nullopt;
    const int64_t group = std::max<int64_t>(1, n.attrInt("group", 1));
    const int64_t cin = x[1], cout = w[0];
    // The first layer's 3-channel input is the small-channel case (format.small_channel).
    if (cin <= 4 && ctx.index->producer(n.input(0)) < 0) return std::nullopt;
    const DType t = ctx.device->computeType(ctx.index->dtype(n.input(0)));
    const int64_t blk = c0(ctx, t);
    // Depthwise and grouped convolutions pad the total channel count (CANN packs groups into C0
    // blocks); dense ones pad C_in (K side) and C_out (N side).
    const int64_t inPad = up(cin, blk), outPad = up(cout, blk);
    if (cin % blk == 0 && cout % blk == 0) return std::nullopt;
    Misfit m;
    m.node = i;
    const double flopScale = group == 1 ? double(inPad) / cin * double(outPad) / cout : double(outPad) / cout;
    const double byteScale = (double(inPad) / cin + double(outPad) / cout) / 2.0;
    m.waste = 1.0 - 1.0 / flopScale;
    // Grouped by the misaligned width: a layer's C_out is the next layer's C_in, and the width is
    // what the user changes.
    const int64_t width = cout % blk != 0 ? cout : cin;
    std::string sig = n.opType + " channels=" + std::to_string(width);
    std::vector<std::string> text, sugg;
    auto add = [&](const char* name, int64_t v) {
      if (v % blk == 0) {
        text.push_back(std::string(name) + "=" + std::to_string(v));
        return;
      }
      text.push_back(std::string(name) + "=" + std::to_string(v) + " (→" + std::to_string(up(v, blk)) + ")");
      const std::string s = rounded(v, blk);
      if (std::find(sugg.begin(), sugg.end(), s) == sugg.end()) sugg.push_back(s);
    };
    add("C_in", cin);
    if (group == 1 || group != cin) add("C_out", cout);
    m.signature = sig;
    m.dimsText = phraseList(text, "list.comma");
    if (group > 1)
      m.dimsText += group == cin ? phrase("alignment.depthwise")
                                 : phrase("alignment.grouped", {{"group", std::to_string(group)}});
    m.suggestion = phraseList(sugg, "list.comma");
    if (!price(ctx, i, flopScale, byteScale, m)) return std::nullopt;
    return m;
  }

  // Row-wise vector ops (softmax, normalisation, reductions over the last axis) left in the
  // origin layout load each row in whole 32-byte blocks: a last axis that does not fill them
  // moves and computes padding too. Plain elementwise ops are not checked: they run on the
  // flattened tensor, whatever its last axis.
  static bool rowWise(const AnalysisContext& ctx, const Node& n) {
    if (n.is("Softmax") || n.is("LogSoftmax") || n.is("LayerNormalization")) return true;
    if (!n.opType.starts_with("Reduce") || !n.isDefaultDomain()) return false;
    const Shape* s = ctx.index->shape(n.input(0));
    if (!s) return false;
    std::vector<int64_t> axes = n.attrInts("axes");
    if (axes.empty() && n.inputs.size() > 1)
      if (const Tensor* t = ctx.index->constant(n.input(1))) axes = t->toInt64();
    if (axes.empty()) return true;  // every axis
    const int64_t last = static_cast<int64_t>(s->rank()) - 1;
    return std::any_of(axes.begin(), axes.end(), [&](int64_t a) { return a == last || a == -1; });
  }

  static std::optional<Misfit> tail(const AnalysisContext& ctx, const FormatSimulation& sim, size_t i) {
    if (!sim.runs[i] || sim.nodeFormat[i] != TensorFormat::Plain) return std::nullopt;
    const Node& n = ctx.node(i);
    const OpCost& c = ctx.cost->nodes[i];
    if (!c.known || n.outputs.empty() || !rowWise(ctx, n)) return std::nullopt;
    auto d = dims(ctx, n.input(0));
    if (d.size() < 2 || d.back() <= 0) return std::nullopt;
    const DType t = ctx.device->computeType(ctx.index->dtype(n.input(0)));
    const int64_t esize = dtypeSize(t), row = d.back() * esize;
    if (esize <= 0 || row % 32 == 0) return std::nullopt;
    const int64_t padded = up(row, 32);
    const double rowScale = double(padded) / double(row);
    // Only the row-shaped tensors pad: the input, and the output when it keeps the rows.
    const double in = valueBytes(ctx, n.input(0)), out = valueBytes(ctx, n.outputs[0]);
    if (in <= 0 || out < 0) return std::nullopt;
    const bool outRows = dims(ctx, n.outputs[0]) == d;
    const double real = c.bytes();
    const double pad = real + (in + (outRows ? out : 0.0)) * (rowScale - 1.0);
    Misfit m;
    m.node = i;
    m.waste = 1.0 - double(row) / double(padded);
    m.signature = n.opType + " tail=" + std::to_string(d.back()) + " " + std::string(dtypeName(t));
    m.dimsText = phrase("alignment.tail_dims", {{"length", std::to_string(d.back())},
                                                {"element", std::to_string(esize)},
                                                {"row", std::to_string(row)},
                                                {"padded", std::to_string(padded)}});
    const int64_t perBlock = 32 / esize;
    m.suggestion = phrase("alignment.tail_aligned",
                          {{"length", std::to_string(d.back())}, {"aligned", std::to_string(up(d.back(), perBlock))}});
    if (real <= 0 || !price(ctx, i, rowScale, pad / real, m)) return std::nullopt;
    return m;
  }

  // msprof-analyze's AI Core performance checker calls a MatMul "unaffine" when an inner axis is
  // not a multiple of 256 (only for MatMuls moving ≥ 100 MB): advice, with no figure attached.
  static std::optional<Finding> innerAxis(const AnalysisContext& ctx, size_t i) {
    const Node& n = ctx.node(i);
    auto a = dims(ctx, n.input(0)), b = dims(ctx, n.input(1));
    if (a.size() < 2 || b.size() < 2) return std::nullopt;
    const OpCost& c = ctx.cost->nodes[i];
    const double mbytes =
        (c.bytesRead + c.bytesWritten) / (1024.0 * 1024.0) *
        (ctx.device->computeType(DType::Float) == DType::Float16 && c.computeType == DType::Float ? 0.5 : 1.0);
    if (mbytes < 100) return std::nullopt;
    if (a.back() % 256 == 0 && b.back() % 256 == 0) return std::nullopt;
    std::vector<size_t> members{i};
    Finding f = makeFinding(ctx, "alignment.matmul_inner_axis", Category::Alignment, members);
    f.params["inner_a"] = std::to_string(a.back());
    f.params["inner_b"] = std::to_string(b.back());
    f.params["inner_a_aligned"] = std::to_string(up(a.back(), 256));
    f.params["inner_b_aligned"] = std::to_string(up(b.back(), 256));
    f.impact.currentMs = f.impact.fixedMs = ctx.timeMs(i);
    f.impact.source = ctx.isMeasured(i) ? ImpactSource::Measured : ImpactSource::Estimated;
    f.impact.method = phrase("method.alignment.inner_axis");
    return f;
  }

  static void emit(const AnalysisContext& ctx, const char* rule,
                   const std::map<std::string, std::vector<Misfit>>& groups, std::vector<Finding>& out) {
    for (const auto& [sig, ms] : groups) {
      std::vector<size_t> members;
      Finding f;
      f.rule = rule;
      f.category = Category::Alignment;
      double current = 0, impact = 0, waste = 0;
      bool measured = true;
      // The costliest node anchors the group.
      std::vector<Misfit> sorted = ms;
      std::sort(sorted.begin(), sorted.end(), [](const Misfit& a, const Misfit& b) { return a.impactMs > b.impactMs; });
      for (const Misfit& m : sorted) {
        f.nodes.push_back(ctx.node(m.node).name);
        current += m.currentMs;
        impact += m.impactMs;
        waste = std::max(waste, m.waste);
        measured = measured && m.measured;
      }
      // Skip groups whose padding costs less than 0.1 % of the run: listed, they would only be noise.
      if (ctx.latencyMs > 0 && impact < 0.001 * ctx.latencyMs) continue;
      const Misfit& top = sorted.front();
      f.params["op"] = ctx.node(top.node).opType;
      f.params["dims"] = top.dimsText;
      f.params["aligned"] = top.suggestion;
      f.params["waste"] = formatPercent(top.waste);
      f.params["time_share"] = formatPercent(top.shareOfTime);
      f.params["block"] = std::to_string(static_cast<int64_t>(ctx.device->cubeBlock.value));
      f.params["c0"] = std::to_string(c0(ctx, ctx.device->computeType(DType::Float)));
      f.params["group"] = sig;
      f.impact.currentMs = current;
      f.impact.ms = f.impact.rawMs = impact;
      f.impact.fixedMs = current - impact;
      f.impact.source = measured ? ImpactSource::Both : ImpactSource::Estimated;
      f.impact.method = phrase(measured ? "method.alignment.measured" : "method.alignment.estimated");
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> makeAlignmentRules() { return std::make_unique<AlignmentAdvisor>(); }

}  // namespace msa
