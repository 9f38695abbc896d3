// SmallOpsAdvisor: operators whose time is mostly the cost of launching them. A summary of how
// many there are and what they cost, and — like msprof-analyze's fusible-operator analysis —
// short operator sequences that repeat through the graph, as candidates for one fused kernel.
// Thresholds and formulas: docs/rules.md (small_ops).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "cost/device_profile.h"
#include "cost/roofline.h"
#include "profile/profile_data.h"
#include "rules/fusion_patterns.h"
#include "rules/ge_fusion.h"
#include "rules/op_sets.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

constexpr double kSmallFactor = 2.0;       // small: time < 2 x the launch overhead
// Summary: at least 10 small ops taking at least 1% of the time (the ranking's P1 line; how much
// they matter is the ranking's to say — a line of the rule's own at the P0 mark made a summary on
// the edge come and go between two analyses of one model), twice that for throughput.
constexpr size_t kMinSmallOps = 10;
constexpr double kMinShareLatency = 0.01;
constexpr double kMinShareThroughput = 0.02;
constexpr size_t kMinMetadataSamples = 3;  // measured launch overhead from >= 3 metadata ops
constexpr size_t kMinSeqLen = 2, kMaxSeqLen = 10;  // msprof-analyze fusible_operator.yaml
constexpr size_t kMinOccurrences = 5;
constexpr double kMinSeqShare = 0.01;
constexpr double kLaunchBound = 0.4;   // launches >= 40% of the sequence's time (host bound)
constexpr double kMemoryBound = 0.8;   // memory >= 80% of the sequence's work (MTE bound)

// The time a share is "of": the run, or the node times when they add up to more (a profiled
// run's node sum includes the profiler's own bookkeeping), so that no share exceeds 100 %.
double runTimeMs(const AnalysisContext& ctx) {
  double sum = 0;
  for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) sum += ctx.timeMs(i);
  return std::max(ctx.latencyMs, sum);
}

// One analysis: the launch overhead in use and which nodes run.
class SmallOpsRun {
 public:
  void run(const AnalysisContext& ctx, std::vector<Finding>& out) {
    const size_t n = ctx.graph->nodes.size();
    m_launch = launchOverheadMs(ctx);
    // Nodes that run: not Constants, not what the constant-folding finding owns (foldable), not
    // ops the device elides. Unmeasured ops of unknown cost (no formula, dynamic shapes) are left
    // out: their estimate is the launch alone, which would make every one of them look small.
    m_runs.assign(n, false);
    for (size_t i = 0; i < n; ++i)
      m_runs[i] = !ctx.node(i).is("Constant") && !ctx.cost->nodes[i].foldable &&
                  (ctx.isMeasured(i) || (ctx.estimatedMs[i] > 0 && ctx.cost->nodes[i].known));
    summary(ctx, out);
    sequences(ctx, out);
  }

