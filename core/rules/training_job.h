#pragma once
// The findings about a job's ranks (profile/job.h): training.slow_rank (a rank whose compute the
// others wait for), training.slow_link (a link far below its transport's median bandwidth) and
// training.link_utilization (a transport's links, large messages, below the chip's link figure).
#include <vector>

#include "cost/device_profile.h"
#include "profile/job.h"
#include "rules/finding.h"

namespace msa::training {

struct ClusterThresholds {
  // The slow rank is reported when its compute exceeds the ranks' median by this share of the step.
  double slowRankShare = 0.01;
  // A link is slow below this fraction of its transport's median bandwidth, carrying at least
  // `slowLinkMinShare` of that transport's bytes.
  double slowLinkRatio = 0.5;
  double slowLinkMinShare = 0.01;
  // A link carrying large messages is slow below this share of the chip's figure for its
  // transport (CANN msadvisor's HCCL analysis: BANDWIDTH_THRESHOLD 0.8); large is at least this
  // many MB per step on it (its MESSAGE_SIZE_THRESHOLD: 32 MB for HCCS and PCIe, 0.5 MB for RDMA).
  double linkUtilization = 0.8;
  double largeTrafficMb = 32, largeRdmaTrafficMb = 0.5;
};

// training.slow_rank, training.slow_link and, where `device` gives its links' figures,
// training.link_utilization.
std::vector<Finding> clusterFindings(const ClusterView& view, double stepMs, const DeviceProfile* device = nullptr,
                                     const ClusterThresholds& thresholds = {});

}  // namespace msa::training
