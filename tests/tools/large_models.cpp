#include "large_models.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <type_traits>

#include <onnx/onnx_pb.h>

#include "model/half.h"

namespace fs = std::filesystem;

namespace msa::tools {
namespace {

constexpr int kFloat = onnx::TensorProto::FLOAT;
constexpr int kFloat16 = onnx::TensorProto::FLOAT16;
constexpr int kInt64 = onnx::TensorProto::INT64;
constexpr int kBool = onnx::TensorProto::BOOL;
constexpr int64_t kAlignAbove = 1 << 20;  // as onnx.save: big tensors start on a page
constexpr int64_t kPage = 4096;

// splitmix64: the same bytes for the same seed everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : m_state(seed) {}
  uint64_t next() {
    uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float bound) {  // [-bound, bound)
    return bound * (2.0f * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f) - 1.0f);
  }

 private:
  uint64_t m_state;
};

struct Val {
  std::string name;
  std::vector<int64_t> shape;
  int type = kFloat;
};

// How a weight is filled: seeded uniform in [-bound, bound], all ones (norm scales), all zeros
// (biases), or given values (rotary caches, positions).
struct Init {
  enum class Kind { Uniform, Ones, Zeros, Values } kind = Kind::Uniform;
  float bound = 0;
  std::vector<double> values;
};

int64_t numel(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t v : d) n *= v;
  return n;
}

int elemSize(int type) { return type == kFloat16 ? 2 : type == kInt64 ? 8 : 4; }

// Appends element `v` in the tensor's type.
void put(std::string& out, int type, double v) {
  if (type == kFloat16) {
    const uint16_t h = floatToHalf(static_cast<float>(v));
    out.append(reinterpret_cast<const char*>(&h), 2);
  } else if (type == kInt64) {
    const int64_t i = static_cast<int64_t>(v);
    out.append(reinterpret_cast<const char*>(&i), 8);
  } else {
    const float f = static_cast<float>(v);
    out.append(reinterpret_cast<const char*>(&f), 4);
  }
}

// The external data file: tensors placed one after another (big ones page-aligned); with zero
// weights nothing is written and the final ftruncate leaves holes.
class DataFile {
 public:
  ~DataFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Status open(const fs::path& p) {
    m_path = p;
    m_fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0) return Error::model(std::string("cannot create: ") + std::strerror(errno), p.string());
    return Ok{};
  }
  int64_t place(int64_t bytes) {
    if (bytes >= kAlignAbove) m_end = (m_end + kPage - 1) / kPage * kPage;
    const int64_t at = m_end;
    m_end += bytes;
    return at;
  }
  Status write(int64_t offset, const std::string& bytes) {
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t k = ::pwrite(m_fd, bytes.data() + done, bytes.size() - done,
                                 static_cast<off_t>(offset + static_cast<int64_t>(done)));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return Error::model(std::string("cannot write: ") + std::strerror(errno), m_path.string());
      done += static_cast<size_t>(k);
    }
    return Ok{};
  }
  Status finish() {
    if (::ftruncate(m_fd, static_cast<off_t>(m_end)) != 0 || ::close(m_fd) != 0) {
      m_fd = -1;
      return Error::model(std::string("cannot finish: ") + std::strerror(errno), m_path.string());
    }
    m_fd = -1;
    return Ok{};
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
  int m_fd = -1;
  int64_t m_end = 0;
};

// Writes nodes, values and weights the way torch.onnx.export names them: node
// "<scope>/<Op>[_k]", its output "<node>_output_0", weights by module path.
class Emitter {
 public:
  Emitter(onnx::ModelProto& model, const WriteOptions& o, Written& w, DataFile* data, bool dry)
      : m_g(*model.mutable_graph()), m_o(o), m_w(w), m_data(data), m_dry(dry), m_random(o.seed) {
    m_g.set_name("main_graph");
  }

  int floatType() const { return m_o.float16 ? kFloat16 : kFloat; }
  int64_t dim(const char* which) const { return std::string(which) == "batch" ? m_o.batch : m_o.sequence; }

  // A graph input [batch, sequence]; symbolic unless the shapes are static.
  Val input(const std::string& name, int type) {
    auto* v = m_g.add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    for (const char* d : {"batch", "sequence"}) {
      auto* dp = tt->mutable_shape()->add_dim();
      if (m_o.dynamicShapes) dp->set_dim_param(d);
      else dp->set_dim_value(dim(d));
    }
    return record({name, {m_o.batch, m_o.sequence}, type});
  }

  void output(const Val& v, const std::string& name) {
    // The exporter renames the producing node's output to the graph output's name.
    for (auto& n : *m_g.mutable_node()) {
      for (auto& o : *n.mutable_output())
        if (o == v.name) o = name;
      for (auto& i : *n.mutable_input())
        if (i == v.name) i = name;
    }
    m_w.expectedShapes.erase(v.name);
    m_w.expectedTypes.erase(v.name);
    auto* out = m_g.add_output();
    out->set_name(name);
    auto* tt = out->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(v.type);
    for (size_t i = 0; i < v.shape.size(); ++i) {
      auto* dp = tt->mutable_shape()->add_dim();
      // The exporter leaves the dynamic axes symbolic: batch first, then sequence.
      if (m_o.dynamicShapes && i == 0) dp->set_dim_param("batch");
      else if (m_o.dynamicShapes && i == 1 && v.shape.size() == 3) dp->set_dim_param("sequence");
      else dp->set_dim_value(v.shape[i]);
    }
    record({name, v.shape, v.type});
  }

  Status weight(Val& out, const std::string& name, std::vector<int64_t> dims, const Init& init, int type = -1) {
    if (type < 0) type = floatType();
    out = {name, dims, type};
    const int64_t bytes = numel(dims) * elemSize(type);
    m_w.weightBytes += bytes;
    ++m_w.initializers;
    if (m_dry) return Ok{};
    auto* t = m_g.add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    const bool external = m_data && bytes >= m_o.externalMinBytes;
    // Zeros in an external file are holes: nothing to generate or write.
    const bool zeros = init.kind == Init::Kind::Zeros ||
                       (m_o.fill == Fill::Zeros && init.kind != Init::Kind::Values && init.kind != Init::Kind::Ones);
    if (external) {
      const int64_t at = m_data->place(bytes);
      t->set_data_location(onnx::TensorProto::EXTERNAL);
      auto add = [&](const char* k, const std::string& v) {
        auto* e = t->add_external_data();
        e->set_key(k);
        e->set_value(v);
      };
      add("location", m_data->path().filename().string());
      add("offset", std::to_string(at));
      add("length", std::to_string(bytes));
      if (zeros) return Ok{};
      constexpr int64_t kChunk = 1 << 20;  // elements per write: big weights are never held whole
      for (int64_t first = 0; first < numel(dims); first += kChunk) {
        std::string chunk;
        fill(chunk, init, type, first, std::min(kChunk, numel(dims) - first));
        if (auto s = m_data->write(at + first * elemSize(type), chunk); !s) return s;
      }
      return Ok{};
    }
    std::string raw;
    if (zeros) raw.assign(static_cast<size_t>(bytes), '\0');
    else fill(raw, init, type, 0, numel(dims));
    t->set_raw_data(std::move(raw));
    return Ok{};
  }

