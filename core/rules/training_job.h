#pragma once
// The findings about a job's ranks (profile/job.h): training.slow_rank (a rank whose compute the
// others wait for) and training.slow_link (a link far below its transport's median bandwidth).
#include <vector>

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
};

// training.slow_rank and training.slow_link.
std::vector<Finding> clusterFindings(const ClusterView& view, double stepMs, const ClusterThresholds& thresholds = {});

}  // namespace msa::training
