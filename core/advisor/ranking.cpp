// The one ranking (ranking.h). The policy is documented in docs/advisor.md; keep the two in step.
#include "advisor/ranking.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "rules/texts.h"

namespace msa {
namespace {

constexpr double kRemoved = std::numeric_limits<double>::infinity();

}  // namespace

std::string alikeKey(const Finding& f) {
  if (!f.appliedBy.empty()) return {};
  // The place is where the title names it: the anchor node, a runtime node, a source line.
  Finding masked = f;
  if (!masked.nodes.empty()) masked.nodes.front() = "\x01";
  for (const char* where : {"node", "runtime_node", "origin"})
    if (auto it = masked.params.find(where); it != masked.params.end()) it->second = "\x01";
  return f.rule + (f.legal ? "|legal|" : "|blocked|") + f.fixPass + "|" + f.fixDoneBy + "|" + renderTitle(masked, Lang::En);
}

bool straddles(const ScoreBounds& s, double threshold, double drift) {
  return s.low * (1 - drift) < threshold && s.high * (1 + drift) >= threshold;
}

bool clears(const ScoreBounds& s, double threshold, double drift) {
  return straddles(s, threshold, drift) ? s.median >= threshold : s.low * (1 - drift) >= threshold;
}

namespace {

Priority prioritise(const Finding& f, Assessment& a, bool measurable, const ScoreBounds& score, const ScoreBounds& rule,
                    bool runMeasured, double drift, const PriorityPolicy& p) {
  if (!measurable) {
    a.priorityReason = "zero_impact";
    return Priority::P2;
  }
  if (!f.legal) {
    a.priorityReason = "illegal";
    return Priority::P2;
  }
  // A boundary is crossed only when the score's confidence interval clears it (or, straddling it,
  // the median does), so that run-to-run noise rarely moves a finding across it.
  const bool capped = runMeasured && f.impact.source == ImpactSource::Estimated;
  auto p0Worthy = [](bool p0, bool p1, bool byRule) { return p0 || (p1 && byRule); };
  auto level = [&](bool p0, bool p1, bool byRule) {
    return p0Worthy(p0, p1, byRule) ? (capped ? Priority::P1 : Priority::P0) : p1 ? Priority::P1 : Priority::P2;
  };
  const bool p0 = clears(score, p.p0Score, drift), p1 = clears(score, p.p1Score, drift);
  const bool byRule = clears(rule, p.p0RuleScore, drift);
  // Borderline: a median-decided boundary that, decided the other way, gives another priority.
  const bool s0 = straddles(score, p.p0Score, drift), s1 = straddles(score, p.p1Score, drift);
  const bool sRule = straddles(rule, p.p0RuleScore, drift);
  const Priority given = level(p0, p1, byRule);
  for (int flip = 1; flip < 8; ++flip) {
    const bool f0 = flip & 1, f1 = flip & 2, fRule = flip & 4;
    if ((f0 && !s0) || (f1 && !s1) || (fRule && !sRule)) continue;
    if (level(p0 != f0, p1 != f1, byRule != fRule) != given) a.priorityBorderline = true;
  }
  if (given == Priority::P0) a.priorityReason = p0 ? "share" : "rule_share";
  else if (p0Worthy(p0, p1, byRule)) a.priorityReason = "estimated_cap";
  else a.priorityReason = p1 ? "share" : "below_threshold";
  return given;
}

Priority applied(Assessment& a) {
  a.priorityReason = "applied";
  a.priorityBorderline = false;
  a.score = a.scoreLow = a.scoreHigh = a.scoreMedianLow = a.scoreMedianHigh = 0;
  return Priority::P2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Instances of one pattern (RankingFacts::poolKey) are each a measurement of one thing: their
// scores, spreads, cost-model savings and impacts for the order are pooled (medians over the
// instances) so that one noisy instance neither leads the ranking nor changes the group's
// priority, and the instances rank among themselves in graph order. The impacts shown stay each
// instance's own.
void poolRepeatedPatterns(const std::vector<Finding>& findings, const std::vector<RankingFacts>& facts,
                          std::vector<Assessment>& a, std::vector<double>& costModelMs, std::vector<double>& orderMs) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t k = 0; k < findings.size(); ++k)
    if (!facts[k].poolKey.empty() && findings[k].appliedBy.empty()) groups[facts[k].poolKey].push_back(k);
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::vector<double> score, low, high, saving, order;
    for (size_t k : members) {
      score.push_back(a[k].score);
      low.push_back(a[k].scoreLow);
      high.push_back(a[k].scoreHigh);
      saving.push_back(costModelMs[k]);
      order.push_back(orderMs[k]);
    }
    const double s = median(score), l = std::min(s, median(low)), h = std::max(s, median(high));
    const double e = median(saving), o = median(order);
    for (size_t k : members) {
      a[k].score = s;
      a[k].scoreLow = l;
      a[k].scoreHigh = h;
      costModelMs[k] = e;
      orderMs[k] = o;
    }
  }
}

