#include "model/shape_values.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <optional>
#include <unordered_set>

#include "model/graph_index.h"
#include "model/onnx_proto.h"

namespace msa {

using Dims = std::vector<int64_t>;

namespace {

std::optional<Tensor> toTensor(const std::string& name, const KnownValue& v);

// Element count; -1 for a negative dim or an overflow (absurd shapes are not evaluated).
int64_t count(const Dims& d) {
  int64_t n = 1;
  for (int64_t v : d)
    if (v < 0 || __builtin_mul_overflow(n, v, &n)) return -1;
  return n;
}

double castTo(DType t, double v) {
  if (isInteger(t)) return std::trunc(v);
  if (t == DType::Bool) return v != 0 ? 1 : 0;
  return v;
}

}  // namespace

std::optional<Dims> broadcastDims(const Dims& a, const Dims& b) {
  const size_t r = std::max(a.size(), b.size());
  Dims out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

namespace {

// Flat index into `in` (broadcast to `out`) for every flat index of `out`.
std::vector<size_t> broadcastIndex(const Dims& in, const Dims& out) {
  const size_t n = static_cast<size_t>(count(out));
  std::vector<size_t> idx(n);
  Dims pos(out.size(), 0);
  for (size_t k = 0; k < n; ++k) {
    size_t flat = 0;
    for (size_t i = 0, off = out.size() - in.size(); i < in.size(); ++i)
      flat = flat * static_cast<size_t>(in[i]) + static_cast<size_t>(in[i] == 1 ? 0 : pos[i + off]);
    idx[k] = flat;
    for (size_t i = out.size(); i-- > 0;) {
      if (++pos[i] < out[i]) break;
      pos[i] = 0;
    }
  }
  return idx;
}

}  // namespace

class Evaluator {
 public:
  // `outer`: the evaluator of the enclosing graph, for the outer-scope values a subgraph uses.
  Evaluator(const Graph& g, size_t maxElements, const Evaluator* outer = nullptr)
      : m_graph(g), m_index(std::make_unique<GraphIndex>(g)), m_max(maxElements), m_outer(outer) {}
  // Node by node (evaluate()), with shapes from `shapes` as they become known.
  Evaluator(const Graph& g, size_t maxElements, ShapeEvaluator::ShapeOf shapes)
      : m_graph(g), m_max(maxElements), m_shapes(std::move(shapes)) {}

  // Keyed by the graph's own names (the graph outlives the evaluator).
  using Values = std::unordered_map<std::string_view, KnownValue>;

  // Node-by-node mode: an initializer is converted when a node first reads it (a model's
  // thousands of small weights are not shape arithmetic).
  void seed() {
    for (const Tensor& t : m_graph.initializers)
      if (!m_graph.isGraphInput(t.name)) m_unread.emplace(t.name, &t);
  }
  const Values& run() {
    for (const Tensor& t : m_graph.initializers)
      if (!m_index->isGraphInput(t.name)) fromTensor(t.name, t);
    for (size_t i : m_graph.topologicalOrder()) node(m_graph.nodes[i]);
    return m_values;
  }
  const Values& values() const { return m_values; }
  void evaluate(const Node& n) { node(n); }

  const KnownValue* lookup(std::string_view name) const {
    for (const Evaluator* e = this; e; e = e->m_outer) {
      auto it = e->m_values.find(name);
      if (it != e->m_values.end()) return &it->second;
      if (auto u = e->m_unread.find(name); u != e->m_unread.end()) {
        const Tensor& t = *u->second;
        e->m_unread.erase(u);
        e->fromTensor(t.name, t);
        it = e->m_values.find(name);
        return it != e->m_values.end() ? &it->second : nullptr;
      }
      if (!e->m_index) return nullptr;
      if (e->m_index->producer(name) >= 0 || e->m_index->isGraphInput(name)) return nullptr;  // shadowed
    }
    return nullptr;
  }

  // Whether lookup(name) finds a value, without converting an initializer to find out.
  bool holds(std::string_view name) const {
    for (const Evaluator* e = this; e; e = e->m_outer) {
      if (e->m_values.count(name)) return true;
      if (auto u = e->m_unread.find(name); u != e->m_unread.end()) return convertible(*u->second);
      if (!e->m_index || e->m_index->producer(name) >= 0 || e->m_index->isGraphInput(name)) return false;
    }
    return false;
  }

  const Shape* shapeOf(std::string_view name) const {
    if (m_shapes) return m_shapes(name);
    for (const Evaluator* e = this; e; e = e->m_outer)
      if (const Shape* s = e->m_index->shape(name)) return s;
    return nullptr;
  }

 private:
  const KnownValue* get(const Node& n, size_t i) const {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    return lookup(n.inputs[i]);
  }

  void put(const std::string& name, KnownValue v) const {
    if (name.empty() || static_cast<int64_t>(v.values.size()) != count(v.dims)) return;
    if (v.values.size() > m_max) return;
    m_values[name] = std::move(v);
  }

  bool convertible(const Tensor& t) const {
    return t.numElements() >= 0 && static_cast<size_t>(t.numElements()) <= m_max && t.hasData() &&
           (isInteger(t.dtype) || isFloating(t.dtype) || t.dtype == DType::Bool);
  }

  void fromTensor(const std::string& name, const Tensor& t) const {
    if (!convertible(t)) return;
    KnownValue v{t.dtype, t.dims, t.toDouble()};
    if (t.dtype == DType::Bool && v.values.empty()) {
      for (char ch : t.raw()) v.values.push_back(ch != 0);
    }
    put(name, std::move(v));
  }

  void node(const Node& n) {
    if (!n.isDefaultDomain() || n.outputs.empty()) return;
    const std::string& op = n.opType;
    if (op == "Constant") return constant(n);
    if (op == "Shape") return shape(n);
    if (op == "Size") {
      const Shape* s = shapeOf(n.input(0));
      if (s && s->fullyKnown()) put(n.outputs[0], {DType::Int64, {}, {double(s->numElements())}});
      return;
    }
    static const std::unordered_map<std::string, std::function<double(double, double)>> binary = {
        {"Add", std::plus<double>()}, {"Sub", std::minus<double>()}, {"Mul", std::multiplies<double>()},
        {"Div", [](double a, double b) { return b == 0 ? NAN : a / b; }},
        {"Equal", [](double a, double b) { return double(a == b); }},
        {"Less", [](double a, double b) { return double(a < b); }},
        {"Greater", [](double a, double b) { return double(a > b); }},
        {"LessOrEqual", [](double a, double b) { return double(a <= b); }},
        {"GreaterOrEqual", [](double a, double b) { return double(a >= b); }},
        {"Max", [](double a, double b) { return std::max(a, b); }},
        {"Min", [](double a, double b) { return std::min(a, b); }},
        {"And", [](double a, double b) { return double(a != 0 && b != 0); }},
        {"Or", [](double a, double b) { return double(a != 0 || b != 0); }},
        {"Mod", [](double a, double b) { return b == 0 ? NAN : a - b * std::floor(a / b); }},
    };
    // Every other op reads its first input's value, the binary ones and these read all of theirs:
    // a node that cannot be evaluated converts none of its weights (most nodes of a model are not
    // shape arithmetic).
    static const std::unordered_set<std::string_view> readsAll = {"Where", "Gather", "Expand", "Concat", "Range"};
    const bool all = binary.count(op) != 0 || readsAll.count(op) != 0;
    for (size_t i = 0; i < n.inputs.size() && (i == 0 || all); ++i)
      if (!n.inputs[i].empty() && !holds(n.inputs[i])) return;
    if (op == "Identity") {
      if (auto* a = get(n, 0)) put(n.outputs[0], *a);
      return;
    }
    if (op == "Cast") return cast(n);
    if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" || op == "Flatten") return reshape(n);
    if (op == "Gather") return gather(n);
    if (op == "Concat") return concat(n);
    if (op == "Slice") return slice(n);
    if (op == "Transpose") return transpose(n);
    if (op == "ConstantOfShape") return constantOfShape(n);
    if (op == "Range") return range(n);
    if (op == "Where") return where(n);
    if (op == "Expand") return expand(n);
    if (op == "Mod" && n.attrInt("fmod", 0) != 0 && n.inputs.size() == 2)
      return elementwise2(n, [](double a, double b) { return b == 0 ? NAN : std::fmod(a, b); });
    if (auto it = binary.find(op); it != binary.end() && n.inputs.size() == 2) return elementwise2(n, it->second);
    static const std::unordered_map<std::string, std::function<double(double)>> unary = {
        {"Neg", std::negate<double>()}, {"Abs", [](double a) { return std::fabs(a); }},
        {"Floor", [](double a) { return std::floor(a); }}, {"Ceil", [](double a) { return std::ceil(a); }},
        {"Sqrt", [](double a) { return std::sqrt(a); }}, {"Not", [](double a) { return double(a == 0); }},
        {"Reciprocal", [](double a) { return 1.0 / a; }},
    };
    if (auto it = unary.find(op); it != unary.end()) {
      if (auto* a = get(n, 0)) {
        KnownValue v = *a;
        for (double& x : v.values) x = castTo(v.dtype, it->second(x));
        put(n.outputs[0], std::move(v));
      }
    }
  }

  void constant(const Node& n) {
    if (const Attribute* a = n.attr("value"); a && !a->tensors.empty()) return fromTensor(n.outputs[0], a->tensors[0]);
    if (const Attribute* a = n.attr("value_int")) return put(n.outputs[0], {DType::Int64, {}, {double(a->i)}});
    if (const Attribute* a = n.attr("value_float")) return put(n.outputs[0], {DType::Float, {}, {double(a->f)}});
    if (const Attribute* a = n.attr("value_ints")) {
      KnownValue v{DType::Int64, {int64_t(a->ints.size())}, {}};
      for (int64_t x : a->ints) v.values.push_back(double(x));
      return put(n.outputs[0], std::move(v));
    }
    if (const Attribute* a = n.attr("value_floats")) {
      KnownValue v{DType::Float, {int64_t(a->floats.size())}, {}};
      for (float x : a->floats) v.values.push_back(double(x));
      put(n.outputs[0], std::move(v));
    }
  }

  void shape(const Node& n) {
    const Shape* s = shapeOf(n.input(0));
    if (!s) return;
    const int64_t rank = static_cast<int64_t>(s->rank());
    int64_t start = n.attrInt("start", 0), end = n.attrInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    KnownValue v{DType::Int64, {end - start}, {}};
    for (int64_t i = start; i < end; ++i) {
      if (!s->dims[static_cast<size_t>(i)].known()) return;
      v.values.push_back(double(s->dims[static_cast<size_t>(i)].value));
    }
    put(n.outputs[0], std::move(v));
  }

  void cast(const Node& n) {
    auto* a = get(n, 0);
    if (!a) return;
    KnownValue v = *a;
    v.dtype = static_cast<DType>(n.attrInt("to", static_cast<int64_t>(DType::Float)));
    for (double& x : v.values) x = castTo(v.dtype, x);
    put(n.outputs[0], std::move(v));
  }

  // Values unchanged, dims from the inferred output shape or computed.
  void reshape(const Node& n) {
    auto* a = get(n, 0);
    if (!a) return;
    KnownValue v = *a;
    const Shape* s = m_shapes ? m_shapes(n.outputs[0]) : m_index->shape(n.outputs[0]);
    if (s && s->fullyKnown()) {
      v.dims = s->values();
    } else if (n.opType == "Unsqueeze") {
      Dims axes = n.attrInts("axes");
      if (auto* ax = get(n, 1)) for (double x : ax->values) axes.push_back(int64_t(x));
      else if (!n.input(1).empty()) return;  // axes given but unknown
      const int64_t r = static_cast<int64_t>(a->dims.size() + axes.size());
      for (int64_t& x : axes) if (x < 0) x += r;
      std::sort(axes.begin(), axes.end());
      for (int64_t x : axes) {
        if (x < 0 || x > static_cast<int64_t>(v.dims.size())) return;
        v.dims.insert(v.dims.begin() + x, 1);
      }
    } else if (n.opType == "Squeeze") {
      Dims axes = n.attrInts("axes");
      if (auto* ax = get(n, 1)) for (double x : ax->values) axes.push_back(int64_t(x));
      else if (!n.input(1).empty()) return;  // axes given but unknown
      const int64_t r = static_cast<int64_t>(a->dims.size());
      std::vector<bool> drop(a->dims.size(), axes.empty());
      for (int64_t x : axes) {
        if (x < 0) x += r;
        if (x < 0 || x >= r || a->dims[size_t(x)] != 1) return;
        drop[size_t(x)] = true;
      }
      Dims out;
      for (size_t i = 0; i < a->dims.size(); ++i)
        if (!drop[i] || a->dims[i] != 1) out.push_back(a->dims[i]);
      v.dims = out;
    } else if (n.opType == "Reshape") {
      auto* shp = get(n, 1);
      if (!shp) return;
      Dims out;
      int64_t known = 1, infer = -1;
      for (size_t i = 0; i < shp->values.size(); ++i) {
        int64_t d = int64_t(shp->values[i]);
        if (d == 0 && i < a->dims.size() && n.attrInt("allowzero", 0) == 0) d = a->dims[i];
        if (d == -1) infer = int64_t(i);
        else known *= d;
        out.push_back(d);
      }
      if (infer >= 0 && known > 0) out[size_t(infer)] = int64_t(a->values.size()) / known;
      v.dims = out;
    } else {
      return;
    }
    put(n.outputs[0], std::move(v));
  }

  void gather(const Node& n) {
    auto *data = get(n, 0), *ind = get(n, 1);
    if (!data || !ind || data->dims.empty()) return;
    int64_t axis = n.attrInt("axis", 0);
    const int64_t r = static_cast<int64_t>(data->dims.size());
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return;
    const int64_t outer = count(Dims(data->dims.begin(), data->dims.begin() + axis));
    const int64_t len = data->dims[size_t(axis)];
    const int64_t inner = count(Dims(data->dims.begin() + axis + 1, data->dims.end()));
    KnownValue v{data->dtype, {}, {}};
    v.dims.assign(data->dims.begin(), data->dims.begin() + axis);
    v.dims.insert(v.dims.end(), ind->dims.begin(), ind->dims.end());
    v.dims.insert(v.dims.end(), data->dims.begin() + axis + 1, data->dims.end());
    for (int64_t o = 0; o < outer; ++o)
      for (double idx : ind->values) {
        int64_t k = int64_t(idx);
        if (k < 0) k += len;
        if (k < 0 || k >= len) return;
        for (int64_t i = 0; i < inner; ++i) v.values.push_back(data->values[size_t((o * len + k) * inner + i)]);
      }
    put(n.outputs[0], std::move(v));
  }

  void concat(const Node& n) {
    std::vector<const KnownValue*> parts;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i].empty()) continue;
      auto* p = get(n, i);
      if (!p || p->dims.size() != 1) return;  // shape vectors only
      parts.push_back(p);
    }
    if (parts.empty()) return;
    KnownValue v{parts[0]->dtype, {0}, {}};
    for (auto* p : parts) v.values.insert(v.values.end(), p->values.begin(), p->values.end());
    v.dims[0] = int64_t(v.values.size());
    put(n.outputs[0], std::move(v));
  }

  // Slice over any axes of a small tensor, with ONNX's clamping rules.
  void slice(const Node& n) {
    auto* data = get(n, 0);
    if (!data || data->dims.empty()) return;
    Dims starts = n.attrInts("starts"), ends = n.attrInts("ends"), axes = n.attrInts("axes"), steps;
    auto ints = [&](size_t i, Dims& out) {
      if (auto* p = get(n, i)) {
        out.clear();
        for (double x : p->values) out.push_back(x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : int64_t(x));
        return true;
      }
      return i >= n.inputs.size() || n.inputs[i].empty();
    };
    if (!n.attr("starts") && (!ints(1, starts) || !ints(2, ends) || !ints(3, axes) || !ints(4, steps))) return;
    const int64_t rank = static_cast<int64_t>(data->dims.size());
    if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size()) return;
    Dims begin(data->dims.size(), 0), step(data->dims.size(), 1), len = data->dims;
    for (size_t k = 0; k < axes.size(); ++k) {
      int64_t ax = axes[k] < 0 ? axes[k] + rank : axes[k];
      if (ax < 0 || ax >= rank || steps[k] == 0) return;
      const int64_t dim = data->dims[size_t(ax)];
      auto clampIdx = [&](int64_t x, bool isEnd) {  // ONNX: [0, dim] forward; [0|-1, dim-1] backward
        if (x < 0) x = x == INT64_MIN ? -1 - dim : x + dim;
        if (steps[k] > 0) return std::clamp<int64_t>(x, 0, dim);
        return std::clamp<int64_t>(x, isEnd ? -1 : 0, dim - 1);
      };
      const int64_t s0 = clampIdx(starts[k], false), e0 = clampIdx(ends[k], true), st = steps[k];
      const int64_t cnt = st > 0 ? std::max<int64_t>(0, (e0 - s0 + st - 1) / st) : std::max<int64_t>(0, (s0 - e0 - st - 1) / -st);
      begin[size_t(ax)] = s0;
      step[size_t(ax)] = st;
      len[size_t(ax)] = cnt;
    }
    KnownValue v{data->dtype, len, {}};
    const int64_t total = count(len);
    Dims pos(len.size(), 0);
    for (int64_t k = 0; k < total; ++k) {
      size_t flat = 0;
      for (size_t i = 0; i < len.size(); ++i)
        flat = flat * size_t(data->dims[i]) + size_t(begin[i] + pos[i] * step[i]);
      v.values.push_back(data->values[flat]);
      for (size_t i = len.size(); i-- > 0;) {
        if (++pos[i] < len[i]) break;
        pos[i] = 0;
      }
    }
    put(n.outputs[0], std::move(v));
  }

  void transpose(const Node& n) {
    auto* data = get(n, 0);
    if (!data) return;
    const size_t r = data->dims.size();
    Dims perm = n.attrInts("perm");
    if (perm.empty()) for (size_t i = 0; i < r; ++i) perm.push_back(int64_t(r - 1 - i));
    if (perm.size() != r) return;
    Dims out(r), inStride(r, 1);
    for (size_t i = r; i-- > 1;) inStride[i - 1] = inStride[i] * data->dims[i];
    for (size_t i = 0; i < r; ++i) {
      if (perm[i] < 0 || perm[i] >= int64_t(r)) return;
      out[i] = data->dims[size_t(perm[i])];
    }
    KnownValue v{data->dtype, out, {}};
    Dims pos(r, 0);
    for (int64_t k = 0; k < count(out); ++k) {
      size_t flat = 0;
      for (size_t i = 0; i < r; ++i) flat += size_t(pos[i] * inStride[size_t(perm[i])]);
      v.values.push_back(data->values[flat]);
      for (size_t i = r; i-- > 0;) {
        if (++pos[i] < out[i]) break;
        pos[i] = 0;
      }
    }
    put(n.outputs[0], std::move(v));
  }

  void constantOfShape(const Node& n) {
    auto* shp = get(n, 0);
    if (!shp) return;
    KnownValue v{DType::Float, {}, {}};
    for (double x : shp->values) v.dims.push_back(int64_t(x));
    if (count(v.dims) < 0 || static_cast<size_t>(count(v.dims)) > m_max) return;
    double fill = 0;
    if (const Attribute* a = n.attr("value"); a && !a->tensors.empty()) {
      v.dtype = a->tensors[0].dtype;
      auto d = a->tensors[0].toDouble();
      if (!d.empty()) fill = d[0];
    }
    v.values.assign(static_cast<size_t>(count(v.dims)), fill);
    put(n.outputs[0], std::move(v));
  }

  void range(const Node& n) {
    auto *s = get(n, 0), *l = get(n, 1), *d = get(n, 2);
    if (!s || !l || !d || s->values.size() != 1 || l->values.size() != 1 || d->values.size() != 1) return;
    const double delta = d->values[0];
    if (delta == 0) return;
    const double steps = std::max(0.0, std::ceil((l->values[0] - s->values[0]) / delta));
    if (steps > double(m_max)) return;
    KnownValue v{s->dtype, {int64_t(steps)}, {}};
    for (int64_t i = 0; i < int64_t(steps); ++i) v.values.push_back(s->values[0] + double(i) * delta);
    put(n.outputs[0], std::move(v));
  }

  void elementwise2(const Node& n, const std::function<double(double, double)>& f) {
    auto *a = get(n, 0), *b = get(n, 1);
    if (!a || !b) return;
    auto out = broadcastDims(a->dims, b->dims);
    if (!out || count(*out) < 0 || static_cast<size_t>(count(*out)) > m_max) return;
    const bool compare = n.opType == "Equal" || n.opType == "Less" || n.opType == "Greater" ||
                         n.opType == "LessOrEqual" || n.opType == "GreaterOrEqual" || n.opType == "And" ||
                         n.opType == "Or";
    KnownValue v{compare ? DType::Bool : a->dtype, *out, {}};
    auto ia = broadcastIndex(a->dims, *out), ib = broadcastIndex(b->dims, *out);
    for (size_t k = 0; k < ia.size(); ++k) {
      double x = f(a->values[ia[k]], b->values[ib[k]]);
      if (std::isnan(x)) return;
      v.values.push_back(castTo(v.dtype, x));
    }
    put(n.outputs[0], std::move(v));
  }

  void where(const Node& n) {
    auto *c = get(n, 0), *x = get(n, 1), *y = get(n, 2);
    if (!c || !x || !y) return;
    auto out = broadcastDims(c->dims, x->dims);
    if (out) out = broadcastDims(*out, y->dims);
    if (!out || count(*out) < 0 || static_cast<size_t>(count(*out)) > m_max) return;
    auto ic = broadcastIndex(c->dims, *out), ix = broadcastIndex(x->dims, *out), iy = broadcastIndex(y->dims, *out);
    KnownValue v{x->dtype, *out, {}};
    for (size_t k = 0; k < ic.size(); ++k) v.values.push_back(c->values[ic[k]] != 0 ? x->values[ix[k]] : y->values[iy[k]]);
    put(n.outputs[0], std::move(v));
  }

  void expand(const Node& n) {
    auto *a = get(n, 0), *shp = get(n, 1);
    if (!a || !shp) return;
    Dims target;
    for (double x : shp->values) target.push_back(int64_t(x));
    auto out = broadcastDims(a->dims, target);
    if (!out || count(*out) < 0 || static_cast<size_t>(count(*out)) > m_max) return;
    KnownValue v{a->dtype, *out, {}};
    for (size_t k : broadcastIndex(a->dims, *out)) v.values.push_back(a->values[k]);
    put(n.outputs[0], std::move(v));
  }

  const Graph& m_graph;
  std::unique_ptr<GraphIndex> m_index;  // graph mode
  size_t m_max;
  const Evaluator* m_outer = nullptr;
  ShapeEvaluator::ShapeOf m_shapes;  // node-by-node mode
  // Known values, and the initializers not read yet (node-by-node mode): lookups fill them in.
  mutable Values m_values;
  mutable std::unordered_map<std::string_view, const Tensor*> m_unread;
};

