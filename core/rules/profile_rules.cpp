// The profile-only rules (profile_rules.h). Every threshold is msprof-analyze advisor's where it
// has one (analyzer/computation/*: AICPU 20 µs, operator_bound_ratio 0.8, cube mac/mte2 0.8/0.95,
// vector 0.7/0.9, MatMul inner axes 256, FlashAttention 128, fusible sequences of 2-10 kernels
// seen 5 times with 1 % of the time, frequency_threshold 0.05); docs/rules.md says why the rest
// are what they are.
#include "rules/profile_rules.h"

#include "rules/training_rules.h"

#include "rules/texts.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace msa {
namespace {

constexpr double kAicpuLongMs = 0.020;        // AICPUChecker: AI_CPU tasks over 20 µs
constexpr double kBoundRatio = 0.8;           // OperatorBoundChecker: operator_bound_ratio
constexpr double kMinBlockDimMs = 0.020;      // block dims of kernels under 20 µs per call are left alone
// A task on the timeline far longer than its cores' own busy time waited on the device: a stall.
constexpr double kStallMinMs = 1.0, kStallRatio = 10.0;
constexpr double kCubeMacBound = 0.8, kCubeMte2Bound = 0.95;  // AICorePerformanceChecker, cube operators
constexpr double kVectorBound = 0.7, kVectorMteBound = 0.9;   // AICorePerformanceChecker, vector operators
constexpr double kCubeMemoryMb = 100;         // AICorePerformanceChecker: cube ops moving >= 100 MB over the run
constexpr int64_t kAffineAxis = 256, kAttentionAxis = 128;
constexpr double kFarBelow = 0.25;            // efficiency under a quarter of the roofline …
constexpr double kBelowPeers = 0.5;           // … and under half the same-type peers' median
constexpr double kPaddingWaste = 0.10;        // cube tiles more than 10 % padding
constexpr double kShortKernelMs = 0.010;      // a kernel under 10 µs per call is launch-sized
constexpr size_t kMinLaunchBound = 5;         // fewer short kernels waiting is a one-off gap, not a launch-bound pattern
constexpr double kFrequencyDrop = 0.05;       // AICoreFreqChecker frequency_threshold
constexpr int kMinOccurrences = 5;            // FusibleOperatorChecker: a sequence seen 5 times …
constexpr double kMinSequenceShare = 0.01;    // … with 1 % of the time
constexpr size_t kMaxBlock = 400;              // kernels in one repeated block (a layer forward or backward)
constexpr size_t kPatternShown = 8;            // kernels of a block named in its title
constexpr double kMinShare = 0.005;           // a finding saves at least 0.5 % of the compute time
constexpr size_t kListed = 5;                 // kernels named in a grouped finding's text

std::string fmt(double v, const char* f = "%.3g") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
// A duration as a reader scans it: µs below a millisecond, ms above (never "42424 us").
std::string us(double ms) { return formatQuantity(ms, "ms", ms < 1 ? 0.01 : ms); }

double metric(const NodeProfile& n, const std::string& name) {
  double best = -1;
  for (const char* prefix : {"", "aic_", "aiv_"})
    if (auto it = n.metrics.find(prefix + name); it != n.metrics.end() && std::isfinite(it->second))
      best = std::max(best, it->second);
  return best;
}

std::string joinShapes(const std::vector<std::string>& shapes) {
  std::string s;
  for (const auto& x : shapes) s += (s.empty() ? "" : ";") + (x.empty() ? std::string("-") : x);
  return s.empty() ? "-" : s;
}

std::string shapeText(const NodeProfile& n) {
  std::string s = joinShapes(n.inputShapes) + " -> " + joinShapes(n.outputShapes);
  if (!n.inputDtypes.empty()) s += " " + n.inputDtypes.front();
  return s;
}

class Checks {
 public:
  explicit Checks(const ProfileRuleContext& c)
      : m_c(c), m_p(*c.profile), m_k(*c.priced), m_floorMs(c.device->taskFloor.value * 1e3) {}

  std::vector<Finding> run() {
    aicpu();
    dynamicShape();
    blockDim();
    taskStall();
    noBound();
    unitBound();
    memoryBound();
    belowRoofline();
    matmulAxes();
    attentionAxes();
    cubePadding();
    transData();
    launchBound();
    fusibleSequences();
    communication();
    frequency();
    return std::move(m_out);
  }

 private:
  const NodeProfile& node(size_t i) const { return m_p.nodes[i]; }
  bool significant(double savedMs) const { return savedMs > 0 && savedMs >= kMinShare * std::max(m_k.computeMs, 1e-9); }
  double cores(CoreType t) const {
    return (t == CoreType::Vector || t == CoreType::MixVector) && m_c.vectorCores > 0 ? m_c.vectorCores : m_c.aiCores;
  }

