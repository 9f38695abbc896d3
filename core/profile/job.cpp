#include "profile/job.h"
#include "util/input_file.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "profile/communication.h"
#include "profile/json_file.h"
#include "profile/npu_folder.h"

namespace msa::training {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// "rank3", "rank-3", "rank_3" anywhere in a name; -1 when there is none.
int rankInName(const std::string& name) {
  const std::string n = lower(name);
  for (size_t at = n.find("rank"); at != std::string::npos; at = n.find("rank", at + 1)) {
    size_t i = at + 4;
    while (i < n.size() && (n[i] == '-' || n[i] == '_')) ++i;
    size_t j = i;
    while (j < n.size() && std::isdigit(static_cast<unsigned char>(n[j]))) ++j;
    if (j > i) return std::stoi(n.substr(i, j - i));
  }
  return -1;
}

// torch_npu writes profiler_info_<rank>.json beside ASCEND_PROFILER_OUTPUT.
int npuRank(const fs::path& folder) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string n = e.path().filename().string();
    if (n.starts_with("profiler_info_") && n.ends_with(".json")) {
      const std::string digits = n.substr(14, n.size() - 19);
      if (!digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::stoi(digits);
    }
  }
  return rankInName(folder.filename().string());
}

// Kineto: {"distributedInfo": {"rank": N, …}} near the top of the file.
int kinetoRank(const fs::path& file) {
  const std::string name = file.filename().string();
  if (!name.ends_with(".gz") && checkInput(file)) {
    std::ifstream in(file, std::ios::binary);
    std::string head(1 << 16, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (auto at = head.find("\"distributedInfo\""); at != std::string::npos)
      if (auto r = head.find("\"rank\"", at); r != std::string::npos) {
        size_t i = head.find(':', r);
        while (i != std::string::npos && i + 1 < head.size() && !std::isdigit(static_cast<unsigned char>(head[i]))) ++i;
        if (i != std::string::npos && i < head.size() && std::isdigit(static_cast<unsigned char>(head[i]))) return std::atoi(head.c_str() + i);
      }
  }
  return rankInName(name);
}

bool isKinetoTrace(const std::string& name) {
  return name.ends_with(".pt.trace.json") || name.ends_with(".pt.trace.json.gz") ||
         (name.ends_with(".json") && name.find("trace") != std::string::npos) ||
         (name.ends_with(".json.gz") && name.find("trace") != std::string::npos);
}

}  // namespace

Result<std::vector<ClusterMember>> clusterMembers(const fs::path& dir) {
  std::vector<ClusterMember> out;
  if (!isDir(dir) || isDir(dir / "ASCEND_PROFILER_OUTPUT") || dir.filename() == "ASCEND_PROFILER_OUTPUT") return out;
  std::error_code ec;
  std::vector<fs::path> npu, kineto;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory() && training::isFrameworkRunName(n) && isDir(e.path() / "ASCEND_PROFILER_OUTPUT")) npu.push_back(e.path());
    else if (e.is_regular_file() && isKinetoTrace(n)) kineto.push_back(e.path());
  }
  if (ec) return Error::model("cannot list the folder (" + ec.message() + ")", dir.string());
  const bool useNpu = npu.size() >= 2;
  std::vector<fs::path>& files = useNpu ? npu : kineto;
  if (files.size() < 2) return out;
  std::sort(files.begin(), files.end());
  std::set<int> seen;
  for (const fs::path& p : files) {
    const int rank = useNpu ? npuRank(p) : kinetoRank(p);
    out.push_back({rank, p});
  }
  // Ranks must be unique; when the files do not say (or say twice), their order does.
  for (const auto& m : out) seen.insert(m.rank);
  if (seen.size() != out.size() || seen.count(-1))
    for (size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i);
  std::sort(out.begin(), out.end(), [](const ClusterMember& a, const ClusterMember& b) { return a.rank < b.rank; });
  return out;
}

namespace {

// torch_npu's matrix lists each op type of a group several times: "allreduce-top1@<group>",
// "-middle@", "-bottom1@" … are its largest, middle and smallest instances, "-total@" all of them.
// Only the total is traffic; the others would count it again.
bool isMatrixStatistic(const std::string& op) {
  const size_t at = op.find('@'), dash = op.rfind('-', at);
  if (at == std::string::npos || dash == std::string::npos) return false;
  std::string stat = op.substr(dash + 1, at - dash - 1);
  while (!stat.empty() && std::isdigit(static_cast<unsigned char>(stat.back()))) stat.pop_back();
  return stat == "top" || stat == "middle" || stat == "bottom";
}

// "allreduce-top1@<group>" -> "allreduce-total@<group>".
std::string totalOf(const std::string& statistic) {
  const size_t at = statistic.find('@'), dash = statistic.rfind('-', at);
  return statistic.substr(0, dash) + "-total" + statistic.substr(at);
}

}  // namespace

