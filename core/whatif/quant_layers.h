#pragma once
// What int8 quantization works on: the layers with constant float weights (Conv, MatMul, Gemm),
// found once on the float model, and the small graph edits both quantizers share.
#include <string>
#include <unordered_set>
#include <vector>

#include "model/graph.h"

namespace msa {

struct QuantLayer {
  std::string node;    // its name
  std::string op;      // "Conv", "MatMul", "Gemm"
  std::string input;   // the activation it reads
  std::string weight;  // the initializer
  std::string bias;    // Conv's / Gemm's 1-D bias initializer, or empty
  int channelAxis = 0;  // the weight's output-channel axis as stored (Conv 0, MatMul 1, Gemm 0 with transB)
  bool transB = false;
  float alpha = 1, beta = 1;  // Gemm
};

// The layers of the top-level graph whose weight is a float initializer of the ranks the int8
// kernels take (Conv: 3-D or more; MatMul/Gemm: 2-D, Gemm without transA), read from an
// activation. `withConv` false: MatMul and Gemm only (dynamic quantization).
std::vector<QuantLayer> quantizableLayers(const Graph& g, bool withConv);

// Fresh value and node names for one rewrite (Graph::uniqueName rescans the graph on every call).
class NameSource {
 public:
  explicit NameSource(const Graph& g);
  std::string fresh(const std::string& base);

 private:
  std::unordered_set<std::string> m_used;
};

Node makeNode(std::string opType, std::vector<std::string> inputs, std::vector<std::string> outputs, std::string name,
              std::vector<Attribute> attributes = {}, std::string domain = {});

// A 2-D float tensor transposed (Gemm's transB weight as [K, N]).
Tensor transposed2D(const Tensor& t);

}  // namespace msa
