#pragma once
// The work of one device kernel from what its profile row records — the CANN op type and each
// input and output tensor's shape, dtype and format as the device stored it — without the
// model: what the profile-only analysis, the Ascend cost-model benchmark and the training
// advice price kernels with (formulas and sources: docs/cost-model.md, "Kernels from profile
// rows").
//
// Shapes are taken as the device stored them: an NC1HWC0 tensor listed with five dims, a
// FRACTAL_Z weight or a FRACTAL_NZ matrix listed in its fractal layout already carries its
// padding; a tensor listed with its origin shape in such a format is padded here (C to C0, the
// NZ matrix dims to 16 x 32-byte blocks). The cube's work is counted on padded tiles (M and N
// to 16, K to a 32-byte block: 16 float16, 8 float32, 32 int8), which is what it must do;
// `logicalFlops` is the op's own arithmetic.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/dtype.h"

namespace msa {

struct KernelTensor {
  std::vector<int64_t> dims;  // as recorded; empty with `present`: a scalar
  bool present = false;       // false: an empty slot (an absent optional input)
  DType type = DType::Undefined;
  std::string format;  // "NC1HWC0", "FRACTAL_NZ", "ND", "NCHW", … ("" unknown); ":1" suffixes dropped
  double elements() const;
  double bytes() const;  // elements x element size as stored (1 byte per element when the type is unknown)
};

// What a profile row says about one kernel, parsed.
struct KernelSignature {
  std::string opType;
  std::vector<KernelTensor> inputs, outputs;
  bool hasShapes() const;  // at least one tensor with dims or a scalar
};

// From a profile entry's fields: shapes as "[1,64,56,56]" (or "" for an empty slot), dtypes as
// "float16", formats as "NC1HWC0" (profile/ascend_ops.h writes them so).
KernelSignature parseKernelSignature(std::string_view opType, const std::vector<std::string>& inputShapes,
                                     const std::vector<std::string>& inputDtypes,
                                     const std::vector<std::string>& inputFormats,
                                     const std::vector<std::string>& outputShapes,
                                     const std::vector<std::string>& outputDtypes,
                                     const std::vector<std::string>& outputFormats);

struct KernelCost {
  // flops: the work its unit must do (a cube op's padded tiles); bytes as stored; unit and
  // compute type; known = false with `reason` when the type has no formula or the shapes do
  // not say enough ("no cost formula for DSAGenBitMask", "no shapes recorded").
  OpCost cost;
  double logicalFlops = 0;  // the op's own arithmetic, no padding
  std::string family;       // "matmul", "conv", "attention", "elementwise", "reduction", "softmax",
                            // "norm", "data", "gather", "fill", "pool", "communication"
  // Matrix ops: the problem as the formula read it (batch x M x N x K; conv: M = N*Ho*Wo,
  // N = Cout, K = Cin*KH*KW) and the tile padding of the cube.
  int64_t batch = 0, m = 0, n = 0, k = 0;
  int64_t paddedM = 0, paddedN = 0, paddedK = 0;
  // Attention: heads, query and key lengths, head dim.
  int64_t heads = 0, seqQ = 0, seqKv = 0, headDim = 0;
  bool maskedHalf = false;  // an attention mask: counted as causal (half), see docs/cost-model.md
  std::string note;         // how an ambiguity was resolved ("K is 81920 in A and 8192 in B: 8192 taken")
};

// The cost of one kernel. Never fails: what cannot be priced is `known = false` with a reason.
KernelCost kernelCost(const KernelSignature& k);

// The K block of the cube for an element type: 32 bytes of it (16 float16/bfloat16, 8 float32,
// 32 int8); 16 when the type is unknown.
int64_t cubeKBlock(DType t);

// The fastest a kernel can run on a device, a lower bound: compute = FLOPs / peak(unit, its own
// dtype); memory = bytes / L2 bandwidth for what fits in L2 and the rest from device memory,
// max(bytes / L2 bw, (bytes - L2 size) / memory bw) (bytes / memory bw on a device without L2
// figures); never below the device's task floor. Per call.
struct KernelRoofline {
  double computeSeconds = 0, memorySeconds = 0, floorSeconds = 0, seconds = 0;
  double hbmSeconds = 0;  // bytes / device-memory bandwidth: the time were nothing in L2
  double peak = 0;        // FLOP/s used (0 for data movement)
  Bound bound = Bound::Unknown;  // compute, memory, overhead (the floor), unknown (no cost)
};
KernelRoofline kernelRoofline(const OpCost& cost, const DeviceProfile& device);

// CANN op types with a formula (sorted), and whether one has.
std::vector<std::string> kernelCostOpTypes();
bool hasKernelCostFormula(std::string_view opType);

}  // namespace msa
