// The kernel checks that read an Ascend profile's PMU columns and task types (msprof op_summary,
// torch_npu kernel_details), after MindStudio Advisor's roofline knowledge base and
// msprof-analyze's computation checkers (ascend.md §1.3, §1.5, §1.7). Thresholds: docs/rules.md.
#include <algorithm>
#include <cmath>
#include <map>

#include "cost/device_profile.h"
#include "cost/roofline.h"
#include "profile/ascend_ops.h"
#include "rules/ascend_tables.h"
#include "rules/kernel_units.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

constexpr double kBoundRatio = 0.8;     // msprof-analyze operator_bound_ratio
constexpr double kMinBlockDimMs = 0.02;  // block dims of kernels under 20 us are left alone
constexpr double kMinShare = 0.005;      // impact >= 0.5% of the profile's latency
constexpr double kPathShare = 0.01;      // a MatMul path without a reference: >= 1% of the time
constexpr size_t kListed = 5;            // kernels named in a grouped finding's text
// A task this many times longer than its AI Cores computed waited inside the task: an 87 ms
// task with 12.7 us of AI Core time is a stall, not a slow kernel (a launch and the pipeline's
// drain are a few microseconds, never a factor of ten on a task worth reporting).
constexpr double kStallFactor = 10;

// A pipeline ratio under any of its names (op_summary, kernel_details aic_/aiv_); the largest
// when both cores report it (MIX kernels). -1 when absent.
double ratio(const NodeProfile& n, const std::string& name) {
  double best = -1;
  for (const char* prefix : {"", "aic_", "aiv_"})
    if (auto it = n.metrics.find(prefix + name); it != n.metrics.end() && std::isfinite(it->second))
      best = std::max(best, it->second);
  return best;
}

bool isAiCoreTask(const std::string& t) {
  return t == "AI_CORE" || t == "AI_VECTOR_CORE" || t.starts_with("MIX_AI");
}

std::string count(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

Finding unitFinding(const AnalysisContext& ctx, const char* rule, const KernelUnit& u) {
  Finding f = makeFinding(ctx, rule, Category::Kernel, u.members);
  f.runtimeNodes.push_back(u.entry->name);
  f.params["op"] = u.opType;
  f.params["kernel"] = u.entry->kernel.empty() ? phrase("value.unknown") : u.entry->kernel;
  f.params["runtime_node"] = u.entry->name;
  return f;
}

// `method`: a phrase key of _texts saying how the impact was computed.
void setImpact(Finding& f, double current, double fixed, const char* method) {
  f.impact.currentMs = current;
  f.impact.fixedMs = std::min(current, fixed);
  f.impact.ms = f.impact.rawMs = current - f.impact.fixedMs;
  f.impact.source = ImpactSource::Both;
  f.impact.method = phrase(method);
}

// Several kernels with the same cause and the same remedy as one finding, the largest first.
struct Grouped {
  struct Item {
    const KernelUnit* unit;
    double fixedMs;
    std::string detail;
  };
  std::vector<Item> items;

  void emit(const AnalysisContext& ctx, const char* rule, const char* method, std::vector<Finding>& out,
            std::map<std::string, std::string> params = {}) {
    if (items.empty()) return;
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      return a.unit->measuredMs - a.fixedMs > b.unit->measuredMs - b.fixedMs;
    });
    Finding f = makeAggregateFinding(ctx, rule, Category::Kernel, items.front().unit->members);
    double current = 0, fixed = 0;
    std::vector<std::string> list;
    for (size_t k = 0; k < items.size(); ++k) {
      const Item& it = items[k];
      if (k > 0)
        for (size_t m : it.unit->members) f.nodes.push_back(ctx.node(m).name);
      f.runtimeNodes.push_back(it.unit->entry->name);
      current += it.unit->measuredMs;
      fixed += it.fixedMs;
      if (k < kListed) list.push_back(phrase("profile.listed", {{"name", it.unit->entry->name}, {"detail", it.detail}}));
    }
    if (items.size() > kListed) list.push_back("…");
    f.params = std::move(params);
    f.params["kernels"] = std::to_string(items.size());
    f.params["list"] = phraseList(list);
    f.params["op"] = items.front().unit->opType;
    setImpact(f, current, fixed, method);
    out.push_back(std::move(f));
  }
};