  // A small constant: a Constant node in the scope (as the exporter writes them), one per
  // value and scope.
  template <typename T>
  Val constant(const std::string& scope, const std::vector<T>& values, std::vector<int64_t> dims, int type) {
    std::string raw;
    for (T v : values) {
      if constexpr (std::is_integral_v<T>) raw.append(reinterpret_cast<const char*>(&v), sizeof v);
      else put(raw, type, v);
    }
    std::string key = scope + "|" + std::to_string(type) + "|" + std::to_string(dims.size()) + "|" + raw;
    if (auto it = m_constants.find(key); it != m_constants.end()) return it->second;
    auto* n = addNode(scope, "Constant");
    const std::string out = n->name() + "_output_0";
    n->add_output(out);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(raw);
    Val v = record({out, dims, type});
    m_constants.emplace(key, v);
    return v;
  }
  Val ints(const std::string& scope, std::vector<int64_t> v) {
    return constant(scope, v, {static_cast<int64_t>(v.size())}, kInt64);
  }
  Val intScalar(const std::string& scope, int64_t v) { return constant(scope, std::vector<int64_t>{v}, {}, kInt64); }
  Val scalar(const std::string& scope, double v) { return constant(scope, std::vector<double>{v}, {}, floatType()); }

  using Attrs = std::function<void(onnx::NodeProto&)>;
  Val op(const std::string& scope, const std::string& opType, const std::vector<Val>& inputs,
         std::vector<int64_t> shape, int type = -1, const Attrs& attrs = {}) {
    auto* n = addNode(scope, opType);
    for (const Val& in : inputs) n->add_input(in.name);
    const std::string out = n->name() + "_output_0";
    n->add_output(out);
    if (attrs) attrs(*n);
    return record({out, std::move(shape), type < 0 ? (inputs.empty() ? floatType() : inputs[0].type) : type});
  }

  void finish() {
    if (!m_o.writeValueInfo) return;
    for (const auto& [name, shape] : m_w.expectedShapes) {
      bool declared = false;
      for (const auto& i : m_g.input()) declared = declared || i.name() == name;
      for (const auto& o : m_g.output()) declared = declared || o.name() == name;
      if (declared) continue;
      auto* v = m_g.add_value_info();
      v->set_name(name);
      auto* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(m_w.expectedTypes[name]);
      auto* sp = tt->mutable_shape();
      for (int64_t d : shape) sp->add_dim()->set_dim_value(d);
    }
  }

  onnx::GraphProto& graph() { return m_g; }

 private:
  onnx::NodeProto* addNode(const std::string& scope, const std::string& opType) {
    const int k = m_count[scope + "/" + opType]++;
    auto* n = m_g.add_node();
    n->set_name(scope + "/" + opType + (k ? "_" + std::to_string(k) : std::string()));
    n->set_op_type(opType);
    return n;
  }
  Val record(Val v) {
    m_w.expectedShapes[v.name] = v.shape;
    m_w.expectedTypes[v.name] = v.type;
    return v;
  }
  void fill(std::string& out, const Init& init, int type, int64_t first, int64_t count) {
    out.reserve(static_cast<size_t>(count * elemSize(type)));
    for (int64_t i = 0; i < count; ++i) {
      double v = 0;
      switch (init.kind) {
        case Init::Kind::Uniform: v = m_random.uniform(init.bound); break;
        case Init::Kind::Ones: v = 1; break;
        case Init::Kind::Zeros: v = 0; break;
        case Init::Kind::Values: v = init.values[static_cast<size_t>(first + i)]; break;
      }
      put(out, type, v);
    }
  }

  onnx::GraphProto& m_g;
  const WriteOptions& m_o;
  Written& m_w;
  DataFile* m_data;
  bool m_dry;
  Random m_random;
  std::map<std::string, int> m_count;
  std::map<std::string, Val> m_constants;
};