// Legal findings first (they are what the user can act on), then by raw impact.
std::vector<size_t> claimOrder(const std::vector<Finding>& findings, bool (*keep)(const Finding&)) {
  std::vector<size_t> order;
  for (size_t k = 0; k < findings.size(); ++k)
    if (keep(findings[k])) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Finding &x = findings[a], &y = findings[b];
    if (x.legal != y.legal) return x.legal;
    if (x.impact.rawMs != y.impact.rawMs) return x.impact.rawMs > y.impact.rawMs;
    return x.id < y.id;
  });
  return order;
}

}  // namespace

double medianBound(double score, double end, int samples) {
  if (samples <= 1) return end;
  constexpr double kMedianStandardError = 1.2533141373155;  // √(π/2): the median's SE in σ/√n
  return score + (end - score) * std::min(1.0, kMedianStandardError / std::sqrt(static_cast<double>(samples)));
}

ResourceWeights resourceWeights(Goal goal, Scenario scenario) {
  // Latency: one request at batch 1, nothing hides a launch; on an edge host dispatch runs on a
  // small core. Throughput: requests are batched and pipelined, a launch is paid once per batch
  // (≈ 1/batch per sample) while memory and compute grow with the batch; many streams share a
  // datacenter device's memory bandwidth, and its matrix units are what it is bought for.
  // Training: a step of large batches on a datacenter device; its launches are paid once a step,
  // but an LLM step has thousands of them, so dispatch keeps its full weight.
  if (goal == Goal::Training) return ResourceWeights{1.0, 1.25, 1.25};
  if (goal == Goal::Latency)
    return scenario == Scenario::Edge ? ResourceWeights{1.5, 1.0, 1.0} : ResourceWeights{1.25, 1.25, 1.0};
  return scenario == Scenario::Edge ? ResourceWeights{0.5, 1.25, 1.0} : ResourceWeights{0.25, 1.5, 1.25};
}

std::string nodeBudget(std::string_view node) { return "node:" + std::string(node); }
std::string runtimeBudget(std::string_view node) { return "runtime:" + std::string(node); }

std::vector<std::string> budgetKeys(const Finding& f, size_t* first) {
  if (!f.budgets.empty()) {
    if (first) *first = 0;
    return f.budgets;
  }
  std::vector<std::string> keys;
  for (const auto& n : f.runtimeNodes) keys.push_back(runtimeBudget(n));
  if (first) *first = keys.size();
  for (const auto& n : f.nodes) keys.push_back(nodeBudget(n));
  return keys;
}

