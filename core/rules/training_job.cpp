#include "rules/training_job.h"

#include <algorithm>
#include <map>
#include <string>

#include "rules/texts.h"
#include "rules/training_rule_helpers.h"

namespace msa::training {

using namespace detail;

std::vector<Finding> clusterFindings(const ClusterView& v, double stepMs, const DeviceProfile* device, const ClusterThresholds& th) {
  std::vector<Finding> out;
  if (v.ranks.size() < 2 || stepMs <= 0) return out;
  // The slow rank: held by its device's compute, or by its host's dispatch (its device idles),
  // against the ranks doing the same work (its stage's, with pipeline stages).
  const RankStep& slow = v.ranks[static_cast<size_t>(v.slowRank)];
  const bool host = v.slowCause == "host";
  const double excess = host ? slow.idleMs - v.medianIdleMs : slow.computeMs - v.medianComputeMs;
  if (v.peers >= 2 && excess >= th.slowRankShare * stepMs) {
    std::string ranks;
    for (const RankStep& r : v.ranks)
      if (!v.stagePeers || r.stage == slow.stage)
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(r.rank) + ": " + formatSignificant(host ? r.idleMs : r.computeMs);
    const std::string rule = host ? "training.slow_rank_host" : "training.slow_rank";
    Finding f = makeFinding(rule, Category::named("parallel"), {"rank " + std::to_string(slow.rank)}, excess, 0, ImpactSource::Both,
                            phrase("method." + rule));
    f.params = {{"rank", std::to_string(slow.rank)},
                {"compute_ms", formatSignificant(slow.computeMs)},
                {"idle_ms", formatSignificant(slow.idleMs)},
                {"median_ms", formatSignificant(host ? v.medianIdleMs : v.medianComputeMs)},
                {"excess_ms", formatSignificant(excess)},
                {"ranks", ranks},
                {"count", std::to_string(v.peers)},
                {"of_stage", v.stagePeers ? phrase("job.of_stage", {{"stage", std::to_string(slow.stage + 1)}}) : std::string()}};
    addFinding(out, std::move(f), {});
  }
  // Pipeline stages of unequal compute: the slowest sets the pace, the others wait for it in
  // their send/receive. Balanced, each would compute the stages' mean: the slowest's excess over
  // it is what a step can gain (at least: the pipeline repeats it for every micro-batch).
  if (v.stages.size() > 1) {
    auto most = std::max_element(v.stages.begin(), v.stages.end(), [](const StageCompute& a, const StageCompute& b) { return a.computeMs < b.computeMs; });
    auto least = std::min_element(v.stages.begin(), v.stages.end(), [](const StageCompute& a, const StageCompute& b) { return a.computeMs < b.computeMs; });
    double sum = 0;
    std::string stages;
    for (const StageCompute& s : v.stages) {
      sum += s.computeMs;
      stages += (stages.empty() ? "" : ", ") + std::to_string(s.stage + 1) + ": " + formatSignificant(s.computeMs);
    }
    const double mean = sum / static_cast<double>(v.stages.size());
    if (most->computeMs - mean >= th.slowRankShare * stepMs) {
      Finding f = makeFinding("training.stage_imbalance", Category::named("parallel"), {"stage " + std::to_string(most->stage + 1)}, most->computeMs, mean,
                              ImpactSource::Estimated, phrase("method.training.stage_imbalance"));
      f.params = {{"stage", std::to_string(most->stage + 1)},
                  {"stage_ms", formatSignificant(most->computeMs)},
                  {"fast_stage", std::to_string(least->stage + 1)},
                  {"fast_ms", formatSignificant(least->computeMs)},
                  {"mean_ms", formatSignificant(mean)},
                  {"excess_ms", formatSignificant(most->computeMs - mean)},
                  {"stages", stages},
                  {"count", std::to_string(v.stages.size())}};
      addFinding(out, std::move(f), {});
    }
  }
  // The slow link: below half its transport's median bandwidth, carrying real traffic.
  std::string slowLink;
  std::map<std::string, std::vector<double>> byTransport;
  std::map<std::string, double> bytes;
  for (const LinkTraffic& l : v.links) {
    byTransport[l.transport].push_back(l.gbps());
    bytes[l.transport] += l.megabytes;
  }
  for (const LinkTraffic& l : v.links) {  // lowest bandwidth first
    if (byTransport[l.transport].size() < 2) continue;
    const double med = median(byTransport[l.transport]);
    if (med <= 0 || l.gbps() >= th.slowLinkRatio * med || l.megabytes < th.slowLinkMinShare * bytes[l.transport]) continue;
    const double atMedian = l.megabytes / med;  // ms at the median bandwidth
    Finding f = makeFinding("training.slow_link", Category::named("communication"), {"link " + l.link}, l.ms, atMedian, ImpactSource::Estimated,
                            phrase("method.training.slow_link"));
    f.params = {{"link", l.link},
                {"transport", l.transport},
                {"gbps", fixed(l.gbps(), 1)},
                {"median_gbps", fixed(med, 1)},
                {"mb", fixed(l.megabytes, 1)},
                {"link_ms", formatSignificant(l.ms)}};
    addFinding(out, std::move(f), {});
    slowLink = l.link;
    break;  // the slowest one: the others are usually behind the same switch or card
  }
  // Links of one transport that are all slow share a median, so the median cannot see them: the
  // chip's own figure can. The link already named slow is its own cause.
  if (!device) return out;
  for (const LinkTraffic& l : v.links) {  // lowest bandwidth first
    auto figure = device->linkBandwidth.find(l.transport);
    if (figure == device->linkBandwidth.end() || l.link == slowLink) continue;
    const double chipGbps = figure->second.value / 1e9;
    const double large = l.transport == "RDMA" ? th.largeRdmaTrafficMb : th.largeTrafficMb;
    if (l.megabytes < large || l.gbps() >= th.linkUtilization * chipGbps) continue;
    const double atFigure = l.megabytes / chipGbps;  // ms at the chip's figure
    Finding f = makeFinding("training.link_utilization", Category::named("communication"), {"link " + l.link}, l.ms, atFigure, ImpactSource::Estimated,
                            phrase("method.training.link_utilization"));
    f.params = {{"link", l.link},
                {"transport", l.transport},
                {"gbps", fixed(l.gbps(), 1)},
                {"chip_gbps", fixed(chipGbps, 1)},
                {"utilization", formatPercent(l.gbps() / chipGbps)},
                {"threshold", formatPercent(th.linkUtilization)},
                {"mb", fixed(l.megabytes, 1)},
                {"link_ms", formatSignificant(l.ms)}};
    addFinding(out, std::move(f), {});
    break;  // the slowest: one cause (the fabric or the setting) is shared by the rest
  }
  return out;
}

}  // namespace msa::training