void setInts(onnx::NodeProto& n, const char* name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void setInt(onnx::NodeProto& n, const char* name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

Init uniform(int64_t fanIn) { return {Init::Kind::Uniform, 1.0f / std::sqrt(static_cast<float>(fanIn)), {}}; }
const Init kOnes{Init::Kind::Ones, 0, {}};
const Init kZeros{Init::Kind::Zeros, 0, {}};

#define TRY(expr)                         \
  do {                                    \
    if (auto s_ = (expr); !s_) return s_; \
  } while (0)

// The shape arithmetic the exporter writes before a head split: Shape(x) -> batch and sequence
// as 1-element tensors. Static models get constants instead.
struct BatchSeq {
  Val b, s;
};
BatchSeq batchSeq(Emitter& e, const std::string& scope, const Val& x, const WriteOptions& o) {
  if (!o.dynamicShapes) return {e.ints(scope, {o.batch}), e.ints(scope, {o.sequence})};
  const Val shp = e.op(scope, "Shape", {x}, {static_cast<int64_t>(x.shape.size())}, kInt64);
  const Val b = e.op(scope, "Gather", {shp, e.intScalar(scope, 0)}, {}, kInt64, [](auto& n) { setInt(n, "axis", 0); });
  const Val s = e.op(scope, "Gather", {shp, e.intScalar(scope, 1)}, {}, kInt64, [](auto& n) { setInt(n, "axis", 0); });
  const Val axes = e.ints(scope, {0});
  return {e.op(scope, "Unsqueeze", {b, axes}, {1}, kInt64), e.op(scope, "Unsqueeze", {s, axes}, {1}, kInt64)};
}

Val concatShape(Emitter& e, const std::string& scope, std::vector<Val> parts, const WriteOptions& o) {
  (void)o;
  return e.op(scope, "Concat", parts, {static_cast<int64_t>(parts.size())}, kInt64,
              [](auto& n) { setInt(n, "axis", 0); });
}

// ---- Llama ----------------------------------------------------------------------------------

struct LlamaDims {
  int64_t B, S, h, H, KV, d, F, V, P;
};

Status rmsNorm(Emitter& e, Val& out, const std::string& scope, const Val& x, const std::string& weightName) {
  std::vector<int64_t> r = x.shape;
  r.back() = 1;
  const Val p = e.op(scope, "Pow", {x, e.scalar(scope, 2.0)}, x.shape);
  const Val m = e.op(scope, "ReduceMean", {p}, r, -1, [](auto& n) {
    setInts(n, "axes", {-1});
    setInt(n, "keepdims", 1);
  });
  const Val a = e.op(scope, "Add", {m, e.scalar(scope, 1e-5)}, r);
  const Val s = e.op(scope, "Sqrt", {a}, r);
  const Val inv = e.op(scope, "Div", {e.scalar(scope, 1.0), s}, r, x.type);
  const Val y = e.op(scope, "Mul", {x, inv}, x.shape);
  Val w;
  TRY(e.weight(w, weightName, {x.shape.back()}, kOnes));
  out = e.op(scope, "Mul", {w, y}, x.shape, x.type);
  return Ok{};
}

// q * cos + rotate_half(q) * sin, rotate_half = cat(-x2, x1).
Val rotary(Emitter& e, const std::string& scope, const Val& x, const Val& cos, const Val& sin) {
  const int64_t d = x.shape.back();
  std::vector<int64_t> half = x.shape;
  half.back() = d / 2;
  const Val c = e.op(scope, "Mul", {x, cos}, x.shape);
  const Val axis = e.ints(scope, {3});
  const Val x1 = e.op(scope, "Slice", {x, e.ints(scope, {0}), e.ints(scope, {d / 2}), axis}, half);
  const Val x2 = e.op(scope, "Slice", {x, e.ints(scope, {d / 2}), e.ints(scope, {INT64_MAX}), axis}, half);
  const Val neg = e.op(scope, "Neg", {x2}, half);
  const Val rot = e.op(scope, "Concat", {neg, x1}, x.shape, -1, [](auto& n) { setInt(n, "axis", -1); });
  const Val s = e.op(scope, "Mul", {rot, sin}, x.shape);
  return e.op(scope, "Add", {c, s}, x.shape);
}

// repeat_kv: [B, KV, S, d] -> [B, H, S, d].
Val repeatKv(Emitter& e, const std::string& scope, const Val& x, const LlamaDims& D) {
  if (D.KV == D.H) return x;
  const int64_t rep = D.H / D.KV;
  const Val u = e.op(scope, "Unsqueeze", {x, e.ints(scope, {2})}, {D.B, D.KV, 1, D.S, D.d});
  const Val ex = e.op(scope, "Expand", {u, e.ints(scope, {1, 1, rep, 1, 1})}, {D.B, D.KV, rep, D.S, D.d});
  return e.op(scope, "Reshape", {ex, e.ints(scope, {0, D.H, -1, D.d})}, {D.B, D.H, D.S, D.d});
}

Status llamaLayer(Emitter& e, Val& x, int i, const LlamaDims& D, const Val& cos, const Val& sin, const Val& mask,
                  const WriteOptions& o, Written& w) {
  const std::string L = "/model/layers." + std::to_string(i);
  const std::string W = "model.layers." + std::to_string(i) + ".";
  w.layerScopes.push_back(L);
  Val n1;
  TRY(rmsNorm(e, n1, L + "/input_layernorm", x, W + "input_layernorm.weight"));
  const std::string A = L + "/self_attn";
  const BatchSeq bs = batchSeq(e, A, n1, o);
  const Val qShape = concatShape(e, A, {bs.b, bs.s, e.ints(A, {D.H}), e.ints(A, {D.d})}, o);
  const Val kvShape = concatShape(e, A, {bs.b, bs.s, e.ints(A, {D.KV}), e.ints(A, {D.d})}, o);
  const Val outShape = concatShape(e, A, {bs.b, bs.s, e.ints(A, {D.h})}, o);
  Val wq, wk, wv, wo;
  TRY(e.weight(wq, W + "self_attn.q_proj.weight", {D.h, D.H * D.d}, uniform(D.h)));
  TRY(e.weight(wk, W + "self_attn.k_proj.weight", {D.h, D.KV * D.d}, uniform(D.h)));
  TRY(e.weight(wv, W + "self_attn.v_proj.weight", {D.h, D.KV * D.d}, uniform(D.h)));
  TRY(e.weight(wo, W + "self_attn.o_proj.weight", {D.H * D.d, D.h}, uniform(D.h)));
  const Val q = e.op(A + "/q_proj", "MatMul", {n1, wq}, {D.B, D.S, D.H * D.d});
  const Val k = e.op(A + "/k_proj", "MatMul", {n1, wk}, {D.B, D.S, D.KV * D.d});
  const Val v = e.op(A + "/v_proj", "MatMul", {n1, wv}, {D.B, D.S, D.KV * D.d});
  auto heads = [&](const Val& t, const Val& shape, int64_t n) {
    const Val r = e.op(A, "Reshape", {t, shape}, {D.B, D.S, n, D.d});
    return e.op(A, "Transpose", {r}, {D.B, n, D.S, D.d}, -1, [](auto& nd) { setInts(nd, "perm", {0, 2, 1, 3}); });
  };
  const Val qh = rotary(e, A, heads(q, qShape, D.H), cos, sin);
  const Val kh = repeatKv(e, A, rotary(e, A, heads(k, kvShape, D.KV), cos, sin), D);
  const Val vh = repeatKv(e, A, heads(v, kvShape, D.KV), D);
  const Val kt = e.op(A, "Transpose", {kh}, {D.B, D.H, D.d, D.S}, -1, [](auto& nd) {
    setInts(nd, "perm", {0, 1, 3, 2});
  });
  const Val sc = e.op(A, "MatMul", {qh, kt}, {D.B, D.H, D.S, D.S});
  const Val sd = e.op(A, "Div", {sc, e.scalar(A, std::sqrt(static_cast<double>(D.d)))}, sc.shape);
  const Val sm = e.op(A, "Add", {sd, mask}, sc.shape);
  const Val p = e.op(A, "Softmax", {sm}, sc.shape, -1, [](auto& nd) { setInt(nd, "axis", -1); });
  const Val ctx = e.op(A, "MatMul", {p, vh}, {D.B, D.H, D.S, D.d});
  const Val ct = e.op(A, "Transpose", {ctx}, {D.B, D.S, D.H, D.d}, -1, [](auto& nd) {
    setInts(nd, "perm", {0, 2, 1, 3});
  });
  const Val cr = e.op(A, "Reshape", {ct, outShape}, {D.B, D.S, D.h});
  const Val ao = e.op(A + "/o_proj", "MatMul", {cr, wo}, {D.B, D.S, D.h});
  const Val r1 = e.op(L, "Add", {x, ao}, x.shape);
  Val n2;
  TRY(rmsNorm(e, n2, L + "/post_attention_layernorm", r1, W + "post_attention_layernorm.weight"));
  const std::string M = L + "/mlp";
  Val wg, wu, wd;
  TRY(e.weight(wg, W + "mlp.gate_proj.weight", {D.h, D.F}, uniform(D.h)));
  TRY(e.weight(wu, W + "mlp.up_proj.weight", {D.h, D.F}, uniform(D.h)));
  TRY(e.weight(wd, W + "mlp.down_proj.weight", {D.F, D.h}, uniform(D.F)));
  const Val g = e.op(M + "/gate_proj", "MatMul", {n2, wg}, {D.B, D.S, D.F});
  const Val sg = e.op(M + "/act_fn", "Sigmoid", {g}, g.shape);
  const Val si = e.op(M + "/act_fn", "Mul", {g, sg}, g.shape);
  const Val u = e.op(M + "/up_proj", "MatMul", {n2, wu}, g.shape);
  const Val gu = e.op(M, "Mul", {si, u}, g.shape);
  const Val dn = e.op(M + "/down_proj", "MatMul", {gu, wd}, x.shape);
  x = e.op(L, "Add", {r1, dn}, x.shape);
  return Ok{};
}

Status buildLlama(Emitter& e, const LlamaSpec& spec, const WriteOptions& o, Written& w) {
  const int64_t d = spec.hidden / spec.heads;
  const LlamaDims D{o.batch, o.sequence, spec.hidden, spec.heads,       spec.kvHeads,
                    d,       spec.ffn,   spec.vocab,  spec.maxPositions};
  w.layers = spec.layers;
  const Val ids = e.input("input_ids", kInt64);
  Val embed, cosCache, sinCache;
  TRY(e.weight(embed, "model.embed_tokens.weight", {D.V, D.h}, uniform(D.h)));
  // Rotary caches hold real values whatever the fill: cos/sin(position / 10000^(2i/d)).
  Init cosInit{Init::Kind::Values, 0, {}}, sinInit{Init::Kind::Values, 0, {}};
  if (!w.dry) {
    cosInit.values.resize(static_cast<size_t>(D.P * d));
    sinInit.values.resize(cosInit.values.size());
    for (int64_t p = 0; p < D.P; ++p)
      for (int64_t j = 0; j < d; ++j) {
        const double freq = std::pow(10000.0, -2.0 * static_cast<double>(j % (d / 2)) / static_cast<double>(d));
        cosInit.values[static_cast<size_t>(p * d + j)] = std::cos(static_cast<double>(p) * freq);
        sinInit.values[static_cast<size_t>(p * d + j)] = std::sin(static_cast<double>(p) * freq);
      }
  }
  TRY(e.weight(cosCache, "model.rotary_emb.cos_cached", {D.P, d}, cosInit));
  TRY(e.weight(sinCache, "model.rotary_emb.sin_cached", {D.P, d}, sinInit));
  const Val x0 = e.op("/model/embed_tokens", "Gather", {embed, ids}, {D.B, D.S, D.h}, e.floatType());
  Val seq;
  if (o.dynamicShapes) {
    const Val shp = e.op("/model", "Shape", {ids}, {2}, kInt64);
    const Val s =
        e.op("/model", "Gather", {shp, e.intScalar("/model", 1)}, {}, kInt64, [](auto& n) { setInt(n, "axis", 0); });
    seq = e.op("/model", "Unsqueeze", {s, e.ints("/model", {0})}, {1}, kInt64);
  } else {
    seq = e.ints("/model", {D.S});
  }
  const std::string R = "/model/rotary_emb";
  auto cached = [&](const Val& cache) {
    const Val sl = e.op(R, "Slice", {cache, e.ints(R, {0}), seq, e.ints(R, {0})}, {D.S, d});
    return e.op(R, "Unsqueeze", {sl, e.ints(R, {0, 1})}, {1, 1, D.S, d});
  };
  const Val cos = cached(cosCache), sin = cached(sinCache);
  // The causal mask: -10000 above the diagonal.
  const Val maskShape = o.dynamicShapes ? concatShape(e, "/model", {seq, seq}, o) : e.ints("/model", {D.S, D.S});
  const Val full = e.op("/model", "ConstantOfShape", {maskShape}, {D.S, D.S}, e.floatType(), [&](onnx::NodeProto& n) {
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(e.floatType());
    a->mutable_t()->add_dims(1);
    std::string raw;
    put(raw, e.floatType(), -10000.0);
    a->mutable_t()->set_raw_data(raw);
  });
  const Val tri =
      e.op("/model", "Trilu", {full, e.intScalar("/model", 1)}, full.shape, -1, [](auto& n) { setInt(n, "upper", 1); });
  const Val mask = e.op("/model", "Unsqueeze", {tri, e.ints("/model", {0, 1})}, {1, 1, D.S, D.S});
  Val x = x0;
  for (int i = 0; i < spec.layers; ++i) {
    const int before = e.graph().node_size();
    TRY(llamaLayer(e, x, i, D, cos, sin, mask, o, w));
    w.nodesPerLayer = e.graph().node_size() - before;
  }
  Val norm, head;
  TRY(rmsNorm(e, norm, "/model/norm", x, "model.norm.weight"));
  TRY(e.weight(head, "lm_head.weight", {D.h, D.V}, uniform(D.h)));
  e.output(e.op("/lm_head", "MatMul", {norm, head}, {D.B, D.S, D.V}), "logits");
  return Ok{};
}

// ---- BERT -----------------------------------------------------------------------------------

Status layerNorm(Emitter& e, Val& out, const std::string& scope, const Val& x, const std::string& prefix) {
  std::vector<int64_t> r = x.shape;
  r.back() = 1;
  auto mean = [](auto& n) {
    setInts(n, "axes", {-1});
    setInt(n, "keepdims", 1);
  };
  const Val m = e.op(scope, "ReduceMean", {x}, r, -1, mean);
  const Val d = e.op(scope, "Sub", {x, m}, x.shape);
  const Val p = e.op(scope, "Pow", {d, e.scalar(scope, 2.0)}, x.shape);
  const Val v = e.op(scope, "ReduceMean", {p}, r, -1, mean);
  const Val a = e.op(scope, "Add", {v, e.scalar(scope, 1e-12)}, r);
  const Val s = e.op(scope, "Sqrt", {a}, r);
  const Val n = e.op(scope, "Div", {d, s}, x.shape);
  Val g, b;
  TRY(e.weight(g, prefix + ".weight", {x.shape.back()}, kOnes));
  TRY(e.weight(b, prefix + ".bias", {x.shape.back()}, kZeros));
  const Val y = e.op(scope, "Mul", {n, g}, x.shape);
  out = e.op(scope, "Add", {y, b}, x.shape);
  return Ok{};
}

Status linear(Emitter& e, Val& out, const std::string& scope, const Val& x, const std::string& prefix, int64_t outDim) {
  Val w, b;
  TRY(e.weight(w, prefix + ".weight", {x.shape.back(), outDim}, uniform(x.shape.back())));
  TRY(e.weight(b, prefix + ".bias", {outDim}, kZeros));
  std::vector<int64_t> s = x.shape;
  s.back() = outDim;
  const Val mm = e.op(scope, "MatMul", {x, w}, s);
  out = e.op(scope, "Add", {b, mm}, s);
  return Ok{};
}

Status bertLayer(Emitter& e, Val& x, int i, const BertSpec& spec, const Val& mask, const WriteOptions& o, Written& w) {
  const int64_t B = o.batch, S = o.sequence, h = spec.hidden, H = spec.heads, d = h / H;
  const std::string L = "/encoder/layer." + std::to_string(i);
  const std::string W = "encoder.layer." + std::to_string(i) + ".";
  w.layerScopes.push_back(L);
  const std::string SA = L + "/attention/self";
  Val q, k, v;
  TRY(linear(e, q, SA + "/query", x, W + "attention.self.query", h));
  TRY(linear(e, k, SA + "/key", x, W + "attention.self.key", h));
  TRY(linear(e, v, SA + "/value", x, W + "attention.self.value", h));
  const BatchSeq bs = batchSeq(e, SA, x, o);
  const Val hShape = concatShape(e, SA, {bs.b, bs.s, e.ints(SA, {H}), e.ints(SA, {d})}, o);
  const Val oShape = concatShape(e, SA, {bs.b, bs.s, e.ints(SA, {h})}, o);
  auto split = [&](const Val& t, std::vector<int64_t> perm, std::vector<int64_t> shape) {
    const Val r = e.op(SA, "Reshape", {t, hShape}, {B, S, H, d});
    return e.op(SA, "Transpose", {r}, std::move(shape), -1, [perm](auto& n) { setInts(n, "perm", perm); });
  };
  const Val qh = split(q, {0, 2, 1, 3}, {B, H, S, d});
  const Val kh = split(k, {0, 2, 3, 1}, {B, H, d, S});
  const Val vh = split(v, {0, 2, 1, 3}, {B, H, S, d});
  const Val sc = e.op(SA, "MatMul", {qh, kh}, {B, H, S, S});
  const Val sd = e.op(SA, "Div", {sc, e.scalar(SA, std::sqrt(static_cast<double>(d)))}, sc.shape);
  const Val sm = e.op(SA, "Add", {sd, mask}, sc.shape);
  const Val p = e.op(SA, "Softmax", {sm}, sc.shape, -1, [](auto& n) { setInt(n, "axis", -1); });
  const Val c = e.op(SA, "MatMul", {p, vh}, {B, H, S, d});
  const Val ct = e.op(SA, "Transpose", {c}, {B, S, H, d}, -1, [](auto& n) { setInts(n, "perm", {0, 2, 1, 3}); });
  const Val cr = e.op(SA, "Reshape", {ct, oShape}, {B, S, h});
  const std::string SO = L + "/attention/output";
  Val dense, n1;
  TRY(linear(e, dense, SO + "/dense", cr, W + "attention.output.dense", h));
  const Val r1 = e.op(SO, "Add", {dense, x}, x.shape);
  TRY(layerNorm(e, n1, SO + "/LayerNorm", r1, W + "attention.output.LayerNorm"));
  const std::string I = L + "/intermediate";
  Val inter;
  TRY(linear(e, inter, I + "/dense", n1, W + "intermediate.dense", spec.ffn));
  const std::string G = I + "/intermediate_act_fn";  // GELU(x) = x * 0.5 * (1 + erf(x / sqrt 2))
  const Val gd = e.op(G, "Div", {inter, e.scalar(G, std::sqrt(2.0))}, inter.shape);
  const Val ge = e.op(G, "Erf", {gd}, inter.shape);
  const Val ga = e.op(G, "Add", {ge, e.scalar(G, 1.0)}, inter.shape);
  const Val gm = e.op(G, "Mul", {inter, ga}, inter.shape);
  const Val gelu = e.op(G, "Mul", {gm, e.scalar(G, 0.5)}, inter.shape);
  const std::string O = L + "/output";
  Val od, n2;
  TRY(linear(e, od, O + "/dense", gelu, W + "output.dense", h));
  const Val r2 = e.op(O, "Add", {od, n1}, x.shape);
  TRY(layerNorm(e, n2, O + "/LayerNorm", r2, W + "output.LayerNorm"));
  x = n2;
  return Ok{};
}

Status buildBert(Emitter& e, const BertSpec& spec, const WriteOptions& o, Written& w) {
  const int64_t B = o.batch, S = o.sequence, h = spec.hidden;
  w.layers = spec.layers;
  const Val ids = e.input("input_ids", kInt64);
  const Val types = e.input("token_type_ids", kInt64);
  const Val attn = e.input("attention_mask", kInt64);
  const std::string E = "/embeddings";
  Val word, type, pos, posIds;
  TRY(e.weight(word, "embeddings.word_embeddings.weight", {spec.vocab, h}, uniform(h)));
  TRY(e.weight(type, "embeddings.token_type_embeddings.weight", {2, h}, uniform(h)));
  TRY(e.weight(pos, "embeddings.position_embeddings.weight", {spec.maxPositions, h}, uniform(h)));
  Init positions{Init::Kind::Values, 0, {}};
  if (!w.dry)
    for (int p = 0; p < spec.maxPositions; ++p) positions.values.push_back(p);
  TRY(e.weight(posIds, "embeddings.position_ids", {1, spec.maxPositions}, positions, kInt64));
  const Val we = e.op(E + "/word_embeddings", "Gather", {word, ids}, {B, S, h}, e.floatType());
  const Val te = e.op(E + "/token_type_embeddings", "Gather", {type, types}, {B, S, h}, e.floatType());
  const Val sum = e.op(E, "Add", {we, te}, {B, S, h});
  Val seq;
  if (o.dynamicShapes) {
    const Val shp = e.op(E, "Shape", {ids}, {2}, kInt64);
    const Val s = e.op(E, "Gather", {shp, e.intScalar(E, 1)}, {}, kInt64, [](auto& n) { setInt(n, "axis", 0); });
    seq = e.op(E, "Unsqueeze", {s, e.ints(E, {0})}, {1}, kInt64);
  } else {
    seq = e.ints(E, {S});
  }
  const Val pid = e.op(E, "Slice", {posIds, e.ints(E, {0}), seq, e.ints(E, {1})}, {1, S}, kInt64);
  const Val pe = e.op(E + "/position_embeddings", "Gather", {pos, pid}, {1, S, h}, e.floatType());
  const Val emb = e.op(E, "Add", {sum, pe}, {B, S, h});
  Val x;
  TRY(layerNorm(e, x, E + "/LayerNorm", emb, "embeddings.LayerNorm"));
  // The extended attention mask: (1 - mask) * -10000, [B, 1, 1, S].
  const Val um = e.op("", "Unsqueeze", {attn, e.ints("", {1, 2})}, {B, 1, 1, S}, kInt64);
  const Val cm = e.op("", "Cast", {um}, um.shape, e.floatType(), [&](auto& n) { setInt(n, "to", e.floatType()); });
  const Val inv = e.op("", "Sub", {e.scalar("", 1.0), cm}, um.shape, e.floatType());
  const Val mask = e.op("", "Mul", {inv, e.scalar("", -10000.0)}, um.shape);
  for (int i = 0; i < spec.layers; ++i) {
    const int before = e.graph().node_size();
    TRY(bertLayer(e, x, i, spec, mask, o, w));
    w.nodesPerLayer = e.graph().node_size() - before;
  }
  const std::string P = "/pooler";
  const Val first = e.op(P, "Gather", {x, e.intScalar(P, 0)}, {B, h}, -1, [](auto& n) { setInt(n, "axis", 1); });
  Val pw, pb;
  TRY(e.weight(pw, "pooler.dense.weight", {h, h}, uniform(h)));
  TRY(e.weight(pb, "pooler.dense.bias", {h}, kZeros));
  const Val gemm = e.op(P + "/dense", "Gemm", {first, pw, pb}, {B, h}, -1, [](auto& n) { setInt(n, "transB", 1); });
  const Val pooled = e.op(P + "/activation", "Tanh", {gemm}, {B, h});
  e.output(x, "last_hidden_state");
  e.output(pooled, "pooler_output");
  return Ok{};
}

// ---- GPT-2 ----------------------------------------------------------------------------------

Status gptLayerNorm(Emitter& e, Val& out, const std::string& scope, const Val& x, const std::string& prefix) {
  Val g, b;
  TRY(e.weight(g, prefix + ".weight", {x.shape.back()}, kOnes));
  TRY(e.weight(b, prefix + ".bias", {x.shape.back()}, kZeros));
  out = e.op(scope, "LayerNormalization", {x, g, b}, x.shape, -1, [](auto& n) {
    setInt(n, "axis", -1);
    auto* a = n.add_attribute();
    a->set_name("epsilon");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(1e-5f);
  });
  return Ok{};
}

// nn.Linear on a 3-D input: Transpose(weight [out, in]) → MatMul → Add(bias), as torch 1.13 writes it.
Status gptLinear(Emitter& e, Val& out, const std::string& scope, const Val& x, const std::string& prefix, int64_t outDim) {
  Val w, b;
  const int64_t in = x.shape.back();
  TRY(e.weight(w, prefix + ".weight", {outDim, in}, uniform(in)));
  TRY(e.weight(b, prefix + ".bias", {outDim}, kZeros));
  const Val wt = e.op(scope, "Transpose", {w}, {in, outDim}, -1, [](auto& n) { setInts(n, "perm", {1, 0}); });
  std::vector<int64_t> s = x.shape;
  s.back() = outDim;
  const Val mm = e.op(scope, "MatMul", {x, wt}, s);
  out = e.op(scope, "Add", {b, mm}, s);
  return Ok{};
}

Val gptGelu(Emitter& e, const std::string& scope, const Val& x, GptSpec::Gelu form) {
  const auto& s = x.shape;
  if (form == GptSpec::Gelu::Pow) {
    const Val half = e.op(scope, "Mul", {x, e.scalar(scope, 0.5)}, s);
    const Val cube = e.op(scope, "Pow", {x, e.scalar(scope, 3.0)}, s);
    const Val inner = e.op(scope, "Add", {x, e.op(scope, "Mul", {cube, e.scalar(scope, 0.044715)}, s)}, s);
    const Val t = e.op(scope, "Tanh", {e.op(scope, "Mul", {inner, e.scalar(scope, std::sqrt(2.0 / M_PI))}, s)}, s);
    return e.op(scope, "Mul", {half, e.op(scope, "Add", {t, e.scalar(scope, 1.0)}, s)}, s);
  }
  const Val half = e.op(scope, "Mul", {e.scalar(scope, 0.5), x}, s);
  const Val a = e.op(scope, "Mul", {x, e.scalar(scope, 0.7978845608)}, s);
  const Val sq = e.op(scope, "Mul", {e.op(scope, "Mul", {e.scalar(scope, 0.044715), x}, s), x}, s);
  const Val t = e.op(scope, "Tanh", {e.op(scope, "Mul", {a, e.op(scope, "Add", {e.scalar(scope, 1.0), sq}, s)}, s)}, s);
  return e.op(scope, "Mul", {half, e.op(scope, "Add", {e.scalar(scope, 1.0), t}, s)}, s);
}

Status gptLayer(Emitter& e, Val& x, int i, const GptSpec& spec, const WriteOptions& o, Written& w) {
  const int64_t B = o.batch, S = o.sequence, C = spec.hidden, H = spec.heads, d = C / H, P = spec.maxPositions;
  const std::string L = "/transformer/h." + std::to_string(i);
  const std::string W = "transformer.h." + std::to_string(i) + ".";
  w.layerScopes.push_back(L);
  const std::string A = L + "/attn";
  Val n1, qkv, mask;
  TRY(gptLayerNorm(e, n1, L + "/ln_1", x, W + "ln_1"));
  TRY(gptLinear(e, qkv, A + "/c_attn", n1, W + "attn.c_attn", 3 * C));
  // The causal buffer, a tril of ones [1, 1, P, P] each block registers, sliced to the sequence.
  Init tril{Init::Kind::Values, 0, {}};
  if (!w.dry)
    for (int64_t r = 0; r < P; ++r)
      for (int64_t c = 0; c < P; ++c) tril.values.push_back(c <= r ? 1.0 : 0.0);
  TRY(e.weight(mask, W + "attn.bias", {1, 1, P, P}, tril));
  const BatchSeq bs = batchSeq(e, A, n1, o);
  const Val sl = e.op(A, "Slice", {mask, e.ints(A, {0}), bs.s, e.ints(A, {2})}, {1, 1, S, P});
  const Val sl2 = e.op(A, "Slice", {sl, e.ints(A, {0}), bs.s, e.ints(A, {3})}, {1, 1, S, S});
  const Val hidden = e.op(A, "Equal", {sl2, e.scalar(A, 0.0)}, {1, 1, S, S}, kBool);
  const Val parts = e.ints(A, {C, C, C});
  const Val split = e.op(A, "Split", {qkv, parts}, {B, S, C}, -1, [](auto& n) { setInt(n, "axis", 2); });
  // Split has three outputs: name them as the exporter does.
  Val q = split, k{split.name, split.shape, split.type}, v{split.name, split.shape, split.type};
  {
    auto& node = *e.graph().mutable_node(e.graph().node_size() - 1);
    node.clear_output();
    for (int j = 0; j < 3; ++j) node.add_output(node.name() + "_output_" + std::to_string(j));
    q.name = node.output(0);
    k.name = node.output(1);
    v.name = node.output(2);
  }
  const Val hs = concatShape(e, A, {bs.b, bs.s, e.ints(A, {H}), e.ints(A, {d})}, o);
  auto heads = [&](const Val& t, std::vector<int64_t> perm, std::vector<int64_t> shape) {
    const Val r = e.op(A, "Reshape", {t, hs}, {B, S, H, d});
    return e.op(A, "Transpose", {r}, std::move(shape), -1, [perm](auto& n) { setInts(n, "perm", perm); });
  };
  const Val kh = heads(k, {0, 2, 3, 1}, {B, H, d, S});
  const Val qh = heads(q, {0, 2, 1, 3}, {B, H, S, d});
  const Val vh = heads(v, {0, 2, 1, 3}, {B, H, S, d});
  const Val sc = e.op(A, "MatMul", {qh, kh}, {B, H, S, S});
  const Val ss = e.op(A, "Mul", {sc, e.scalar(A, 1.0 / std::sqrt(static_cast<double>(d)))}, sc.shape);
  const Val sm = e.op(A, "Where", {hidden, e.scalar(A, -INFINITY), ss}, sc.shape, e.floatType());
  const Val p = e.op(A, "Softmax", {sm}, sc.shape, -1, [](auto& n) { setInt(n, "axis", -1); });
  const Val ctx = e.op(A, "MatMul", {p, vh}, {B, H, S, d});
  const Val ct = e.op(A, "Transpose", {ctx}, {B, S, H, d}, -1, [](auto& n) { setInts(n, "perm", {0, 2, 1, 3}); });
  const Val cr = e.op(A, "Reshape", {ct, concatShape(e, A, {bs.b, bs.s, e.ints(A, {C})}, o)}, {B, S, C});
  Val proj, n2, fc, out;
  TRY(gptLinear(e, proj, A + "/c_proj", cr, W + "attn.c_proj", C));
  const Val r1 = e.op(L, "Add", {x, proj}, x.shape);
  TRY(gptLayerNorm(e, n2, L + "/ln_2", r1, W + "ln_2"));
  TRY(gptLinear(e, fc, L + "/mlp/c_fc", n2, W + "mlp.c_fc", spec.ffn));
  const Val g = gptGelu(e, L + "/mlp/act", fc, spec.gelu);
  TRY(gptLinear(e, out, L + "/mlp/c_proj", g, W + "mlp.c_proj", C));
  x = e.op(L, "Add", {r1, out}, x.shape);
  return Ok{};
}

Status buildGpt(Emitter& e, const GptSpec& spec, const WriteOptions& o, Written& w) {
  const int64_t B = o.batch, S = o.sequence, C = spec.hidden;
  w.layers = spec.layers;
  const Val ids = e.input("input_ids", kInt64);
  const std::string T = "/transformer";
  Val wte, wpe, pos;
  TRY(e.weight(wte, "transformer.wte.weight", {spec.vocab, C}, uniform(C)));
  TRY(e.weight(wpe, "transformer.wpe.weight", {spec.maxPositions, C}, uniform(C)));
  Init positions{Init::Kind::Values, 0, {}};
  if (!w.dry)
    for (int64_t p = 0; p < S; ++p) positions.values.push_back(static_cast<double>(p));
  TRY(e.weight(pos, "transformer.position_ids", {1, S}, positions, kInt64));
  const Val te = e.op(T + "/wte", "Gather", {wte, ids}, {B, S, C}, e.floatType());
  const Val pe = e.op(T + "/wpe", "Gather", {wpe, pos}, {1, S, C}, e.floatType());
  Val x = e.op(T, "Add", {te, pe}, {B, S, C});
  for (int i = 0; i < spec.layers; ++i) {
    const int before = e.graph().node_size();
    TRY(gptLayer(e, x, i, spec, o, w));
    w.nodesPerLayer = e.graph().node_size() - before;
  }
  Val nf, head;
  TRY(gptLayerNorm(e, nf, T + "/ln_f", x, "transformer.ln_f"));
  TRY(e.weight(head, "lm_head.weight", {C, spec.vocab}, uniform(C)));
  e.output(e.op("/lm_head", "MatMul", {nf, head}, {B, S, spec.vocab}), "logits");
  return Ok{};
}

// ---- writing --------------------------------------------------------------------------------

using BuildFn = std::function<Status(Emitter&, Written&)>;

Result<Written> write(const BuildFn& build, int64_t opset, const WriteOptions& o, const fs::path& out, bool dry) {
  Written w;
  w.dry = dry;
  w.model = out;
  if (o.dynamicShapes) w.symbolicDims = {"batch", "sequence"};
  onnx::ModelProto mp;
  mp.set_ir_version(8);
  mp.set_producer_name("msa-make-large-model");
  mp.set_producer_version("1");
  auto* op = mp.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  std::optional<DataFile> data;
  if (!dry && o.storage == Storage::External) {
    data.emplace();
    w.data = out.parent_path() / (out.filename().string() + ".data");
    if (auto s = data->open(w.data); !s) return s.error();
  }
  Emitter e(mp, o, w, data ? &*data : nullptr, dry);
  if (auto s = build(e, w); !s) return s.error();
  e.finish();
  w.nodes = mp.graph().node_size();
  if (dry) return w;
  if (!o.writeValueInfo && o.storage == Storage::Inline && mp.ByteSizeLong() > static_cast<size_t>(INT_MAX))
    return Error::usage("the weights exceed the 2 GB protobuf limit: write them as external data");
  if (data)
    if (auto s = data->finish(); !s) return s.error();
  {
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    if (!f || !mp.SerializeToOstream(&f) || !f.flush())
      return Error::model(std::string("cannot write: ") + std::strerror(errno), out.string());
  }
  struct stat st {};
  if (::stat(out.c_str(), &st) == 0) w.modelFileBytes = static_cast<int64_t>(st.st_size);
  if (!w.data.empty() && ::stat(w.data.c_str(), &st) == 0) {
    w.dataFileBytes = static_cast<int64_t>(st.st_size);
    w.dataAllocatedBytes = static_cast<int64_t>(st.st_blocks) * 512;
  }
  return w;
}

Status checkLlama(const LlamaSpec& s) {
  if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.kvHeads < 1 || s.ffn < 1 || s.vocab < 1 || s.maxPositions < 1)
    return Error::usage("every Llama dimension must be positive");
  if (s.hidden % s.heads || s.heads % s.kvHeads || (s.hidden / s.heads) % 2)
    return Error::usage("hidden must split into an even head size, heads into kv-head groups");
  return Ok{};
}

Status checkGpt(const GptSpec& s, const WriteOptions& o) {
  if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.ffn < 1 || s.vocab < 1 || s.maxPositions < 1)
    return Error::usage("every GPT dimension must be positive");
  if (s.hidden % s.heads) return Error::usage("hidden must be a multiple of heads");
  if (o.sequence > s.maxPositions) return Error::usage("the sequence exceeds the GPT's positions");
  return Ok{};
}

