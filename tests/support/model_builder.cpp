#include "model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "model/onnx_io.h"

namespace msa::test {
namespace {

[[noreturn]] void misuse(const std::string& what) {
  std::fprintf(stderr, "ModelBuilder: %s\n", what.c_str());
  std::abort();
}

TypeInfo tensorType(DType t, std::vector<int64_t> dims) {
  Shape s;
  for (int64_t d : dims) s.dims.push_back({d, {}});
  return TypeInfo::tensor(t, std::move(s));
}

int64_t normAxis(int64_t axis, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) misuse("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
  return axis < 0 ? axis + r : axis;
}

Dim knownOr(const Dim& d, int64_t v) { return d.known() ? Dim{v, {}} : Dim{}; }

}  // namespace

uint64_t SeededRandom::next() {
  uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double SeededRandom::uniform(double lo, double hi) {
  double u = static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

double SeededRandom::normal(double mean, double stddev) {
  double s = 0;
  for (int i = 0; i < 12; ++i) s += uniform(0, 1);
  return mean + stddev * (s - 6.0);
}

Shape broadcastShapes(const Shape& a, const Shape& b) {
  Shape out;
  size_t r = std::max(a.rank(), b.rank());
  out.dims.resize(r);
  for (size_t i = 0; i < r; ++i) {
    const Dim* da = i < r - a.rank() ? nullptr : &a.dims[i - (r - a.rank())];
    const Dim* db = i < r - b.rank() ? nullptr : &b.dims[i - (r - b.rank())];
    if (!da) out.dims[i] = *db;
    else if (!db) out.dims[i] = *da;
    else if (da->known() && da->value == 1) out.dims[i] = *db;
    else if (db->known() && db->value == 1) out.dims[i] = *da;
    else if (da->known() && db->known() && da->value != db->value)
      misuse("shapes " + a.str() + " and " + b.str() + " do not broadcast");
    else out.dims[i] = da->known() ? *da : *db;
  }
  return out;
}

ModelBuilder::ModelBuilder(std::string graphName, int64_t opset, uint64_t seed) : m_opset(opset), m_random(seed) {
  if (opset < 13 || opset > 17) misuse("supported opsets are 13..17, not " + std::to_string(opset));
  m_model.graph.name = std::move(graphName);
  m_model.irVersion = opset >= 15 ? 8 : 7;
  m_model.opsets.push_back({"", opset});
  m_model.producerName = "msadvisor-model-builder";
  m_model.producerVersion = "1";
}

void ModelBuilder::pushScope(const std::string& name) { m_scopes.push_back(name); }
void ModelBuilder::popScope() {
  if (m_scopes.empty()) misuse("popScope without pushScope");
  m_scopes.pop_back();
}

std::string ModelBuilder::uniqueNodeName(const std::string& opType) {
  std::string base;
  for (const auto& s : m_scopes) base += "/" + s;
  base += "/" + opType;
  int& used = m_nameUse[base];
  std::string name = used == 0 ? base : base + "_" + std::to_string(used);
  ++used;
  return name;
}

std::string ModelBuilder::paramName(const std::string& leaf) const {
  std::string base;
  for (const auto& s : m_scopes) base += s + ".";
  base += leaf;
  std::string name = base;
  for (int k = 1; m_types.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

const TypeInfo& ModelBuilder::type(const std::string& value) const {
  auto it = m_types.find(value);
  if (it == m_types.end()) misuse("unknown value '" + value + "'");
  return it->second;
}

const Node& ModelBuilder::producer(const std::string& value) const {
  for (const Node& n : m_model.graph.nodes)
    if (std::find(n.outputs.begin(), n.outputs.end(), value) != n.outputs.end()) return n;
  misuse("no node produces '" + value + "'");
}

std::vector<int64_t> ModelBuilder::knownDims(const std::string& value) const {
  const Shape& s = shapeOf(value);
  for (const Dim& d : s.dims)
    if (!d.known()) misuse("'" + value + "' has an unknown dim where the builder needs it: " + s.str());
  return s.values();
}

Node& ModelBuilder::addNode(const std::string& opType, std::vector<std::string> inputs, std::vector<TypeInfo> outs,
                            std::vector<Attribute> attrs) {
  for (const auto& in : inputs)
    if (!in.empty()) (void)type(in);
  Node n;
  n.opType = opType;
  n.name = uniqueNodeName(opType);
  n.inputs = std::move(inputs);
  for (size_t i = 0; i < outs.size(); ++i) {
    n.outputs.push_back(n.name + "_output_" + std::to_string(i));
    setType(n.outputs.back(), std::move(outs[i]));
  }
  n.attributes = std::move(attrs);
  return m_model.graph.addNode(std::move(n));
}

std::string ModelBuilder::input(const std::string& name, std::vector<int64_t> dims, DType dtype,
                                std::vector<std::string> params) {
  Shape s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0) s.dims.push_back({dims[i], {}});
    else s.dims.push_back({-1, i < params.size() && !params[i].empty() ? params[i] : "dim_" + name + "_" + std::to_string(i)});
  }
  TypeInfo t = TypeInfo::tensor(dtype, s);
  m_model.graph.inputs.push_back({name, t, {}, {}});
  setType(name, std::move(t));
  return name;
}

std::string ModelBuilder::output(const std::string& value, const std::string& name) {
  (void)type(value);
  std::string out = value;
  if (!name.empty() && name != value) {
    if (m_types.count(name)) misuse("output name '" + name + "' is taken");
    bool renamed = false;
    for (Node& n : m_model.graph.nodes) {
      for (auto& o : n.outputs)
        if (o == value) { o = name; renamed = true; }
      for (auto& i : n.inputs)
        if (i == value) i = name;
    }
    if (!renamed) misuse("only node outputs can be renamed ('" + value + "')");
    for (auto& o : m_outputs)
      if (o == value) o = name;
    m_types[name] = m_types[value];
    m_types.erase(value);
    out = name;
  }
  if (std::find(m_outputs.begin(), m_outputs.end(), out) == m_outputs.end()) m_outputs.push_back(out);
  return out;
}

std::string ModelBuilder::weight(const std::string& name, std::vector<int64_t> dims, double bound) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(m_random.uniform(-bound, bound));
  return initializer(name, std::move(dims), v);
}

std::string ModelBuilder::initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& values) {
  if (m_types.count(name)) misuse("name '" + name + "' is taken");
  m_model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, dims, values));
  setType(name, tensorType(DType::Float, std::move(dims)));
  return name;
}

