#pragma once
// Several ranks of one training job: a folder of torch_npu *_ascend_pt folders (one per rank) or
// of Kineto traces (*.pt.trace.json[.gz], one per rank). Each rank is analysed on its own; the
// cluster view puts their median steps side by side, names the slow rank (the one the others
// wait for in their collectives: the most compute per step) and, from torch_npu's
// communication_matrix.json, the slow link (a link whose bandwidth is far below its transport's
// median).
#include <filesystem>
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
  double stepMs = 0, busyMs = 0, computeMs = 0, idleMs = 0, dataLoadingMs = 0;
  double collectiveExposedMs = 0, p2pExposedMs = 0;  // per step, median
};

struct LinkTraffic {
  std::string link;       // "src-dst" ranks, as torch_npu writes it
  std::string transport;  // HCCS, RDMA, PCIE, SIO, …
  double megabytes = 0, ms = 0;  // per step, summed over the ops that used it
  double gbps() const { return ms > 0 ? megabytes / ms : 0; }  // MB/ms = GB/s
};

struct ClusterView {
  std::vector<RankStep> ranks;  // by rank
  int slowRank = -1;            // index into ranks
  double medianComputeMs = 0;
  std::vector<LinkTraffic> links;  // by bandwidth, lowest first
};

// The view from the ranks' own analyses; `matrices` are the communication_matrix.json files found.
ClusterView buildClusterView(const std::vector<ClusterMember>& members, const std::vector<TrainingProfile>& profiles,
                             const std::vector<std::filesystem::path>& matrices);

}  // namespace msa::training
