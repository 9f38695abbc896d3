#include "model/index_map.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "model/shape_values.h"

namespace msa {
namespace {

using Dims = std::vector<int64_t>;

int64_t product(std::span<const int64_t> d) {
  int64_t n = 1;
  for (int64_t v : d) {
    if (v < 0) return -1;
    n *= v;
  }
  return n;
}

std::vector<int64_t> strides(std::span<const int64_t> d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// A strided view of `in`: output element `pos` is input element base + Σ pos[k]·stride[k]. Every
// movement here is one (a transpose permutes the strides, a slice offsets and steps them, a
// broadcast zeroes them); the innermost axis runs in a tight loop.
IndexMap stridedMap(const IndexMap& in, Dims outDims, int64_t base, const Dims& stride) {
  IndexMap r;
  r.dims = std::move(outDims);
  const int64_t n = product(r.dims);
  r.from.resize(static_cast<size_t>(std::max<int64_t>(n, 0)));
  if (n <= 0) return r;
  const size_t rank = r.dims.size();
  if (rank == 0) {
    r.from[0] = in.from[static_cast<size_t>(base)];
    return r;
  }
  const int64_t inner = r.dims.back(), innerStride = stride.back();
  Dims pos(rank, 0);
  int64_t offset = base;
  int32_t* out = r.from.data();
  const int32_t* src = in.from.data();
  for (int64_t done = 0; done < n; done += inner) {
    for (int64_t k = 0; k < inner; ++k) out[done + k] = src[offset + k * innerStride];
    for (size_t a = rank - 1; a-- > 0;) {  // the outer axes, odometer-style
      offset += stride[a];
      if (++pos[a] < r.dims[a]) break;
      offset -= stride[a] * r.dims[a];
      pos[a] = 0;
    }
  }
  return r;
}

std::optional<Dims> intsOf(const KnownOperands& known, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
  return known.ints(n.inputs[i]);
}

int64_t normAxis(int64_t a, int64_t rank) { return a < 0 ? a + rank : a; }

// The output dims a reshape-like node gives `in` (inferred shape first, else its operands).
std::optional<Dims> reshapedDims(const Node& n, const IndexMap& in, const KnownOperands& known) {
  if (const Shape* s = known.index().shape(n.outputs[0]); s && s->fullyKnown()) return s->values();
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  if (n.opType == "Reshape") {
    auto shape = intsOf(known, n, 1);
    if (!shape) return std::nullopt;
    Dims out;
    int64_t product1 = 1, infer = -1;
    for (size_t i = 0; i < shape->size(); ++i) {
      int64_t d = (*shape)[i];
      if (d == 0 && n.attrInt("allowzero", 0) == 0 && i < in.dims.size()) d = in.dims[i];
      if (d == -1) infer = static_cast<int64_t>(i);
      else product1 *= d;
      out.push_back(d);
    }
    if (infer >= 0) {
      if (product1 <= 0) return std::nullopt;
      out[static_cast<size_t>(infer)] = product(in.dims) / product1;
    }
    return out;
  }
  if (n.opType == "Flatten") {
    const int64_t axis = normAxis(n.attrInt("axis", 1), rank);
    if (axis < 0 || axis > rank) return std::nullopt;
    return Dims{product(std::span(in.dims).first(static_cast<size_t>(axis))),
                product(std::span(in.dims).subspan(static_cast<size_t>(axis)))};
  }
  Dims axes = n.attrInts("axes");
  if (axes.empty() && n.inputs.size() > 1 && !n.inputs[1].empty()) {
    auto a = intsOf(known, n, 1);
    if (!a) return std::nullopt;
    axes = *a;
  }
  if (n.opType == "Unsqueeze") {
    const int64_t outRank = rank + static_cast<int64_t>(axes.size());
    for (int64_t& a : axes) a = normAxis(a, outRank);
    std::sort(axes.begin(), axes.end());
    Dims out = in.dims;
    for (int64_t a : axes) {
      if (a < 0 || a > static_cast<int64_t>(out.size())) return std::nullopt;
      out.insert(out.begin() + a, 1);
    }
    return out;
  }
  // Squeeze: the listed unit axes, or every unit axis.
  std::vector<bool> drop(in.dims.size(), axes.empty());
  for (int64_t a : axes) {
    a = normAxis(a, rank);
    if (a < 0 || a >= rank || in.dims[static_cast<size_t>(a)] != 1) return std::nullopt;
    drop[static_cast<size_t>(a)] = true;
  }
  Dims out;
  for (size_t i = 0; i < in.dims.size(); ++i)
    if (!drop[i] || in.dims[i] != 1) out.push_back(in.dims[i]);
  return out;
}

std::optional<IndexMap> transposeMap(const Node& n, const IndexMap& in) {
  const size_t r = in.dims.size();
  Dims perm = n.attrInts("perm");
  if (perm.empty())
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  if (perm.size() != r) return std::nullopt;
  Dims out(r);
  std::vector<bool> seen(r, false);
  for (size_t i = 0; i < r; ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(r) || seen[static_cast<size_t>(perm[i])]) return std::nullopt;
    seen[static_cast<size_t>(perm[i])] = true;
    out[i] = in.dims[static_cast<size_t>(perm[i])];
  }
  const Dims st = strides(in.dims);
  Dims stride(r);
  for (size_t i = 0; i < r; ++i) stride[i] = st[static_cast<size_t>(perm[i])];
  return stridedMap(in, out, 0, stride);
}

// A strided window: per input axis its first index, step and length (ONNX Slice's clamping).
std::optional<IndexMap> windowMap(const IndexMap& in, const Dims& begin, const Dims& step, const Dims& len) {
  const Dims st = strides(in.dims);
  int64_t base = 0;
  Dims stride(st.size());
  for (size_t i = 0; i < st.size(); ++i) {
    base += begin[i] * st[i];
    stride[i] = step[i] * st[i];
  }
  return stridedMap(in, len, base, stride);
}

std::optional<IndexMap> sliceMap(const Node& n, const IndexMap& in, const KnownOperands& known) {
  Dims starts = n.attrInts("starts"), ends = n.attrInts("ends"), axes = n.attrInts("axes"), steps;
  if (!n.attr("starts")) {
    auto s = intsOf(known, n, 1), e = intsOf(known, n, 2);
    if (!s || !e) return std::nullopt;
    starts = *s;
    ends = *e;
    auto operand = [&](size_t i, Dims& out) {
      if (i >= n.inputs.size() || n.inputs[i].empty()) return true;
      auto v = intsOf(known, n, i);
      if (v) out = *v;
      return v.has_value();
    };
    if (!operand(3, axes) || !operand(4, steps)) return std::nullopt;
  }
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size()) return std::nullopt;
  Dims begin(in.dims.size(), 0), step(in.dims.size(), 1), len = in.dims;
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t ax = normAxis(axes[k], rank);
    if (ax < 0 || ax >= rank || steps[k] == 0) return std::nullopt;
    const int64_t dim = in.dims[static_cast<size_t>(ax)];
    const int64_t st = steps[k];
    auto clampIdx = [&](int64_t x, bool isEnd) {
      if (x < 0) x = x == INT64_MIN ? -1 - dim : x + dim;
      if (st > 0) return std::clamp<int64_t>(x, 0, dim);
      return std::clamp<int64_t>(x, isEnd ? -1 : 0, dim - 1);
    };
    const int64_t s0 = clampIdx(starts[k], false), e0 = clampIdx(ends[k], true);
    begin[static_cast<size_t>(ax)] = s0;
    step[static_cast<size_t>(ax)] = st;
    len[static_cast<size_t>(ax)] =
        st > 0 ? std::max<int64_t>(0, (e0 - s0 + st - 1) / st) : std::max<int64_t>(0, (s0 - e0 - st - 1) / -st);
  }
  return windowMap(in, begin, step, len);
}