std::string ModelBuilder::initializerInt64(const std::string& name, std::vector<int64_t> dims,
                                           const std::vector<int64_t>& values) {
  if (m_types.count(name)) misuse("name '" + name + "' is taken");
  m_model.graph.initializers.push_back(Tensor::fromValues(name, DType::Int64, dims, values));
  setType(name, tensorType(DType::Int64, std::move(dims)));
  return name;
}

std::string ModelBuilder::int64Initializer(const std::string& leaf, std::vector<int64_t> values) {
  int64_t n = static_cast<int64_t>(values.size());
  return initializerInt64(paramName(leaf), {n}, values);
}

std::string ModelBuilder::scalar(float v) { return initializer(paramName("scalar"), {}, {v}); }

std::string ModelBuilder::constant(std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor t = Tensor::fromValues("", DType::Float, dims, values);
  return addNode("Constant", {}, {tensorType(DType::Float, dims)}, {Attribute::makeTensor("value", std::move(t))})
      .outputs[0];
}

std::string ModelBuilder::constantInt64(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  Tensor t = Tensor::fromValues("", DType::Int64, dims, values);
  return addNode("Constant", {}, {tensorType(DType::Int64, dims)}, {Attribute::makeTensor("value", std::move(t))})
      .outputs[0];
}