 private:
  // The per-op launch cost: on a measured run, the interquartile mean time of the metadata-only
  // ops (they do no work, so their time is dispatch); otherwise the device profile's figure.
  double launchOverheadMs(const AnalysisContext& ctx) {
    m_launchMeasured = false;
    std::vector<double> samples;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      const OpCost& c = ctx.cost->nodes[i];
      if (ctx.isMeasured(i) && !c.movesData && c.flops == 0 && !ctx.node(i).is("Constant") && ctx.measuredMs[i] > 0)
        samples.push_back(ctx.measuredMs[i]);
    }
    if (samples.size() >= kMinMetadataSamples) {
      m_launchMeasured = true;
      return interquartileMean(std::move(samples));
    }
    return ctx.device->launchOverhead.value * 1e3;
  }

  // The node's work without its launch: the roofline's compute or memory time.
  double workMs(const AnalysisContext& ctx, size_t i) const {
    return std::max(0.0, kernelEstimateMs(ctx, i) - ctx.device->launchOverhead.value * 1e3);
  }

  void summary(const AnalysisContext& ctx, std::vector<Finding>& out) const {
    std::vector<size_t> small;
    double total = 0, saved = 0;
    for (size_t i = 0; i < ctx.graph->nodes.size(); ++i) {
      // On a compiled graph (Ascend) a fused kernel counts once, by the node that launches it,
      // and the convolution and matrix kernels are the work itself: the compiler gave them their
      // epilogues already and no neighbour can take them in. What is left is what stays unfused.
      if (!m_runs[i] || !launchesKernel(ctx, i) || (ctx.geFusion && isCompute(ctx.node(i)))) continue;
      const double t = kernelTimeMs(ctx, i);
      if (t >= kSmallFactor * m_launch) continue;
      small.push_back(i);
      total += t;
      // Fused into a neighbour, the op's work stays and its launch goes.
      saved += std::max(0.0, t - workMs(ctx, i));
    }
    const double runMs = runTimeMs(ctx);
    const double share = runMs > 0 ? total / runMs : 0;
    const double minShare = ctx.goal != Goal::Latency ? kMinShareThroughput : kMinShareLatency;
    if (small.size() < kMinSmallOps || share < minShare) return;
    std::sort(small.begin(), small.end(),
              [&](size_t a, size_t b) { return kernelTimeMs(ctx, a) > kernelTimeMs(ctx, b); });
    Finding f = makeAggregateFinding(ctx, "small_ops.summary", Category::SmallOps, small);
    // One summary per analysis, its id the model's: anchored at a member, the id changed whenever
    // the measurement moved which op was the first small one (/Add_1 in one analysis of the
    // BERT-like encoder, /Equal in the next).
    f.id = "small_ops.summary@model";
    std::map<std::string, int> byOp;
    for (size_t i : small) ++byOp[ctx.node(i).opType];
    std::vector<std::pair<int, std::string>> ops;
    for (auto& [op, c] : byOp) ops.push_back({c, op});
    std::sort(ops.rbegin(), ops.rend());
    std::string hist;
    for (size_t k = 0; k < ops.size() && k < 6; ++k) hist += (k ? ", " : "") + ops[k].second + " ×" + std::to_string(ops[k].first);
    f.params["ops"] = hist;
    f.params["small_count"] = std::to_string(small.size());
    // On a compiled graph (Ascend) they are the kernels the compiler left, not the graph's nodes.
    f.params["units"] = phrase(ctx.geFusion ? "small_ops.units.kernels" : "small_ops.units.operators");
    f.params["share"] = formatPercent(share);
    f.params["threshold_us"] = formatSignificant(kSmallFactor * m_launch * 1e3);
    f.params["launch_us"] = formatSignificant(m_launch * 1e3);
    f.params["launch_source"] = m_launchMeasured ? "measured" : "device";
    f.impact.currentMs = total;
    f.impact.fixedMs = total - saved;
    f.impact.ms = f.impact.rawMs = saved;
    const bool measured = groupMeasured(ctx, small);
    f.impact.source = measured ? ImpactSource::Both : ImpactSource::Estimated;
    f.impact.method = phrase("method.small_ops.summary");
    out.push_back(std::move(f));
  }

  // Nodes a specific fusion pattern claims: the fusion family reports those.
  static std::vector<bool> fusionClaimed(const AnalysisContext& ctx) {
    const size_t n = ctx.graph->nodes.size();
    std::vector<bool> claimed(n, false);
    auto mark = [&](const std::optional<PatternMatch>& m) {
      if (m)
        for (size_t k : m->members) claimed[k] = true;
    };
    const auto gelus = matchGeluAll(ctx);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = ctx.node(i);
      if (ctx.geFusion && ctx.geFusion->fused(i)) claimed[i] = true;  // the compiler fused it already
      mark(matchConvBnAct(ctx, i));
      mark(matchMatMulAddAct(ctx, i));
      mark(matchLayerNorm(ctx, i));
      mark(matchSoftmax(ctx, i));
      // A decomposed GELU starts with its scale (Div/Mul) or x³ (Pow).
      if (node.is("Div") || node.is("Mul") || node.is("Pow")) mark(gelus[i]);
      for (auto& [rule, m] : namedPatternsAt(*ctx.index, i)) mark(std::move(m));
    }
    return claimed;
  }

  // Repeated connected op sequences in execution order.
  void sequences(const AnalysisContext& ctx, std::vector<Finding>& out) const {
    const std::vector<bool> claimed = fusionClaimed(ctx);
    // The nodes that run, in execution order. A node a fusion pattern claims ends a window (so
    // the nodes around it never look adjacent); nodes that do not run (elided, folded) are seen
    // through when deciding whether two nodes are connected.
    std::vector<size_t> order;
    for (size_t i : ctx.graph->topologicalOrder())
      if (m_runs[i]) order.push_back(i);
    std::vector<long> position(ctx.graph->nodes.size(), -1);
    for (size_t p = 0; p < order.size(); ++p) position[order[p]] = static_cast<long>(p);
    // Connected: a node reads something an earlier member wrote, i.e. its latest earlier
    // predecessor in `order` lies inside the window. Op types as small ids for hashing.
    std::vector<long> lastPred(order.size(), -1);
    std::vector<uint32_t> opId(order.size());
    std::unordered_map<std::string_view, uint32_t> ids;
    for (size_t q = 0; q < order.size(); ++q) {
      std::vector<size_t> frontier = ctx.index->predecessors(order[q]);
      for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
        std::vector<size_t> next;
        for (size_t pred : frontier) {
          if (position[pred] >= 0) {
            if (position[pred] < static_cast<long>(q)) lastPred[q] = std::max(lastPred[q], position[pred]);
          } else if (!ctx.cost->nodes[pred].foldable) {  // an elided op passes its input through
            for (size_t pp : ctx.index->predecessors(pred)) next.push_back(pp);
          }
        }
        frontier = std::move(next);
      }
      opId[q] = ids.emplace(ctx.node(order[q]).opType, static_cast<uint32_t>(ids.size())).first->second;
    }

    struct Seq {
      std::vector<size_t> starts;  // positions in `order` of the non-overlapping occurrences
      size_t length = 0, lastEnd = 0;
    };
    std::unordered_map<uint64_t, Seq> seqs;
    auto sameOps = [&](size_t a, size_t b, size_t len) {
      for (size_t k = 0; k < len; ++k)
        if (opId[a + k] != opId[b + k]) return false;
      return true;
    };
    for (size_t p = 0; p < order.size(); ++p) {
      if (ctx.progress && ctx.progress->cancelled()) return;
      uint64_t h = 1469598103934665603ull;  // FNV-1a over the op ids
      for (size_t len = 1; len <= kMaxSeqLen && p + len <= order.size(); ++len) {
        const size_t q = p + len - 1;
        if (claimed[order[q]] || (len > 1 && lastPred[q] < static_cast<long>(p))) break;
        h = (h ^ opId[q]) * 1099511628211ull;
        if (len < kMinSeqLen) continue;
        Seq& s = seqs[h ^ (static_cast<uint64_t>(len) << 58)];
        if (s.starts.empty()) s.length = len;
        else if (s.length != len || !sameOps(s.starts.front(), p, len)) continue;  // a hash collision
        else if (p <= s.lastEnd) continue;  // overlaps the previous occurrence
        s.starts.push_back(p);
        s.lastEnd = q;
      }
    }

    struct Candidate {
      const Seq* seq;
      double timeMs;
      bool launchBound;
    };
    std::vector<Candidate> candidates;
    for (const auto& [key, s] : seqs) {
      if (s.starts.size() < kMinOccurrences) continue;
      bool allElementwise = true;
      for (size_t k = 0; k < s.length; ++k) allElementwise = allElementwise && isElementwise(ctx.node(order[s.starts.front() + k]));
      if (allElementwise) continue;  // an elementwise region: fusion.elementwise_chain
      double t = 0, launches = 0, memory = 0, work = 0;
      for (size_t start : s.starts)
        for (size_t k = 0; k < s.length; ++k) {
          const size_t i = order[start + k];
          t += ctx.timeMs(i);
          launches += m_launch;
          const NodeEstimate e = estimateNode(ctx.cost->nodes[i], ctx.node(i).opType, *ctx.device);
          memory += e.memorySeconds;
          work += std::max(e.memorySeconds, e.computeSeconds);
        }
      if (t < kMinSeqShare * ctx.latencyMs) continue;
      const bool launchBound = t > 0 && launches / t >= kLaunchBound;
      const bool memoryBound = work > 0 && memory / work >= kMemoryBound;
      if (!launchBound && !memoryBound) continue;
      candidates.push_back({&s, t, launchBound});
    }
    // The sequences covering the most nodes first (occurrences x length, then longer, then
    // dearer): a layer's repeated body wins over a window that straddles two layers. A sequence
    // mostly inside accepted ones is not reported again.
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      const size_t ca = a.seq->starts.size() * a.seq->length, cb = b.seq->starts.size() * b.seq->length;
      if (ca != cb) return ca > cb;
      return a.seq->length != b.seq->length ? a.seq->length > b.seq->length : a.timeMs > b.timeMs;
    });
    // Accepted sequences are disjoint: an occurrence touching a node an earlier sequence covers is
    // dropped from this one, which is reported only if it still repeats often enough and takes
    // enough time. Their shares then add up to at most the run.
    const double runMs = runTimeMs(ctx);
    std::vector<bool> covered(ctx.graph->nodes.size(), false);
    for (const Candidate& c : candidates) {
      std::vector<std::vector<size_t>> occurrences;
      double timeMs = 0;
      for (size_t start : c.seq->starts) {
        std::vector<size_t> occ(order.begin() + static_cast<long>(start), order.begin() + static_cast<long>(start + c.seq->length));
        if (std::any_of(occ.begin(), occ.end(), [&](size_t i) { return covered[i]; })) continue;
        for (size_t i : occ) timeMs += ctx.timeMs(i);
        occurrences.push_back(std::move(occ));
      }
      if (occurrences.size() < kMinOccurrences || timeMs < kMinSeqShare * runMs) continue;
      for (const auto& occ : occurrences)
        for (size_t i : occ) covered[i] = true;
      out.push_back(sequenceFinding(ctx, opChain(ctx, occurrences.front()), occurrences, timeMs, runMs, c.launchBound));
    }
  }

  static Finding sequenceFinding(const AnalysisContext& ctx, const std::string& key,
                                 const std::vector<std::vector<size_t>>& occurrences, double timeMs, double runMs,
                                 bool launchBound) {
    // The anchor (and so the finding's id) is the first occurrence in execution order: the
    // dearest one changed with the measurement's noise from one analysis to the next.
    Impact total;
    bool measured = true;
    std::vector<size_t> all;
    for (const auto& occ : occurrences) {
      const Impact im = fusionImpact(ctx, occ);
      total.currentMs += im.currentMs;
      total.fixedMs += im.fixedMs;
      measured = measured && im.source != ImpactSource::Estimated;
      all.insert(all.end(), occ.begin(), occ.end());
    }
    Finding f = makeAggregateFinding(ctx, "small_ops.sequence", Category::SmallOps, all);
    f.params["pattern"] = key;
    f.params["occurrences"] = std::to_string(occurrences.size());
    f.params["length"] = std::to_string(occurrences.front().size());
    f.params["share"] = formatPercent(runMs > 0 ? timeMs / runMs : 0);
    f.params["bound"] = launchBound ? "launch" : "memory";
    f.impact.currentMs = total.currentMs;
    f.impact.fixedMs = std::min(total.currentMs, total.fixedMs);
    f.impact.ms = f.impact.rawMs = f.impact.currentMs - f.impact.fixedMs;
    f.impact.source = measured ? ImpactSource::Both : ImpactSource::Estimated;
    f.impact.method = phrase("method.small_ops.sequence");
    return f;
  }

  double m_launch = 0;
  bool m_launchMeasured = false;
  std::vector<bool> m_runs;
};

class SmallOpsAdvisor final : public Rule {
 public:
  std::string_view family() const override { return "small_ops"; }
  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override { SmallOpsRun().run(ctx, out); }
};

}  // namespace

std::unique_ptr<Rule> makeSmallOpsRules() { return std::make_unique<SmallOpsAdvisor>(); }

}  // namespace msa