RankStep rankStep(int rank, const fs::path& path, const TrainingProfile* timeline, const std::vector<StepTraceRow>& record,
                  const std::map<std::string, double>& recordSplit) {
  RankStep r;
  r.rank = rank;
  r.path = path.string();
  if (timeline) {
    const StepBreakdown& m = timeline->median;
    r.stepMs = timeline->stepMs, r.busyMs = m.busyMs, r.computeMs = m.computeMs, r.idleMs = m.idleMs;
    r.dataLoadingMs = m.dataLoadingMs, r.collectiveExposedMs = m.collectiveExposedMs, r.p2pExposedMs = m.p2pExposedMs;
  }
  // The profiler's own split, where the rank wrote one (msprof-analyze's cluster step trace).
  if (!record.empty()) {
    std::vector<double> total, computing, notOverlapped, overlapped, free;
    for (const StepTraceRow& s : record) {
      total.push_back(s.totalUs() / 1000), computing.push_back(s.computingUs / 1000);
      notOverlapped.push_back(s.communicationNotOverlappedUs / 1000), overlapped.push_back(s.overlappedUs / 1000);
      free.push_back(s.freeUs / 1000);
    }
    r.stepRecord = true;
    r.stepMs = median(total), r.computeMs = median(computing), r.idleMs = median(free);
    r.notOverlappedMs = median(notOverlapped), r.overlappedMs = median(overlapped);
  } else if (recordSplit.count("computing") && recordSplit.count("free")) {
    auto at = [&](const char* k) { return recordSplit.count(k) ? recordSplit.at(k) : 0.0; };
    r.stepRecord = true;
    r.computeMs = at("computing"), r.idleMs = at("free");
    r.notOverlappedMs = at("communication_not_overlapped"), r.overlappedMs = at("overlapped");
    r.stepMs = r.computeMs + r.notOverlappedMs + r.idleMs;
  }
  std::error_code ec;
  if (!path.empty() && fs::is_directory(path, ec))
    if (auto layout = readParallelLayout(path / "profiler_metadata.json"); layout && layout->pp > 1) r.stage = layout->stage();
  return r;
}

namespace {

// One link's traffic of a communication matrix entry ({"Transport Type", "Transit Size(MB)",
// "Transit Time(ms)", …}); local copies are no link.
void addLink(std::map<std::pair<std::string, std::string>, LinkTraffic>& links, const std::string& link,
             const nlohmann::json& info) {
  const std::string transport = stringAt(info, "Transport Type");
  if (transport.empty() || transport == "LOCAL") return;
  LinkTraffic& t = links[{link, transport}];
  t.link = link;
  t.transport = transport;
  t.megabytes += numberAt(info, "Transit Size(MB)", 0.0);
  t.ms += numberAt(info, "Transit Time(ms)", 0.0);
}

nlohmann::json readJsonObject(const fs::path& file) {
  if (!checkInput(file)) return {};
  std::ifstream in(file);
  auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::json();
}

// The slow rank and its cause, the stages' compute and the links, once `v.ranks` are known.
void completeView(ClusterView& v, std::map<std::pair<std::string, std::string>, LinkTraffic> links, double steps) {
  std::vector<double> compute, idle;
  std::map<int, std::vector<double>> byStage;
  for (const RankStep& r : v.ranks) {
    if (r.stage >= 0) byStage[r.stage].push_back(r.computeMs);
    compute.push_back(r.computeMs);
    idle.push_back(r.idleMs);
  }
  if (v.ranks.empty()) return;
  v.slowRank = static_cast<int>(std::max_element(v.ranks.begin(), v.ranks.end(), [](const RankStep& a, const RankStep& b) {
                                  return a.computeMs + a.idleMs < b.computeMs + b.idleMs;
                                }) - v.ranks.begin());
  const RankStep& slow = v.ranks[static_cast<size_t>(v.slowRank)];
  if (byStage.size() > 1 && slow.stage >= 0) {  // its peers: the ranks of its stage
    compute.clear(), idle.clear();
    for (const RankStep& r : v.ranks)
      if (r.stage == slow.stage) compute.push_back(r.computeMs), idle.push_back(r.idleMs);
    v.stagePeers = true;
  }
  v.peers = static_cast<int>(compute.size());
  v.medianComputeMs = median(compute);
  v.medianIdleMs = median(idle);
  v.slowCause = slow.idleMs - v.medianIdleMs > slow.computeMs - v.medianComputeMs ? "host" : "device";
  for (const auto& [stage, c] : byStage) v.stages.push_back({stage, median(c), static_cast<int>(c.size())});
  const double perStep = std::max(1.0, steps);
  for (auto& [key, t] : links) {
    t.megabytes /= perStep;
    t.ms /= perStep;
    if (t.ms > 0) v.links.push_back(t);
  }
  std::sort(v.links.begin(), v.links.end(), [](const LinkTraffic& a, const LinkTraffic& b) { return a.gbps() < b.gbps(); });
}

}  // namespace

