#include "model_presets.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>

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

namespace {

// MatMul(Q, Kᵀ) → ·scale → mask → Softmax → ·V over [1, heads, T, d] values, then back to [1, T, C].
std::string attention(ModelBuilder& b, const std::string& q, const std::string& k, const std::string& v,
                      const std::function<std::string(const std::string&)>& mask, bool divide, float scale) {
  auto scores = b.matmul(q, b.transpose(k, {0, 1, 3, 2}));
  scores = divide ? b.div(scores, b.scalar(scale)) : b.mul(scores, b.scalar(scale));
  auto p = b.softmax(mask(scores), -1);
  auto o = b.transpose(b.matmul(p, v), {0, 2, 1, 3});
  const auto d = b.dims(o);
  return b.reshape(o, {d[0], d[1], d[2] * d[3]});
}

std::string heads(ModelBuilder& b, const std::string& x, int64_t h) {
  const auto d = b.dims(x);
  return b.transpose(b.reshape(x, {d[0], d[1], h, d[2] / h}), {0, 2, 1, 3});
}

}  // namespace

PatternModel gptBlock() {
  ModelBuilder b("gpt_block", 17, 120);
  const int64_t T = 16, C = 64, H = 4;
  auto x = b.input("hidden", {1, T, C});
  std::vector<std::string> gelu;
  std::string y;
  {
    ModelBuilder::Scope s(b, "blocks.0");
    auto qkv = b.split(b.linear(b.layerNorm(x), 3 * C), 2, {C, C, C});
    auto mask = b.initializer("mask", {1, 1, T, T}, [&] {
      std::vector<float> m(static_cast<size_t>(T * T));
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) m[static_cast<size_t>(i * T + j)] = j <= i ? 1.f : 0.f;
      return m;
    }());
    auto isZero = b.node("Equal", {mask, b.scalar(0)}, {}, {TypeInfo::tensor(DType::Bool, Shape{1, 1, T, T})})[0];
    auto where = [&](const std::string& s) {
      return b.node("Where", {isZero, b.scalar(-1e9f), s}, {}, {b.type(s)})[0];
    };
    auto a = attention(b, heads(b, qkv[0], H), heads(b, qkv[1], H), heads(b, qkv[2], H), where, false, 0.25f);
    auto h = b.add(x, b.linear(a, C));
    ModelBuilder::Scope act(b, "act");
    auto f = b.linear(b.layerNorm(h), 4 * C);
    const size_t before = b.graph().nodes.size();
    // NewGELU: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in torch's evaluation order.
    auto half = b.mul(f, b.scalar(0.5f));
    auto cube = b.pow(f, b.scalar(3.f));
    auto inner = b.mul(b.add(f, b.mul(cube, b.scalar(0.044715f))), b.scalar(0.7978845834732056f));
    auto t = b.node("Tanh", {inner}, {}, {b.type(inner)})[0];
    auto g = b.mul(half, b.add(t, b.scalar(1.f)));
    for (size_t i = before; i < b.graph().nodes.size(); ++i) gelu.push_back(b.graph().nodes[i].name);
    y = b.add(h, b.linear(g, C));
  }
  b.output(y, "out");
  return finish("gpt_block", b, gelu);
}

PatternModel llamaBlock() {
  ModelBuilder b("llama_block", 17, 121);
  const int64_t T = 16, C = 64, H = 4, D = C / H, F = 128;
  auto x = b.input("hidden", {1, T, C});
  std::vector<float> cosv, sinv;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < D; ++i) {
      const double inv = std::pow(10000.0, -2.0 * static_cast<double>(i % (D / 2)) / static_cast<double>(D));
      cosv.push_back(static_cast<float>(std::cos(static_cast<double>(t) * inv)));
      sinv.push_back(static_cast<float>(std::sin(static_cast<double>(t) * inv)));
    }
  std::vector<std::string> rotaryQ;
  std::string y;
  {
    ModelBuilder::Scope s(b, "layers.0");
    auto cos = b.initializer("cos", {T, D}, cosv);
    auto sin = b.initializer("sin", {T, D}, sinv);
    // torch's export shares equal weights through Identity nodes: the second γ is Identity(first).
    const auto gamma = b.initializer("norm1.weight", {C}, std::vector<float>(static_cast<size_t>(C), 1.f));
    const auto gamma2 = b.node("Identity", {gamma}, {}, {b.type(gamma)})[0];
    int norms = 0;
    auto rms = [&](const std::string& v) {  // x · 1/√(mean(x²) + ε) · γ
      auto ms = b.reduceMean(b.pow(v, b.scalar(2.f)), {-1});
      auto inv = b.div(b.scalar(1.f), b.sqrt(b.add(ms, b.scalar(1e-6f))));
      return b.mul(b.mul(v, inv), norms++ == 0 ? gamma : gamma2);
    };
    auto rotate = [&](const std::string& v, std::vector<std::string>* names) {
      const size_t before = b.graph().nodes.size();
      auto a = b.mul(v, cos);
      auto x1 = b.slice(v, {0}, {D / 2}, {3});
      auto x2 = b.slice(v, {D / 2}, {INT64_MAX}, {3});
      auto neg = b.node("Neg", {x2}, {}, {b.type(x2)})[0];
      auto r = b.add(a, b.mul(b.concat({neg, x1}, -1), sin));
      if (names)
        for (size_t i = before; i < b.graph().nodes.size(); ++i)
          if (b.graph().nodes[i].opType != "Constant") names->push_back(b.graph().nodes[i].name);
      return r;
    };
    auto n1 = rms(x);
    auto q = rotate(heads(b, b.matmulWeight(n1, C), H), &rotaryQ);
    auto k = rotate(heads(b, b.matmulWeight(n1, C), H), nullptr);
    auto v = heads(b, b.matmulWeight(n1, C), H);
    std::vector<float> causal(static_cast<size_t>(T * T));
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) causal[static_cast<size_t>(i * T + j)] = j <= i ? 0.f : -1e9f;
    auto mask = b.initializer("causal", {T, T}, causal);
    auto a = attention(b, q, k, v, [&](const std::string& sc) { return b.add(sc, mask); }, true, std::sqrt(static_cast<float>(D)));
    auto h = b.add(x, b.matmulWeight(a, C));
    auto n2 = rms(h);
    auto gate = b.matmulWeight(n2, F);
    auto up = b.matmulWeight(n2, F);
    y = b.add(h, b.matmulWeight(b.mul(b.mul(gate, b.sigmoid(gate)), up), C));
  }
  b.output(y, "out");
  return finish("llama_block", b, rotaryQ);
}

std::vector<PatternModel> all() {
  return {convBnRelu(),     matmulAddGelu(),          inverseTransposePair(),      sliceConcat(),
          misalignedDims(), layerNormDecomposed(),    layerNormFused(),            multiConsumerIntermediate(),
          intermediateIsGraphOutput(), channelShuffle(), castRoundTrip(),          convReluConv(),
          shapeArithmetic(), gemmHead()};
}

}  // namespace msa::test::presets
