#include "advisor/rates_from_run.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "cost/device_profile.h"
#include "cost/roofline.h"
#include "model/graph_index.h"
#include "profile/profile_data.h"
#include "rules/rule.h"

namespace msa {

std::vector<RateFromRun> ratesAbovePeaks(const AnalysisContext& ctx, const RooflineEstimate& roofline,
                                         const std::vector<const ProfileData*>& runs, double minMs) {
  std::map<DType, RateFromRun> best;
  for (const ProfileData* run : runs) {
    if (!run) continue;
    // An IR node whose work several entries share (a node split over kernels) proves no rate.
    std::map<std::string, int, std::less<>> entriesOf;
    for (const NodeProfile& e : run->nodes)
      if (e.parent.empty())
        for (const auto& ir : e.irNodes) ++entriesOf[ir];
    for (const NodeProfile& e : run->nodes) {
      if (!e.parent.empty() || e.irNodes.empty() || !(e.timeMs.median >= minMs)) continue;
      double flops = 0, most = 0;
      long mostNode = -1;
      bool whole = true;
      DType type = DType::Undefined;
      for (const auto& ir : e.irNodes) {
        const long i = ctx.index->indexOfName(ir);
        if (i < 0 || entriesOf[ir] != 1) {
          whole = false;
          break;
        }
        const NodeEstimate& n = roofline.nodes[static_cast<size_t>(i)];
        if (n.unit != ComputeUnit::Cube || !(n.flops > 0)) continue;  // the peak is the matrix rate
        if (type != DType::Undefined && n.computeType != type) {
          whole = false;  // two element types in one kernel: whose rate it shows is unclear
          break;
        }
        type = n.computeType;
        flops += n.flops;
        if (n.flops > most) most = n.flops, mostNode = i;
      }
      if (!whole || mostNode < 0) continue;
      const NodeEstimate& anchor = roofline.nodes[static_cast<size_t>(mostNode)];
      const auto peak = ctx.device->peak(anchor.unit, type);
      const double rate = flops / (e.timeMs.median * 1e-3);
      if (!peak || !(rate > *peak)) continue;
      RateFromRun& r = best[type];
      if (rate <= r.flopsPerSecond) continue;
      const Node& node = ctx.node(static_cast<size_t>(mostNode));
      r = {type, rate, *peak, e.name, node.name, node.opType};
    }
  }
  std::vector<RateFromRun> out;
  for (const auto& [type, r] : best) out.push_back(r);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.flopsPerSecond > b.flopsPerSecond; });
  return out;
}

DeviceProfile withRatesFromRun(const DeviceProfile& device, const std::vector<RateFromRun>& rates) {
  DeviceProfile p = device;
  for (const RateFromRun& r : rates) {
    Figure f;
    f.value = r.flopsPerSecond;
    f.origin = FigureOrigin::Derived;
    f.source = "run";
    char formula[200];
    std::snprintf(formula, sizeof formula, "FLOPs of the measured kernel %s over its median time (the figure was %.4g FLOP/s)",
                  r.kernel.c_str(), r.peakFlopsPerSecond);
    f.formula = formula;
    bool any = false;
    for (auto& [key, figure] : p.peaks)
      if (key.second == r.type && figure.value < r.flopsPerSecond) figure = f, any = true;
    if (!any && !p.peaks.count({ComputeUnit::None, r.type})) p.peaks[{ComputeUnit::None, r.type}] = f;
  }
  p.sources["run"] = "the measured run analysed";
  return p;
}

}  // namespace msa