  // A finding about kernels `entries` (the first is the anchor), drawing from their budgets.
  Finding make(const char* rule, Category cat, const std::vector<size_t>& entries, double current, double fixed,
                      const char* method, ImpactSource source = ImpactSource::Both) {
    Finding f;
    f.rule = rule;
    f.category = cat;
    f.id = std::string(rule) + "@" + (entries.empty() ? std::string("profile") : node(entries.front()).name);
    for (size_t i : entries) {
      f.nodes.push_back(node(i).name);
      f.budgets.push_back("kernel:" + node(i).name);
    }
    f.legal = true;
    f.impact.currentMs = current;
    f.impact.fixedMs = std::clamp(fixed, 0.0, current);
    f.impact.rawMs = f.impact.ms = current - f.impact.fixedMs;
    f.impact.source = source;
    f.impact.method = phrase(method);  // a phrase of profile.json's _texts
    if (!entries.empty()) describe(f, entries.front());
    return f;
  }

  void describe(Finding& f, size_t i) const {
    const NodeProfile& n = node(i);
    const PricedKernel& k = m_k.kernels[i];
    f.params["kernel"] = n.name;
    f.params["op"] = n.opType.empty() ? std::string("?") : n.opType;
    f.params["core"] = std::string(coreTypeName(k.core));
    f.params["shape"] = shapeText(n);
    f.params["calls"] = fmt(k.calls, "%.0f");
    const double bd = metric(n, "block_dim");
    f.params["block_dim"] = bd >= 0 ? fmt(bd, "%.0f") : std::string("?");
    const std::string origin = describeOrigin(n.origin);
    f.params["origin"] = origin.empty() ? phrase("value.unknown") : origin;
    f.params["measured"] = us(k.measuredMs);
    if (k.priced()) {
      f.params["roofline"] = us(k.rooflineMs);
      f.params["efficiency"] = formatPercent(k.efficiency);
    }
  }

  // Several kernels with one cause and one remedy: one finding, the largest saving first.
  struct Group {
    struct Item {
      size_t entry;
      double current, fixed;
      std::string detail;
    };
    std::vector<Item> items;
  };
  void emit(Group& g, const char* rule, Category cat, const char* method, std::map<std::string, std::string> params = {}) {
    if (g.items.empty()) return;
    std::sort(g.items.begin(), g.items.end(),
              [](const auto& a, const auto& b) { return a.current - a.fixed > b.current - b.fixed; });
    double current = 0, fixed = 0;
    std::vector<size_t> entries;
    std::vector<std::string> list;
    for (size_t k = 0; k < g.items.size(); ++k) {
      current += g.items[k].current, fixed += g.items[k].fixed;
      entries.push_back(g.items[k].entry);
      if (k < kListed) list.push_back(phrase("profile.listed", {{"name", node(g.items[k].entry).name}, {"detail", g.items[k].detail}}));
    }
    if (g.items.size() > kListed) list.push_back("…");
    if (!significant(current - fixed)) return;
    Finding f = make(rule, cat, entries, current, fixed, method);
    for (auto& [k, v] : params) f.params[k] = v;
    f.params["kernels"] = std::to_string(g.items.size());
    f.params["list"] = phraseList(list);
    m_out.push_back(std::move(f));
  }