std::optional<IndexMap> splitMap(const Node& n, size_t out, const IndexMap& in, const KnownOperands& known) {
  const GraphIndex& idx = known.index();
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  const int64_t axis = normAxis(n.attrInt("axis", 0), rank);
  if (axis < 0 || axis >= rank) return std::nullopt;
  const int64_t dim = in.dims[static_cast<size_t>(axis)];
  Dims sizes = n.attrInts("split");
  if (sizes.empty() && n.inputs.size() > 1 && !n.inputs[1].empty()) {
    auto s = intsOf(known, n, 1);
    if (!s) return std::nullopt;
    sizes = *s;
  }
  if (sizes.empty()) {
    // Equal parts (the last one smaller with num_outputs, opset 18): from the inferred shapes.
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const Shape* s = idx.shape(n.outputs[k]);
      if (s && s->rank() == in.dims.size() && s->dims[static_cast<size_t>(axis)].known())
        sizes.push_back(s->dims[static_cast<size_t>(axis)].value);
      else if (dim % static_cast<int64_t>(n.outputs.size()) == 0)
        sizes.push_back(dim / static_cast<int64_t>(n.outputs.size()));
      else
        return std::nullopt;
    }
  }
  if (sizes.size() != n.outputs.size() || out >= sizes.size() || std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != dim)
    return std::nullopt;
  Dims begin(in.dims.size(), 0), step(in.dims.size(), 1), len = in.dims;
  begin[static_cast<size_t>(axis)] = std::accumulate(sizes.begin(), sizes.begin() + static_cast<long>(out), int64_t{0});
  len[static_cast<size_t>(axis)] = sizes[out];
  return windowMap(in, begin, step, len);
}

}  // namespace

