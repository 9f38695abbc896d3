#pragma once
// Device profiles: peak throughput per compute unit and element type, memory bandwidth, launch
// overhead, alignment (cube block, C0) and the default compute precision, each with where the
// figure comes from. Built-in profiles are JSON files in resources/devices, compiled into core.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cost/op_cost.h"
#include "model/dtype.h"
#include "util/error.h"

namespace msa {

// Where a figure comes from: copied from a document, computed from documented inputs, assumed
// (no source found: a placeholder to replace), or measured on this machine.
enum class FigureOrigin { Quoted, Derived, Assumed, Calibrated };
std::string_view figureOriginName(FigureOrigin o);

struct Figure {
  double value = 0;  // SI units: FLOP/s, bytes/s, seconds, or a plain count
  FigureOrigin origin = FigureOrigin::Assumed;
  std::string source;   // a key of DeviceProfile::sources
  std::string formula;  // how a derived figure was computed
  std::string note;
};

// What the device's compiler does with float32 ops by default.
enum class PrecisionPolicy {
  KeepModel,   // compute in the model's element types (ONNX Runtime on CPU)
  Fp32ToFp16,  // float32 ops run in float16 (ATC's default precision_mode for inference)
};

struct DeviceProfile {
  enum class Kind { Npu, Cpu };

  std::string id;           // "ascend910b"
  std::string displayName;  // "Huawei Ascend 910B3"
  std::string displayNameZh;  // the same in Chinese ("华为昇腾 910B3"); empty: none given
  Kind kind = Kind::Cpu;
  std::string soc;          // the SoC whose figures are used ("Ascend910B3"); empty for CPUs
  std::map<std::string, std::string> sources;  // key -> citation (document, URL, section)
  // Peak operations per second by unit and element type. A CPU has one set of peaks for every
  // unit (stored under ComputeUnit::None, "all" in the file).
  std::map<std::pair<ComputeUnit, DType>, Figure> peaks;
  Figure memoryBandwidth;  // bytes per second, device memory
  Figure launchOverhead;   // seconds per executed op (kernel launch / task dispatch)
  // Optional (0 when the file has none). The on-chip L2 cache: how much it holds and how fast it
  // serves; and the shortest time a device task takes (start and end of the task on the device,
  // without the host's launch). The kernel roofline (cost/kernel_cost.h) uses them: a kernel
  // whose data fits in L2 may read it from there.
  Figure l2Bandwidth;  // bytes per second
  Figure l2Size;       // bytes
  Figure taskFloor;    // seconds
  // What one inter-device link of each transport sustains (HCCS, PCIE, RDMA), bytes per second:
  // a job's links are measured against it.
  std::map<std::string, Figure> linkBandwidth;
  Figure cubeBlock;        // M/N/K tile of the matrix unit for float16 (16 on Ascend), 0 on CPUs
  std::map<DType, Figure> c0;  // channel block of the NC1HWC0 format per element type
  PrecisionPolicy precision = PrecisionPolicy::KeepModel;
  Figure precisionFigure;  // the source of the precision policy
  bool elideMetadataOps = false;  // the compiler removes Reshape-like ops (no launch)
  Figure elideFigure;
  bool foldConstants = false;  // the compiler computes foldable nodes at build time
  Figure foldFigure;

  // Peak for an op of this unit and element type, in FLOP/s. When the profile has no figure for
  // the exact type, the nearest class is used: float32/float64 cube work runs as float16 on the
  // cube; integer types use int32, then float32, then float16. nullopt for Memory/None units.
  std::optional<double> peak(ComputeUnit unit, DType type) const;
  // The element type an op of the model's `type` computes in on this device.
  DType computeType(DType modelType) const;
  // The shortest time `bytes` can cross memory: what fits in the L2 cache may come from there,
  // what does not must cross device memory: max(bytes / L2 bandwidth, (bytes - L2 size) / memory
  // bandwidth); bytes / memory bandwidth on a device without L2 figures. The kernel roofline of
  // profile rows and the graph estimate both price memory so.
  double memorySeconds(double bytes) const;
  // Arithmetic intensity (FLOP/byte) above which an op is compute-bound.
  std::optional<double> ridgePoint(ComputeUnit unit, DType type) const;

  // Measured values for this machine (host calibration). Unset fields keep the profile's.
  struct Calibration {
    std::map<DType, double> flopsPerSecond;  // per element type, for every unit
    std::optional<double> bytesPerSecond;
    std::optional<double> launchOverheadSeconds;
    std::string source;  // what measured it, e.g. "msadvisor-cli calibrate, 2025-01-01, 200 runs"
  };
  DeviceProfile withCalibration(const Calibration& c) const;

  // Every figure of the profile, labelled: ("peak_tflops.cube.float16", figure)…
  std::vector<std::pair<std::string, const Figure*>> figures() const;
  nlohmann::json toJson() const;  // the file format, with values back in file units
};


// A built-in profile by id ("ascend910b"), or a JSON file by path. Errors name the file and the
// offending key.
Result<DeviceProfile> loadDevice(std::string_view idOrPath);
Result<DeviceProfile> parseDevice(std::string_view jsonText, const std::string& label);
std::vector<std::string> builtinDevices();  // sorted ids

}  // namespace msa
