// PrecisionAdvisor: float32 compute the device runs faster in float16, Cast round trips (exact
// ones are removable, lossy ones are a precision loss, not a free speedup), no-op Casts, and
// 64-bit compute that Ascend sends to the AI CPU. Formulas and thresholds: docs/rules.md.
#include <algorithm>
#include <cmath>
#include <map>

#include "cost/device_profile.h"
#include "cost/roofline.h"
#include "profile/profile_data.h"
#include "rules/ascend_tables.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

constexpr double kMinFp16Share = 0.01;  // fp32 -> fp16 finding: gain >= 1% of the latency

// Can every value of `from` be represented exactly in `to`?
bool exactlyRepresentable(DType from, DType to) {
  if (from == to) return true;
  auto intBits = [](DType t) -> int {
    switch (t) {
      case DType::Int8: case DType::UInt8: return 8;
      case DType::Int16: case DType::UInt16: return 16;
      case DType::Int32: case DType::UInt32: return 32;
      case DType::Int64: case DType::UInt64: return 64;
      default: return 0;
    }
  };
  auto isSigned = [](DType t) { return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64; };
  auto mantissa = [](DType t) -> int {  // significand bits including the implicit one
    switch (t) {
      case DType::Float16: return 11;
      case DType::BFloat16: return 8;
      case DType::Float: return 24;
      case DType::Double: return 53;
      default: return 0;
    }
  };
  if (from == DType::Bool) return to != DType::Undefined && to != DType::String;
  const int fb = intBits(from), tb = intBits(to);
  if (fb && tb) {
    if (isSigned(from) == isSigned(to)) return tb >= fb;
    return !isSigned(from) && isSigned(to) && tb > fb;  // unsigned into a wider signed type
  }
  if (fb && mantissa(to)) return mantissa(to) >= (isSigned(from) ? fb - 1 : fb);
  if (mantissa(from) && mantissa(to)) {
    if (from == DType::Float16 && to == DType::BFloat16) return false;  // bf16 has fewer significand bits
    if (from == DType::BFloat16 && to == DType::Float16) return false;  // and f16 a smaller range
    return mantissa(to) >= mantissa(from);
  }
  return false;
}

DType castTarget(const Node& c) { return static_cast<DType>(c.attrInt("to", 0)); }

class PrecisionAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "precision"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    fp32Compute(ctx, out);
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      if (ctx.progress && ctx.progress->cancelled()) return;
      if (!ctx.node(i).is("Cast")) continue;
      if (auto f = nopCast(ctx, i)) out.push_back(std::move(*f));
      else if (auto r = castRoundTrip(ctx, i)) out.push_back(std::move(*r));
    }
    aicpuDtypes(ctx, out);
  }

 private:
  // float32 compute that float16 would speed up. Which nodes compute in float32 on the device:
  // on an Ascend profile, the kernels whose inputs are FLOAT; otherwise every float32 op when the
  // device keeps the model's types. A CPU qualifies only when its profile gives float16 a higher
  // peak than float32 for the op's unit (most CPU kernels convert float16 to float32).
  static void fp32Compute(const AnalysisContext& ctx, std::vector<Finding>& out) {
    const DeviceProfile& dev = *ctx.device;
    const AscendTasks tasks(ctx);
    const bool fromProfile = tasks.present();
    if (!fromProfile && dev.computeType(DType::Float) != DType::Float) return;  // the compiler already converts
    auto fasterInFp16 = [&](ComputeUnit u) {
      if (u != ComputeUnit::Cube && u != ComputeUnit::Vector) return false;
      if (dev.kind == DeviceProfile::Kind::Npu) return true;
      auto p16 = dev.peak(u, DType::Float16), p32 = dev.peak(u, DType::Float);
      return p16 && p32 && *p16 > *p32;
    };
    struct Gain {
      size_t node;
      double current, fixed;
    };
    std::vector<Gain> gains;
    double current = 0, fixed = 0;
    bool anyMeasured = false;
    RooflineOptions asModel, asFp16;
    asModel.precision = RooflineOptions::Precision::Model;
    asFp16.precision = RooflineOptions::Precision::Fp16;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      const OpCost& c = ctx.cost->nodes[i];
      const Node& n = ctx.node(i);
      if (!c.known || c.computeType != DType::Float || !fasterInFp16(c.unit) || n.is("Cast")) continue;
      double now = 0;
      bool measured = false;
      if (fromProfile) {
        const NodeProfile* e = tasks.entryFor(i);
        if (!e || e->inputDtypes.empty() || !std::any_of(e->inputDtypes.begin(), e->inputDtypes.end(),
                                                          [](const std::string& d) { return dtypeFromName(d) == DType::Float; }))
          continue;
        now = e->timeMs.median / static_cast<double>(std::max<size_t>(1, e->irNodes.size()));
        measured = true;
      } else {
        if (notRunOnDevice(ctx, i)) continue;
        now = ctx.timeMs(i);
        measured = ctx.isMeasured(i);
      }
      const NodeEstimate e32 = estimateNode(c, n.opType, dev, asModel);
      const NodeEstimate e16 = estimateNode(c, n.opType, dev, asFp16);
      if (!(e32.seconds > 0) || e16.seconds >= e32.seconds) continue;
      const double after = now * e16.seconds / e32.seconds;
      gains.push_back({i, now, after});
      current += now;
      fixed += after;
      anyMeasured = anyMeasured || measured;
    }
    if (gains.empty() || current - fixed < kMinFp16Share * ctx.latencyMs) return;
    std::sort(gains.begin(), gains.end(), [](const Gain& a, const Gain& b) { return a.current - a.fixed > b.current - b.fixed; });
    std::vector<size_t> nodes;
    for (const Gain& g : gains) nodes.push_back(g.node);
    Finding f = makeAggregateFindingDearestFirst(ctx, "precision.fp32_compute", Category::Precision, nodes);
    f.params["fp32_nodes"] = std::to_string(nodes.size());
    // The ratio of the figures the device profile actually gives (a CPU's under "all"); "—"
    // where it has no float32 figure of its own for the unit (peak() would fall back).
    auto ratioFor = [&](ComputeUnit u) {
      const ComputeUnit key = dev.kind == DeviceProfile::Kind::Cpu ? ComputeUnit::None : u;
      auto f16 = dev.peaks.find({key, DType::Float16}), f32 = dev.peaks.find({key, DType::Float});
      if (f16 == dev.peaks.end() || f32 == dev.peaks.end() || !(f32->second.value > 0)) return std::string("—");
      return formatSignificant(f16->second.value / f32->second.value) + "×";
    };
    f.params["cube_ratio"] = ratioFor(ComputeUnit::Cube);
    f.params["vector_ratio"] = ratioFor(ComputeUnit::Vector);
    f.params["evidence"] = fromProfile ? "profile" : "device";
    f.impact.currentMs = current;
    f.impact.fixedMs = fixed;
    f.impact.ms = f.impact.rawMs = current - fixed;
    f.impact.source = anyMeasured ? ImpactSource::Both : ImpactSource::Estimated;
    f.impact.method = phrase("method.precision.fp16");
    out.push_back(std::move(f));
  }

  static std::optional<Finding> nopCast(const AnalysisContext& ctx, size_t i) {
    const Node& c = ctx.node(i);
    const DType in = ctx.index->dtype(c.input(0));
    if (in == DType::Undefined || castTarget(c) != in) return std::nullopt;
    std::vector<size_t> members{i};
    Finding f = makeFinding(ctx, "precision.nop_cast", Category::Precision, members);
    f.params["dtype"] = std::string(dtypeName(in));
    f.impact = removalImpact(ctx, members);
    f.fixPass = "eliminate_nop_cast";
    if (ctx.index->isGraphOutput(c.outputs[0]) && ctx.index->isGraphInput(c.inputs[0]))
      f.blockers.push_back("graph_output:" + c.outputs[0]);
    f.legal = f.blockers.empty();
    f.safeFix = f.legal;
    return f;
  }

  // Cast A→B whose result is cast straight back to A.
  static std::optional<Finding> castRoundTrip(const AnalysisContext& ctx, size_t i) {
    const Node& c1 = ctx.node(i);
    const DType a = ctx.index->dtype(c1.input(0)), b = castTarget(c1);
    if (a == DType::Undefined || b == DType::Undefined || a == b) return std::nullopt;
    // Casts of values known at build time fold away with the rest (graph.unfolded_constants).
    if (ctx.cost->nodes[i].foldable) return std::nullopt;
    // The second Cast: a consumer of c1's output casting back to A.
    long second = -1;
    for (const Use& u : ctx.index->consumers(c1.outputs[0]))
      if (ctx.node(u.node).is("Cast") && castTarget(ctx.node(u.node)) == a) {
        second = static_cast<long>(u.node);
        break;
      }
    if (second < 0) return std::nullopt;
    std::vector<size_t> members{i, static_cast<size_t>(second)};
    const bool lossy = !exactlyRepresentable(a, b) && !(isInteger(a) && isInteger(b));
    Finding f = makeFinding(ctx, lossy ? "precision.lossy_cast" : "precision.cast_roundtrip", Category::Precision, members);
    const std::string chain = std::string(dtypeName(a)) + "→" + std::string(dtypeName(b)) + "→" + std::string(dtypeName(a));
    f.params["chain"] = chain;
    std::vector<std::string> outputs{ctx.node(static_cast<size_t>(second)).outputs[0]};
    f.blockers = groupBlockers(ctx, members, outputs);
    // Exact: B holds every value of A. An integer narrowed and widened back is exact only for
    // values in B's range; a float narrowed (or a float through an integer) loses precision.
    if (lossy) f.blockers.push_back("lossy:" + chain);
    else if (!exactlyRepresentable(a, b)) f.blockers.push_back("value_range:" + c1.inputs[0]);
    f.params["variant"] = lossy ? "lossy" : exactlyRepresentable(a, b) ? "exact" : "range";
    f.legal = f.blockers.empty();
    f.impact = removalImpact(ctx, members);
    f.fixPass = "eliminate_cast_roundtrip";
    f.safeFix = f.legal;
    return f;
  }

  // 64-bit compute Ascend runs on the AI CPU: one model-wide dtype conversion fixes it
  // (auto-optimizer TypeCast); the op-level fallbacks are graph.aicpu_op.
  static void aicpuDtypes(const AnalysisContext& ctx, std::vector<Finding>& out) {
    if (!isAscendDevice(*ctx.device)) return;
    const AscendTasks tasks(ctx);
    struct Hit {
      size_t node;
      AicpuImpact impact;
      AicpuVerdict verdict;
    };
    std::vector<Hit> hits;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      auto v = aicpuVerdictFor(ctx, i);
      if (!v || !wideTypesOnly(*v)) continue;
      auto im = aicpuImpact(ctx, tasks, i);
      if (!im) continue;
      hits.push_back({i, *im, *v});
    }
    if (hits.empty()) return;
    std::sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) {
      return x.impact.currentMs - x.impact.fixedMs > y.impact.currentMs - y.impact.fixedMs;
    });
    std::vector<size_t> nodes;
    double current = 0, fixed = 0;
    bool allMeasured = true, anyMeasured = false;
    std::map<std::string, int> byOp;
    std::string cann, dtypes;
    for (const Hit& h : hits) {
      nodes.push_back(h.node);
      current += h.impact.currentMs;
      fixed += h.impact.fixedMs;
      allMeasured = allMeasured && h.impact.measured;
      anyMeasured = anyMeasured || h.impact.measured;
      ++byOp[ctx.node(h.node).opType];
      if (cann.find(h.verdict.cann) == std::string::npos) cann += (cann.empty() ? "" : "; ") + h.verdict.cann;
      if (dtypes.find(h.verdict.dtypes) == std::string::npos) dtypes += (dtypes.empty() ? "" : "; ") + h.verdict.dtypes;
    }
    Finding f = makeAggregateFinding(ctx, "precision.aicpu_dtype", Category::Precision, nodes);
    std::string ops;
    for (const auto& [op, count] : byOp) ops += (ops.empty() ? "" : ", ") + op + " ×" + std::to_string(count);
    f.params["ops"] = ops;
    f.params["dtypes"] = dtypes;
    f.params["cann"] = cann;
    f.impact.currentMs = current;
    f.impact.fixedMs = fixed;
    f.impact.ms = f.impact.rawMs = current - fixed;
    f.impact.source = allMeasured ? ImpactSource::Measured : anyMeasured ? ImpactSource::Both : ImpactSource::Estimated;
    f.impact.method = phrase(anyMeasured ? "method.aicpu.mixed" : "method.aicpu.assumed");
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> makePrecisionRules() { return std::make_unique<PrecisionAdvisor>(); }

}  // namespace msa
