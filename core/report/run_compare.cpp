#include "report/run_compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

#include "advisor/report.h"

namespace msa {
namespace {

using training::RankStep;

RunSide sideOf(const Report& r, const std::string& label) {
  RunSide s;
  s.label = label;
  s.device = r.device;
  s.deviceName = r.deviceName;
  s.deviceNameZh = r.deviceNameZh;
  s.stepSource = r.profile ? r.profile->stepSource : std::string();
  s.stepMs = r.latencyMs;
  s.ranks = r.job ? static_cast<int>(r.job->ranks.size()) : 1;
  return s;
}

// A step's phases by id, in the order they are shown: the step record's split where the
// profiler wrote one, else the timeline's.
std::vector<std::pair<std::string, double>> phasesOf(const RankStep& s) {
  if (s.stepRecord)
    return {{"computing", s.computeMs}, {"communication_not_overlapped", s.notOverlappedMs}, {"overlapped", s.overlappedMs}, {"free", s.idleMs}};
  return {{"compute", s.computeMs},
          {"collective_exposed", s.collectiveExposedMs},
          {"p2p_exposed", s.p2pExposedMs},
          {"data_loading", s.dataLoadingMs},
          {"idle", s.idleMs}};
}

// Rows keyed alike in both lists joined, in A's order then B's extras.
std::vector<RunDelta> joined(const std::vector<std::pair<std::string, double>>& a, const std::vector<std::pair<std::string, double>>& b) {
  std::vector<RunDelta> out;
  for (const auto& [key, ms] : a) out.push_back({key, ms, 0, 0, 0, true, false});
  for (const auto& row : b) {
    // A named pair, not a structured binding: clang 14 cannot capture bindings in a lambda.
    const std::string& key = row.first;
    auto it = std::find_if(out.begin(), out.end(), [&](const RunDelta& d) { return d.key == key; });
    if (it == out.end()) it = out.insert(out.end(), RunDelta{key, 0, 0, 0, 0, false, false});
    it->bMs = row.second;
    it->inB = true;
  }
  return out;
}

RunDelta figure(const std::string& key, const RankStep* a, const RankStep* b, double RankStep::*field) {
  return {key, a ? a->*field : 0, b ? b->*field : 0, 0, 0, a != nullptr, b != nullptr};
}

// The two runs' kernel tables, a kernel of one run paired with the same kernel of the other. Most
// names are stable between runs; a name that is not (HCCL numbers its operators per run:
// hcom_allReduce__586_0_1 and __271_0_1 are the same all-reduce) is paired with the next unpaired
// kernel of its type, in execution order, and both carry the pair's name "A-name ~ B-name".
std::pair<TimingTable, TimingTable> pairedKernels(const Report& a, const Report& b, const std::string& labelA,
                                                  const std::string& labelB) {
  TimingTable ta = timingTableOf(a, labelA), tb = timingTableOf(b, labelB);
  std::set<std::string_view> namesA, namesB;
  for (const NodeReport& n : a.nodes) namesA.insert(n.name);
  for (const NodeReport& n : b.nodes) namesB.insert(n.name);
  std::map<std::string_view, std::vector<size_t>> unpairedA;  // by op type, in order
  for (size_t i = 0; i < a.nodes.size(); ++i)
    if (!namesB.count(a.nodes[i].name)) unpairedA[a.nodes[i].opType].push_back(i);
  std::map<std::string_view, size_t> next;
  std::map<std::string, std::string> renamedA;  // A's name -> the pair's
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    const NodeReport& n = b.nodes[i];
    if (namesA.count(n.name)) continue;
    auto it = unpairedA.find(n.opType);
    if (it == unpairedA.end()) continue;
    size_t& k = next[n.opType];
    if (k >= it->second.size()) continue;
    const std::string& nameA = a.nodes[it->second[k++]].name;
    auto [pair, added] = renamedA.emplace(nameA, nameA + " ~ " + n.name);
    tb.nodes[i].first = pair->second;
  }
  for (auto& [name, ms] : ta.nodes)
    if (auto it = renamedA.find(name); it != renamedA.end()) name = it->second;
  return {std::move(ta), std::move(tb)};
}

nlohmann::json deltaJson(const RunDelta& d) {
  nlohmann::json j = {{"key", d.key},
                      {"a_ms", d.inA ? nlohmann::json(d.aMs) : nlohmann::json(nullptr)},
                      {"b_ms", d.inB ? nlohmann::json(d.bMs) : nlohmann::json(nullptr)},
                      {"delta_ms", d.deltaMs()}};
  if (d.countA > 0 || d.countB > 0) j["count_a"] = d.countA, j["count_b"] = d.countB;
  return j;
}

nlohmann::json sideJson(const RunSide& s) {
  return {{"label", s.label}, {"device", s.device},   {"device_name", s.deviceName},
          {"step_ms", s.stepMs}, {"step_source", s.stepSource}, {"ranks", s.ranks}};
}

}  // namespace