std::string ModelBuilder::conv(const std::string& x, int64_t outChannels, int64_t kernel, ConvOptions o) {
  const Shape& in = shapeOf(x);
  if (in.rank() < 3) misuse("conv input must have rank >= 3: " + in.str());
  if (!in.dims[1].known()) misuse("conv needs known input channels");
  int64_t c = in.dims[1].value;
  if (c % o.groups || outChannels % o.groups) misuse("channels not divisible by groups");
  size_t spatial = in.rank() - 2;
  std::vector<int64_t> wdims{outChannels, c / o.groups};
  for (size_t i = 0; i < spatial; ++i) wdims.push_back(kernel);
  int64_t fanIn = c / o.groups;
  for (size_t i = 0; i < spatial; ++i) fanIn *= kernel;
  double bound = 1.0 / std::sqrt(static_cast<double>(fanIn));
  std::vector<std::string> inputs{x, weight(paramName("weight"), wdims, bound)};
  if (o.bias) inputs.push_back(weight(paramName("bias"), {outChannels}, bound));
  Shape out;
  out.dims = {in.dims[0], {outChannels, {}}};
  for (size_t i = 0; i < spatial; ++i) {
    const Dim& d = in.dims[2 + i];
    int64_t v = d.known() ? (d.value + 2 * o.pads - o.dilation * (kernel - 1) - 1) / o.stride + 1 : -1;
    out.dims.push_back(knownOr(d, v));
  }
  std::vector<Attribute> attrs{
      Attribute::makeInts("dilations", std::vector<int64_t>(spatial, o.dilation)),
      Attribute::makeInt("group", o.groups),
      Attribute::makeInts("kernel_shape", std::vector<int64_t>(spatial, kernel)),
      Attribute::makeInts("pads", std::vector<int64_t>(2 * spatial, o.pads)),
      Attribute::makeInts("strides", std::vector<int64_t>(spatial, o.stride)),
  };
  return addNode("Conv", std::move(inputs), {TypeInfo::tensor(type(x).elem, out)}, std::move(attrs)).outputs[0];
}

std::string ModelBuilder::batchNorm(const std::string& x, float epsilon) {
  const Shape& in = shapeOf(x);
  if (in.rank() < 2 || !in.dims[1].known()) misuse("batchNorm needs known channels");
  int64_t c = in.dims[1].value;
  std::vector<float> scale(c), bias(c), mean(c), var(c);
  for (int64_t i = 0; i < c; ++i) {
    scale[i] = static_cast<float>(m_random.uniform(0.5, 1.5));
    bias[i] = static_cast<float>(m_random.uniform(-0.1, 0.1));
    mean[i] = static_cast<float>(m_random.normal(0, 0.1));
    var[i] = static_cast<float>(m_random.uniform(0.5, 1.5));
  }
  std::vector<std::string> inputs{x, initializer(paramName("weight"), {c}, scale),
                                  initializer(paramName("bias"), {c}, bias),
                                  initializer(paramName("running_mean"), {c}, mean),
                                  initializer(paramName("running_var"), {c}, var)};
  return addNode("BatchNormalization", std::move(inputs), {type(x)},
                 {Attribute::makeFloat("epsilon", epsilon), Attribute::makeFloat("momentum", 0.9f)})
      .outputs[0];
}

std::string ModelBuilder::matmulWeight(const std::string& x, int64_t outFeatures) {
  const Shape& in = shapeOf(x);
  if (in.rank() < 1 || !in.dims.back().known()) misuse("matmulWeight needs a known last dim");
  int64_t k = in.dims.back().value;
  std::string w = weight(paramName("weight"), {k, outFeatures}, 1.0 / std::sqrt(static_cast<double>(k)));
  return matmul(x, w);
}

std::string ModelBuilder::linear(const std::string& x, int64_t outFeatures) {
  int64_t k = shapeOf(x).dims.back().value;
  std::string h = matmulWeight(x, outFeatures);
  std::string b = weight(paramName("bias"), {outFeatures}, 1.0 / std::sqrt(static_cast<double>(k)));
  return add(b, h);  // torch exports Linear's bias add as Add(bias, MatMul)
}

std::string ModelBuilder::gemm(const std::string& x, int64_t outFeatures, bool transB) {
  auto in = knownDims(x);
  if (in.size() != 2) misuse("gemm needs a 2-D input");
  int64_t k = in[1];
  double bound = 1.0 / std::sqrt(static_cast<double>(k));
  std::string w = weight(paramName("weight"), transB ? std::vector<int64_t>{outFeatures, k} : std::vector<int64_t>{k, outFeatures}, bound);
  std::string b = weight(paramName("bias"), {outFeatures}, bound);
  return addNode("Gemm", {x, w, b}, {tensorType(type(x).elem, {in[0], outFeatures})},
                 {Attribute::makeFloat("alpha", 1.0f), Attribute::makeFloat("beta", 1.0f),
                  Attribute::makeInt("transB", transB ? 1 : 0)})
      .outputs[0];
}