  // AI CPU tasks over 20 µs and the dtypes that put them there.
  void aicpu() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (k.core != CoreType::AiCpu || k.callMs < kAicpuLongMs) continue;
      const NodeProfile& n = node(k.entry);
      std::string wide;
      for (const auto& d : n.inputDtypes)
        if (d == "int64" || d == "double" || d == "uint64" || d == "bool") wide += (wide.empty() ? "" : ", ") + d;
      const double onAiCore = k.priced() ? std::max(k.rooflineMs, m_floorMs * k.calls) : m_floorMs * k.calls;
      g.items.push_back({k.entry, k.measuredMs, onAiCore,
                         wide.empty() ? phrase("profile.item.per_call", {{"call", us(k.callMs)}})
                                      : phrase("profile.item.per_call_inputs", {{"call", us(k.callMs)}, {"dtypes", wide}})});
    }
    emit(g, "profile.aicpu", Category::Kernel, "method.profile.aicpu");
  }

  // Every operator compiled dynamically (OP State = dynamic): DynamicShapeChecker.
  void dynamicShape() {
    size_t dynamic = 0, known = 0;
    for (const NodeProfile& n : m_p.nodes) {
      if (n.opState.empty()) continue;
      ++known;
      dynamic += n.opState == "dynamic";
    }
    if (known == 0 || dynamic != known) return;
    Finding f = make("profile.dynamic_shape", Category::Graph, {}, 0, 0, "method.profile.dynamic_shape",
                            ImpactSource::Estimated);
    f.id = "profile.dynamic_shape@profile";
    f.params["kernels"] = std::to_string(dynamic);
    m_out.push_back(std::move(f));
  }

  // A compute task whose time on the timeline is many times its cores' busy time (aicore_time,
  // aiv_time): the task waited (a synchronisation, an event, a cross-core or cross-device wait),
  // it did not compute. Its roofline and efficiency say nothing about it.
  void taskStall() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (!(k.core == CoreType::Cube || k.core == CoreType::Vector || k.core == CoreType::MixCube || k.core == CoreType::MixVector) ||
          k.callMs < kStallMinMs)
        continue;
      const NodeProfile& n = node(k.entry);
      const double coreUs = std::max(metric(n, "aicore_time(us)"), metric(n, "time(us)"));
      if (!(coreUs > 0) || k.callMs * 1000 < kStallRatio * coreUs) continue;
      g.items.push_back({k.entry, k.measuredMs, std::max(k.rooflineMs, coreUs / 1000 * k.calls),
                         phrase("profile.item.task_stall", {{"call", us(k.callMs)}, {"core_time", us(coreUs / 1000)}})});
    }
    emit(g, "profile.task_stall", Category::Kernel, "method.profile.task_stall");
  }

  void blockDim() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (!(k.core == CoreType::Cube || k.core == CoreType::Vector || k.core == CoreType::MixCube) || k.callMs < kMinBlockDimMs)
        continue;
      const NodeProfile& n = node(k.entry);
      const double blocks = std::round(metric(n, "block_dim")), c = cores(k.core);
      if (!(blocks >= 1) || c < 1 || std::fmod(blocks, c) == 0) continue;
      if (k.core == CoreType::MixCube) {  // the vector side of a MIX kernel counts too
        const double mix = std::round(metric(n, "mix_block_dim"));
        if (mix >= 1 && m_c.vectorCores > 0 && std::fmod(mix, m_c.vectorCores) == 0) continue;
      }
      const double waves = std::ceil(blocks / c);
      const double fixed = std::max(k.rooflineMs, k.measuredMs * blocks / (waves * c));
      g.items.push_back({k.entry, k.measuredMs, fixed,
                         phrase("profile.item.block_dim",
                                {{"call", us(k.callMs)}, {"blocks", fmt(blocks, "%.0f")}, {"cores", fmt(c, "%.0f")}})});
    }
    emit(g, "profile.block_dim", Category::Kernel, "method.profile.block_dim",
         {{"cores", fmt(m_c.aiCores, "%.0f")}, {"vector_cores", fmt(m_c.vectorCores, "%.0f")}});
  }

  // The pipe ratios of a kernel: (busiest, name of the busiest) over vec/mac/scalar/mte1-3/fixpipe.
  std::pair<double, std::string> busiest(const NodeProfile& n) const {
    double best = -1;
    std::string which;
    for (const char* r : {"vec_ratio", "mac_ratio", "scalar_ratio", "mte1_ratio", "mte2_ratio", "mte3_ratio", "fixpipe_ratio"})
      if (const double v = metric(n, r); v > best) best = v, which = r;
    return {best, which};
  }

  // No pipeline busy 80 % of the time: OperatorBoundChecker -> AOE operator tuning.
  void noBound() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (!isComputeCore(k.core) || k.core == CoreType::AiCpu) continue;
      const NodeProfile& n = node(k.entry);
      if (metric(n, "mte2_ratio") < 0 || (metric(n, "vec_ratio") < 0 && metric(n, "mac_ratio") < 0)) continue;
      const auto [b, which] = busiest(n);
      if (b >= kBoundRatio) continue;
      const double fixed = std::max(k.priced() ? k.rooflineMs : 0.0, k.measuredMs * std::max(b, 0.0) / kBoundRatio);
      g.items.push_back({k.entry, k.measuredMs, fixed,
                         phrase("profile.item.busiest", {{"call", us(k.callMs)}, {"pipe", which}, {"ratio", formatPercent(b)}})});
    }
    emit(g, "profile.no_bound", Category::Kernel, "method.profile.no_bound");
  }

  // Cube and vector kernels already at their unit's limit (AICorePerformanceChecker's bound list).
  void unitBound() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (!isComputeCore(k.core) || k.core == CoreType::AiCpu || !k.priced()) continue;
      const NodeProfile& n = node(k.entry);
      std::string bound;
      double busy = 0;  // the bound unit's ratio
      if (k.cost.family == "matmul" || k.cost.family == "conv" || k.cost.family == "attention") {
        const double mac = metric(n, "mac_ratio"), mte2 = metric(n, "mte2_ratio");
        if (mac >= kCubeMacBound) bound = phrase("profile.bound.cube", {{"ratio", formatPercent(mac)}}), busy = mac;
        else if (mte2 >= kCubeMte2Bound) bound = phrase("profile.bound.cube_memory", {{"ratio", formatPercent(mte2)}}), busy = mte2;
      } else if (k.core == CoreType::Vector || k.core == CoreType::MixVector) {
        const double vec = metric(n, "vec_ratio"), mte = std::max(metric(n, "mte2_ratio"), metric(n, "mte3_ratio"));
        if (vec >= kVectorBound) bound = phrase("profile.bound.vector", {{"ratio", formatPercent(vec)}}), busy = vec;
        else if (mte >= kVectorMteBound) bound = phrase("profile.bound.vector_memory", {{"ratio", formatPercent(mte)}}), busy = mte;
      }
      if (bound.empty()) continue;
      // At its unit's limit: a faster kernel needs less work, not better tiling; only the rest of
      // the unit's time is left to gain.
      g.items.push_back({k.entry, k.measuredMs, std::max(k.rooflineMs, k.measuredMs * std::min(1.0, busy)),
                         phrase("profile.item.bound", {{"call", us(k.callMs)}, {"bound", bound}})});
    }
    emit(g, "profile.unit_bound", Category::Kernel, "method.profile.unit_bound");
  }

  // A cube kernel the roofline calls compute bound whose MTE2 is busier than its compute units:
  // MindStudio Advisor's memory_bound = mte2 / max(vec, mac) > 1.
  void memoryBound() {
    for (const PricedKernel& k : m_k.kernels) {
      if (!k.priced() || k.cost.cost.unit != ComputeUnit::Cube || k.roofline.bound != Bound::Compute) continue;
      const NodeProfile& n = node(k.entry);
      const double mte2 = metric(n, "mte2_ratio"), compute = std::max(metric(n, "vec_ratio"), metric(n, "mac_ratio"));
      if (mte2 < 0 || compute <= 0 || mte2 / compute <= 1) continue;
      const double fixed = std::max(k.rooflineMs, k.measuredMs * compute / mte2);
      if (!significant(k.measuredMs - fixed)) continue;
      Finding f = make("profile.memory_bound", Category::Kernel, {k.entry}, k.measuredMs, fixed,
                              "method.profile.memory_bound");
      f.params["mte2_ratio"] = formatPercent(mte2);
      f.params["compute_ratio"] = formatPercent(compute);
      f.params["memory_bound"] = fmt(mte2 / compute, "%.2f");
      m_out.push_back(std::move(f));
    }
  }

  // Far below the roofline and below the kernels of the same type: the peers' median efficiency
  // says what this kernel should reach.
  void belowRoofline() {
    std::map<std::string, std::vector<double>> byType;
    for (const PricedKernel& k : m_k.kernels)
      if (k.priced() && isComputeCore(k.core)) byType[node(k.entry).opType].push_back(k.efficiency);
    for (auto& [t, v] : byType) std::sort(v.begin(), v.end());
    for (const PricedKernel& k : m_k.kernels) {
      if (!k.priced() || !isComputeCore(k.core) || k.efficiency >= kFarBelow) continue;
      const auto& peers = byType[node(k.entry).opType];
      if (peers.size() < 3) continue;
      const double median = peers[peers.size() / 2];
      if (k.efficiency >= kBelowPeers * median) continue;
      const double fixed = std::min(k.measuredMs, k.rooflineMs / median);
      if (!significant(k.measuredMs - fixed)) continue;
      Finding f = make("profile.below_roofline", Category::Kernel, {k.entry}, k.measuredMs, fixed,
                              "method.profile.below_roofline");
      f.params["peers"] = std::to_string(peers.size() - 1);
      f.params["peer_efficiency"] = formatPercent(median);
      f.params["bound"] = std::string(boundName(k.roofline.bound));
      m_out.push_back(std::move(f));
    }
  }

  // MatMul inner (contiguous) axes off multiples of 256 (AICorePerformanceChecker, cube ops
  // moving >= 100 MB over the run), priced at the affine MatMuls' median efficiency. The axes
  // are the ND operands' last dims; an operand stored in a fractal format (FRACTAL_NZ: 16 x 16
  // blocks, its dims are block counts) has no ND inner axis to align. Before the axis is blamed,
  // the profile's other MatMuls over the same dim say whether it is slow: when one reaches its
  // peers' efficiency, the axis is not the cause. If this one ran as a MIX kernel and that one
  // did not, the kernel CANN selected is (profile.matmul_kernel_selection); otherwise nothing
  // is said here (profile.below_roofline compares it with its peers).
  void matmulAxes() {
    std::vector<double> affine;
    struct C {
      size_t entry;
      int64_t a, b;  // inner axes; -1: a fractal operand
    };
    std::vector<C> off;
    auto aligned = [](int64_t v) { return v < 0 || v % kAffineAxis == 0; };
    for (const PricedKernel& k : m_k.kernels) {
      if (!k.priced() || k.cost.family != "matmul" || k.core == CoreType::AiCpu) continue;
      const NodeProfile& n = node(k.entry);
      auto inner = [&](size_t i) -> int64_t {
        if (i < n.inputFormats.size() && n.inputFormats[i].starts_with("FRACTAL")) return -1;
        if (i >= n.inputShapes.size() || n.inputShapes[i].size() < 3) return 0;
        const std::string& s = n.inputShapes[i];
        const size_t c = s.rfind(',');
        return std::atoll(s.substr(c == std::string::npos ? 1 : c + 1).c_str());
      };
      const int64_t a = inner(0), b = inner(1);
      if (a == 0 || b == 0) continue;
      const double runMb = k.cost.cost.bytes() * k.calls * std::max(1, m_p.iterations) / (1024.0 * 1024.0);
      if (aligned(a) && aligned(b)) affine.push_back(k.efficiency);
      else if (runMb >= kCubeMemoryMb) off.push_back({k.entry, a, b});
    }
    std::sort(affine.begin(), affine.end());
    const double ref = affine.empty() ? 0 : affine[affine.size() / 2];
    auto mix = [](CoreType c) { return c == CoreType::MixCube || c == CoreType::MixVector; };
    for (const C& c : off) {
      const PricedKernel& k = m_k.kernels[c.entry];
      // The fastest MatMul of this profile over the same dim, if it reaches its peers.
      const int64_t axis = aligned(c.a) ? c.b : c.a;
      const PricedKernel* twin = nullptr;
      for (const PricedKernel& t : m_k.kernels)
        if (t.priced() && t.entry != k.entry && t.cost.family == "matmul" &&
            (t.cost.m == axis || t.cost.n == axis || t.cost.k == axis) && t.efficiency >= 2 * k.efficiency &&
            t.efficiency >= kBelowPeers * ref && (!twin || t.efficiency > twin->efficiency))
          twin = &t;
      if (twin) {
        if (mix(k.core) && !mix(twin->core)) {
          const double fixed = std::min(k.measuredMs, k.rooflineMs / twin->efficiency);
          Finding f = make("profile.matmul_kernel_selection", Category::Kernel, {c.entry}, k.measuredMs, fixed,
                           "method.profile.matmul_kernel_selection");
          f.params["axis"] = std::to_string(axis);
          f.params["twin"] = node(twin->entry).name;
          f.params["twin_shape"] = shapeText(node(twin->entry));
          f.params["twin_core"] = std::string(coreTypeName(twin->core));
          f.params["twin_efficiency"] = formatPercent(twin->efficiency);
          m_out.push_back(std::move(f));
        }
        continue;
      }
      auto up = [](int64_t v) { return v < 0 ? v : (v + kAffineAxis - 1) / kAffineAxis * kAffineAxis; };
      auto text = [&](int64_t v) { return v < 0 ? std::string("FRACTAL_NZ") : std::to_string(v); };
      const double grow = static_cast<double>(std::abs(up(c.a) * up(c.b))) / static_cast<double>(std::abs(c.a * c.b));
      const double fixed = ref > 0 ? std::min(k.measuredMs, k.rooflineMs * grow / ref) : k.measuredMs;
      // Listed whatever it saves (msprof-analyze lists every unaffine shape): the impact says
      // whether padding pays off.
      Finding f = make("profile.matmul_axes", Category::Alignment, {c.entry}, k.measuredMs, fixed,
                              ref > 0 ? "method.profile.matmul_axes" : "method.profile.matmul_axes_unpriced",
                              ref > 0 ? ImpactSource::Both : ImpactSource::Estimated);
      f.params["inner_a"] = text(c.a);
      f.params["inner_b"] = text(c.b);
      f.params["aligned_a"] = text(up(c.a));
      f.params["aligned_b"] = text(up(c.b));
      f.params["reference_efficiency"] = ref > 0 ? formatPercent(ref) : std::string("-");
      m_out.push_back(std::move(f));
    }
  }

  // FlashAttention head dim or sequence length off multiples of 128, unless another attention
  // kernel of this profile with the same unaligned dim reaches its peers (then the dim is not
  // what makes this one slow).
  void attentionAxes() {
    std::vector<double> aligned;
    std::vector<size_t> off;
    auto ok = [](int64_t v) { return v <= 0 || v % kAttentionAxis == 0; };
    for (const PricedKernel& k : m_k.kernels) {
      if (!k.priced() || k.cost.family != "attention") continue;
      (ok(k.cost.headDim) && ok(k.cost.seqQ) && ok(k.cost.seqKv) ? aligned.push_back(k.efficiency) : off.push_back(k.entry));
    }
    std::sort(aligned.begin(), aligned.end());
    const double ref = aligned.empty() ? 0 : aligned[aligned.size() / 2];
    for (size_t e : off) {
      const PricedKernel& k = m_k.kernels[e];
      const bool twin = std::any_of(m_k.kernels.begin(), m_k.kernels.end(), [&](const PricedKernel& t) {
        return t.priced() && t.entry != e && t.cost.family == "attention" && t.efficiency >= 2 * k.efficiency &&
               t.efficiency >= kBelowPeers * ref &&
               ((!ok(k.cost.headDim) && t.cost.headDim == k.cost.headDim) || (!ok(k.cost.seqQ) && t.cost.seqQ == k.cost.seqQ) ||
                (!ok(k.cost.seqKv) && t.cost.seqKv == k.cost.seqKv));
      });
      if (twin) continue;
      const double fixed = ref > 0 ? std::min(k.measuredMs, k.rooflineMs / ref) : k.measuredMs;
      Finding f = make("profile.attention_axes", Category::Alignment, {e}, k.measuredMs, fixed,
                              ref > 0 ? "method.profile.attention_axes" : "method.profile.attention_axes_unpriced",
                              ref > 0 ? ImpactSource::Both : ImpactSource::Estimated);
      f.params["head_dim"] = std::to_string(k.cost.headDim);
      f.params["seq_q"] = std::to_string(k.cost.seqQ);
      f.params["seq_kv"] = std::to_string(k.cost.seqKv);
      m_out.push_back(std::move(f));
    }
  }

  // Cube tiles mostly padding: dims off 16 (M, N) and off the 32-byte K block.
  void cubePadding() {
    Group g;
    for (const PricedKernel& k : m_k.kernels) {
      if (!k.priced() || k.cost.cost.unit != ComputeUnit::Cube || k.roofline.bound != Bound::Compute || k.cost.cost.flops <= 0)
        continue;
      const double waste = 1 - k.cost.logicalFlops / k.cost.cost.flops;
      if (waste < kPaddingWaste) continue;
      g.items.push_back({k.entry, k.measuredMs, k.measuredMs * (1 - waste),
                         phrase("profile.item.padding",
                                {{"mnk", fmt(static_cast<double>(k.cost.m), "M %.0f") + fmt(static_cast<double>(k.cost.n), " N %.0f") +
                                             fmt(static_cast<double>(k.cost.k), " K %.0f")},
                                 {"waste", formatPercent(waste)}})});
    }
    emit(g, "profile.cube_padding", Category::Alignment, "method.profile.cube_padding");
  }

  // Measured TransData: round trips (a conversion undone by a later one on the same shape) and
  // weights converted again every step are the avoidable ones.
  void transData() {
    double total = 0;
    std::vector<size_t> all;
    Group avoidable;
    std::map<std::string, int> formatsIn;  // "NCHW -> NC1HWC0" -> count
    std::set<std::pair<std::string, std::string>> conversions;  // (input shape, output shape) of every TransData
    for (const NodeProfile& n : m_p.nodes)
      if (n.opType == "TransData" && !n.inputShapes.empty() && !n.outputShapes.empty())
        conversions.emplace(n.inputShapes.front(), n.outputShapes.front());
    for (size_t i = 0; i < m_p.nodes.size(); ++i) {
      const NodeProfile& n = node(i);
      if (n.opType != "TransData") continue;
      const PricedKernel& k = m_k.kernels[i];
      total += k.measuredMs;
      all.push_back(i);
      const std::string from = n.inputFormats.empty() ? "?" : n.inputFormats.front();
      const std::string to = n.outputFormats.empty() ? "?" : n.outputFormats.front();
      ++formatsIn[from + " -> " + to];
      const bool weight = to.starts_with("FRACTAL_Z") || from.starts_with("FRACTAL_Z");
      // Undone by a later TransData: one converting this output's shape back to this input's.
      const bool back = !n.inputShapes.empty() && !n.outputShapes.empty() &&
                        conversions.count({n.outputShapes.front(), n.inputShapes.front()});
      if (weight || back)
        avoidable.items.push_back(
            {i, k.measuredMs, 0,
             phrase(weight ? "profile.item.transdata_weight" : "profile.item.transdata_undone", {{"conversion", from + " -> " + to}})});
    }
    if (all.empty() || total < kMinShare * m_k.computeMs) return;
    std::string kinds;
    for (const auto& [f, c] : formatsIn) kinds += (kinds.empty() ? "" : ", ") + std::to_string(c) + "x " + f;
    double saved = 0;
    for (const auto& it : avoidable.items) saved += it.current;
    Finding f = make("profile.transdata", Category::Format, all, total, total - saved,
                            "method.profile.transdata");
    f.params["kernels"] = std::to_string(all.size());
    f.params["share"] = formatPercent(m_k.computeMs > 0 ? total / m_k.computeMs : 0);
    f.params["kinds"] = kinds;
    f.params["avoidable"] = std::to_string(avoidable.items.size());
    m_out.push_back(std::move(f));
  }

  // Short kernels the device waited for (Wait Time before them longer than the kernel itself):
  // the host launches them slower than the device runs them.
  void launchBound() {
    double waited = 0, run = 0;
    size_t kernels = 0;
    std::vector<size_t> entries;
    for (const PricedKernel& k : m_k.kernels) {
      if (!isComputeCore(k.core) || k.callMs >= kShortKernelMs) continue;
      const double waitMs = metric(node(k.entry), "wait_time(us)") / 1e3;
      if (waitMs <= k.callMs) continue;
      waited += waitMs * k.calls, run += k.measuredMs;
      kernels += static_cast<size_t>(std::lround(k.calls));
      entries.push_back(k.entry);
    }
    if (kernels < kMinLaunchBound || !significant(waited)) return;
    Finding f = make("profile.launch_bound", Category::SmallOps, entries, waited + run, run,
                            "method.profile.launch_bound");
    f.budgets = {"idle"};
    f.params["kernels"] = std::to_string(kernels);
    f.params["waited"] = us(waited);
    f.params["short"] = us(kShortKernelMs);
    m_out.push_back(std::move(f));
  }

  // Sequences of 2-10 kernel types repeated at least 5 times with 1 % of the time
  // (FusibleOperatorChecker): fused, each occurrence saves its inner launches and waits.
  // Blocks of kernels that run again and again back to back: a transformer's layers forward,
  // then backward. One finding per distinct block (its period, its copies, where they are),
  // however many windows of it one could cut — sliding windows over one layer read as fifteen
  // findings claiming the same time. What fusing saves is the waits and launches between the
  // block's kernels, never their own compute; the actionable fusions inside are named.
  void fusibleSequences() {
    std::vector<size_t> seq;  // compute kernels in execution order: communication is not fused
    for (int e : m_p.taskOrder)
      if (e >= 0 && static_cast<size_t>(e) < m_k.kernels.size() && isComputeCore(m_k.kernels[static_cast<size_t>(e)].core))
        seq.push_back(static_cast<size_t>(e));
    const size_t n = seq.size();
    if (n < 2 * static_cast<size_t>(kMinOccurrences)) return;
    std::vector<std::string> types(n);
    for (size_t i = 0; i < n; ++i) types[i] = node(seq[i]).opType.empty() ? node(seq[i]).name : node(seq[i]).opType;
    struct Repeat {
      size_t start, period, copies;
    };
    std::vector<Repeat> repeats;
    std::vector<bool> covered(n, false);
    // Shortest period first: a block repeated also repeats at twice its length.
    const size_t maxPeriod = std::min<size_t>(kMaxBlock, n / static_cast<size_t>(kMinOccurrences));
    for (size_t period = 2; period <= maxPeriod; ++period) {
      for (size_t i = 0; i + period < n;) {
        size_t j = i;
        while (j + period < n && types[j] == types[j + period]) ++j;
        const size_t copies = (j - i) / period + 1;
        if (copies >= static_cast<size_t>(kMinOccurrences)) {
          const size_t end = i + copies * period;
          const size_t already = static_cast<size_t>(std::count(covered.begin() + static_cast<long>(i), covered.begin() + static_cast<long>(end), true));
          const std::set<std::string> distinct(types.begin() + static_cast<long>(i), types.begin() + static_cast<long>(i + period));
          if (2 * already < end - i && distinct.size() >= 2) {
            repeats.push_back({i, period, copies});
            std::fill(covered.begin() + static_cast<long>(i), covered.begin() + static_cast<long>(end), true);
          }
        }
        i = std::max(i + 1, j + 1);
      }
    }
    // One block, one finding: the same layer in several regions (each micro-batch's pass) is one
    // pattern, whichever kernel its region happens to start with (the smallest rotation names it).
    auto canonical = [&](const Repeat& r) {
      std::vector<std::string> best;
      for (size_t off = 0; off < r.period; ++off) {
        std::vector<std::string> rot;
        for (size_t k = 0; k < r.period; ++k) rot.push_back(types[r.start + (off + k) % r.period]);
        if (best.empty() || rot < best) best = std::move(rot);
      }
      return best;
    };
    std::map<std::vector<std::string>, std::vector<Repeat>> byBlock;
    for (const Repeat& r : repeats) byBlock[canonical(r)].push_back(r);
    for (const auto& [key, regions] : byBlock) {
      const Repeat& r = regions.front();
      double blockMs = 0, gapsMs = 0;
      size_t copies = 0;
      std::vector<size_t> entries;
      for (const Repeat& region : regions)
        for (size_t c = 0; c < region.copies; ++c, ++copies)
          for (size_t k = 0; k < region.period; ++k) {
            const size_t e = seq[region.start + c * region.period + k];
            blockMs += m_k.kernels[e].callMs;
            if (k > 0) gapsMs += std::max(0.0, metric(node(e), "wait_time(us)") / 1e3) + m_floorMs;
            if (std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
          }
      if (blockMs < kMinSequenceShare * m_k.computeMs || !significant(gapsMs)) continue;
      const std::vector<std::string> block(types.begin() + static_cast<long>(r.start),
                                           types.begin() + static_cast<long>(r.start + r.period));
      std::string pattern;
      for (size_t k = 0; k < block.size() && k < kPatternShown; ++k) pattern += (k ? " → " : "") + block[k];
      if (block.size() > kPatternShown) pattern += " → …";
      // What to do about it: the fused operators of the catalogue found inside, and rotary
      // cos/sin recomputed in every copy (compute once per step and pass to each layer).
      std::vector<std::string> actions;
      for (const std::string& fused : training::fusedOperatorsIn(block, "npu")) actions.push_back(fused);
      const bool cos = std::find(block.begin(), block.end(), "Cos") != block.end();
      const bool sin = std::find(block.begin(), block.end(), "Sin") != block.end();
      if (cos && sin) actions.push_back(phrase("profile.action.rope_tables"));
      Finding f = make("profile.fusible_sequence", Category::SmallOps, entries, blockMs + gapsMs, blockMs,
                       "method.profile.fusible_sequence");
      f.budgets.push_back("idle");
      f.params["pattern"] = pattern;
      f.params["period"] = std::to_string(r.period);
      f.params["occurrences"] = std::to_string(copies);
      f.params["share"] = formatPercent(m_k.computeMs > 0 ? blockMs / m_k.computeMs : 0);
      f.params["actions"] = actions.empty() ? phrase("profile.action.graph_mode")
                                            : phraseList(actions, "list.comma") + phrase("profile.action.then_graph_mode");
      m_out.push_back(std::move(f));
    }
  }

  void communication() {
    const auto& b = m_p.stepBreakdownMs;
    auto get = [&](const char* k) { return b.count(k) ? b.at(k) : -1.0; };
    const double comm = get("communication"), exposed = get("communication_not_overlapped"), computing = get("computing");
    if (comm <= 0 || exposed <= 0 || computing < 0) return;
    const double least = std::max(0.0, comm - computing);  // at best all computing hides communication
    Finding f = make("profile.communication", Category::named("communication"), {}, exposed, least,
                            "method.profile.communication");
    f.id = "profile.communication@step";
    f.budgets = {"communication"};
    for (size_t i = 0; i < m_p.nodes.size(); ++i)
      if (m_k.kernels[i].core == CoreType::Communication) f.nodes.push_back(node(i).name);
    f.params["communication"] = us(comm);
    f.params["exposed"] = us(exposed);
    f.params["computing"] = us(computing);
    f.params["share"] = formatPercent(m_c.stepMs > 0 ? exposed / m_c.stepMs : 0);
    if (exposed - least > 0) m_out.push_back(std::move(f));
  }

  // The AI Core clock below its highest value by more than 5 % (AICoreFreqChecker).
  void frequency() {
    const auto& d = m_p.deviceInfo;
    if (!d.count("aic_frequency_min_mhz") || !d.count("aic_frequency_max_mhz")) return;
    const double lo = d.at("aic_frequency_min_mhz"), hi = d.at("aic_frequency_max_mhz");
    const double mean = d.count("aic_frequency_mean_mhz") ? d.at("aic_frequency_mean_mhz") : lo;
    if (hi <= 0 || lo >= (1 - kFrequencyDrop) * hi) return;
    std::vector<size_t> entries;
    double compute = 0;
    for (const PricedKernel& k : m_k.kernels)
      if (isComputeCore(k.core) && k.core != CoreType::AiCpu) entries.push_back(k.entry), compute += k.measuredMs;
    Finding f = make("profile.frequency", Category::Kernel, entries, compute, compute * mean / hi,
                            "method.profile.frequency");
    f.id = "profile.frequency@device";
    f.params["min_mhz"] = fmt(lo, "%.0f");
    f.params["max_mhz"] = fmt(hi, "%.0f");
    f.params["mean_mhz"] = fmt(mean, "%.0f");
    if (significant(compute - compute * mean / hi)) m_out.push_back(std::move(f));
  }

  const ProfileRuleContext& m_c;
  const ProfileData& m_p;
  const PricedProfile& m_k;
  double m_floorMs;
  std::vector<Finding> m_out;
};

}  // namespace

