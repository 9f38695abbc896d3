#include "synthetic_graphs.h"

#include <string>
#include <vector>

namespace msa::bench {
namespace {

class Builder {
 public:
  explicit Builder(Graph& g) : m_g(g) {}

  std::string weight(const std::string& name, std::vector<int64_t> dims) {
    Tensor t;
    t.name = name;
    t.dtype = DType::Float;
    t.dims = std::move(dims);
    m_g.initializers.push_back(std::move(t));
    return name;
  }
  // One node with one output of the given shape; returns the output name.
  std::string op(const std::string& scope, const std::string& opType, const std::string& suffix,
                 std::vector<std::string> inputs, const Shape& shape, DType dt = DType::Float) {
    Node n;
    n.name = scope + "/" + opType + suffix;
    n.opType = opType;
    n.inputs = std::move(inputs);
    const std::string out = n.name + "_output_0";
    n.outputs = {out};
    m_g.addNode(std::move(n));
    m_g.valueInfo.push_back({out, TypeInfo::tensor(dt, shape), {}, {}});
    return out;
  }
  // The exporter's shape arithmetic feeding a Reshape: Shape -> Gather -> Unsqueeze -> Concat.
  std::string shapeOf(const std::string& scope, const std::string& x, const std::string& sfx) {
    const std::string s = op(scope, "Shape", sfx, {x}, Shape{3}, DType::Int64);
    const std::string g = op(scope, "Gather", sfx, {s, "const_index0"}, Shape{}, DType::Int64);
    const std::string u = op(scope, "Unsqueeze", sfx, {g, "const_axes0"}, Shape{1}, DType::Int64);
    return op(scope, "Concat", sfx, {u, "const_shape_tail"}, Shape{4}, DType::Int64);
  }
  // Decomposed LayerNorm as exported at opset 14: 9 nodes.
  std::string layerNorm(const std::string& scope, const std::string& x, const Shape& s, const std::string& w) {
    Shape r = s;
    r.dims.back().value = 1;
    const std::string m = op(scope, "ReduceMean", "", {x}, r);
    const std::string d = op(scope, "Sub", "", {x, m}, s);
    const std::string p = op(scope, "Pow", "", {d, "const_two"}, s);
    const std::string v = op(scope, "ReduceMean", "_1", {p}, r);
    const std::string e = op(scope, "Add", "", {v, "const_eps"}, r);
    const std::string q = op(scope, "Sqrt", "", {e}, r);
    const std::string n = op(scope, "Div", "", {d, q}, s);
    const std::string g = op(scope, "Mul", "", {n, w + ".weight"}, s);
    return op(scope, "Add", "_1", {g, w + ".bias"}, s);
  }
  std::string linear(const std::string& scope, const std::string& x, const std::string& w, const Shape& out) {
    const std::string mm = op(scope, "MatMul", "", {x, w + ".weight"}, out);
    return op(scope, "Add", "", {mm, w + ".bias"}, out);
  }