struct KnownOperands::Evaluated {
  std::unordered_map<std::string, std::optional<KnownValue>> values;  // by value name; nullopt: not known
};

KnownOperands::KnownOperands(const GraphIndex& idx, bool evaluate, size_t maxElements)
    : m_idx(idx), m_evaluate(evaluate), m_max(maxElements), m_values(std::make_unique<Evaluated>()) {}
KnownOperands::~KnownOperands() = default;

// The value computed from constants alone: its cone of producers (at most 64 nodes, none reading a
// graph input) copied into a small graph and evaluated there, so a question about one mask costs
// its cone, not the model.
const KnownValue* KnownOperands::evaluated(std::string_view v) const {
  if (!m_evaluate || m_idx.producer(v) < 0) return nullptr;  // graph inputs are never known
  const std::string key(v);
  if (auto it = m_values->values.find(key); it != m_values->values.end()) return it->second ? &*it->second : nullptr;
  auto& slot = m_values->values[key];
  if (const Shape* s = m_idx.shape(v); s && s->fullyKnown() && s->numElements() > static_cast<int64_t>(m_max)) return nullptr;
  // The cone first (indices only): most values asked about are activations, whose cone reaches a
  // graph input and is given up without copying anything.
  const Graph& g = m_idx.graph();
  std::vector<size_t> cone;
  std::vector<std::string_view> pending{v}, shapesRead, initializers;
  std::unordered_map<std::string_view, bool> seen;
  while (!pending.empty()) {
    const std::string_view name = pending.back();
    pending.pop_back();
    if (name.empty() || seen[name]) continue;
    seen[name] = true;
    if (m_idx.initializer(name)) {
      initializers.push_back(name);
      continue;
    }
    const long p = m_idx.producer(name);
    if (p < 0 || cone.size() >= 64) return nullptr;  // a graph input, or too far
    const Node& n = g.nodes[static_cast<size_t>(p)];
    if (n.hasSubgraphs() || !n.isDefaultDomain()) return nullptr;
    if (std::find(cone.begin(), cone.end(), static_cast<size_t>(p)) != cone.end()) continue;
    cone.push_back(static_cast<size_t>(p));
    if (n.is("Shape") || n.is("Size")) {  // reads only its input's (static) shape
      shapesRead.push_back(n.input(0));
      continue;
    }
    for (const auto& in : n.inputs) pending.push_back(in);
  }
  Graph sub;
  for (std::string_view name : initializers) sub.initializers.push_back(*m_idx.initializer(name));  // shares the bytes
  for (std::string_view name : shapesRead)
    if (const TypeInfo* t = m_idx.type(name)) sub.valueInfo.push_back({std::string(name), *t, {}, {}});
  std::sort(cone.begin(), cone.end());
  for (size_t i : cone) {
    sub.nodes.push_back(g.nodes[i]);
    for (const auto& o : g.nodes[i].outputs)
      if (const TypeInfo* t = m_idx.type(o)) sub.valueInfo.push_back({o, *t, {}, {}});
  }
  sub.nextNodeId = g.nextNodeId;
  auto values = evaluateShapeValues(sub, m_max);
  auto it = values.find(key);
  if (it == values.end()) return nullptr;
  slot = std::move(it->second);
  return &*slot;
}

