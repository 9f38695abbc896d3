#include "profile/ascend_ops.h"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <unordered_map>

#include "profile/csv_table.h"
#include "profile/name_match.h"

namespace msa {

namespace {

std::vector<std::string> splitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  while (true) {
    size_t e = s.find(sep, b);
    out.push_back(trimmed(std::string_view(s).substr(b, e == std::string::npos ? std::string::npos : e - b)));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

bool blankList(const std::string& field) {
  std::string t = trimmed(field);
  return t.empty() || lowercase(t) == "n/a";
}

double median(std::vector<double> v) { return Stats::of(std::move(v)).median; }

}  // namespace

std::vector<std::string> splitAscendShapes(const std::string& raw) {
  std::string field = raw;
  std::erase(field, '"');  // some exports keep the database value's quotes inside the field
  if (blankList(field)) return {};
  std::vector<std::string> out;
  for (const std::string& tensor : splitOn(field, ';')) {
    if (tensor.empty()) {  // a scalar or absent optional input: msprof leaves the slot empty
      out.emplace_back();
      continue;
    }
    std::string s = "[";
    bool first = true;
    for (const std::string& d : splitOn(tensor, ',')) {
      if (!first) s += ',';
      s += d;
      first = false;
    }
    out.push_back(s + "]");
  }
  return out;
}

std::vector<std::string> splitAscendDtypes(const std::string& field) {
  if (blankList(field)) return {};
  std::vector<std::string> out;
  for (std::string t : splitOn(field, ';')) {
    if (t.starts_with("DT_")) t = t.substr(3);
    out.push_back(lowercase(t));
  }
  return out;
}

std::vector<std::string> splitAscendFormats(const std::string& field) {
  if (blankList(field)) return {};
  std::vector<std::string> out;
  for (std::string t : splitOn(field, ';')) {
    if (t.starts_with("FORMAT_")) t = t.substr(7);
    out.push_back(t);
  }
  return out;
}

std::optional<double> AscendOpRecord::metric(std::string_view name) const {
  if (!metricNames) return std::nullopt;
  for (size_t i = 0; i < metricNames->size() && i < metricValues.size(); ++i)
    if ((*metricNames)[i] == name && !std::isnan(metricValues[i])) return metricValues[i];
  return std::nullopt;
}

const double* ascendMetric(const NodeProfile& n, const std::string& name) {
  for (const char* prefix : {"", "aic_", "aiv_"}) {
    auto it = n.metrics.find(prefix + name);
    if (it != n.metrics.end()) return &it->second;
  }
  return nullptr;
}

ProfileData aggregateAscendOps(std::vector<AscendOpRecord> records, const Graph& graph,
                               const AscendAggregateOptions& options) {
  ProfileData p;
  p.device = options.device;
  p.runtime = options.runtime;
  p.source = options.source;
  p.deviceInfo = options.deviceInfo;
  p.tasks = static_cast<int>(records.size());

  const bool allStart = !records.empty() &&
                        std::all_of(records.begin(), records.end(), [](const auto& r) { return r.startUs >= 0; });
  const bool allIter = !records.empty() &&
                       std::all_of(records.begin(), records.end(), [](const auto& r) { return r.iteration >= 0; });
  if (allStart) {  // sort indices, not the (large) records
    std::vector<size_t> order(records.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return records[a].startUs < records[b].startUs; });
    std::vector<AscendOpRecord> sorted;
    sorted.reserve(records.size());
    for (size_t i : order) sorted.push_back(std::move(records[i]));
    records = std::move(sorted);
  }

  // Iteration index of each record.
  std::vector<int> iterOf(records.size(), 0);
  int iterations = records.empty() ? 0 : 1;
  if (allIter) {
    std::vector<long long> ids;
    for (const auto& r : records) ids.push_back(r.iteration);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (size_t i = 0; i < records.size(); ++i)
      iterOf[i] = static_cast<int>(std::lower_bound(ids.begin(), ids.end(), records[i].iteration) - ids.begin());
    iterations = static_cast<int>(ids.size());
  } else if (options.groupByShapes) {
    // Without iteration ids a device trace is one run: kernel names repeat within it (aclnn
    // names are per API, not per call), so repetition says nothing about iterations.
  } else {
    std::unordered_map<std::string, int> seen;
    for (size_t i = 0; i < records.size(); ++i) {
      iterOf[i] = seen[records[i].name]++;
      iterations = std::max(iterations, iterOf[i] + 1);
    }
  }
  p.iterations = iterations;