bool beyondNoise(const RunDelta& d, double threshold) {
  const double delta = std::fabs(d.deltaMs());
  return d.inA && d.inB && delta > 0.01 && delta > threshold * d.aMs;
}

RunComparison compareRuns(const Report& a, const Report& b, const std::string& labelA, const std::string& labelB, double threshold) {
  RunComparison c;
  c.a = sideOf(a, labelA);
  c.b = sideOf(b, labelB);
  c.threshold = threshold;
  if (a.step || b.step)
    c.phases = joined(a.step ? phasesOf(*a.step) : std::vector<std::pair<std::string, double>>{},
                      b.step ? phasesOf(*b.step) : std::vector<std::pair<std::string, double>>{});

  std::map<std::string, RunDelta> types;
  for (const OpTypeTime& t : a.timeByOpType) {
    RunDelta& d = types[t.opType];
    d.key = t.opType, d.aMs += t.ms, d.countA += t.count, d.inA = true;
  }
  for (const OpTypeTime& t : b.timeByOpType) {
    RunDelta& d = types[t.opType];
    d.key = t.opType, d.bMs += t.ms, d.countB += t.count, d.inB = true;
  }
  for (auto& [key, d] : types) c.kernelTypes.push_back(d);
  std::stable_sort(c.kernelTypes.begin(), c.kernelTypes.end(),
                   [](const RunDelta& x, const RunDelta& y) { return std::fabs(x.deltaMs()) > std::fabs(y.deltaMs()); });

  // A job's ranks by rank number; a single rank of a job stands for itself.
  std::map<int, std::pair<const RankStep*, const RankStep*>> ranks;
  auto rankSteps = [](const Report& r) {
    std::vector<const RankStep*> out;
    if (r.job)
      for (const RankStep& s : r.job->ranks) out.push_back(&s);
    else if (r.step && r.step->rank >= 0)
      out.push_back(&*r.step);
    return out;
  };
  for (const RankStep* s : rankSteps(a)) ranks[s->rank].first = s;
  for (const RankStep* s : rankSteps(b)) ranks[s->rank].second = s;
  if (a.job || b.job)
    for (const auto& [rank, pair] : ranks) {
      const auto [ra, rb] = pair;
      RunComparison::Rank row;
      row.rank = rank;
      row.stage = ra && ra->stage >= 0 ? ra->stage : rb ? rb->stage : -1;
      const std::string key = "rank " + std::to_string(rank);
      row.step = figure(key, ra, rb, &RankStep::stepMs);
      row.compute = figure(key, ra, rb, &RankStep::computeMs);
      row.idle = figure(key, ra, rb, &RankStep::idleMs);
      c.ranks.push_back(row);
    }
  const auto [ta, tb] = pairedKernels(a, b, labelA, labelB);
  c.kernels = compareTimings(ta, tb, threshold);
  return c;
}

nlohmann::json toJson(const RunComparison& c) {
  nlohmann::json phases = nlohmann::json::array(), types = nlohmann::json::array(), ranks = nlohmann::json::array();
  for (const RunDelta& d : c.phases) phases.push_back(deltaJson(d));
  for (const RunDelta& d : c.kernelTypes) types.push_back(deltaJson(d));
  for (const RunComparison::Rank& r : c.ranks)
    ranks.push_back({{"rank", r.rank},
                     {"stage", r.stage >= 0 ? nlohmann::json(r.stage) : nlohmann::json(nullptr)},
                     {"step", deltaJson(r.step)},
                     {"compute", deltaJson(r.compute)},
                     {"idle", deltaJson(r.idle)}});
  return {{"kind", "runs"},
          {"a", sideJson(c.a)},
          {"b", sideJson(c.b)},
          {"step_delta_ms", c.b.stepMs - c.a.stepMs},
          {"threshold", c.threshold},
          {"phases", phases},
          {"kernel_types", types},
          {"ranks", ranks},
          {"kernels", toJson(c.kernels)}};
}

}  // namespace msa