Status checkBert(const BertSpec& s) {
  if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.ffn < 1 || s.vocab < 1 || s.maxPositions < 1)
    return Error::usage("every BERT dimension must be positive");
  if (s.hidden % s.heads) return Error::usage("hidden must be a multiple of heads");
  return Ok{};
}

// (nodes of the model without layers, nodes per layer): counted on one- and two-layer builds.
template <typename Spec, typename Writer>
std::pair<int64_t, int64_t> nodeLine(Spec spec, const WriteOptions& o, Writer writeSpec) {
  spec.layers = 1;
  const int64_t one = writeSpec(spec, o, true);
  spec.layers = 2;
  const int64_t two = writeSpec(spec, o, true);
  return {one - (two - one), two - one};
}

int64_t dryLlama(const LlamaSpec& s, const WriteOptions& o, bool) {
  auto r = write([&](Emitter& e, Written& w) { return buildLlama(e, s, o, w); }, 17, o, {}, true);
  return r ? r->nodes : 0;
}
int64_t dryBert(const BertSpec& s, const WriteOptions& o, bool) {
  auto r = write([&](Emitter& e, Written& w) { return buildBert(e, s, o, w); }, 14, o, {}, true);
  return r ? r->nodes : 0;
}

int64_t layersFor(int64_t nodes, std::pair<int64_t, int64_t> line) {
  return std::max<int64_t>(1, (nodes - line.first + line.second - 1) / line.second);
}

