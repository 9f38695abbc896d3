#pragma once
// A training trace's device kernels priced on an Ascend device from their own kernel_details
// rows (op type, shapes, dtypes, formats) with the Ascend cost model of profile rows
// (cost/profile_kernels.h, docs/cost-model.md): per step, the compute kernels' measured time,
// the priced kernels' time and their roofline. A step's optimum is its priced kernels at their
// roofline (unpriced kernels count 0: a lower bound), as the profile-only analysis defines it;
// communication, copies and idle time are not in it.
#include <optional>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "profile/profile_kernels.h"
#include "profile/run_trace.h"

namespace msa::training {

struct TrainingPricing {
  std::string device;  // the device profile id priced on
  // Medians over the steps, per step.
  double computeMs = 0;   // compute kernels (cube, vector, mix, AI CPU)
  double pricedMs = 0;    // measured time of the priced ones
  double rooflineMs = 0;  // their roofline: the optimum
  double pricedKernels = 0, computeKernels = 0;
  double knownTimeShare() const { return computeMs > 0 ? pricedMs / computeMs : 0; }
  // Per step (the trace's total over its steps): op types without a price, most time first,
  // and the priced op types by the time they spend above their roofline.
  std::vector<UnpricedType> unpriced;
  struct OpType {
    std::string opType;
    double calls = 0, measuredMs = 0, rooflineMs = 0;
  };
  std::vector<OpType> byType;
};

// Null when the device is not an NPU profile or no device kernel of a step records its shapes.
std::optional<TrainingPricing> priceTrainingKernels(const TrainingTrace& trace, const DeviceProfile& device);

}  // namespace msa::training
