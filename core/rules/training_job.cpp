#include "rules/training_job.h"

#include <map>
#include <string>

#include "rules/texts.h"
#include "rules/training_rule_helpers.h"

namespace msa::training {

using namespace detail;

std::vector<Finding> clusterFindings(const ClusterView& v, double stepMs, const DeviceProfile* device, const ClusterThresholds& th) {
  std::vector<Finding> out;
  if (v.ranks.size() < 2 || stepMs <= 0) return out;
  // The slow rank: held by its device's compute, or by its host's dispatch (its device idles).
  const RankStep& slow = v.ranks[static_cast<size_t>(v.slowRank)];
  const bool host = v.slowCause == "host";
  const double excess = host ? slow.idleMs - v.medianIdleMs : slow.computeMs - v.medianComputeMs;
  if (excess >= th.slowRankShare * stepMs) {
    std::string ranks;
    for (const RankStep& r : v.ranks)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r.rank) + ": " + formatSignificant(host ? r.idleMs : r.computeMs);
    const std::string rule = host ? "training.slow_rank_host" : "training.slow_rank";
    Finding f = makeFinding(rule, Category::Host, {"rank " + std::to_string(slow.rank)}, excess, 0, ImpactSource::Both,
                            phrase("method." + rule));
    f.params = {{"rank", std::to_string(slow.rank)},
                {"compute_ms", formatSignificant(slow.computeMs)},
                {"idle_ms", formatSignificant(slow.idleMs)},
                {"median_ms", formatSignificant(host ? v.medianIdleMs : v.medianComputeMs)},
                {"excess_ms", formatSignificant(excess)},
                {"ranks", ranks},
                {"count", std::to_string(v.ranks.size())}};
    addFinding(out, std::move(f), {});
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
