#pragma once
// Several ranks of one training job: a folder of torch_npu *_ascend_pt folders (one per rank) or
// of Kineto traces (*.pt.trace.json[.gz], one per rank). Each rank is analysed on its own; the
// cluster view puts their median steps side by side (each rank's own step record where it wrote
// one), its pipeline stages' compute, names the slow rank (the one the others wait for in their
// collectives: the most time of its own, compute + idle, per step) and whether its device or its
// host holds it, and, from torch_npu's communication_matrix.json, the slow link (a link whose
// bandwidth is far below its transport's median).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "profile/trace_analysis.h"
#include "util/error.h"

namespace msa::training {

struct ClusterMember {
  int rank = -1;
  std::filesystem::path path;
};

// The members of a cluster folder, by rank; empty when `dir` is one rank's trace (a single
// *_ascend_pt folder, an ASCEND_PROFILER_OUTPUT, a file). Ranks come from profiler_info_<rank>.json
// (torch_npu), the trace's distributedInfo.rank (Kineto), else "rank<N>" in the name, else the
// order of the names.
Result<std::vector<ClusterMember>> clusterMembers(const std::filesystem::path& dir);

struct RankStep {
  int rank = -1;
  std::string path;
  // Per step, medians. From the rank's own step record (step_trace_time.csv) when it has one
  // (`stepRecord`: computeMs its Computing, idleMs its Free), else from its timeline.
  double stepMs = 0, busyMs = 0, computeMs = 0, idleMs = 0, dataLoadingMs = 0;
  double collectiveExposedMs = 0, p2pExposedMs = 0;
  bool stepRecord = false;
  double notOverlappedMs = 0, overlappedMs = 0;  // the step record's communication
  int stage = -1;  // pipeline stage (0-based, profiler_metadata.json), -1 unknown
};

struct StageCompute {
  int stage = 0;
  double computeMs = 0;  // the median of its ranks' compute per step
  int ranks = 0;
};

struct LinkTraffic {
  std::string link;       // "src-dst" ranks, as torch_npu writes it
  std::string transport;  // HCCS, RDMA, PCIE, SIO, …
  double megabytes = 0, ms = 0;  // per step, summed over the ops that used it
  double gbps() const { return ms > 0 ? megabytes / ms : 0; }  // MB/ms = GB/s
};

struct ClusterView {
  std::vector<RankStep> ranks;  // by rank
  // The rank the others wait for: the most time of its own (compute + idle) per step; index
  // into ranks. Its cause: "device" when its compute exceeds its peers' median by more than its
  // idle time does, else "host" (its device waits for its host's dispatch). Its peers are the
  // ranks doing the same work: those of its pipeline stage when the stages are known (another
  // stage's layers are other work: that difference is the stages' imbalance), else all ranks.
  int slowRank = -1;
  std::string slowCause;
  double medianComputeMs = 0, medianIdleMs = 0;  // of the slow rank's peers
  int peers = 0;                                 // how many (the slow rank among them)
  bool stagePeers = false;                       // its pipeline stage's ranks
  std::vector<StageCompute> stages;  // by stage, when the ranks' layouts say (pipeline parallel)
  std::vector<LinkTraffic> links;  // by bandwidth, lowest first
};

// One rank's step split (medians per step): its step record where it wrote one (`record`: its
// step_trace_time.csv rows, warm-up left out), else the split the profiler wrote with its kernel
// table (`recordSplit`: an msprof step trace's computing/communication/free, may be empty), else
// its timeline's (`timeline`, may be null); its pipeline stage from `path`/profiler_metadata.json.
RankStep rankStep(int rank, const std::filesystem::path& path, const TrainingProfile* timeline,
                  const std::vector<StepTraceRow>& record, const std::map<std::string, double>& recordSplit = {});

// msprof-analyze's cluster summary (`msprof-analyze cluster -d JOB` writes
// JOB/cluster_analysis_output/): cluster_step_trace_time.csv, each rank's step split ("rank"
// rows) and each pipeline's ("stage" rows: the ranks of one point-to-point group, in stage order,
// with their largest figures), and cluster_communication_matrix.json, the links per
// communication group. The CSV for `path` (the CSV itself, its folder, or a job folder holding
// that folder); empty when there is none.
std::filesystem::path clusterSummaryCsv(const std::filesystem::path& path);

// The job's view from its cluster summary alone (no rank's own files): the ranks' step splits,
// their pipeline stages (a rank's place in its pipeline's group), the slow rank and the links.
Result<ClusterView> readClusterSummary(const std::filesystem::path& csv);

// The view from the ranks' own analyses and step records (`stepTraces[i]`: rank i's
// step_trace_time.csv rows, warm-up left out, may be empty); `matrices` are the
// communication_matrix.json files found.
ClusterView buildClusterView(const std::vector<ClusterMember>& members, const std::vector<TrainingProfile>& profiles,
                             const std::vector<std::vector<StepTraceRow>>& stepTraces,
                             const std::vector<std::filesystem::path>& matrices);

}  // namespace msa::training
