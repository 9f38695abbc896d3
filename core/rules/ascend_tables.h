#pragma once
// Ascend facts the rules read from data files compiled into core: which ops and element types
// run on the AI CPU (resources/ascend/aicpu_ops.json) and which path a MatMul shape takes on the
// cube (resources/ascend/matmul_tiles.json). Each verdict carries the source key of its entry.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/dtype.h"

namespace msa {

struct ProfileData;
struct DeviceProfile;

struct AicpuVerdict {
  std::string cann;    // toolkit versions the evidence is about, "7.0.RC1; < 7.0 (reported 2023)"
  std::string dtypes;  // the element types that send it there, "float64" (empty: the op itself)
  std::string source;  // source key(s) in aicpu_ops.json
  bool genericRule = false;  // decided by the "*" entries (any op), not an op-specific entry
};

// Whether Ascend runs `opType` with these input and output element types on the AI CPU, by any
// version the table knows. Undefined types are ignored.
std::optional<AicpuVerdict> aicpuVerdict(std::string_view opType, std::span<const DType> inputs,
                                         std::span<const DType> outputs);

struct AnalysisContext;
// The verdict for IR node `node` on the context's device: only on an Ascend device, only for a
// node the device runs (not a Constant, folded or elided node).
std::optional<AicpuVerdict> aicpuVerdictFor(const AnalysisContext& ctx, size_t node);

// Assumed cost of an AI CPU task (aicpu_ops.json "estimate"), for ops no profile measured.
struct AicpuCostModel {
  double overheadSeconds = 0;
  double bytesPerSecond = 0;
  double longTaskSeconds = 0;  // msprof-analyze's threshold for a long AI CPU task
};
const AicpuCostModel& aicpuCostModel();

struct NodeProfile;
// The entries of the context's Ascend profile (runtime profile first), by IR node.
class AscendTasks {
 public:
  explicit AscendTasks(const AnalysisContext& ctx);
  bool present() const { return m_profile != nullptr; }
  const ProfileData* profile() const { return m_profile; }
  const NodeProfile* entryFor(size_t node) const;  // null when the profile has none

 private:
  const ProfileData* m_profile = nullptr;
  std::vector<const NodeProfile*> m_byNode;
};

// What moving IR node `node` from the AI CPU to an AI Core would save: measured when the
// Ascend profile has it as an AI_CPU task (its share of the task), else estimated from the
// assumed AI CPU cost model; the AI Core side is the node's roofline. nullopt when the profile
// shows it ran on an AI Core (the table's verdict does not hold for that toolkit).
struct AicpuImpact {
  double currentMs = 0, fixedMs = 0;
  bool measured = false;
};
std::optional<AicpuImpact> aicpuImpact(const AnalysisContext& ctx, const AscendTasks& tasks, size_t node);

// True when every element type that sends the verdict's op to the AI CPU is a 64-bit type
// (int64, uint64, float64, complex128): a dtype conversion of the model fixes it.
bool wideTypesOnly(const AicpuVerdict& v);

// A MatMul on the Ascend cube.
struct MatmulPath {
  enum class Kind { Affine, Fractal, Padded, MixAic };
  Kind kind = Kind::Padded;
  bool affine = false;       // K and N multiples of the affine inner axis (256)
  bool fractal = false;      // M, K, N multiples of the cube fractal
  bool mixAic = false;       // predicted to run as a MIX_AIC kernel (Atlas A2)
  int64_t k = 0, n = 0;      // as given
  int64_t alignedK = 0, alignedN = 0;  // the nearest inner axes that leave the slow path
  int affineAxis = 256, alignmentBytes = 512;
};
std::string_view matmulPathName(MatmulPath::Kind k);  // "affine", "fractal", "padded", "mix_aic"

// The path of a product with M rows whose inputs' inner (contiguous) axes are `k` (A) and `n`
// (B; for ONNX MatMul these are K and N), computed in `type` on `soc` ("Ascend910B3"), whose
// theoretical MAC time on the cube is `macSeconds`.
MatmulPath matmulPath(int64_t m, int64_t k, int64_t n, DType type, std::string_view soc, double macSeconds);

// True for a profile that came from Ascend (msprof, torch_npu, ACL): task types such as AI_CORE.
bool isAscendProfile(const ProfileData& p);
// True for a device profile of an Ascend NPU.
bool isAscendDevice(const DeviceProfile& d);

}  // namespace msa