std::string describeOrigin(const NodeProfile::Origin& o) {
  if (o.from.empty()) return "";
  std::string s = !o.frameworkOp.empty() ? o.frameworkOp : o.launchOp;
  if (o.from == "name") return phrase("profile.origin.from_name", {{"op", s}});
  std::string where;
  if (!o.module.empty()) where = o.module;
  if (!o.sourceLine.empty()) where += (where.empty() ? "" : "; ") + o.sourceLine;
  if (!o.launchOp.empty() && o.launchOp != s) s = phrase("profile.origin.via", {{"op", s}, {"launch", o.launchOp}});
  return where.empty() ? s : s + " (" + where + ")";
}

std::map<std::string, double> profileBudgets(const ProfileRuleContext& c) {
  std::map<std::string, double> b;
  double busy = 0;
  for (const PricedKernel& k : c.priced->kernels) {
    b["kernel:" + c.profile->nodes[k.entry].name] += k.measuredMs;
    busy += k.measuredMs;
  }
  b["idle"] = std::max(0.0, c.stepMs - busy);
  const auto& br = c.profile->stepBreakdownMs;
  if (auto it = br.find("communication_not_overlapped"); it != br.end()) b["communication"] = it->second;
  return b;
}

std::vector<Finding> runProfileRules(const ProfileRuleContext& ctx) { return Checks(ctx).run(); }

}  // namespace msa
