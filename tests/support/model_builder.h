#pragma once
// A small fluent builder over the IR that writes ONNX models with known patterns and seeded
// random weights, for tests and for the bundled example models. It names nodes, values and
// weights the way torch.onnx.export does ("/backbone/conv1/Conv", "/backbone/conv1/Conv_output_0",
// "backbone.conv1.weight"), tracks the shape of every value it creates (so a conv knows its input
// channels) and writes the same bytes for the same calls and seed.
//
//   ModelBuilder b("convnet", 17);
//   auto x = b.input("images", {1, 3, 64, 64});
//   auto y = b.relu(b.batchNorm(b.conv(x, 24, 3, {.stride = 2, .pads = 1})));
//   b.output(y, "features");
//   Model m = b.build();
//
// Supported opsets: 13..17 (what ONNX 1.12's checker and ONNX Runtime 1.21 both know).
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa::test {

// splitmix64: a fixed algorithm (not std::*_distribution) so weights are the same everywhere.
class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : m_state(seed) {}
  uint64_t next();
  double uniform(double lo, double hi);  // [lo, hi)
  double normal(double mean, double stddev);  // Irwin-Hall approximation, no transcendental calls

 private:
  uint64_t m_state;
};

struct ConvOptions {
  int64_t stride = 1;
  int64_t pads = 0;     // symmetric padding on every spatial edge
  int64_t groups = 1;
  int64_t dilation = 1;
  bool bias = true;
};

