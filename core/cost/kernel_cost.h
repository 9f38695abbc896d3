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
  std::string opType;       // the CANN op type priced ("MatMulV3", "FlashAttentionScoreGrad")
  std::string family;       // "matmul", "conv", "attention", "elementwise", "reduction", "softmax",
                            // "norm", "data", "gather", "fill", "pool", "communication"
  // Matrix ops: the problem as the formula read it (batch x M x N x K; conv: M = N*Ho*Wo,
  // N = Cout, K = Cin*KH*KW) and the tile padding of the cube.
  int64_t batch = 0, m = 0, n = 0, k = 0;
  int64_t paddedM = 0, paddedN = 0, paddedK = 0;
  // Attention: the query's and key/value's heads (fewer with grouped-query attention), query and
  // key lengths, head dim; what the mask inputs say ("none", "compressed causal", "causal",
  // "additive", "bias") and the share of the score blocks the kernel computes (docs/cost-model.md).
  int64_t heads = 0, kvHeads = 0, seqQ = 0, seqKv = 0, headDim = 0;
  std::string mask = "none";
  double maskShare = 1;
  std::string note;         // how an ambiguity was resolved ("K is 81920 in A and 8192 in B: 8192 taken")
};

// The cost of one kernel. Never fails: what cannot be priced is `known = false` with a reason.
KernelCost kernelCost(const KernelSignature& k);

// The K block of the cube for an element type: 32 bytes of it (16 float16/bfloat16, 8 float32,
// 32 int8); 16 when the type is unknown.
int64_t cubeKBlock(DType t);

// What a kernel's own PMU counters say it executed (msprof PipeUtilization: total cycles summed
// over the cores that ran it, and the share of them each pipe was busy). The cube does one
// 16 x 16 x K-block fractal per busy cycle: 4096 float16 MACs, 8192 int8, 2048 float32 in HF32
// and 1024 in plain float32 (cubeMacsPerCycle); the vector unit one 256-byte vector per busy
// cycle (128 float16 lanes, 64 float32), which is the unit the device's vector peak counts.
// Negative: the row has no such counter.
struct KernelCounters {
  double cubeCycles = -1, macRatio = -1;     // aic_total_cycles, aic_mac_ratio
  double vectorCycles = -1, vecRatio = -1;   // aiv_total_cycles, aiv_vec_ratio
  int hf32 = -1;                             // HF32 Eligible: 1 yes, 0 no, -1 not recorded
  double cubeMacs(DType t) const;            // cycles x ratio x MACs per cycle; -1 without counters
  double vectorOps(DType t) const;           // cycles x ratio x lanes; -1 without counters
};
// The cube's MACs per busy cycle for an element type. float32: 2048 in HF32 (a 16 x 8 x 16
// fractal) and, when the kernel is known not to run HF32 (`hf32` = 0), 1024: on the real torch_npu
// AlexNet profile the HF32-eligible float32 convolutions match their MAC counts at 2048 within
// 5 %, the float32 MatMuls (HF32 Eligible NO) at 1024 within 2-15 % (26 % for M = 32).
double cubeMacsPerCycle(DType t, int hf32 = -1);
double vectorLanes(DType t);

// The cost with its work taken from the counters where the row has them: a cube kernel's MACs
// (the formula may not know what the kernel skipped or padded), a vector kernel's operations.
// Bytes stay the formula's (the counters do not say what crossed memory). Unchanged without
// counters or without a known cost.
KernelCost withExecutedWork(KernelCost formula, const KernelCounters& counters);

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
