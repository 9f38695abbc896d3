// Hotspots: no dominant cost is silent. Every kernel of the deployed run (ONNX Runtime with its
// optimizer on, else the only run) that takes at least kMinShare of it while reaching less than
// kMaxEfficiency of its roofline gets a finding that says why, where the graph tells:
//  - a matrix-vector product (at most kGemvRows rows): each weight is read for a handful of rows,
//    and the GEMM kernel's blocking has nothing to reuse (a shape that defeats the kernel);
//  - a depthwise convolution: one input channel per output channel, little work per byte;
//  - a linear or cubic Resize: ONNX Runtime's CPU kernel gathers the input pixels of each output
//    element through index tables (providers/cpu/tensor/upsamplebase.h), not a streaming pass;
//  - a memory-bound operator whose bytes are mostly weights (read once per run at batch 1);
// or else it is listed as "slow, cause not identified" with its figures. The impact is the time
// above half of the kernel's roofline, what a kernel that suits the work reaches here.
#include <algorithm>
#include <string>

#include "cost/device_profile.h"
#include "rules/kernel_units.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

constexpr double kMinShare = 0.05;        // of the deployed run
constexpr double kMaxEfficiency = 0.30;   // of the kernel's roofline
constexpr double kReachable = 0.5;        // the efficiency the impact assumes a suiting kernel reaches
constexpr int64_t kGemvRows = 4;

// Rows of a MatMul/Gemm's left operand: every dim but the last (Gemm: honouring transA).
int64_t matmulRows(const AnalysisContext& ctx, const Node& n) {
  const Shape* a = n.inputs.empty() ? nullptr : ctx.index->shape(n.input(0));
  if (!a || a->rank() < 2) return -1;
  const auto v = a->values();
  if (n.is("Gemm")) return n.attrInt("transA", 0) ? v[1] : v[0];
  int64_t rows = 1;
  for (size_t k = 0; k + 1 < v.size(); ++k) {
    if (v[k] < 0) return -1;
    rows *= v[k];
  }
  return rows;
}

bool isDepthwise(const AnalysisContext& ctx, const Node& n) {
  if (!n.is("Conv")) return false;
  const int64_t group = n.attrInt("group", 1);
  const Shape* x = n.inputs.empty() ? nullptr : ctx.index->shape(n.input(0));
  return group > 1 && x && x->rank() >= 2 && x->dims[1].value == group;
}

bool isInterpolatingResize(const Node& n) {
  return (n.is("Resize") || n.is("Upsample")) && n.attrString("mode", "nearest") != "nearest";
}

class Hotspots final : public Rule {
 public:
  std::string_view family() const override { return "hotspot"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    if (!ctx.measured) return;
    const ProfileData* run = ctx.runtimeProfile && ctx.runtimeProfile->optimization != "disabled" ? ctx.runtimeProfile
                                                                                                   : ctx.profile;
    if (!run) return;
    // On a busy machine (Measurement::contended) the load slows kernels unevenly, a different
    // one each run: each kernel is judged by its fastest run, the least disturbed, against the
    // fastest run of the whole. Otherwise by the medians.
    const bool fastest = run->measurement.measured && run->measurement.contended;
    const double latency = fastest && run->latencyMs.min > 0 ? run->latencyMs.min
                           : run->latencyMs.median > 0       ? run->latencyMs.median
                                                             : run->sumNodeMedians();
    if (!(latency > 0)) return;
    // The runtime's threads got part of the CPU they were ready to use (Measurement::cpuShare):
    // a kernel is judged on the CPU time it got, not on the wall time other work took from it.
    const double cpuShare = run->measurement.measured ? std::clamp(run->measurement.cpuShare, 0.05, 1.0) : 1.0;
    for (const KernelUnit& u : kernelUnits(ctx, *run)) {
      const double ms = fastest ? u.bestMs : u.measuredMs;
      const double share = ms / latency;
      if (share < kMinShare || u.rooflineMs / ms / cpuShare >= kMaxEfficiency) continue;
      out.push_back(finding(ctx, u, ms, share));
    }
  }

 private:
  static std::string cause(const AnalysisContext& ctx, const KernelUnit& u) {
    for (size_t m : u.members) {
      const Node& n = ctx.node(m);
      if (n.is("MatMul") || n.is("Gemm")) {
        const int64_t rows = matmulRows(ctx, n);
        if (rows > 0 && rows <= kGemvRows) return "gemv";
      }
      if (isDepthwise(ctx, n)) return "depthwise";
      if (isInterpolatingResize(n)) return "resize";
    }
    const auto ridge = ctx.device->ridgePoint(u.cost.unit == OpCost::Unit::Cube ? ComputeUnit::Cube : ComputeUnit::Vector,
                                              u.cost.computeType);
    const bool memoryBound = ridge && u.intensity < *ridge;
    if (memoryBound && u.cost.paramBytes >= 0.5 * u.cost.bytesRead) return "weights";
    return "unexplained";
  }

  // `ms`: the kernel's time as judged (its median, or its fastest run on a busy machine).
  static Finding finding(const AnalysisContext& ctx, const KernelUnit& u, double ms, double share) {
    const std::string why = cause(ctx, u);
    Finding f = makeFinding(ctx, "hotspot." + why, Category::Kernel, u.members);
    if (u.entry && (u.members.size() > 1 || u.entry->name != ctx.node(u.members.front()).name))
      f.runtimeNodes.push_back(u.entry->name);
    f.impact.currentMs = ms;
    f.impact.fixedMs = std::min(ms, u.rooflineMs / kReachable);
    f.impact.rawMs = f.impact.ms = ms - f.impact.fixedMs;
    f.impact.source = ImpactSource::Both;
    f.impact.method = phrase("method.hotspot");
    f.params["op"] = u.opType;
    f.params["share"] = formatPercent(share);
    f.params["efficiency"] = formatPercent(u.rooflineMs / ms);
    f.params["measured_ms"] = formatSignificant(ms);
    f.params["roofline_ms"] = formatSignificant(u.rooflineMs);
    f.params["intensity"] = formatSignificant(u.intensity);
    f.params["weight_mb"] = formatSignificant(u.cost.paramBytes / 1e6);
    f.params["mb"] = formatSignificant(u.cost.bytes() / 1e6);
    f.params["gbps"] = formatSignificant(u.cost.bytes() / (ms * 1e-3) / 1e9);
    std::string shapes;
    if (u.entry)
      for (const auto& s : u.entry->inputShapes) shapes += (shapes.empty() ? "" : ", ") + s;
    f.params["shape"] = shapes.empty() ? phrase("value.unknown") : shapes;
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> makeHotspotRules() { return std::make_unique<Hotspots>(); }

}  // namespace msa