struct PoolOptions {
  int64_t stride = 1;
  int64_t pads = 0;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string graphName = "main_graph", int64_t opset = 17, uint64_t seed = 1234);

  int64_t opset() const { return m_opset; }

  // --- naming scopes ("/backbone/stage1/..."); push/pop or use the RAII Scope.
  void pushScope(const std::string& name);
  void popScope();
  class Scope {
   public:
    Scope(ModelBuilder& b, const std::string& name) : m_b(b) { m_b.pushScope(name); }
    ~Scope() { m_b.popScope(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ModelBuilder& m_b;
  };

  // --- graph interface
  // Negative dims are symbolic: -1 gets the name "dim_<input>_<axis>" unless `params` names it.
  std::string input(const std::string& name, std::vector<int64_t> dims, DType dtype = DType::Float,
                    std::vector<std::string> params = {});
  // Marks a value as a graph output. With a name, the producing node's output is renamed.
  std::string output(const std::string& value, const std::string& name = {});
  // A seeded random float initializer, uniform in [-bound, bound].
  std::string weight(const std::string& name, std::vector<int64_t> dims, double bound);
  // Initializers with given values.
  std::string initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values);
  std::string initializerInt64(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& values);
  // A scalar float initializer (shape []), named after the current scope.
  std::string scalar(float v);
  // Constant nodes.
  std::string constant(std::vector<int64_t> dims, const std::vector<float>& values);
  std::string constantInt64(std::vector<int64_t> dims, const std::vector<int64_t>& values);

  // --- layers with their own weights
  std::string conv(const std::string& x, int64_t outChannels, int64_t kernel, ConvOptions o = {});
  std::string batchNorm(const std::string& x, float epsilon = 1e-5f);
  std::string matmulWeight(const std::string& x, int64_t outFeatures);  // MatMul with a [K, N] weight
  std::string linear(const std::string& x, int64_t outFeatures);        // MatMul -> Add(bias)
  std::string gemm(const std::string& x, int64_t outFeatures, bool transB = true);
  std::string layerNorm(const std::string& x, float epsilon = 1e-5f);            // LayerNormalization (opset 17)
  std::string layerNormDecomposed(const std::string& x, float epsilon = 1e-5f);  // ReduceMean/Sub/Pow/.../Add

  // --- activations
  std::string relu(const std::string& x);
  std::string sigmoid(const std::string& x);
  std::string clip(const std::string& x, float lo, float hi);
  std::string silu(const std::string& x);  // x * Sigmoid(x)
  std::string gelu(const std::string& x);  // exact GELU, decomposed: Div/Erf/Add/Mul/Mul
  std::string erf(const std::string& x);
  std::string sqrt(const std::string& x);
  std::string softmax(const std::string& x, int64_t axis = -1);

  // --- elementwise (numpy broadcasting)
  std::string add(const std::string& a, const std::string& b);
  std::string sub(const std::string& a, const std::string& b);
  std::string mul(const std::string& a, const std::string& b);
  std::string div(const std::string& a, const std::string& b);
  std::string pow(const std::string& a, const std::string& b);
  std::string matmul(const std::string& a, const std::string& b);

  // --- data movement
  std::string transpose(const std::string& x, std::vector<int64_t> perm);
  std::string reshape(const std::string& x, std::vector<int64_t> shape);  // shape as an initializer
  // Shape -> Gather -> Unsqueeze per kept leading dim, Constant for the rest, Concat -> Reshape:
  // the arithmetic exporters emit for x.view(x.size(0), x.size(1), heads, -1).
  std::string reshapeFromShape(const std::string& x, int64_t keepLeading, std::vector<int64_t> tail);
  std::string slice(const std::string& x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                    std::vector<int64_t> axes, std::vector<int64_t> steps = {});
  std::vector<std::string> split(const std::string& x, int64_t axis, std::vector<int64_t> sizes);
  std::string concat(const std::vector<std::string>& xs, int64_t axis);
  std::string resize(const std::string& x, std::vector<float> scales, const std::string& mode = "nearest");
  std::string maxPool(const std::string& x, int64_t kernel, PoolOptions o = {});
  std::string reduceMean(const std::string& x, std::vector<int64_t> axes, bool keepdims = true);
  std::string cast(const std::string& x, DType to);
  std::string identity(const std::string& x);
  std::string dropout(const std::string& x);
  std::string shape(const std::string& x);
  std::string gather(const std::string& x, const std::string& indices, int64_t axis = 0);
  std::string unsqueeze(const std::string& x, std::vector<int64_t> axes);

  // Any other node: the caller gives the output types. Returns the output names.
  std::vector<std::string> node(const std::string& opType, std::vector<std::string> inputs,
                                std::vector<Attribute> attributes, std::vector<TypeInfo> outputTypes);

  // --- results
  const TypeInfo& type(const std::string& value) const;  // aborts the test on an unknown value
  const Shape& shapeOf(const std::string& value) const { return *type(value).shape; }
  std::vector<int64_t> dims(const std::string& value) const { return shapeOf(value).values(); }
  const Node& lastNode() const { return m_model.graph.nodes.back(); }
  const Node& producer(const std::string& value) const;
  Graph& graph() { return m_model.graph; }  // for tests that need something the builder lacks
  void setMetadata(const std::string& key, const std::string& value);
  void setDocString(const std::string& doc) { m_model.docString = doc; }

  // The model, with graph output types set. `withValueInfo` also declares every intermediate.
  Model build(bool withValueInfo = false) const;
  // build() then saveModel() (weights inline).
  Status save(const std::filesystem::path& path, bool withValueInfo = false) const;

 private:
  Node& addNode(const std::string& opType, std::vector<std::string> inputs, std::vector<TypeInfo> outs,
                std::vector<Attribute> attrs = {});
  std::string unary(const std::string& op, const std::string& x);
  std::string binary(const std::string& op, const std::string& a, const std::string& b);
  std::string paramName(const std::string& leaf) const;
  std::string uniqueNodeName(const std::string& opType);
  std::vector<int64_t> knownDims(const std::string& value) const;  // fails on unknown dims
  std::string int64Initializer(const std::string& leaf, std::vector<int64_t> values);
  void setType(const std::string& value, TypeInfo t) { m_types[value] = std::move(t); }

  Model m_model;
  int64_t m_opset;
  SeededRandom m_random;
  std::vector<std::string> m_scopes;
  std::map<std::string, int> m_nameUse;
  std::map<std::string, TypeInfo> m_types;
  std::vector<std::string> m_outputs;
};

// Numpy broadcasting of two shapes; unknown dims stay unknown.
Shape broadcastShapes(const Shape& a, const Shape& b);

}  // namespace msa::test
