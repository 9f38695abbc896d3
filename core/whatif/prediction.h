#pragma once
// Each variant's speedup predicted before it is measured (docs/whatif.md, "Predictions"): the
// float model's deployed per-node profile (ONNX Runtime, ORT_ENABLE_ALL) says where the time
// goes; the cost model says how each node's time changes. In a static int8 model a convolution,
// an elementwise node or a Concat runs its measured time over the speedup the host calibration
// measured for its kind of int8 kernel (QLinearConv by kind of layer, QLinearAdd, QLinearConcat:
// ×0.4–3.6 here); a float kernel that fused k elementwise nodes into one pass takes k int8
// passes; a layout reorder beside an int8 node moves a quarter of the bytes. Any other node in
// int8 runs its measured time × its roofline at the host's calibrated int8 rate and int8 bytes
// over its roofline at the float32 rate and float32 bytes. The QuantizeLinear/DequantizeLinear
// left at the edges of an int8 region cost their bytes at the bandwidth, at the efficiency the
// model's own memory-bound nodes reached; fewer threads stretch each node's parallel part; a
// batch of b does b times the work against the same weights. The optimum at a variant's
// precision is the roofline with its int8 nodes priced at the int8 rate.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "cost/roofline.h"
#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"

namespace msa {

struct Prediction {
  double speedup = 0;                 // original time / variant time (batch: throughput ratio)
  double originalMs = 0, variantMs = 0;  // the profile's terms (per batch for batch variants)
  double optimumMs = 0;               // roofline at the variant's precision (per run)
  std::map<std::string, double> savedMs;  // per IR node: time saved (negative: added)
  std::string method;                 // key of the method's text (whatif.prediction.*)
};

class Predictor {
 public:
  // `model`: the float model the variants are built from, shapes inferred; `deployed`: its
  // per-node profile at ORT_ENABLE_ALL; `device`: cpu-host with this host's calibration.
  // `int8KernelSpeedup`: the host calibration's measured int8 speedup per kind of kernel
  // (profile/host_calibration.h); a node of a kind it lacks is priced at the int8 roofline.
  static Result<Predictor> create(const Model& model, const ProfileData& deployed, const DeviceProfile& device,
                                  const std::map<std::string, double, std::less<>>& int8KernelSpeedup = {});

  // The nodes computed in int8 (layers, neighbours, data movement); `quantizedTensors`: the
  // activations with Q/DQ pairs (static), whose pairs at the edges of the int8 region cost time.
  Prediction quantized(const std::set<std::string, std::less<>>& int8Nodes, bool dynamic,
                       const std::vector<std::string>& quantizedTensors = {}) const;
  Prediction threads(int threads, int baseThreads) const;
  Prediction batch(int batch) const;
  Prediction bf16(const std::set<std::string, std::less<>>& bf16Nodes) const;
  Prediction unchanged(std::string method) const;  // spinning, execution mode: the same work
  double optimumMs() const { return m_optimumMs; }

 private:
  struct NodeTerms {
    double compute = 0, memory = 0;  // float32 roofline terms (s)
    double flops = 0, paramBytes = 0, actInBytes = 0, outBytes = 0;
    double int8Speedup = 0;  // the measured speedup of the int8 kernel of its kind (0: none measured)
    bool elementwise = false;  // run by a QLinear elementwise kernel in a static model
    bool known = false;
  };
  double int8Seconds(const NodeTerms& t, bool dynamic) const;
  double fp32Seconds(const NodeTerms& t) const;

  std::map<std::string, NodeTerms> m_terms;  // per IR node name
  std::vector<NodeProfile> m_nodes;          // top-level runtime nodes
  double m_totalMs = 0;
  double m_fp32 = 0, m_int8 = 0, m_bf16 = 0, m_bandwidth = 0;
  double m_memoryEfficiency = 1;  // measured / roofline of the memory-bound nodes (median)
  double m_optimumMs = 0;
  std::map<std::string, double> m_elements;  // float activations' element counts (Q/DQ costs)
  std::map<std::string, std::string> m_producer;              // value -> IR node
  std::map<std::string, std::vector<std::string>> m_consumers;  // value -> IR nodes
};

}  // namespace msa