std::vector<double> accountOverlaps(const std::vector<Finding>& findings, const std::vector<size_t>& order,
                                    const RankingInputs& in) {
  // What is left of each budget, and the last finding that drew on it (each budget once per
  // finding: a whole-graph finding names tens of thousands of nodes, so no search among them).
  struct Budget {
    double ms = 0;
    size_t drawnBy = std::numeric_limits<size_t>::max();
  };
  std::unordered_map<std::string_view, Budget> left;
  left.reserve(in.budgetMs.size());
  for (const auto& [name, ms] : in.budgetMs) left[name].ms = std::max(0.0, ms * in.budgetScale);
  std::vector<double> impact(findings.size(), 0.0);
  std::vector<double*> slots;
  for (size_t k : order) {
    if (k >= findings.size()) continue;
    const Finding& f = findings[k];
    const double want = std::max(0.0, f.impact.rawMs * in.budgetScale);
    size_t first = 0;
    const std::vector<std::string> keys = budgetKeys(f, &first);
    // Each budget once; those drawn on first (what the fix removes outright) keep their place.
    slots.clear();
    size_t firstSlots = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = left.find(keys[i]);
      if (it == left.end() || it->second.drawnBy == k) continue;
      it->second.drawnBy = k;
      slots.push_back(&it->second.ms);
      if (i < first) ++firstSlots;
    }
    double firstAvailable = 0, restAvailable = 0;
    for (size_t s = 0; s < slots.size(); ++s) (s < firstSlots ? firstAvailable : restAvailable) += *slots[s];
    const bool wholeRun = keys.empty() || (keys.size() == 1 && keys.front() == kWholeRunBudget);
    const double ms = wholeRun ? want : std::min(want, firstAvailable + restAvailable);
    if (ms <= 0) continue;
    // Take from each budget in proportion to what is left of it: the first ones, then the rest.
    const double fromFirst = std::min(ms, firstAvailable), fromRest = ms - fromFirst;
    for (size_t s = 0; s < slots.size(); ++s) {
      double& slot = *slots[s];
      const double pool = s < firstSlots ? firstAvailable : restAvailable;
      const double take = s < firstSlots ? fromFirst : fromRest;
      if (pool > 0) slot = std::max(0.0, slot - take * (slot / pool));
    }
    impact[k] = ms;
  }
  shrinkToFit(impact, in.limitMs);  // the time there is to gain bounds them together
  return impact;
}

void shrinkToFit(std::vector<double>& impactsMs, double limitMs) {
  const double total = std::accumulate(impactsMs.begin(), impactsMs.end(), 0.0), limit = std::max(0.0, limitMs);
  if (total > limit)
    for (double& ms : impactsMs) ms *= limit / total;
}

