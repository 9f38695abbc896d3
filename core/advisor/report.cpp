#include "advisor/report.h"

#include <algorithm>

#include "cost/device_profile.h"
#include "rules/family_registry.h"

namespace msa {

std::string_view goalName(Goal g) {
  return g == Goal::Throughput ? "throughput" : g == Goal::Training ? "training" : "latency";
}
std::string_view scenarioName(Scenario s) { return s == Scenario::Datacenter ? "datacenter" : "edge"; }

bool parseGoal(std::string_view s, Goal& out) {
  if (s == "latency") out = Goal::Latency;
  else if (s == "throughput") out = Goal::Throughput;
  else return false;
  return true;
}

bool parseScenario(std::string_view s, Scenario& out) {
  if (s == "edge") out = Scenario::Edge;
  else if (s == "datacenter") out = Scenario::Datacenter;
  else return false;
  return true;
}

const Finding* Report::finding(std::string_view id) const {
  for (const Finding& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

const Assessment* Report::assessment(std::string_view id) const {
  for (size_t i = 0; i < findings.size() && i < assessments.size(); ++i)
    if (findings[i].id == id) return &assessments[i];
  return nullptr;
}

void summarizeFindings(Report& r) {
  r.categories.clear();
  r.rules.clear();
  std::map<Category, CategorySummary> byCat;
  for (const Finding& f : r.findings) {
    CategorySummary& c = byCat[f.category];
    c.category = f.category;
    ++c.findings;
    c.legal += f.legal;
    c.withFix += f.hasFix();
    ++c.byPriority[static_cast<int>(f.priority)];
    c.impactMs += f.impact.ms;
    if (c.top.empty()) c.top = f.id;  // findings are ranked
  }
  for (auto& [cat, c] : byCat) {
    c.share = r.latencyMs > 0 ? c.impactMs / r.latencyMs : 0.0;
    r.categories.push_back(c);
  }
  // In the order the families give their categories (rules/family_registry.h).
  std::stable_sort(r.categories.begin(), r.categories.end(), [](const CategorySummary& a, const CategorySummary& b) {
    return categoryOrder(a.category) < categoryOrder(b.category);
  });
  std::map<std::string, size_t> byRule;
  for (const Finding& f : r.findings) {
    auto [it, added] = byRule.emplace(f.rule, r.rules.size());
    if (added) r.rules.push_back({f.rule, f.category, 0, 0, 0, f.priority, f.id});
    RuleSummary& s = r.rules[it->second];
    ++s.findings;
    s.impactMs += f.impact.ms;
    s.best = std::min(s.best, f.priority);
  }
  for (RuleSummary& s : r.rules) s.share = r.latencyMs > 0 ? s.impactMs / r.latencyMs : 0.0;
  std::stable_sort(r.rules.begin(), r.rules.end(), [](const RuleSummary& a, const RuleSummary& b) { return a.impactMs > b.impactMs; });
}

void describeDevice(Report& r, const DeviceProfile& device, std::span<const DType> precisions) {
  r.device = device.id;
  r.deviceName = device.displayName;
  r.deviceNameZh = device.displayNameZh;
  r.deviceCalibrated = device.memoryBandwidth.origin == FigureOrigin::Calibrated;
  r.bandwidthBytesPerSecond = device.memoryBandwidth.value;
  r.launchOverheadMs = device.launchOverhead.value * 1e3;
  r.roofs.clear();
  for (ComputeUnit u : {ComputeUnit::Cube, ComputeUnit::Vector})
    for (DType t : precisions)
      if (auto peak = device.peak(u, t)) {
        // A CPU's one roof serves every unit; an NPU's cube and vector units each have theirs.
        const std::string unit = device.kind == DeviceProfile::Kind::Cpu ? "all" : std::string(unitName(u));
        if (std::none_of(r.roofs.begin(), r.roofs.end(), [&](const Report::Roof& x) { return x.flopsPerSecond == *peak; }))
          r.roofs.push_back({unit + " " + std::string(dtypeName(t)), *peak});
      }
}

void applyRanking(Report& r, Ranking ranking) {
  r.findings = std::move(ranking.findings);
  r.assessments = std::move(ranking.assessments);
  r.bottlenecks = std::move(ranking.bottlenecks);
  r.totalImpactMs = ranking.totalImpactMs;
  r.appliedByRuntime = ranking.appliedByRuntime;
  r.safeFixSavingMs = ranking.safeFixSavingMs;
  summarizeFindings(r);
}

}  // namespace msa