// The hidden size, in steps of 64, whose weights come closest to the target.
template <typename Spec>
Spec closestHidden(Spec spec, int64_t target, bool f16, int64_t (*bytes)(const Spec&, bool)) {
  Spec best = withHidden(spec, 64);
  for (int64_t h = 128; h <= 32768; h += 64) {
    Spec c = withHidden(spec, h);
    if (std::llabs(bytes(c, f16) - target) < std::llabs(bytes(best, f16) - target)) best = c;
    if (bytes(c, f16) > target) break;
  }
  return best;
}

}  // namespace

LlamaSpec withHidden(LlamaSpec s, int64_t h) {
  const int64_t d = h >= 512 ? 64 : h >= 128 ? 32 : 16;
  s.hidden = static_cast<int>(h);
  s.heads = static_cast<int>(h / d);
  s.kvHeads = s.heads % 4 == 0 ? s.heads / 4 : s.heads % 2 == 0 ? s.heads / 2 : s.heads;
  s.ffn = static_cast<int>((h * 8 / 3 + 7) / 8 * 8);  // Llama's SwiGLU width, 2/3 of 4h
  return s;
}

BertSpec withHidden(BertSpec s, int64_t h) {
  s.hidden = static_cast<int>(h);
  s.heads = static_cast<int>(std::max<int64_t>(1, h / 64));
  s.ffn = static_cast<int>(4 * h);
  return s;
}