 private:
  Graph& m_g;
};

}  // namespace

int transformerNodeCount(const TransformerSpec& spec) { return 25 + 67 * spec.layers; }

TransformerSpec transformerWithNodes(int nodes) {
  TransformerSpec s;
  s.layers = std::max(1, (nodes - 25 + 66) / 67);
  return s;
}

Model transformer(const TransformerSpec& spec) {
  Model m;
  m.setOpset("", 14);
  m.producerName = "msadvisor synthetic";
  Graph& g = m.graph;
  g.name = "transformer_" + std::to_string(spec.layers);
  Builder b(g);
  const int64_t S = spec.seq, D = spec.hidden, H = spec.heads, Dh = spec.hidden / spec.heads, F = spec.ffn;
  const Shape hid{1, S, D};
  g.inputs.push_back({"input_ids", TypeInfo::tensor(DType::Int64, Shape{1, S}), {}, {}});
  g.inputs.push_back({"attention_mask", TypeInfo::tensor(DType::Int64, Shape{1, S}), {}, {}});
  for (const char* c : {"const_index0", "const_axes0", "const_shape_tail", "const_two", "const_eps", "const_sqrt",
                        "const_one", "const_half", "const_sqrt2", "const_neg"})
    b.weight(c, {1});
  auto lnWeights = [&](const std::string& p) {
    b.weight(p + ".weight", {D});
    b.weight(p + ".bias", {D});
  };
  auto linWeights = [&](const std::string& p, int64_t in, int64_t out) {
    b.weight(p + ".weight", {in, out});
    b.weight(p + ".bias", {out});
  };

  // Embeddings and the attention mask: 19 nodes.
  b.weight("embeddings.word_embeddings.weight", {30522, D});
  b.weight("embeddings.position_embeddings.weight", {512, D});
  b.weight("embeddings.token_type_embeddings.weight", {2, D});
  b.weight("embeddings.position_ids", {1, S});
  b.weight("embeddings.token_type_ids", {1, S});
  lnWeights("embeddings.LayerNorm");
  const std::string E = "/embeddings";
  std::string we = b.op(E + "/word_embeddings", "Gather", "", {"embeddings.word_embeddings.weight", "input_ids"}, hid);
  std::string tt = b.op(E + "/token_type_embeddings", "Gather", "", {"embeddings.token_type_embeddings.weight", "embeddings.token_type_ids"}, hid);
  std::string x = b.op(E, "Add", "", {we, tt}, hid);
  std::string pe = b.op(E + "/position_embeddings", "Gather", "", {"embeddings.position_embeddings.weight", "embeddings.position_ids"}, hid);
  x = b.op(E, "Add", "_1", {x, pe}, hid);
  x = b.layerNorm(E + "/LayerNorm", x, hid, "embeddings.LayerNorm");
  std::string mask = b.op("", "Unsqueeze", "", {"attention_mask", "const_axes0"}, Shape{1, 1, S}, DType::Int64);
  mask = b.op("", "Unsqueeze", "_1", {mask, "const_axes0"}, Shape{1, 1, 1, S}, DType::Int64);
  mask = b.op("", "Cast", "", {mask}, Shape{1, 1, 1, S});
  mask = b.op("", "Sub", "", {"const_one", mask}, Shape{1, 1, 1, S});
  mask = b.op("", "Mul", "", {mask, "const_neg"}, Shape{1, 1, 1, S});

  const Shape heads{1, H, S, Dh}, headsT{1, H, Dh, S}, split{1, S, H, Dh}, scores{1, H, S, S}, ff{1, S, F};
  for (int l = 0; l < spec.layers; ++l) {
    const std::string L = "/encoder/layer." + std::to_string(l);
    const std::string W = "encoder.layer." + std::to_string(l);
    const std::string A = L + "/attention/self";
    std::string proj[3];
    const char* names[3] = {"query", "key", "value"};
    for (int t = 0; t < 3; ++t) {  // 6 nodes
      linWeights(W + ".attention.self." + names[t], D, D);
      proj[t] = b.linear(A + "/" + names[t], x, W + ".attention.self." + names[t], hid);
    }
    std::string th[3];
    for (int t = 0; t < 3; ++t) {  // 18 nodes
      const std::string sfx = "_" + std::to_string(t);
      const std::string shp = b.shapeOf(A, proj[t], sfx);
      const std::string r = b.op(A, "Reshape", sfx, {proj[t], shp}, split);
      th[t] = b.op(A, "Transpose", sfx, {r}, heads);
    }
    const std::string kt = b.op(A, "Transpose", "_3", {th[1]}, headsT);  // 1
    std::string s = b.op(A, "MatMul", "", {th[0], kt}, scores);          // 11
    s = b.op(A, "Div", "", {s, "const_sqrt"}, scores);
    s = b.op(A, "Add", "", {s, mask}, scores);
    s = b.op(A, "Softmax", "", {s}, scores);
    std::string c = b.op(A, "MatMul", "_1", {s, th[2]}, heads);
    c = b.op(A, "Transpose", "_4", {c}, split);
    const std::string cs = b.shapeOf(A, c, "_4");
    c = b.op(A, "Reshape", "_4", {c, cs}, hid);
    const std::string O = L + "/attention/output";  // 12
    linWeights(W + ".attention.output.dense", D, D);
    lnWeights(W + ".attention.output.LayerNorm");
    c = b.linear(O + "/dense", c, W + ".attention.output.dense", hid);
    c = b.op(O, "Add", "", {c, x}, hid);
    const std::string a = b.layerNorm(O + "/LayerNorm", c, hid, W + ".attention.output.LayerNorm");
    const std::string I = L + "/intermediate";  // 7
    linWeights(W + ".intermediate.dense", D, F);
    std::string h = b.linear(I + "/dense", a, W + ".intermediate.dense", ff);
    const std::string act = I + "/intermediate_act_fn";
    std::string d = b.op(act, "Div", "", {h, "const_sqrt2"}, ff);
    d = b.op(act, "Erf", "", {d}, ff);
    d = b.op(act, "Add", "", {d, "const_one"}, ff);
    d = b.op(act, "Mul", "", {h, d}, ff);
    h = b.op(act, "Mul", "_1", {d, "const_half"}, ff);
    const std::string OO = L + "/output";  // 12
    linWeights(W + ".output.dense", F, D);
    lnWeights(W + ".output.LayerNorm");
    h = b.linear(OO + "/dense", h, W + ".output.dense", hid);
    h = b.op(OO, "Add", "", {h, a}, hid);
    x = b.layerNorm(OO + "/LayerNorm", h, hid, W + ".output.LayerNorm");
  }
  // Pooler and classifier: 6 nodes.
  linWeights("pooler.dense", D, D);
  linWeights("classifier", D, 2);
  std::string p = b.op("/pooler", "Gather", "", {x, "const_index0"}, Shape{1, D});
  p = b.linear("/pooler/dense", p, "pooler.dense", Shape{1, D});
  p = b.op("/pooler/activation", "Tanh", "", {p}, Shape{1, D});
  p = b.linear("/classifier", p, "classifier", Shape{1, 2});
  g.outputs.push_back({"last_hidden_state", TypeInfo::tensor(DType::Float, hid), {}, {}});
  g.outputs.push_back({"logits", TypeInfo::tensor(DType::Float, Shape{1, 2}), {}, {}});
  // Name the outputs as the exporter does: rename the producing values.
  for (Node& n : g.nodes) {
    for (std::string& o : n.outputs) {
      if (o == x) o = "last_hidden_state";
      if (o == p) o = "logits";
    }
    for (std::string& i : n.inputs) {
      if (i == x) i = "last_hidden_state";
    }
  }
  return m;
}

}  // namespace msa::bench