std::string ModelBuilder::layerNorm(const std::string& x, float epsilon) {
  if (m_opset < 17) misuse("LayerNormalization needs opset 17");
  int64_t d = shapeOf(x).dims.back().value;
  std::vector<float> w(d), b(d);
  for (int64_t i = 0; i < d; ++i) {
    w[i] = static_cast<float>(m_random.uniform(0.8, 1.2));
    b[i] = static_cast<float>(m_random.uniform(-0.1, 0.1));
  }
  std::string wn = initializer(paramName("weight"), {d}, w);
  std::string bn = initializer(paramName("bias"), {d}, b);
  return addNode("LayerNormalization", {x, wn, bn}, {type(x)},
                 {Attribute::makeInt("axis", -1), Attribute::makeFloat("epsilon", epsilon)})
      .outputs[0];
}

std::string ModelBuilder::layerNormDecomposed(const std::string& x, float epsilon) {
  int64_t d = shapeOf(x).dims.back().value;
  std::vector<float> w(d), b(d);
  for (int64_t i = 0; i < d; ++i) {
    w[i] = static_cast<float>(m_random.uniform(0.8, 1.2));
    b[i] = static_cast<float>(m_random.uniform(-0.1, 0.1));
  }
  std::string wn = initializer(paramName("weight"), {d}, w);
  std::string bn = initializer(paramName("bias"), {d}, b);
  std::string mean = reduceMean(x, {-1});
  std::string centered = sub(x, mean);
  std::string sq = pow(centered, constant({}, {2.0f}));
  std::string var = reduceMean(sq, {-1});
  std::string std = sqrt(add(var, constant({}, {epsilon})));
  std::string normed = div(centered, std);
  return add(mul(normed, wn), bn);
}

std::string ModelBuilder::unary(const std::string& op, const std::string& x) {
  return addNode(op, {x}, {type(x)}).outputs[0];
}
std::string ModelBuilder::relu(const std::string& x) { return unary("Relu", x); }
std::string ModelBuilder::sigmoid(const std::string& x) { return unary("Sigmoid", x); }
std::string ModelBuilder::erf(const std::string& x) { return unary("Erf", x); }
std::string ModelBuilder::sqrt(const std::string& x) { return unary("Sqrt", x); }
std::string ModelBuilder::identity(const std::string& x) { return unary("Identity", x); }
std::string ModelBuilder::dropout(const std::string& x) { return unary("Dropout", x); }

std::string ModelBuilder::clip(const std::string& x, float lo, float hi) {
  std::string l = constant({}, {lo});
  std::string h = constant({}, {hi});
  return addNode("Clip", {x, l, h}, {type(x)}).outputs[0];
}

std::string ModelBuilder::silu(const std::string& x) { return mul(x, sigmoid(x)); }

std::string ModelBuilder::gelu(const std::string& x) {
  std::string d = div(x, constant({}, {1.41421354f}));
  std::string e = erf(d);
  std::string a = add(e, constant({}, {1.0f}));
  std::string m = mul(x, a);
  return mul(m, constant({}, {0.5f}));
}

std::string ModelBuilder::softmax(const std::string& x, int64_t axis) {
  return addNode("Softmax", {x}, {type(x)}, {Attribute::makeInt("axis", axis)}).outputs[0];
}

std::string ModelBuilder::binary(const std::string& op, const std::string& a, const std::string& b) {
  TypeInfo t = TypeInfo::tensor(type(a).elem, broadcastShapes(shapeOf(a), shapeOf(b)));
  return addNode(op, {a, b}, {t}).outputs[0];
}
std::string ModelBuilder::add(const std::string& a, const std::string& b) { return binary("Add", a, b); }
std::string ModelBuilder::sub(const std::string& a, const std::string& b) { return binary("Sub", a, b); }
std::string ModelBuilder::mul(const std::string& a, const std::string& b) { return binary("Mul", a, b); }
std::string ModelBuilder::div(const std::string& a, const std::string& b) { return binary("Div", a, b); }
std::string ModelBuilder::pow(const std::string& a, const std::string& b) {
  return addNode("Pow", {a, b}, {type(a)}).outputs[0];
}