  // Groups by name (or name and shapes), in order of first appearance (= execution order when
  // start times exist).
  auto keyOf = [&](const AscendOpRecord& r) {
    if (!options.groupByShapes) return r.name;
    std::string k = r.name;
    for (const auto* list : {&r.inputShapes, &r.outputShapes, &r.inputDtypes, &r.outputDtypes, &r.inputFormats, &r.outputFormats}) {
      k += '\x1f';
      for (const auto& v : *list) k += v + ';';
    }
    return k;
  };
  std::vector<std::vector<size_t>> groups;
  std::unordered_map<std::string, size_t> groupOf;
  for (size_t i = 0; i < records.size(); ++i) {
    auto [it, fresh] = groupOf.emplace(keyOf(records[i]), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  std::unordered_map<std::string, int> variants;  // entries sharing a name get "#2", "#3"…
  // The first iteration's tasks in execution order (records are sorted by start when every
  // record has one).
  std::vector<int> groupIndex(records.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i : groups[g]) groupIndex[i] = static_cast<int>(g);
  if (allStart)
    for (size_t i = 0; i < records.size(); ++i)
      if (iterOf[i] == 0) p.taskOrder.push_back(groupIndex[i]);

  // End-to-end latency per iteration: its span. An excerpt (rows kept from a longer run) is told
  // from a device that idled by the rows' own Wait Time: a gap in the timeline that the task after
  // it did not wait through was not idle time but rows left out of the file.
  std::vector<double> spanLo(iterations, 0), spanHi(iterations, 0), sum(iterations, 0);
  std::vector<double> busy(iterations, 0), unexplained(iterations, 0);
  std::vector<bool> seenIter(iterations, false);
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    int k = iterOf[i];
    sum[k] += r.durationUs;
    const double end = r.startUs + r.durationUs;
    if (!seenIter[k]) {
      spanLo[k] = r.startUs;
      spanHi[k] = end;
      busy[k] = r.durationUs;
      seenIter[k] = true;
      continue;
    }
    spanLo[k] = std::min(spanLo[k], r.startUs);
    if (allStart && r.startUs > spanHi[k]) {  // records are sorted by start: a gap in the union
      const double gap = r.startUs - spanHi[k];
      if (r.metric("wait_time(us)").value_or(0) < 0.5 * gap) unexplained[k] += gap;
    }
    if (allStart) busy[k] += std::max(0.0, end - std::max(r.startUs, spanHi[k]));
    spanHi[k] = std::max(spanHi[k], end);
  }
  double spanAll = 0, busyAll = 0, unexplainedAll = 0;
  for (int k = 0; k < iterations; ++k)
    if (seenIter[k]) spanAll += spanHi[k] - spanLo[k], busyAll += busy[k], unexplainedAll += unexplained[k];
  const bool excerpt =
      allStart && spanAll > 0 && busyAll < kExcerptBusyShare * spanAll && unexplainedAll > kExcerptGapShare * spanAll;
  std::vector<double> latency, spans;
  for (int k = 0; k < iterations; ++k) {
    if (!seenIter[k]) continue;
    spans.push_back((spanHi[k] - spanLo[k]) / 1000.0);
    // An excerpt's step is what its rows show, their own time (every share of it ≤ 100 %).
    latency.push_back(allStart && !excerpt ? spans.back() : sum[k] / 1000.0);
  }
  if (excerpt) {
    p.stepSource = "excerpt";
    p.rowsSpanMs = Stats::of(spans).median;
  }
  p.latencyMs = Stats::of(std::move(latency));

  IrNameMatcher matcher(graph);
  const double cores = options.deviceInfo.count("ai_core_num") ? options.deviceInfo.at("ai_core_num") : 0;
  const double mhz = options.deviceInfo.count("aic_frequency_mhz") ? options.deviceInfo.at("aic_frequency_mhz") : 0;
  std::vector<std::vector<std::string>> implied;  // per entry, see NameMatch::implied
  for (const auto& g : groups) {
    const AscendOpRecord& first = records[g.front()];
    // Shapes and formats from the first record that has them (readers parse them once per name).
    const AscendOpRecord* shaped = &first;
    for (size_t i : g) {
      const auto& r = records[i];
      if (!r.inputShapes.empty() || !r.outputShapes.empty() || !r.inputFormats.empty() || !r.outputFormats.empty() ||
          !r.inputDtypes.empty() || !r.outputDtypes.empty()) {
        shaped = &r;
        break;
      }
    }
    NodeProfile n;
    n.name = first.name;
    if (const int v = ++variants[first.name]; v > 1) n.name += " #" + std::to_string(v);
    n.opType = first.opType;
    n.kernel = first.taskType;
    n.opState = first.opState;
    if (options.origins)
      for (size_t i : g)
        if (records[i].origin >= 0 && static_cast<size_t>(records[i].origin) < options.origins->size()) {
          n.origin = (*options.origins)[static_cast<size_t>(records[i].origin)];
          break;
        }
    n.inputShapes = shaped->inputShapes;
    n.outputShapes = shaped->outputShapes;
    n.inputDtypes = shaped->inputDtypes;
    n.outputDtypes = shaped->outputDtypes;
    n.inputFormats = shaped->inputFormats;
    n.outputFormats = shaped->outputFormats;

    std::map<int, double> perIter;  // a name seen twice in one iteration: its tasks add up
    std::map<int, double> callsPerIter;
    std::map<std::string, std::vector<double>> metricSamples;
    for (size_t i : g) {
      perIter[iterOf[i]] += records[i].durationUs;
      callsPerIter[iterOf[i]] += 1;
      const auto& r = records[i];
      if (!r.metricNames) continue;
      for (size_t k = 0; k < r.metricValues.size() && k < r.metricNames->size(); ++k)
        if (!std::isnan(r.metricValues[k])) metricSamples[(*r.metricNames)[k]].push_back(r.metricValues[k]);
    }
    // An entry absent from some iterations (a kernel whose shape changes between iterations is one
    // entry per shape) ran 0 times in them: per iteration it is its mean over all of them. Taken
    // over the iterations it ran in, each shape's entry read as running every iteration (twice
    // the MatMul time of a step that runs one MatMul).
    const bool everyIteration = static_cast<int>(perIter.size()) >= iterations;
    for (int k = 0; k < iterations; ++k) perIter.emplace(k, 0.0), callsPerIter.emplace(k, 0.0);
    std::vector<double> ms;
    for (const auto& [k, us] : perIter) ms.push_back(us / 1000.0);
    n.timeMs = Stats::of(std::move(ms));
    std::vector<double> calls;
    for (const auto& [k, c] : callsPerIter) calls.push_back(c);
    if (everyIteration) {
      n.calls = median(std::move(calls));
    } else {
      n.timeMs.median = n.timeMs.mean;
      n.calls = std::accumulate(calls.begin(), calls.end(), 0.0) / static_cast<double>(calls.size());
    }
    for (auto& [k, v] : metricSamples) n.metrics[k] = median(std::move(v));

    // cube_utilization(%) as msprof defines it, when the export lacks it but has the cycles.
    const double* cycles = ascendMetric(n, "total_cycles");
    if (cycles && cores > 0 && mhz > 0 && n.timeMs.median > 0 && !ascendMetric(n, "cube_utilization(%)"))
      n.metrics["cube_utilization(%)"] = *cycles / (mhz * cores * n.timeMs.median * 1000.0) * 100.0;

    NameMatch m = matcher.match(n.name, n.opType, options.fusions);
    n.irNodes = m.irNodes;
    implied.push_back(std::move(m.implied));
    n.inserted = m.kind == MatchKind::Inserted;
    if (m.kind == MatchKind::None) p.unmatched.push_back(n.name);
    p.nodes.push_back(std::move(n));
  }
  // Folded nodes a concatenated name leaves out join the kernel unless another entry names them.
  std::unordered_map<std::string, int> covered;
  for (const auto& n : p.nodes)
    for (const auto& ir : n.irNodes) ++covered[ir];
  for (size_t i = 0; i < p.nodes.size(); ++i)
    for (const auto& ir : implied[i])
      if (covered[ir]++ == 0) p.nodes[i].irNodes.push_back(ir);
  matcher.assignNeighbours(p.nodes);
  for (auto& n : p.nodes) {
    if (!n.inserted) continue;  // `neighbours` (undirected, as the ORT mapping fills it) too
    for (const std::string* s : {&n.producerIrNode, &n.consumerIrNode})
      if (!s->empty()) n.neighbours.push_back(*s);
  }
  for (const Node& n : graph.nodes)
    if (!covered.count(n.name) || covered[n.name] == 0) p.irNodesNotRun.push_back(n.name);
  return p;
}

}  // namespace msa