int64_t llamaNodeCount(const LlamaSpec& spec, const WriteOptions& o) {
  auto [base, per] = nodeLine(spec, o, dryLlama);
  return base + per * spec.layers;
}

int64_t bertNodeCount(const BertSpec& spec, const WriteOptions& o) {
  auto [base, per] = nodeLine(spec, o, dryBert);
  return base + per * spec.layers;
}

int64_t llamaWeightBytes(const LlamaSpec& s, bool f16) {
  const int64_t h = s.hidden, d = h / s.heads, kv = s.kvHeads * d, e = f16 ? 2 : 4;
  const int64_t layer = h * h + 2 * h * kv + h * h + 3 * h * s.ffn + 2 * h;
  return e * (s.layers * layer + 2 * s.vocab * h + h + 2 * s.maxPositions * d);
}

int64_t bertWeightBytes(const BertSpec& s, bool f16) {
  const int64_t h = s.hidden, f = s.ffn, e = f16 ? 2 : 4;
  const int64_t layer = 4 * (h * h + h) + 2 * h * f + f + h + 4 * h;
  return e * (s.layers * layer + (s.vocab + 2 + s.maxPositions) * h + 2 * h + h * h + h) + 8 * s.maxPositions;
}

// Layers for the node count, then the hidden size for the bytes, twice over: head counts change
// the nodes per layer (no repeat_kv without GQA), and the layers the bytes.
template <typename Spec>
Spec sizedFor(const SizeTarget& t, const WriteOptions& o, int64_t (*dry)(const Spec&, const WriteOptions&, bool),
              int64_t (*bytes)(const Spec&, bool)) {
  Spec s = withHidden(Spec{}, 64);
  for (int round = 0; round < 2; ++round) {
    s.layers = static_cast<int>(layersFor(t.nodes, nodeLine(s, o, dry)));
    if (t.weightBytes <= 0) break;
    s = closestHidden(s, t.weightBytes, o.float16, bytes);
  }
  s.layers = static_cast<int>(layersFor(t.nodes, nodeLine(s, o, dry)));
  return s;
}

LlamaSpec llamaFor(const SizeTarget& t, const WriteOptions& o) {
  return sizedFor<LlamaSpec>(t, o, dryLlama, llamaWeightBytes);
}

BertSpec bertFor(const SizeTarget& t, const WriteOptions& o) {
  return sizedFor<BertSpec>(t, o, dryBert, bertWeightBytes);
}

Result<Written> writeLlama(const LlamaSpec& spec, const WriteOptions& o, const fs::path& out) {
  if (auto s = checkLlama(spec); !s) return s.error();
  return write([&](Emitter& e, Written& w) { return buildLlama(e, spec, o, w); }, 17, o, out, false);
}

Result<Written> writeGpt(const GptSpec& spec, const WriteOptions& o, const fs::path& out) {
  if (auto s = checkGpt(spec, o); !s) return s.error();
  return write([&](Emitter& e, Written& w) { return buildGpt(e, spec, o, w); }, 17, o, out, false);
}

Result<Written> writeBert(const BertSpec& spec, const WriteOptions& o, const fs::path& out) {
  if (auto s = checkBert(spec); !s) return s.error();
  return write([&](Emitter& e, Written& w) { return buildBert(e, spec, o, w); }, 14, o, out, false);
}

}  // namespace msa::tools