std::string ModelBuilder::matmul(const std::string& a, const std::string& b) {
  Shape sa = shapeOf(a), sb = shapeOf(b);
  if (sa.rank() < 2 || sb.rank() < 2) misuse("matmul needs rank >= 2 operands");
  const Dim& ka = sa.dims.back();
  const Dim& kb = sb.dims[sb.rank() - 2];
  if (ka.known() && kb.known() && ka.value != kb.value) misuse("matmul inner dims differ: " + sa.str() + " x " + sb.str());
  Shape ba, bb;
  ba.dims.assign(sa.dims.begin(), sa.dims.end() - 2);
  bb.dims.assign(sb.dims.begin(), sb.dims.end() - 2);
  Shape out = broadcastShapes(ba, bb);
  out.dims.push_back(sa.dims[sa.rank() - 2]);
  out.dims.push_back(sb.dims.back());
  return addNode("MatMul", {a, b}, {TypeInfo::tensor(type(a).elem, out)}).outputs[0];
}

std::string ModelBuilder::transpose(const std::string& x, std::vector<int64_t> perm) {
  const Shape& in = shapeOf(x);
  if (perm.size() != in.rank()) misuse("transpose perm size differs from rank " + in.str());
  Shape out;
  for (int64_t p : perm) out.dims.push_back(in.dims[static_cast<size_t>(normAxis(p, in.rank()))]);
  return addNode("Transpose", {x}, {TypeInfo::tensor(type(x).elem, out)}, {Attribute::makeInts("perm", perm)})
      .outputs[0];
}

std::string ModelBuilder::reshape(const std::string& x, std::vector<int64_t> target) {
  const Shape& in = shapeOf(x);
  Shape out;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    Dim d;
    if (target[i] == 0) {
      if (i >= in.rank()) misuse("reshape 0 beyond the input rank");
      d = in.dims[i];
    } else if (target[i] == -1) infer = static_cast<int>(i);
    else d.value = target[i];
    if (target[i] != -1) {
      if (!d.known()) known = -1;
      else if (known > 0) known *= d.value;
    }
    out.dims.push_back(d);
  }
  if (infer >= 0) {
    int64_t total = in.numElements();
    out.dims[infer] = total >= 0 && known > 0 ? Dim{total / known, {}} : Dim{};
  }
  std::string s = int64Initializer("shape", target);
  return addNode("Reshape", {x, s}, {TypeInfo::tensor(type(x).elem, out)}).outputs[0];
}

std::string ModelBuilder::reshapeFromShape(const std::string& x, int64_t keepLeading, std::vector<int64_t> tail) {
  const Shape& in = shapeOf(x);
  std::vector<std::string> parts;
  std::vector<int64_t> target;
  for (int64_t i = 0; i < keepLeading; ++i) {
    std::string s = shape(x);
    std::string idx = constantInt64({}, {i});
    parts.push_back(unsqueeze(gather(s, idx, 0), {0}));
    target.push_back(in.dims[static_cast<size_t>(i)].value);
  }
  for (int64_t t : tail) {
    parts.push_back(constantInt64({1}, {t}));
    target.push_back(t);
  }
  std::string shapeValue = concat(parts, 0);
  // The output shape is what a static reshape to `target` would give.
  Shape out;
  int64_t known = 1;
  long infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (i < static_cast<size_t>(keepLeading)) out.dims.push_back(in.dims[i]);
    else if (target[i] == -1) infer = static_cast<long>(i), out.dims.push_back({});
    else out.dims.push_back({target[i], {}});
    if (target[i] != -1) known = out.dims[i].known() && known > 0 ? known * out.dims[i].value : -1;
  }
  if (infer >= 0 && in.numElements() >= 0 && known > 0) out.dims[static_cast<size_t>(infer)].value = in.numElements() / known;
  return addNode("Reshape", {x, shapeValue}, {TypeInfo::tensor(type(x).elem, out)}).outputs[0];
}