bool KnownOperands::known(std::string_view v) const { return m_idx.constant(v) || evaluated(v); }

std::optional<std::vector<double>> KnownOperands::values(std::string_view v) const {
  if (const Tensor* t = m_idx.constant(v)) {
    if ((!isInteger(t->dtype) && !isFloating(t->dtype)) || t->numElements() > static_cast<int64_t>(m_max)) return std::nullopt;
    return t->toDouble();
  }
  const KnownValue* e = evaluated(v);
  if (!e) return std::nullopt;
  return e->values;
}

std::optional<std::vector<int64_t>> KnownOperands::ints(std::string_view v) const {
  if (const Tensor* t = m_idx.constant(v)) {
    if (!isInteger(t->dtype) || t->numElements() > static_cast<int64_t>(m_max)) return std::nullopt;
    return t->toInt64();
  }
  const KnownValue* e = evaluated(v);
  if (!e || !isInteger(e->dtype)) return std::nullopt;
  std::vector<int64_t> out;
  for (double x : e->values) out.push_back(x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(x));
  return out;
}

std::optional<double> KnownOperands::scalar(std::string_view v) const {
  if (const Tensor* t = m_idx.constant(v)) return t->numElements() == 1 ? t->scalar() : std::nullopt;
  const KnownValue* e = evaluated(v);
  if (!e || e->values.size() != 1) return std::nullopt;
  return e->values.front();
}

std::optional<std::vector<int64_t>> KnownOperands::dims(std::string_view v) const {
  if (const Tensor* t = m_idx.constant(v)) return t->dims;
  if (const Shape* s = m_idx.shape(v); s && s->fullyKnown()) return s->values();
  const KnownValue* e = evaluated(v);
  if (!e) return std::nullopt;
  return e->dims;
}

bool isDataMovement(const Node& n) {
  static const char* const ops[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                                    "Slice",   "Split",   "Expand",  "Identity"};
  if (!n.isDefaultDomain() || n.inputs.empty()) return false;
  return std::any_of(std::begin(ops), std::end(ops), [&](const char* op) { return n.opType == op; });
}

std::optional<ScalarFactor> scalarFactor(const KnownOperands& known, const Node& n) {
  if (!(n.is("Mul") || n.is("Div")) || n.inputs.size() != 2 || n.outputs.size() != 1) return std::nullopt;
  size_t c = 1;
  if (!known.known(n.inputs[1])) {
    if (!n.is("Mul") || !known.known(n.inputs[0])) return std::nullopt;
    c = 0;
  } else if (n.is("Mul") && known.known(n.inputs[0])) {
    return std::nullopt;  // both known: a constant, not a scale
  }
  const std::string& data = n.inputs[1 - c];
  auto v = known.scalar(n.inputs[c]);
  auto cd = known.dims(n.inputs[c]);
  const Shape* x = known.index().shape(data);
  // A float scale that does not broadcast the data up to a higher rank.
  const DType t = known.index().dtype(n.inputs[c]);
  if (!v || *v == 0 || !std::isfinite(*v) || !cd || !x || x->rank() < cd->size() || (t != DType::Undefined && !isFloating(t)))
    return std::nullopt;
  return ScalarFactor{n.is("Div") ? 1.0 / *v : *v, data};
}

std::optional<IndexMap> iotaMap(std::span<const int64_t> dims, size_t maxElements) {
  const int64_t n = product(dims);
  if (n < 0 || static_cast<uint64_t>(n) > maxElements || n > INT32_MAX) return std::nullopt;
  IndexMap m;
  m.dims.assign(dims.begin(), dims.end());
  m.from.resize(static_cast<size_t>(n));
  std::iota(m.from.begin(), m.from.end(), 0);
  return m;
}