ClusterView buildClusterView(const std::vector<ClusterMember>& members, const std::vector<TrainingProfile>& profiles,
                             const std::vector<std::vector<StepTraceRow>>& stepTraces, const std::vector<fs::path>& matrices) {
  ClusterView v;
  for (size_t i = 0; i < members.size() && i < profiles.size(); ++i)
    v.ranks.push_back(rankStep(members[i].rank, members[i].path, &profiles[i], i < stepTraces.size() ? stepTraces[i] : std::vector<StepTraceRow>{}));

  // communication_matrix.json: {"step<N>": {"p2p"|"collective": {op: {"src-dst": {"Transport Type",
  // "Transit Size(MB)", "Transit Time(ms)", …}}}}}. Every rank writes the links it took part in:
  // one (step, op, link) is counted once.
  std::map<std::pair<std::string, std::string>, LinkTraffic> links;
  std::set<std::string> counted, stepKeys;
  for (const fs::path& file : matrices) {
    const nlohmann::json j = readJsonObject(file);
    for (const auto& [step, kinds] : j.items()) {
      if (!kinds.is_object()) continue;
      stepKeys.insert(step);
      for (const auto& [kind, ops] : kinds.items()) {
        if (!ops.is_object()) continue;
        for (const auto& [op, byLink] : ops.items()) {
          if (!byLink.is_object()) continue;
          // An instance listed as a statistic counts only where its type has no total.
          const bool statistic = isMatrixStatistic(op);
          if (statistic && ops.contains(totalOf(op))) continue;
          for (const auto& [link, info] : byLink.items()) {
            if (!info.is_object()) continue;
            const std::string instance = statistic ? stringAt(info, "Op Name") : op;
            if (counted.insert(step + "|" + instance + "|" + link).second) addLink(links, link, info);
          }
        }
      }
    }
  }
  completeView(v, std::move(links), static_cast<double>(stepKeys.size()));
  return v;
}

fs::path clusterSummaryCsv(const fs::path& path) {
  constexpr const char* kCsv = "cluster_step_trace_time.csv";
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return path.filename() == kCsv ? path : fs::path();
  for (const fs::path& p : {path / kCsv, path / "cluster_analysis_output" / kCsv})
    if (fs::is_regular_file(p, ec)) return p;
  return {};
}

Result<ClusterView> readClusterSummary(const fs::path& csv) {
  auto rows = readStepTraceTime(csv);
  if (!rows) return rows.error();
  std::map<int, std::vector<StepTraceRow>> byRank;
  std::map<int, int> stageOf;
  for (const StepTraceRow& r : *rows) {
    if (r.type == "rank") {
      char* end = nullptr;
      const long rank = std::strtol(r.index.c_str(), &end, 10);
      if (r.index.empty() || *end != '\0' || rank < 0 || rank > 1000000)
        return Error::model("a rank row whose Index '" + r.index + "' is not a rank", csv.string());
      byRank[static_cast<int>(rank)].push_back(r);
    } else if (r.type == "stage") {
      // "(0, 2)": one pipeline's ranks; Megatron numbers a pipeline's stages in rank order.
      std::vector<int> group;
      for (size_t i = 0; i < r.index.size();) {
        if (!std::isdigit(static_cast<unsigned char>(r.index[i]))) { ++i; continue; }
        size_t j = i;
        while (j < r.index.size() && std::isdigit(static_cast<unsigned char>(r.index[j])) && j - i < 7) ++j;
        group.push_back(std::stoi(r.index.substr(i, j - i)));
        i = j;
      }
      std::sort(group.begin(), group.end());
      if (group.size() > 1)
        for (size_t k = 0; k < group.size(); ++k) stageOf[group[k]] = static_cast<int>(k);
    }
  }
  if (byRank.size() < 2)
    return Error::model("not msprof-analyze's cluster step trace: fewer than two rows of Type 'rank'", csv.string());
  ClusterView v;
  for (auto& [rank, steps] : byRank) {
    RankStep r = rankStep(rank, {}, nullptr, steps);
    if (stageOf.count(rank)) r.stage = stageOf.at(rank);
    v.ranks.push_back(std::move(r));
  }
  // cluster_communication_matrix.json: {"(0, 1, 2, 3)": {"<step>": {"Total Op Info@<group>":
  // {"src-dst": {…}}, "<op>@<group>": …}}}: each group's total, per step.
  std::map<std::pair<std::string, std::string>, LinkTraffic> links;
  std::set<std::string> steps;
  const nlohmann::json matrix = readJsonObject(csv.parent_path() / "cluster_communication_matrix.json");
  for (const auto& [group, bySteps] : matrix.items()) {
    if (!bySteps.is_object()) continue;
    for (const auto& [step, ops] : bySteps.items()) {
      if (!ops.is_object()) continue;
      steps.insert(step);
      for (const auto& [op, byLink] : ops.items())
        if (op.starts_with("Total Op Info") && byLink.is_object())
          for (const auto& [link, info] : byLink.items())
            if (info.is_object()) addLink(links, link, info);
    }
  }
  completeView(v, std::move(links), static_cast<double>(steps.size()));
  return v;
}

}  // namespace msa::training