class AscendChecks {
 public:
  AscendChecks(const AnalysisContext& ctx, const ProfileData& p)
      : m_ctx(ctx), m_profile(p), m_units(kernelUnits(ctx, p)), m_latency(profileLatencyMs(p)) {}

  void run(std::vector<Finding>& out) {
    Grouped noBound, blockDim;
    for (const KernelUnit& u : m_units) {
      if (!isAiCoreTask(u.entry->kernel)) continue;
      pipelines(u, noBound, out);
      blockDimCheck(u, blockDim);
    }
    noBound.emit(m_ctx, "kernel.no_bound", "method.profile.no_bound", out);
    blockDim.emit(m_ctx, "kernel.block_dim", "method.profile.block_dim", out, {{"cores", count(aiCores())}});
    matmulPaths(out);
    aicpuTasks(out);
    taskStalls(out);
  }

 private:
  double aiCores() const {
    auto it = m_profile.deviceInfo.find("ai_core_num");
    return it == m_profile.deviceInfo.end() ? 0 : it->second;
  }
  double coresFor(const std::string& taskType) const {
    auto aiv = m_profile.deviceInfo.find("aiv_num");
    if (taskType == "AI_VECTOR_CORE" && aiv != m_profile.deviceInfo.end() && aiv->second > 0) return aiv->second;
    return aiCores();
  }
  bool significant(double saved) const { return saved >= kMinShare * m_latency && saved > 0; }

  // Memory-bound cube kernels and kernels no pipeline bounds.
  void pipelines(const KernelUnit& u, Grouped& noBound, std::vector<Finding>& out) const {
    const NodeProfile& n = *u.entry;
    const double vec = ratio(n, "vec_ratio"), mac = ratio(n, "mac_ratio"), mte2 = ratio(n, "mte2_ratio");
    if (mte2 < 0 || (vec < 0 && mac < 0)) return;  // no PipeUtilization metrics in this profile
    double busiest = 0, nextToMte2 = std::max(0.0, std::max(vec, mac));
    for (const char* r : {"vec_ratio", "mac_ratio", "scalar_ratio", "mte1_ratio", "mte2_ratio", "mte3_ratio", "fixpipe_ratio"}) {
      const double v = ratio(n, r);
      busiest = std::max(busiest, v);
      if (std::string_view(r) != "mte2_ratio") nextToMte2 = std::max(nextToMte2, v);
    }
    if (busiest < kBoundRatio) {
      const double fixed = std::max(u.rooflineMs, u.measuredMs * busiest / kBoundRatio);
      if (significant(u.measuredMs - fixed))
        noBound.items.push_back({&u, fixed, phrase("kernel.item.busiest", {{"time", formatQuantity(u.measuredMs, "ms")}, {"ratio", formatPercent(busiest)}})});
      return;
    }
    const double memoryBound = mte2 / std::max(1e-9, std::max(vec, mac));
    if (memoryBound <= 1) return;
    // Only cube kernels whose roofline says compute-bound: a vector op moving data is memory
    // bound by nature, and a cube op with little reuse cannot do better.
    const bool cube = std::any_of(u.members.begin(), u.members.end(),
                                  [&](size_t m) { return m_ctx.cost->nodes[m].unit == ComputeUnit::Cube; });
    if (!cube) return;
    const NodeEstimate e = estimateNode(u.cost, "", *m_ctx.device);
    if (e.bound != Bound::Compute) return;
    const double fixed = std::max(u.rooflineMs, u.measuredMs * nextToMte2);
    if (!significant(u.measuredMs - fixed)) return;
    Finding f = unitFinding(m_ctx, "kernel.memory_bound", u);
    f.params["mte2_ratio"] = formatSignificant(mte2);
    f.params["compute_ratio"] = formatSignificant(std::max(vec, mac));
    f.params["memory_bound"] = formatSignificant(memoryBound);
    f.params["intensity"] = formatSignificant(e.intensity);
    setImpact(f, u.measuredMs, fixed, "method.kernel.memory_bound");
    out.push_back(std::move(f));
  }