std::string ModelBuilder::slice(const std::string& x, std::vector<int64_t> starts, std::vector<int64_t> ends,
                                std::vector<int64_t> axes, std::vector<int64_t> steps) {
  if (steps.empty()) steps.assign(starts.size(), 1);
  Shape out = shapeOf(x);
  for (size_t k = 0; k < axes.size(); ++k) {
    size_t a = static_cast<size_t>(normAxis(axes[k], out.rank()));
    Dim& d = out.dims[a];
    if (!d.known()) continue;
    int64_t n = d.value, s = starts[k], e = ends[k], st = steps[k];
    if (s < 0) s += n;
    if (e < 0) e += n;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, n);
      e = std::clamp<int64_t>(e, 0, n);
      d.value = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      d.value = s > e ? (s - e - st - 1) / -st : 0;
    }
  }
  std::vector<std::string> inputs{x, int64Initializer("starts", starts), int64Initializer("ends", ends),
                                  int64Initializer("axes", axes), int64Initializer("steps", steps)};
  return addNode("Slice", std::move(inputs), {TypeInfo::tensor(type(x).elem, out)}).outputs[0];
}

std::vector<std::string> ModelBuilder::split(const std::string& x, int64_t axis, std::vector<int64_t> sizes) {
  const Shape& in = shapeOf(x);
  size_t a = static_cast<size_t>(normAxis(axis, in.rank()));
  std::vector<TypeInfo> outs;
  for (int64_t s : sizes) {
    Shape o = in;
    o.dims[a] = {s, {}};
    outs.push_back(TypeInfo::tensor(type(x).elem, o));
  }
  std::string sp = int64Initializer("split", sizes);
  return addNode("Split", {x, sp}, std::move(outs), {Attribute::makeInt("axis", axis)}).outputs;
}

std::string ModelBuilder::concat(const std::vector<std::string>& xs, int64_t axis) {
  if (xs.empty()) misuse("concat of nothing");
  Shape out = shapeOf(xs[0]);
  size_t a = static_cast<size_t>(normAxis(axis, out.rank()));
  for (size_t i = 1; i < xs.size(); ++i) {
    const Dim& d = shapeOf(xs[i]).dims[a];
    out.dims[a] = out.dims[a].known() && d.known() ? Dim{out.dims[a].value + d.value, {}} : Dim{};
  }
  return addNode("Concat", xs, {TypeInfo::tensor(type(xs[0]).elem, out)}, {Attribute::makeInt("axis", axis)}).outputs[0];
}

std::string ModelBuilder::resize(const std::string& x, std::vector<float> scales, const std::string& mode) {
  Shape out = shapeOf(x);
  if (scales.size() != out.rank()) misuse("resize needs one scale per dim");
  for (size_t i = 0; i < scales.size(); ++i)
    if (out.dims[i].known())
      out.dims[i].value = static_cast<int64_t>(std::floor(static_cast<double>(out.dims[i].value) * scales[i]));
  std::string sc = initializer(paramName("scales"), {static_cast<int64_t>(scales.size())}, scales);
  std::vector<Attribute> attrs{Attribute::makeString("coordinate_transformation_mode", "asymmetric"),
                               Attribute::makeString("mode", mode)};
  if (mode == "nearest") attrs.push_back(Attribute::makeString("nearest_mode", "floor"));
  return addNode("Resize", {x, "", sc}, {TypeInfo::tensor(type(x).elem, out)}, std::move(attrs)).outputs[0];
}

std::string ModelBuilder::maxPool(const std::string& x, int64_t kernel, PoolOptions o) {
  Shape out = shapeOf(x);
  size_t spatial = out.rank() - 2;
  for (size_t i = 2; i < out.rank(); ++i)
    if (out.dims[i].known()) out.dims[i].value = (out.dims[i].value + 2 * o.pads - kernel) / o.stride + 1;
  std::vector<Attribute> attrs{Attribute::makeInt("ceil_mode", 0),
                               Attribute::makeInts("kernel_shape", std::vector<int64_t>(spatial, kernel)),
                               Attribute::makeInts("pads", std::vector<int64_t>(2 * spatial, o.pads)),
                               Attribute::makeInts("strides", std::vector<int64_t>(spatial, o.stride))};
  return addNode("MaxPool", {x}, {TypeInfo::tensor(type(x).elem, out)}, std::move(attrs)).outputs[0];
}

