#include "example_models.h"

#include <cmath>

#include "model_builder.h"

namespace msa::test::examples {
namespace {

using Scope = ModelBuilder::Scope;

// ultralytics' Conv: Conv2d(bias=False) -> BatchNorm2d -> SiLU, named conv/bn/act.
std::string cbs(ModelBuilder& b, const std::string& x, int64_t c, int64_t k, int64_t s = 1) {
  std::string y;
  {
    Scope sc(b, "conv");
    y = b.conv(x, c, k, {.stride = s, .pads = k / 2, .bias = false});
  }
  {
    Scope sc(b, "bn");
    y = b.batchNorm(y, 1e-3f);
  }
  Scope sc(b, "act");
  return b.silu(y);
}

std::string c2f(ModelBuilder& b, const std::string& x, int64_t cOut, int n, bool shortcut) {
  const int64_t c = cOut / 2;
  std::string y;
  {
    Scope s(b, "cv1");
    y = cbs(b, x, 2 * c, 1);
  }
  std::vector<std::string> parts = b.split(y, 1, {c, c});
  for (int i = 0; i < n; ++i) {
    Scope m(b, "m." + std::to_string(i));
    std::string h;
    {
      Scope s(b, "cv1");
      h = cbs(b, parts.back(), c, 3);
    }
    {
      Scope s(b, "cv2");
      h = cbs(b, h, c, 3);
    }
    parts.push_back(shortcut ? b.add(parts.back(), h) : h);
  }
  std::string cat = b.concat(parts, 1);
  Scope s(b, "cv2");
  return cbs(b, cat, cOut, 1);
}

std::string sppf(ModelBuilder& b, const std::string& x, int64_t cOut) {
  const int64_t hidden = b.dims(x)[1] / 2;
  std::string y;
  {
    Scope s(b, "cv1");
    y = cbs(b, x, hidden, 1);
  }
  std::vector<std::string> parts{y};
  {
    Scope s(b, "m");
    for (int i = 0; i < 3; ++i) parts.push_back(b.maxPool(parts.back(), 5, {.stride = 1, .pads = 2}));
  }
  std::string cat = b.concat(parts, 1);
  Scope s(b, "cv2");
  return cbs(b, cat, cOut, 1);
}

// One YOLOv5-style detection level: [1, A*(5+nc), H, W] -> [1, A*H*W, 5+nc].
std::string detectLevel(ModelBuilder& b, const std::string& x, int level, int64_t anchors, int64_t perAnchor) {
  Scope s(b, "m." + std::to_string(level));
  std::string p = b.conv(x, anchors * perAnchor, 1);
  auto d = b.dims(p);
  std::string r = b.reshape(p, {1, anchors, perAnchor, d[2], d[3]});
  std::string t = b.transpose(r, {0, 1, 3, 4, 2});
  std::string sg = b.sigmoid(t);
  return b.reshape(sg, {1, anchors * d[2] * d[3], perAnchor});
}

template <typename F>
std::string layer(ModelBuilder& b, int index, F&& f) {
  Scope s(b, "model." + std::to_string(index));
  return f();
}

}  // namespace

Model tinyYolo() {
  ModelBuilder b("main_graph", 17, 20240501);
  std::string x = b.input("images", {1, 3, 160, 160});
  // Backbone.
  std::string h = layer(b, 0, [&] { return cbs(b, x, 20, 3, 2); });      // 80x80
  h = layer(b, 1, [&] { return cbs(b, h, 40, 3, 2); });                   // 40x40
  h = layer(b, 2, [&] { return c2f(b, h, 40, 1, true); });
  h = layer(b, 3, [&] { return cbs(b, h, 80, 3, 2); });                   // 20x20
  const std::string p3 = layer(b, 4, [&] { return c2f(b, h, 80, 2, true); });
  h = layer(b, 5, [&] { return cbs(b, p3, 160, 3, 2); });                 // 10x10
  const std::string p4 = layer(b, 6, [&] { return c2f(b, h, 160, 1, true); });
  h = layer(b, 7, [&] { return cbs(b, p4, 160, 3, 2); });                 // 5x5
  h = layer(b, 8, [&] { return c2f(b, h, 160, 1, true); });
  const std::string p5 = layer(b, 9, [&] { return sppf(b, h, 160); });
  // Neck (PAN).
  h = layer(b, 10, [&] { return b.resize(p5, {1, 1, 2, 2}); });
  h = layer(b, 11, [&] { return b.concat({h, p4}, 1); });
  const std::string n12 = layer(b, 12, [&] { return c2f(b, h, 80, 1, false); });
  h = layer(b, 13, [&] { return b.resize(n12, {1, 1, 2, 2}); });
  h = layer(b, 14, [&] { return b.concat({h, p3}, 1); });
  const std::string n3 = layer(b, 15, [&] { return c2f(b, h, 40, 1, false); });
  h = layer(b, 16, [&] { return cbs(b, n3, 40, 3, 2); });
  h = layer(b, 17, [&] { return b.concat({h, n12}, 1); });
  const std::string n4 = layer(b, 18, [&] { return c2f(b, h, 80, 1, false); });
  h = layer(b, 19, [&] { return cbs(b, n4, 80, 3, 2); });
  h = layer(b, 20, [&] { return b.concat({h, p5}, 1); });
  const std::string n5 = layer(b, 21, [&] { return c2f(b, h, 160, 1, false); });
  // Head: 3 anchors x (4 box + 1 objectness + 4 classes) per cell and level.
  std::string out;
  {
    Scope s(b, "model.22");
    std::vector<std::string> levels;
    levels.push_back(detectLevel(b, n3, 0, 3, 9));
    levels.push_back(detectLevel(b, n4, 1, 3, 9));
    levels.push_back(detectLevel(b, n5, 2, 3, 9));
    std::string all = b.concat(levels, 1);                  // [1,1575,9]
    std::string t1 = b.transpose(all, {0, 2, 1});           // an export wrapper's layout change ...
    std::string t2 = b.transpose(t1, {0, 2, 1});            // ... undone at once: pure waste
    std::string boxes = b.slice(t2, {0}, {4}, {2});
    std::string scores = b.slice(t2, {4}, {9}, {2});
    std::string scaled = b.mul(boxes, b.constant({}, {160.0f}));
    out = b.concat({scaled, scores}, 2);
  }
  b.output(out, "output0");
  b.setMetadata("description", "msadvisor example: small YOLO-like detector, random weights");
  b.setMetadata("stride", "[8, 16, 32]");
  b.setMetadata("names", "{0: 'person', 1: 'car', 2: 'dog', 3: 'bicycle'}");
  return b.build();
}

namespace {

std::string attention(ModelBuilder& b, const std::string& x, int64_t d, int64_t heads) {
  const int64_t hd = d / heads;
  Scope s(b, "self_attn");
  std::string q, k, v;
  {
    Scope p(b, "q_proj");
    q = b.linear(x, d);
  }
  {
    Scope p(b, "k_proj");
    k = b.linear(x, d);
  }
  {
    Scope p(b, "v_proj");
    v = b.linear(x, d);
  }
  std::string qh = b.transpose(b.reshapeFromShape(q, 2, {heads, hd}), {0, 2, 1, 3});  // [B,H,S,hd]
  std::string kh = b.transpose(b.reshapeFromShape(k, 2, {heads, hd}), {0, 2, 3, 1});  // [B,H,hd,S]
  std::string vh = b.transpose(b.reshapeFromShape(v, 2, {heads, hd}), {0, 2, 1, 3});
  std::string scores = b.div(b.matmul(qh, kh), b.constant({}, {static_cast<float>(std::sqrt(double(hd)))}));
  std::string probs = b.softmax(scores, -1);
  std::string ctx = b.transpose(b.matmul(probs, vh), {0, 2, 1, 3});  // [B,S,H,hd]
  ctx = b.reshapeFromShape(ctx, 2, {d});
  Scope p(b, "out_proj");
  return b.linear(ctx, d);
}

std::string encoderLayer(ModelBuilder& b, int index, const std::string& x, int64_t d, int64_t heads, int64_t ff) {
  Scope s(b, "layers." + std::to_string(index));
  std::string h;
  {
    Scope n(b, "ln_1");
    h = b.layerNormDecomposed(x, 1e-6f);
  }
  std::string r = b.add(x, attention(b, h, d, heads));
  {
    Scope n(b, "ln_2");
    h = b.layerNormDecomposed(r, 1e-6f);
  }
  Scope m(b, "mlp");
  {
    Scope l(b, "fc1");
    h = b.linear(h, ff);
  }
  h = b.gelu(h);
  {
    Scope l(b, "fc2");
    h = b.linear(h, d);
  }
  return b.add(r, h);
}

}  // namespace

Model tinyTransformer() {
  constexpr int64_t kSeq = 64, kDim = 120, kHeads = 4, kFf = 480, kVocab = 1000;
  ModelBuilder b("main_graph", 14, 20240502);
  std::string ids = b.input("input_ids", {1, kSeq}, DType::Int64);
  std::string h;
  {
    Scope s(b, "embeddings");
    std::string table = b.weight("embeddings.word_embeddings.weight", {kVocab, kDim}, 0.5);
    std::string pos = b.weight("embeddings.position_embeddings", {1, kSeq, kDim}, 0.1);
    h = b.add(b.gather(table, ids, 0), pos);
  }
  {
    Scope s(b, "encoder");
    for (int i = 0; i < 2; ++i) h = encoderLayer(b, i, h, kDim, kHeads, kFf);
    Scope n(b, "ln");
    h = b.layerNormDecomposed(h, 1e-6f);
  }
  std::string hidden = b.output(h, "last_hidden_state");
  std::string logits;
  {
    Scope s(b, "heads");
    std::string cls = b.reshape(b.slice(hidden, {0}, {1}, {1}), {1, kDim});
    logits = b.gemm(cls, 5);
  }
  b.output(logits, "logits");
  b.setMetadata("description", "msadvisor example: small transformer encoder, random weights");
  return b.build();
}

}  // namespace msa::test::examples