std::vector<size_t> rankFindings(const std::vector<Finding>& findings, const std::vector<Assessment>& a,
                                 const std::vector<double>& orderMs, const std::vector<long>& position, double drift) {
  const size_t n = findings.size();
  auto low = [&](size_t k) { return a[k].scoreMedianLow * (1 - drift); };
  auto high = [&](size_t k) { return a[k].scoreMedianHigh * (1 + drift); };
  // Whether x goes before y among findings the measurement cannot order.
  auto fixedBefore = [&](size_t x, size_t y) {
    if (findings[x].priority != findings[y].priority) return findings[x].priority < findings[y].priority;
    if (orderMs[x] != orderMs[y]) return orderMs[x] > orderMs[y];
    if (position[x] != position[y]) return position[x] < position[y];
    return findings[x].id < findings[y].id;
  };
  // A topological order of "x's low end above y's high end" (an interval order, so acyclic),
  // taking the fixedBefore-first finding among those whose predecessors are placed. y's
  // predecessors are a prefix of the findings sorted by low end; y is ready once that prefix is.
  std::vector<size_t> byLow(n);
  std::iota(byLow.begin(), byLow.end(), size_t(0));
  std::stable_sort(byLow.begin(), byLow.end(), [&](size_t x, size_t y) { return low(x) > low(y); });
  std::vector<size_t> need(n);
  for (size_t k = 0; k < n; ++k)
    need[k] = static_cast<size_t>(
        std::partition_point(byLow.begin(), byLow.end(), [&](size_t x) { return low(x) > high(k); }) - byLow.begin());
  std::vector<size_t> byNeed(n);
  std::iota(byNeed.begin(), byNeed.end(), size_t(0));
  std::stable_sort(byNeed.begin(), byNeed.end(), [&](size_t x, size_t y) { return need[x] < need[y]; });
  auto later = [&](size_t x, size_t y) { return fixedBefore(y, x); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
  std::vector<bool> placed(n, false);
  std::vector<size_t> rank;
  rank.reserve(n);
  size_t prefix = 0, queued = 0;
  while (rank.size() < n) {
    while (queued < n && need[byNeed[queued]] <= prefix) ready.push(byNeed[queued++]);
    const size_t k = ready.top();
    ready.pop();
    placed[k] = true;
    rank.push_back(k);
    while (prefix < n && placed[byLow[prefix]]) ++prefix;
  }
  return rank;
}

Ranking rank(std::vector<Finding> findings, std::vector<RankingFacts> facts, const RankingInputs& in) {
  facts.resize(findings.size());
  const PriorityPolicy& policy = in.policy;
  auto notApplied = [](const Finding& f) { return f.appliedBy.empty(); };
  const std::vector<double> impacts = accountOverlaps(findings, claimOrder(findings, notApplied), in);
  // A safe fix the runtime already does at load saves nothing in the deployed run.
  const auto safeImpacts = accountOverlaps(
      findings,
      claimOrder(findings, [](const Finding& f) { return f.appliedBy.empty() && f.fixDoneBy.empty() && f.hasFix() && f.safeFix; }),
      in);

  Ranking out;
  out.safeFixSavingMs = std::accumulate(safeImpacts.begin(), safeImpacts.end(), 0.0);
  std::vector<Assessment> assessments(findings.size());
  std::vector<double> costModelMs(findings.size()), orderMs(findings.size());
  std::vector<long> position(findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    Finding& f = findings[k];
    Assessment& a = assessments[k];
    const RankingFacts& x = facts[k];
    const bool isApplied = !f.appliedBy.empty();
    f.impact.ms = impacts[k];
    a.overlapMs = isApplied ? 0.0 : std::max(0.0, f.impact.rawMs * in.budgetScale - f.impact.ms);
    f.speedupLocal = f.impact.fixedMs > 0 ? f.impact.currentMs / f.impact.fixedMs : f.impact.currentMs > 0 ? kRemoved : 1.0;
    f.speedupGlobal = in.latencyMs > 0 ? f.impact.ms / in.latencyMs : 0.0;
    out.totalImpactMs += f.impact.ms;
    out.appliedByRuntime += isApplied;
    a.overheadFraction = x.overheadFraction;
    a.memoryFraction = x.memoryFraction;
    a.computeFraction = x.computeFraction;
    a.launchesSaved = x.launchesSaved;
    const ResourceWeights& w = in.weights;
    a.weight = x.decomposed && f.impact.rawMs > 0
                   ? w.overhead * a.overheadFraction + w.memory * a.memoryFraction + w.compute * a.computeFraction
                   : 1.0;
    a.confidence = 1.0;
    if (in.runMeasured && f.impact.source == ImpactSource::Estimated) a.confidence *= policy.estimatedConfidence;
    if (!f.legal) a.confidence *= policy.illegalConfidence;
    a.score = f.speedupGlobal * a.weight * a.confidence;
    // The spread of a saving is the spread of the time it is taken from: a saving of 0.5 ms out of
    // a part that takes 10 ms ± 2 ms is not known to be above zero.
    if (f.impact.currentMs > 0 && f.impact.ms > 0) {
      a.impactP10Ms = std::max(0.0, f.impact.ms - f.impact.currentMs * (1 - x.spreadLow));
      a.impactP90Ms = f.impact.ms + f.impact.currentMs * (x.spreadHigh - 1);
    } else {
      a.impactP10Ms = f.impact.ms * x.spreadLow;
      a.impactP90Ms = f.impact.ms * x.spreadHigh;
    }
    a.scoreLow = f.impact.ms > 0 ? a.score * a.impactP10Ms / f.impact.ms : 0.0;
    a.scoreHigh = f.impact.ms > 0 ? a.score * a.impactP90Ms / f.impact.ms : 0.0;
    costModelMs[k] = isApplied ? 0.0 : x.costModelMs;
    // Within a priority the list reads by impact: the cost model's saving is a tie-breaker only.
    orderMs[k] = isApplied ? 0.0 : f.impact.ms;
    position[k] = x.position;
  }
  poolRepeatedPatterns(findings, facts, assessments, costModelMs, orderMs);
  std::vector<ScoreBounds> bounds(findings.size());
  std::map<std::string, ScoreBounds> ruleBounds;  // a rule's findings together
  // Whether it saves anything measurable (a saving only one noisy run shows is not a
  // bottleneck): its share of the run, the score unweighted, against the same drift as the
  // priorities, so that this boundary does not flip between analyses either.
  std::vector<bool> measurable(findings.size());
  for (size_t k = 0; k < findings.size(); ++k) {
    Assessment& a = assessments[k];  // the median's interval, of the pooled score where pooled
    a.scoreMedianLow = medianBound(a.score, a.scoreLow, facts[k].samples);
    a.scoreMedianHigh = medianBound(a.score, a.scoreHigh, facts[k].samples);
    const double w = a.weight * a.confidence;
    bounds[k] = {a.scoreMedianLow, a.scoreMedianHigh, a.score};
    measurable[k] = w > 0 && clears({bounds[k].low / w, bounds[k].high / w, bounds[k].median / w}, policy.minShare, in.drift);
    if (!findings[k].legal) continue;
    ScoreBounds& rule = ruleBounds[findings[k].rule];
    rule.low += bounds[k].low;
    rule.high += bounds[k].high;
    rule.median += bounds[k].median;
  }
  for (size_t k = 0; k < findings.size(); ++k)
    findings[k].priority = findings[k].appliedBy.empty()
                               ? prioritise(findings[k], assessments[k], measurable[k], bounds[k],
                                            ruleBounds[findings[k].rule], in.runMeasured, in.drift, policy)
                               : applied(assessments[k]);

  std::vector<size_t> order = rankFindings(findings, assessments, orderMs, position, in.drift);
  // Priorities first: a P1 the measurement puts above a P0 (one carried to P0 by its rule) still
  // reads below it.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return findings[x].priority < findings[y].priority; });
  std::vector<std::string> keys;                 // alikeKey of each ranked finding, computed once
  keys.reserve(order.size());
  std::map<std::string, size_t> representative;  // alikeKey -> the TOP-N finding standing for it
  for (size_t pos = 0; pos < order.size(); ++pos) {
    out.findings.push_back(std::move(findings[order[pos]]));
    out.assessments.push_back(assessments[order[pos]]);
    Assessment& a = out.assessments.back();
    a.rank = static_cast<int>(pos) + 1;
    const Finding& f = out.findings.back();
    keys.push_back(alikeKey(f));
    if (static_cast<int>(out.bottlenecks.size()) < in.topN && f.appliedBy.empty() && measurable[order[pos]] &&
        f.speedupGlobal >= policy.minShare) {
      // One slot per problem: the best-ranked instance stands for the others (listed with it).
      if (!keys.back().empty() && !representative.emplace(keys.back(), pos).second) continue;
      a.bottleneck = true;
      out.bottlenecks.push_back(f.id);
    }
  }
  // Alike is what ranks below the one standing for it: an instance above it that is no bottleneck
  // itself (nothing measurable) is listed on its own.
  for (size_t k = 0; k < out.findings.size(); ++k) {
    auto rep = keys[k].empty() ? representative.end() : representative.find(keys[k]);
    if (rep == representative.end() || rep->second >= k) continue;
    Assessment& a = out.assessments[rep->second];
    a.alike.push_back(out.findings[k].id);
    a.alikeMs += out.findings[k].impact.ms;
  }
  return out;
}

}  // namespace msa