  void blockDimCheck(const KernelUnit& u, Grouped& g) const {
    const NodeProfile& n = *u.entry;
    auto bd = n.metrics.find("block_dim");
    const double cores = coresFor(n.kernel);
    if (bd == n.metrics.end() || !(bd->second >= 1) || cores < 1 || u.measuredMs < kMinBlockDimMs) return;
    const double blocks = std::round(bd->second);
    if (std::fmod(blocks, cores) == 0) return;
    if (n.kernel == "MIX_AIC") {  // the vector side of a MIX kernel counts too (BlockDimChecker)
      auto mix = n.metrics.find("mix_block_dim");
      auto aiv = m_profile.deviceInfo.find("aiv_num");
      if (mix != n.metrics.end() && aiv != m_profile.deviceInfo.end() && aiv->second > 0 &&
          std::fmod(std::round(mix->second), aiv->second) == 0)
        return;
    }
    const double waves = std::ceil(blocks / cores);
    const double fixed = std::max(u.rooflineMs, u.measuredMs * blocks / (waves * cores));
    if (significant(u.measuredMs - fixed))
      g.items.push_back({&u, fixed,
                         phrase("profile.item.block_dim", {{"call", formatQuantity(u.measuredMs, "ms")}, {"blocks", count(blocks)}, {"cores", count(cores)}})});
  }

  // MatMul kernels off the affine path, priced at the efficiency the affine MatMuls of the same
  // profile reach.
  void matmulPaths(std::vector<Finding>& out) const {
    struct Candidate {
      const KernelUnit* unit;
      MatmulPath path;
    };
    std::vector<Candidate> all;
    std::vector<double> affineEff;
    for (const KernelUnit& u : m_units) {
      if (!isAiCoreTask(u.entry->kernel)) continue;
      auto path = pathOf(u);
      if (!path) continue;
      if (path->kind == MatmulPath::Kind::Affine && !u.entry->kernel.starts_with("MIX")) affineEff.push_back(u.efficiency());
      all.push_back({&u, *path});
    }
    std::sort(affineEff.begin(), affineEff.end());
    const double refEff = affineEff.empty() ? 0 : affineEff[affineEff.size() / 2];
    for (const Candidate& c : all) {
      const KernelUnit& u = *c.unit;
      const bool observedMix = u.entry->kernel == "MIX_AIC";
      if (c.path.kind == MatmulPath::Kind::Affine && !observedMix) continue;
      const double grow = static_cast<double>(c.path.alignedK * c.path.alignedN) / static_cast<double>(c.path.k * c.path.n);
      Finding f = unitFinding(m_ctx, "kernel.matmul_path", u);
      f.params["path"] = std::string(matmulPathName(observedMix ? MatmulPath::Kind::MixAic : c.path.kind));
      f.params["inner_a"] = std::to_string(c.path.k);
      f.params["inner_b"] = std::to_string(c.path.n);
      f.params["aligned_a"] = std::to_string(c.path.alignedK);
      f.params["aligned_b"] = std::to_string(c.path.alignedN);
      f.params["affine_axis"] = std::to_string(c.path.affineAxis);
      f.params["extra_work"] = formatPercent(grow - 1);
      if (refEff > 0) {
        const double fixed = u.rooflineMs * grow / refEff;
        if (!significant(u.measuredMs - fixed)) continue;
        f.params["reference_efficiency"] = formatPercent(std::min(1.0, refEff));
        setImpact(f, u.measuredMs, fixed, "method.profile.matmul_axes");
      } else {
        if (u.measuredMs < kPathShare * m_latency) continue;
        f.params["reference_efficiency"] = "—";
        setImpact(f, u.measuredMs, u.measuredMs, "method.profile.matmul_axes_unpriced");
      }
      out.push_back(std::move(f));
    }
  }

  std::optional<MatmulPath> pathOf(const KernelUnit& u) const {
    for (size_t m : u.members) {
      const Node& n = m_ctx.node(m);
      if (!n.is("MatMul") && !n.is("Gemm")) continue;
      const Shape* a = m_ctx.index->shape(n.input(0));
      const Shape* b = m_ctx.index->shape(n.input(1));
      if (!a || !b || a->rank() < 2 || b->rank() < 2 || !a->fullyKnown() || !b->fullyKnown()) return std::nullopt;
      const auto av = a->values(), bv = b->values();
      const bool ta = n.is("Gemm") && n.attrInt("transA", 0), tb = n.is("Gemm") && n.attrInt("transB", 0);
      const int64_t M = ta ? av[av.size() - 1] : av[av.size() - 2];
      const int64_t N = tb ? bv[bv.size() - 2] : bv[bv.size() - 1];
      DType type = m_ctx.device->computeType(m_ctx.cost->nodes[m].computeType);
      if (!u.entry->inputDtypes.empty())
        if (auto t = dtypeFromName(u.entry->inputDtypes.front())) type = *t;
      const auto peak = m_ctx.device->peak(ComputeUnit::Cube, type);
      const double macSeconds = peak && *peak > 0 ? 2 * m_ctx.cost->nodes[m].macs / *peak : 0;
      // Inner (contiguous) axes as stored: A's last dim and B's last dim.
      const int64_t innerA = av.back(), innerB = bv.back();
      if (innerA <= 0 || innerB <= 0 || M <= 0 || N <= 0) return std::nullopt;
      MatmulPath p = matmulPath(M, innerA, innerB, type, m_ctx.device->soc, macSeconds);
      return p;
    }
    return std::nullopt;
  }

