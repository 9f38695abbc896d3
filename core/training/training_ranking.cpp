#include "training/training_ranking.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace msa::training {
namespace {

Priority prioritise(const Finding& f, Assessment& a, double share, double ruleScore, const PriorityPolicy& p) {
  if (share < p.minShare) {
    a.priorityReason = "zero_impact";
    return Priority::P2;
  }
  if (!f.legal) {
    a.priorityReason = "illegal";
    return Priority::P2;
  }
  const bool byRule = a.score >= p.p1Score && ruleScore >= p.p0RuleScore;
  if (a.score >= p.p0Score || byRule) {
    if (f.impact.source == ImpactSource::Estimated) {  // a trace is always a measured run
      a.priorityReason = "estimated_cap";
      return Priority::P1;
    }
    a.priorityReason = a.score >= p.p0Score ? "share" : "rule_share";
    return Priority::P0;
  }
  a.priorityReason = a.score >= p.p1Score ? "share" : "below_threshold";
  return a.score >= p.p1Score ? Priority::P1 : Priority::P2;
}

}  // namespace

Ranking rankFindings(std::vector<TrainingFinding> in, const std::map<std::string, double>& budgetMs, double stepMs, int topN,
                     const PriorityPolicy& policy) {
  // Claim order: legal first, then by raw impact (the advisor's order).
  std::vector<size_t> order(in.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Finding &x = in[a].finding, &y = in[b].finding;
    if (x.legal != y.legal) return x.legal;
    if (x.impact.rawMs != y.impact.rawMs) return x.impact.rawMs > y.impact.rawMs;
    return x.id < y.id;
  });
  std::map<std::string, double> left;
  for (const auto& [name, ms] : budgetMs) left[name] = std::max(0.0, ms);
  std::vector<double> impact(in.size(), 0.0);
  for (size_t k : order) {
    const TrainingFinding& tf = in[k];
    const double want = std::max(0.0, tf.finding.impact.rawMs);
    std::vector<double*> slots;
    for (const auto& b : tf.budgets)
      if (auto it = left.find(b); it != left.end() && std::find(slots.begin(), slots.end(), &it->second) == slots.end())
        slots.push_back(&it->second);
    double available = 0;
    for (double* s : slots) available += *s;
    const double ms = tf.budgets.empty() ? want : std::min(want, available);
    if (ms <= 0) continue;
    if (!tf.budgets.empty() && available > 0)
      for (double* s : slots) *s = std::max(0.0, *s - ms * (*s / available));
    impact[k] = ms;
  }
  shrinkToFit(impact, stepMs);  // at most the step together

  std::vector<Assessment> assessments(in.size());
  for (size_t k = 0; k < in.size(); ++k) {
    Finding& f = in[k].finding;
    Assessment& a = assessments[k];
    f.impact.ms = impact[k];
    a.overlapMs = std::max(0.0, f.impact.rawMs - f.impact.ms);
    f.speedupLocal = f.impact.fixedMs > 0 ? f.impact.currentMs / f.impact.fixedMs
                     : f.impact.currentMs > 0 ? std::numeric_limits<double>::infinity()
                                              : 1.0;
    f.speedupGlobal = stepMs > 0 ? f.impact.ms / stepMs : 0.0;
    a.confidence = 1.0;
    if (f.impact.source == ImpactSource::Estimated) a.confidence *= policy.estimatedConfidence;
    if (!f.legal) a.confidence *= policy.illegalConfidence;
    a.score = f.speedupGlobal * a.confidence;
  }
  std::map<std::string, double> ruleScore;
  for (size_t k = 0; k < in.size(); ++k)
    if (in[k].finding.legal) ruleScore[in[k].finding.rule] += assessments[k].score;
  for (size_t k = 0; k < in.size(); ++k)
    in[k].finding.priority =
        prioritise(in[k].finding, assessments[k], in[k].finding.speedupGlobal, ruleScore[in[k].finding.rule], policy);

  std::vector<size_t> rank(in.size());
  std::iota(rank.begin(), rank.end(), size_t(0));
  std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) {
    if (assessments[a].score != assessments[b].score) return assessments[a].score > assessments[b].score;
    if (in[a].finding.impact.ms != in[b].finding.impact.ms) return in[a].finding.impact.ms > in[b].finding.impact.ms;
    return in[a].finding.id < in[b].finding.id;
  });
  Ranking r;
  for (size_t pos = 0; pos < rank.size(); ++pos) {
    TrainingFinding& tf = in[rank[pos]];
    Assessment a = assessments[rank[pos]];
    a.rank = static_cast<int>(pos) + 1;
    if (static_cast<int>(r.bottlenecks.size()) < topN && tf.finding.speedupGlobal >= policy.minShare) {
      a.bottleneck = true;
      r.bottlenecks.push_back(tf.finding.id);
    }
    r.totalImpactMs += tf.finding.impact.ms;
    r.findings.push_back(std::move(tf.finding));
    r.budgets.push_back(std::move(tf.budgets));
    r.assessments.push_back(a);
  }
  return r;
}

}  // namespace msa::training
