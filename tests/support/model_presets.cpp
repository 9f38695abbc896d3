#include "model_presets.h"

#include <algorithm>

#include "model_builder.h"

namespace msa::test::presets {
namespace {

std::string nodeOf(const ModelBuilder& b, const std::string& value) { return b.producer(value).name; }

PatternModel finish(const std::string& name, ModelBuilder& b, std::vector<std::string> nodes) {
  b.setMetadata("msa_pattern", name);
  return {name, b.build(), std::move(nodes)};
}

}  // namespace

PatternModel convBnRelu() {
  ModelBuilder b("conv_bn_relu", 17, 101);
  auto x = b.input("images", {1, 3, 32, 32});
  ModelBuilder::Scope s(b, "stem");
  auto c = b.conv(x, 16, 3, {.stride = 1, .pads = 1, .bias = false});
  auto n = b.batchNorm(c);
  auto r = b.relu(n);
  b.output(r, "features");
  return finish("conv_bn_relu", b, {nodeOf(b, c), nodeOf(b, n), nodeOf(b, "features")});
}

PatternModel matmulAddGelu() {
  ModelBuilder b("matmul_add_gelu", 17, 102);
  auto x = b.input("hidden", {1, 8, 64});
  std::vector<std::string> nodes;
  std::string h;
  {
    ModelBuilder::Scope s(b, "mlp");
    h = b.linear(x, 256);
    nodes.push_back(b.producer(b.producer(h).inputs[1]).name);  // MatMul (Add(bias, MatMul))
    nodes.push_back(nodeOf(b, h));
    h = b.gelu(h);
    for (const Node& n : b.graph().nodes)
      if (n.opType != "Constant" && std::find(nodes.begin(), nodes.end(), n.name) == nodes.end()) nodes.push_back(n.name);
  }
  {
    ModelBuilder::Scope s(b, "proj");
    h = b.linear(h, 64);
  }
  b.output(h, "out");
  return finish("matmul_add_gelu", b, nodes);
}

PatternModel inverseTransposePair() {
  ModelBuilder b("inverse_transpose_pair", 17, 103);
  auto x = b.input("images", {1, 16, 20, 20});
  auto c = b.conv(x, 32, 3, {.pads = 1});
  auto t1 = b.transpose(c, {0, 2, 3, 1});
  auto t2 = b.transpose(t1, {0, 3, 1, 2});
  auto y = b.conv(t2, 32, 1);
  b.output(y, "out");
  return finish("inverse_transpose_pair", b, {nodeOf(b, t1), nodeOf(b, t2)});
}

PatternModel sliceConcat() {
  ModelBuilder b("slice_concat", 17, 104);
  auto x = b.input("images", {1, 3, 64, 64});
  ModelBuilder::Scope s(b, "focus");
  auto a = b.slice(x, {0, 0}, {64, 64}, {2, 3}, {2, 2});
  auto c = b.slice(x, {1, 0}, {64, 64}, {2, 3}, {2, 2});
  auto d = b.slice(x, {0, 1}, {64, 64}, {2, 3}, {2, 2});
  auto e = b.slice(x, {1, 1}, {64, 64}, {2, 3}, {2, 2});
  auto cat = b.concat({a, c, d, e}, 1);
  auto y = b.silu(b.batchNorm(b.conv(cat, 32, 3, {.pads = 1, .bias = false})));
  b.output(y, "out");
  return finish("slice_concat", b, {nodeOf(b, a), nodeOf(b, c), nodeOf(b, d), nodeOf(b, e), nodeOf(b, cat)});
}

PatternModel misalignedDims() {
  ModelBuilder b("misaligned_dims", 17, 105);
  auto x = b.input("images", {1, 3, 30, 30});
  auto c = b.relu(b.conv(x, 20, 3, {.stride = 2, .pads = 1}));  // 20 channels, 15x15
  auto conv = b.producer(b.producer(c).inputs[0]).name;
  auto flat = b.reshape(c, {1, 20, 225});
  auto y = b.matmulWeight(b.transpose(flat, {0, 2, 1}), 77);  // [1,225,20] x [20,77]
  auto mm1 = nodeOf(b, y);
  auto z = b.matmulWeight(b.relu(y), 50);  // K = 77, N = 50
  b.output(z, "out");
  return finish("misaligned_dims", b, {conv, mm1, nodeOf(b, "out")});
}

PatternModel layerNormDecomposed() {
  ModelBuilder b("layernorm_decomposed", 14, 106);
  auto x = b.input("tokens", {1, 10, 96});
  size_t first = b.graph().nodes.size();
  std::string y;
  {
    ModelBuilder::Scope s(b, "norm");
    y = b.layerNormDecomposed(x);
  }
  std::vector<std::string> nodes;
  for (size_t i = first; i < b.graph().nodes.size(); ++i)
    if (b.graph().nodes[i].opType != "Constant") nodes.push_back(b.graph().nodes[i].name);
  b.output(b.linear(y, 96), "out");
  return finish("layernorm_decomposed", b, nodes);
}

PatternModel layerNormFused() {
  ModelBuilder b("layernorm_fused", 17, 107);
  auto x = b.input("tokens", {1, 10, 96});
  auto y = b.layerNorm(x);
  auto ln = nodeOf(b, y);
  b.output(b.linear(y, 96), "out");
  return finish("layernorm_fused", b, {ln});
}

PatternModel multiConsumerIntermediate() {
  ModelBuilder b("multi_consumer_intermediate", 17, 108);
  auto x = b.input("images", {1, 16, 16, 16});
  auto c = b.conv(x, 16, 3, {.pads = 1});
  auto n = b.batchNorm(c);
  auto r = b.relu(n);
  auto y = b.add(r, c);  // the Conv output has two consumers: BN and this Add
  b.output(y, "out");
  return finish("multi_consumer_intermediate", b, {nodeOf(b, c), nodeOf(b, n), nodeOf(b, r), nodeOf(b, "out")});
}

PatternModel intermediateIsGraphOutput() {
  ModelBuilder b("intermediate_is_graph_output", 17, 109);
  auto x = b.input("images", {1, 8, 16, 16});
  auto c = b.conv(x, 16, 3, {.pads = 1});
  auto n = b.batchNorm(c);
  auto r = b.relu(n);
  b.output(r, "out");
  b.output(n, "bn_out");  // also read by the caller: BN+Relu cannot be fused away
  return finish("intermediate_is_graph_output", b, {nodeOf(b, c), nodeOf(b, "bn_out"), nodeOf(b, "out")});
}

PatternModel channelShuffle() {
  ModelBuilder b("channel_shuffle", 17, 110);
  auto x = b.input("features", {1, 24, 8, 8});
  auto c = b.relu(b.conv(x, 24, 1, {.groups = 2}));
  ModelBuilder::Scope s(b, "shuffle");
  auto r1 = b.reshape(c, {1, 2, 12, 8, 8});
  auto t = b.transpose(r1, {0, 2, 1, 3, 4});
  auto r2 = b.reshape(t, {1, 24, 8, 8});
  b.output(b.conv(r2, 24, 1, {.groups = 2}), "out");
  return finish("channel_shuffle", b, {nodeOf(b, r1), nodeOf(b, t), nodeOf(b, r2)});
}

PatternModel castRoundTrip() {
  ModelBuilder b("cast_round_trip", 17, 111);
  auto x = b.input("x", {1, 64, 32});
  auto h = b.matmulWeight(x, 48);
  auto c1 = b.cast(h, DType::Float16);
  auto c2 = b.cast(c1, DType::Float);
  b.output(b.relu(c2), "out");
  return finish("cast_round_trip", b, {nodeOf(b, c1), nodeOf(b, c2)});
}

PatternModel convReluConv() {
  ModelBuilder b("conv_relu_conv", 17, 112);
  auto x = b.input("images", {1, 3, 32, 32});
  auto c1 = b.conv(x, 16, 3, {.pads = 1});
  auto r = b.relu(c1);
  auto c2 = b.conv(r, 16, 3, {.pads = 1});
  b.output(c2, "out");
  return finish("conv_relu_conv", b, {nodeOf(b, c1), nodeOf(b, r), nodeOf(b, "out")});
}

PatternModel shapeArithmetic() {
  ModelBuilder b("shape_arithmetic", 17, 113);
  auto x = b.input("tokens", {1, 12, 64});
  size_t first = b.graph().nodes.size();
  auto y = b.reshapeFromShape(x, 2, {4, 16});  // [1,12,4,16]
  std::vector<std::string> nodes;
  for (size_t i = first; i < b.graph().nodes.size(); ++i)
    if (b.graph().nodes[i].opType != "Constant") nodes.push_back(b.graph().nodes[i].name);
  b.output(b.transpose(y, {0, 2, 1, 3}), "out");
  return finish("shape_arithmetic", b, nodes);
}

PatternModel gemmHead() {
  ModelBuilder b("gemm_head", 13, 114);
  auto x = b.input("features", {1, 32, 8, 8});
  auto p = b.maxPool(x, 2, {.stride = 2});
  auto f = b.reshape(p, {1, -1});
  auto g = b.gemm(f, 10);
  auto s = b.softmax(g, 1);
  b.output(s, "probs");
  return finish("gemm_head", b, {nodeOf(b, g), nodeOf(b, "probs")});
}

std::vector<PatternModel> all() {
  return {convBnRelu(),     matmulAddGelu(),          inverseTransposePair(),      sliceConcat(),
          misalignedDims(), layerNormDecomposed(),    layerNormFused(),            multiConsumerIntermediate(),
          intermediateIsGraphOutput(), channelShuffle(), castRoundTrip(),          convReluConv(),
          shapeArithmetic(), gemmHead()};
}

}  // namespace msa::test::presets