  // AI_CPU tasks the op table does not explain (those are graph.aicpu_op / precision.aicpu_dtype).
  void aicpuTasks(std::vector<Finding>& out) const {
    const double longTaskMs = aicpuCostModel().longTaskSeconds * 1e3;
    for (const NodeProfile& n : m_profile.nodes) {
      if (n.kernel != "AI_CPU" || n.inserted || n.irNodes.empty() || !n.parent.empty()) continue;
      std::vector<size_t> members;
      bool explained = false;
      for (const auto& name : n.irNodes) {
        long i = m_ctx.index->indexOfName(name);
        if (i < 0) {
          members.clear();
          break;
        }
        members.push_back(static_cast<size_t>(i));
        explained = explained || aicpuVerdictFor(m_ctx, static_cast<size_t>(i)).has_value();
      }
      if (members.empty() || explained) continue;
      const double measured = n.timeMs.median;
      const double aiCore = m_ctx.rooflineMs ? m_ctx.rooflineMs(groupCost(m_ctx, members)) : 0.0;
      if (measured < longTaskMs && !significant(measured - aiCore)) continue;
      Finding f = makeFinding(m_ctx, "kernel.aicpu_task", Category::Kernel, members);
      f.runtimeNodes.push_back(n.name);
      f.params["op"] = n.opType;
      f.params["runtime_node"] = n.name;
      f.params["dtypes"] = [&] {
        std::string s;
        for (const auto& d : n.inputDtypes) s += (s.empty() ? "" : ", ") + d;
        return s.empty() ? phrase("value.unknown") : s;
      }();
      setImpact(f, measured, aiCore, "method.kernel.aicpu_task");
      out.push_back(std::move(f));
    }
  }

  // AI Core tasks whose duration is far longer than their AI Core time: the task waited (an event
  // or stream wait, a memory copy it depends on, the host); the kernel is not what is slow.
  void taskStalls(std::vector<Finding>& out) const {
    for (const NodeProfile& n : m_profile.nodes) {
      if (!isAiCoreTask(n.kernel) || n.inserted || n.irNodes.empty() || !n.parent.empty()) continue;
      const double* core = ascendMetric(n, "aicore_time(us)");
      const double calls = n.calls > 0 ? n.calls : 1.0;
      if (!core || !(*core > 0) || !(n.timeMs.median > 0)) continue;
      const double taskUs = n.timeMs.median * 1e3 / calls;
      if (taskUs < kStallFactor * *core) continue;
      const double coreMs = *core * calls / 1e3;
      if (!significant(n.timeMs.median - coreMs)) continue;
      std::vector<size_t> members;
      for (const auto& name : n.irNodes)
        if (long i = m_ctx.index->indexOfName(name); i >= 0) members.push_back(static_cast<size_t>(i));
      if (members.empty()) continue;
      Finding f = makeFinding(m_ctx, "kernel.task_stall", Category::Kernel, members);
      f.runtimeNodes.push_back(n.name);
      f.params["op"] = n.opType;
      f.params["runtime_node"] = n.name;
      f.params["task_us"] = formatSignificant(taskUs);
      f.params["core_us"] = formatSignificant(*core);
      setImpact(f, n.timeMs.median, coreMs, "method.kernel.task_stall");
      out.push_back(std::move(f));
    }
  }

  const AnalysisContext& m_ctx;
  const ProfileData& m_profile;
  std::vector<KernelUnit> m_units;
  double m_latency;
};

}  // namespace

void ascendKernelChecks(const AnalysisContext& ctx, const ProfileData& profile, std::vector<Finding>& out) {
  AscendChecks(ctx, profile).run(out);
}

}  // namespace msa