std::string ModelBuilder::reduceMean(const std::string& x, std::vector<int64_t> axes, bool keepdims) {
  const Shape& in = shapeOf(x);
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(normAxis(a, in.rank()))] = true;
  Shape out;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) out.dims.push_back(in.dims[i]);
    else if (keepdims) out.dims.push_back({1, {}});
  }
  return addNode("ReduceMean", {x}, {TypeInfo::tensor(type(x).elem, out)},
                 {Attribute::makeInts("axes", axes), Attribute::makeInt("keepdims", keepdims ? 1 : 0)})
      .outputs[0];
}

std::string ModelBuilder::cast(const std::string& x, DType to) {
  return addNode("Cast", {x}, {TypeInfo::tensor(to, shapeOf(x))}, {Attribute::makeInt("to", static_cast<int64_t>(to))})
      .outputs[0];
}

std::string ModelBuilder::shape(const std::string& x) {
  return addNode("Shape", {x}, {tensorType(DType::Int64, {static_cast<int64_t>(shapeOf(x).rank())})}).outputs[0];
}

std::string ModelBuilder::gather(const std::string& x, const std::string& indices, int64_t axis) {
  const Shape& in = shapeOf(x);
  size_t a = static_cast<size_t>(normAxis(axis, in.rank()));
  Shape out;
  out.dims.assign(in.dims.begin(), in.dims.begin() + static_cast<long>(a));
  for (const Dim& d : shapeOf(indices).dims) out.dims.push_back(d);
  out.dims.insert(out.dims.end(), in.dims.begin() + static_cast<long>(a) + 1, in.dims.end());
  return addNode("Gather", {x, indices}, {TypeInfo::tensor(type(x).elem, out)}, {Attribute::makeInt("axis", axis)})
      .outputs[0];
}

std::string ModelBuilder::unsqueeze(const std::string& x, std::vector<int64_t> axes) {
  Shape in = shapeOf(x);
  size_t rank = in.rank() + axes.size();
  std::vector<bool> isNew(rank, false);
  for (int64_t a : axes) isNew[static_cast<size_t>(normAxis(a, rank))] = true;
  Shape out;
  size_t k = 0;
  for (size_t i = 0; i < rank; ++i) out.dims.push_back(isNew[i] ? Dim{1, {}} : in.dims[k++]);
  std::string ax = constantInt64({static_cast<int64_t>(axes.size())}, axes);
  return addNode("Unsqueeze", {x, ax}, {TypeInfo::tensor(type(x).elem, out)}).outputs[0];
}

std::vector<std::string> ModelBuilder::node(const std::string& opType, std::vector<std::string> inputs,
                                            std::vector<Attribute> attributes, std::vector<TypeInfo> outputTypes) {
  return addNode(opType, std::move(inputs), std::move(outputTypes), std::move(attributes)).outputs;
}

void ModelBuilder::setMetadata(const std::string& key, const std::string& value) {
  for (auto& [k, v] : m_model.metadata)
    if (k == key) {
      v = value;
      return;
    }
  m_model.metadata.emplace_back(key, value);
}

Model ModelBuilder::build(bool withValueInfo) const {
  if (m_outputs.empty()) misuse("the model has no outputs");
  Model m = m_model;
  for (const auto& o : m_outputs) m.graph.outputs.push_back({o, type(o), {}, {}});
  if (withValueInfo)
    for (const Node& n : m.graph.nodes)
      for (const auto& o : n.outputs)
        if (!m.graph.isGraphOutput(o)) m.graph.valueInfo.push_back({o, type(o), {}, {}});
  return m;
}

Status ModelBuilder::save(const std::filesystem::path& path, bool withValueInfo) const {
  SaveOptions o;
  o.external = SaveOptions::External::Never;
  return saveModel(build(withValueInfo), path, o);
}

}  // namespace msa::test