ShapeEvaluator::ShapeEvaluator(const Graph& g, size_t maxElements, ShapeOf shapes)
    : m_impl(std::make_unique<Evaluator>(g, maxElements, std::move(shapes))) {
  m_impl->seed();
}
ShapeEvaluator::~ShapeEvaluator() = default;

const KnownValue* ShapeEvaluator::evaluate(const Node& n) {
  if (n.outputs.empty() || n.outputs[0].empty()) return nullptr;
  m_impl->evaluate(n);
  return m_impl->lookup(n.outputs[0]);
}

const KnownValue* ShapeEvaluator::value(std::string_view name) const { return m_impl->lookup(name); }
bool ShapeEvaluator::holds(std::string_view name) const { return m_impl->holds(name); }

std::optional<Tensor> knownValueTensor(const std::string& name, const KnownValue& v) { return toTensor(name, v); }

std::unordered_map<std::string, KnownValue> evaluateShapeValues(const Graph& g, size_t maxElements) {
  Evaluator e(g, maxElements);
  std::unordered_map<std::string, KnownValue> out;
  for (auto& [name, v] : e.run()) out.emplace(std::string(name), v);
  return out;
}

namespace {

template <typename T>
Tensor typed(const std::string& name, const KnownValue& v) {
  std::vector<T> out;
  out.reserve(v.values.size());
  for (double x : v.values) out.push_back(static_cast<T>(x));
  return Tensor::fromValues(name, v.dtype, v.dims, out);
}

std::optional<Tensor> toTensor(const std::string& name, const KnownValue& v) {
  switch (v.dtype) {
    case DType::Int64: return typed<int64_t>(name, v);
    case DType::Int32: return typed<int32_t>(name, v);
    case DType::Int16: return typed<int16_t>(name, v);
    case DType::Int8: return typed<int8_t>(name, v);
    case DType::UInt8: return typed<uint8_t>(name, v);
    case DType::Bool: return typed<uint8_t>(name, v);
    case DType::Float: return typed<float>(name, v);
    case DType::Double: return typed<double>(name, v);
    default: return std::nullopt;
  }
}

}  // namespace

