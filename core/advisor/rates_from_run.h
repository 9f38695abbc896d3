#pragma once
// A measured run is a lower bound on the host's rates. A matrix kernel (Conv, Gemm, MatMul and
// their fused and quantized forms) that did its counted multiply-adds at a rate above the
// device's peak for its element type shows that peak too low: the calibration ran while the
// machine was busy, or its one large MatMul is not the runtime's best kernel (ONNX Runtime's
// NCHWc convolutions beat its 1024² MatMul here). Pricing the optimum on such a peak puts it
// above the run it bounds. The advisor raises the peak to what the run reached before it prices
// anything, and says so (Report::ratesFromRun).
#include <vector>

#include "advisor/report.h"

namespace msa {

struct AnalysisContext;
struct DeviceProfile;
struct ProfileData;
struct RooflineEstimate;

// The best rate per element type at which the run's matrix kernels worked, where it lies above
// the device's peak for that type: from every top-level entry of `runs` that did the work of IR
// nodes found in no other entry of its run (the per-node run's nodes, the deployed run's fused
// kernels), its members' FLOPs over its median time. Entries under `minMs` are left out (timer
// resolution). Highest first.
std::vector<RateFromRun> ratesAbovePeaks(const AnalysisContext& ctx, const RooflineEstimate& roofline,
                                         const std::vector<const ProfileData*>& runs, double minMs = 0.05);

// `device` with each of `rates` as the peak of its element type (every unit), labelled as
// derived from the run.
DeviceProfile withRatesFromRun(const DeviceProfile& device, const std::vector<RateFromRun>& rates);

}  // namespace msa