std::optional<IndexMap> broadcastMap(const IndexMap& in, std::span<const int64_t> dims) {
  if (in.dims.size() > dims.size()) return std::nullopt;
  const size_t lead = dims.size() - in.dims.size();
  Dims padded(lead, 1);
  padded.insert(padded.end(), in.dims.begin(), in.dims.end());
  for (size_t i = 0; i < dims.size(); ++i)
    if (padded[i] != dims[i] && padded[i] != 1) return std::nullopt;
  const Dims st = strides(padded);
  Dims stride(st.size());
  for (size_t i = 0; i < st.size(); ++i) stride[i] = padded[i] == 1 ? 0 : st[i];
  return stridedMap(in, Dims(dims.begin(), dims.end()), 0, stride);
}

std::optional<IndexMap> applyMovement(const Node& n, size_t out, IndexMap in, const KnownOperands& known) {
  if (out >= n.outputs.size()) return std::nullopt;
  if (n.is("Identity") || scalarFactor(known, n)) return in;
  if (n.is("Reshape") || n.is("Flatten") || n.is("Squeeze") || n.is("Unsqueeze")) {
    auto dims = reshapedDims(n, in, known);
    if (!dims || product(*dims) != static_cast<int64_t>(in.from.size())) return std::nullopt;
    in.dims = std::move(*dims);
    return in;
  }
  if (n.is("Transpose")) return transposeMap(n, in);
  if (n.is("Slice")) return sliceMap(n, in, known);
  if (n.is("Split")) return splitMap(n, out, in, known);
  if (n.is("Expand")) {
    auto shape = intsOf(known, n, 1);
    if (!shape) return std::nullopt;
    Dims target = *shape;  // broadcast of the input's dims and the requested shape
    const size_t r = std::max(target.size(), in.dims.size());
    Dims a(r - in.dims.size(), 1), b(r - target.size(), 1);
    a.insert(a.end(), in.dims.begin(), in.dims.end());
    b.insert(b.end(), target.begin(), target.end());
    Dims dims(r);
    for (size_t i = 0; i < r; ++i) {
      if (a[i] != b[i] && a[i] != 1 && b[i] != 1) return std::nullopt;
      dims[i] = a[i] == 1 ? b[i] : a[i];
    }
    return broadcastMap(in, dims);
  }
  return std::nullopt;
}

MovementChain movementChainTo(const KnownOperands& known, std::string_view value, bool scales, size_t maxOps) {
  const GraphIndex& idx = known.index();
  MovementChain c;
  c.value = std::string(value);
  std::string v(value);
  for (size_t k = 0; k < maxOps; ++k) {
    const long p = idx.producer(v);
    if (p < 0) break;
    const Node& n = idx.graph().nodes[static_cast<size_t>(p)];
    std::string data;
    if (isDataMovement(n)) data = n.inputs[0];
    else if (auto f = scales ? scalarFactor(known, n) : std::nullopt) data = f->data;
    if (data.empty() || idx.constant(data)) break;
    c.nodes.push_back(static_cast<size_t>(p));
    v = data;
  }
  std::reverse(c.nodes.begin(), c.nodes.end());
  c.source = v;
  return c;
}

std::optional<IndexMap> mapAlong(const KnownOperands& known, const MovementChain& chain, size_t maxElements) {
  const GraphIndex& idx = known.index();
  const Shape* s = idx.shape(chain.source);
  if (!s || !s->fullyKnown()) return std::nullopt;
  auto m = iotaMap(s->values(), maxElements);
  std::string v = chain.source;
  for (size_t i : chain.nodes) {
    if (!m) return std::nullopt;
    const Node& n = idx.graph().nodes[i];
    // The node's output that continues the chain: the one read by the next node (Split).
    size_t out = 0;
    if (n.outputs.size() > 1) {
      const auto next = std::find(chain.nodes.begin(), chain.nodes.end(), i) + 1;
      const std::string* want = nullptr;
      if (next != chain.nodes.end()) {
        for (const auto& o : n.outputs)
          for (const auto& in : idx.graph().nodes[*next].inputs)
            if (o == in) want = &o;
      } else {
        want = &chain.value;
      }
      if (!want) return std::nullopt;
      out = static_cast<size_t>(std::find(n.outputs.begin(), n.outputs.end(), *want) - n.outputs.begin());
    }
    m = applyMovement(n, out, std::move(*m), known);
    if (m && m->from.size() > maxElements) return std::nullopt;
  }
  return m;
}

}  // namespace msa