namespace {

bool fullyKnown(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return false;
  for (const auto& d : t.tensor_type().shape().dim())
    if (!d.has_dim_value()) return false;
  return true;
}

// An If whose condition is known takes one branch: its outputs have that branch's types, even
// when the other branch would give another rank (which stops ONNX's inference of the If).
size_t typeIfFromTakenBranch(onnx::GraphProto& proto, const onnx::NodeProto& np, const KnownValue* cond) {
  if (!cond || cond->values.size() != 1) return 0;
  const char* taken = cond->values[0] != 0 ? "then_branch" : "else_branch";
  const onnx::GraphProto* branch = nullptr;
  for (const auto& a : np.attribute())
    if (a.name() == taken && a.has_g()) branch = &a.g();
  if (!branch) return 0;
  size_t changed = 0;
  for (int k = 0; k < np.output_size() && k < branch->output_size(); ++k) {
    const onnx::TypeProto* tp = &branch->output(k).type();
    if (!fullyKnown(*tp))  // the value's inferred type inside the branch
      for (const auto& v : branch->value_info())
        if (v.name() == branch->output(k).name() && fullyKnown(v.type())) tp = &v.type();
    const onnx::TypeProto& t = *tp;
    if (np.output(k).empty() || !fullyKnown(t)) continue;
    onnx::ValueInfoProto* vi = nullptr;
    for (auto& v : *proto.mutable_value_info())
      if (v.name() == np.output(k)) vi = &v;
    if (vi && fullyKnown(vi->type())) continue;
    if (!vi) {
      vi = proto.add_value_info();
      vi->set_name(np.output(k));
    }
    *vi->mutable_type() = t;
    ++changed;
  }
  return changed;
}

size_t foldGraph(onnx::GraphProto& proto, const Graph& g, size_t maxElements, const Evaluator* outer,
                 std::vector<std::string>* replacedValues) {
  Evaluator ev(g, maxElements, outer);
  const auto& values = ev.run();
  size_t replaced = 0;
  for (size_t i = 0; i < g.nodes.size() && i < static_cast<size_t>(proto.node_size()); ++i) {
    const Node& n = g.nodes[i];
    onnx::NodeProto& np = *proto.mutable_node(static_cast<int>(i));
    if (n.hasSubgraphs()) {
      // Subgraphs sit at the same attribute positions in the proto and in the IR.
      for (int a = 0; a < np.attribute_size() && a < static_cast<int>(n.attributes.size()); ++a) {
        onnx::AttributeProto& ap = *np.mutable_attribute(a);
        const auto& graphs = n.attributes[static_cast<size_t>(a)].graphs;
        if (ap.has_g() && !graphs.empty()) replaced += foldGraph(*ap.mutable_g(), graphs[0], maxElements, &ev, nullptr);
        for (int k = 0; k < ap.graphs_size() && k < static_cast<int>(graphs.size()); ++k)
          replaced += foldGraph(*ap.mutable_graphs(k), graphs[static_cast<size_t>(k)], maxElements, &ev, nullptr);
      }
      if (n.is("If")) replaced += typeIfFromTakenBranch(proto, np, ev.lookup(n.input(0)));
      if (replacedValues && replaced) replacedValues->push_back({});  // something inside: no detail
      continue;
    }
    if (np.op_type() == "Constant" || n.outputs.size() != 1) continue;
    auto it = values.find(n.outputs[0]);
    if (it == values.end()) continue;
    auto t = toTensor(n.outputs[0], it->second);
    if (!t) continue;
    onnx::NodeProto c;
    c.set_name(np.name());
    c.set_op_type("Constant");
    c.add_output(n.outputs[0]);
    onnx::AttributeProto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    toProto(*t, *a->mutable_t());
    np = std::move(c);
    ++replaced;
    if (replacedValues) replacedValues->push_back(n.outputs[0]);
  }
  return replaced;
}

}  // namespace

size_t foldKnownValues(onnx::GraphProto& proto, const Graph& g, size_t maxElements, std::vector<std::string>* replaced) {
  return foldGraph(proto, g, maxElements, nullptr, replaced);
}

}  // namespace msa
