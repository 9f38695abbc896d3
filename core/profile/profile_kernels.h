#pragma once
// Every kernel of an imported device profile priced on a device, without the model: its cost
// from its own profile row (cost/kernel_cost.h), its roofline, its measured time and
// efficiency. What the profile-only analysis, the Ascend cost-model benchmark and the training
// advice read. Kernels whose type has no formula, or whose row has no shapes, are listed by op
// type with their count and share of the time, never silently counted as free.
#include <string>
#include <string_view>
#include <vector>

#include "cost/device_profile.h"
#include "cost/kernel_cost.h"
#include "profile/profile_data.h"

namespace msa {

// Where a kernel ran, from its task type (Ascend: Task Type / Accelerator Core).
enum class CoreType { Cube, Vector, MixCube, MixVector, AiCpu, Communication, Dma, Other };
std::string_view coreTypeName(CoreType c);  // "AI_CORE (cube)", "AI_VECTOR_CORE", "MIX_AIC", …
CoreType coreTypeOf(std::string_view taskType, std::string_view opType);
bool isComputeCore(CoreType c);  // cube, vector, mix, AI CPU

struct PricedKernel {
  size_t entry = 0;  // index into ProfileData::nodes
  CoreType core = CoreType::Other;
  // One call. `cost` is the work the kernel executed: the formula's, with the cube's MACs or the
  // vector's operations taken from the row's PMU counters where it has them
  // (withExecutedWork); `formula` is the formula's alone (what a prediction without a
  // measurement rests on, and what the counters check).
  KernelCost cost, formula;
  KernelCounters counters;
  KernelRoofline roofline;  // one call, of `cost`
  double calls = 1;         // per iteration
  double measuredMs = 0;    // per iteration (the entry's median)
  double callMs = 0;        // measured per call
  double rooflineMs = 0;    // per iteration
  double efficiency = -1;   // rooflineMs / measuredMs; -1 when not priced
  // The kernel time the efficiency model predicts from the formula alone (cost/kernel_predict.h),
  // per iteration; 0 when not priced.
  double predictedMs = 0;
  bool priced() const { return cost.cost.known && roofline.seconds > 0 && measuredMs > 0; }
};

struct UnpricedType {
  std::string opType;
  int kernels = 0;   // entries
  double ms = 0;     // their time per iteration
  double share = 0;  // of the compute kernels' time
  std::string reason;
};

struct PricedProfile {
  std::vector<PricedKernel> kernels;  // aligned with ProfileData::nodes
  std::vector<UnpricedType> unpriced;  // compute kernels without a price, most time first
  double deviceMs = 0;    // every entry's time per iteration (communication and copies included)
  double computeMs = 0;   // compute kernels (cube, vector, mix, AI CPU)
  double pricedMs = 0;    // measured time of the priced kernels
  double rooflineMs = 0;  // their roofline
  int fasterThanRoofline = 0;  // priced kernels measured below their roofline
};

PricedProfile priceKernels(const ProfileData& profile, const DeviceProfile& device);

// A kernel's PMU counters from its entry's metrics (torch_npu aic_/aiv_ columns, msprof
// op_summary's, unprefixed on chips whose AI Core runs both units).
KernelCounters kernelCounters(const NodeProfile& n);

}  // namespace msa
