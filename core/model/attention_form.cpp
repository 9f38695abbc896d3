#include "model/attention_form.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "model/graph_patterns.h"

namespace msa {
namespace {

// A hidden score must vanish in float32's softmax whether it is replaced by the fill or has the
// fill added: exp underflows to 0 about 104 below the row's maximum.
constexpr double kHidingFill = -1e4;

using Dims = std::vector<int64_t>;

bool hides(double fill) { return fill <= kHidingFill; }  // -inf too; NaN never

const Node& nodeAt(const GraphIndex& idx, size_t i) { return idx.graph().nodes[i]; }

std::optional<Dims> staticDims(const GraphIndex& idx, std::string_view v) {
  const Shape* s = idx.shape(v);
  if (!s || !s->fullyKnown()) return std::nullopt;
  return s->values();
}

int64_t count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

struct Declined {
  std::string why;
};

// One projection: [Add(bias) ∘] MatMul(x, W) with W constant (or a Transpose of one).
struct Projection {
  std::string value;  // its output
  size_t matmul = 0;
  long add = -1;
  std::string x;
  AttentionProjection p;
  int64_t inputs = 0, outputs = 0;  // Cin, N
};

std::optional<Projection> projectionOf(const GraphIndex& idx, const std::string& value) {
  const long prod = idx.producer(value);
  if (prod < 0) return std::nullopt;
  Projection pr;
  pr.value = value;
  const Node* n = &nodeAt(idx, static_cast<size_t>(prod));
  std::string mmOut = value;
  if (n->is("Add") && n->inputs.size() == 2) {
    for (int side = 0; side < 2; ++side) {
      const Node* mm = idx.producerNode(n->inputs[static_cast<size_t>(side)]);
      const Tensor* b = idx.constant(n->inputs[static_cast<size_t>(1 - side)]);
      if (mm && mm->is("MatMul") && b) {
        pr.add = prod;
        pr.p.bias = n->inputs[static_cast<size_t>(1 - side)];
        mmOut = n->inputs[static_cast<size_t>(side)];
      }
    }
    if (pr.add < 0) return std::nullopt;
  }
  const long mmIdx = idx.producer(mmOut);
  if (mmIdx < 0 || !nodeAt(idx, static_cast<size_t>(mmIdx)).is("MatMul")) return std::nullopt;
  const Node& mm = nodeAt(idx, static_cast<size_t>(mmIdx));
  pr.matmul = static_cast<size_t>(mmIdx);
  pr.x = mm.inputs[0];
  const Tensor* w = idx.constant(mm.inputs[1]);
  if (w) {
    pr.p.weight = mm.inputs[1];
  } else if (const Node* t = idx.producerNode(mm.inputs[1]); t && t->is("Transpose") && (w = idx.constant(t->inputs[0]))) {
    auto perm = t->attrInts("perm");
    if (w->dims.size() != 2 || !(perm.empty() || perm == Dims{1, 0})) return std::nullopt;
    pr.p.weight = t->inputs[0];
    pr.p.weightTransposed = true;
  } else {
    return std::nullopt;
  }
  if (w->dims.size() != 2 || w->dtype != DType::Float) return std::nullopt;
  pr.inputs = w->dims[pr.p.weightTransposed ? 1 : 0];
  pr.outputs = w->dims[pr.p.weightTransposed ? 0 : 1];
  if (!pr.p.bias.empty()) {
    const Tensor* b = idx.constant(pr.p.bias);
    if (b->dtype != DType::Float || b->numElements() != pr.outputs || (!b->dims.empty() && b->dims.back() != pr.outputs))
      return std::nullopt;
    // The bias may not broadcast the product up to a higher rank.
    const Shape* y = idx.shape(mmOut);
    if (!y || y->rank() < b->dims.size()) return std::nullopt;
  }
  return pr;
}

// The map of a mask condition over its source, through movement operators, same-type Casts and
// Nots (which flip which value hides).
struct CondChain {
  std::string source;
  std::vector<size_t> nodes;
  bool flipped = false;
};
CondChain condChain(const GraphIndex& idx, const std::string& value) {
  CondChain c;
  std::string v = value;
  for (int k = 0; k < 16; ++k) {
    const long p = idx.producer(v);
    if (p < 0) break;
    const Node& n = nodeAt(idx, static_cast<size_t>(p));
    const bool sameCast = n.is("Cast") && idx.dtype(n.inputs[0]) == idx.dtype(n.outputs[0]) &&
                          idx.dtype(n.inputs[0]) != DType::Undefined;
    if (n.is("Not")) c.flipped = !c.flipped;
    else if (!sameCast && !isDataMovement(n)) break;
    c.nodes.push_back(static_cast<size_t>(p));
    v = n.inputs[0];
  }
  std::reverse(c.nodes.begin(), c.nodes.end());
  c.source = v;
  return c;
}

class Analyzer {
 public:
  Analyzer(const KnownOperands& known, int64_t opset, size_t maxElements)
      : m_idx(known.index()), m_known(known), m_opset(opset), m_max(maxElements) {}

  AttentionForm run(size_t softmax) {
    const Node& sm = nodeAt(m_idx, softmax);
    if (!sm.is("Softmax") || sm.outputs.size() != 1) throw Declined{"not a Softmax"};
    if (m_idx.dtype(sm.inputs[0]) != DType::Float) throw Declined{"type: only float32 (the CPU kernel's type)"};
    auto scores = staticDims(m_idx, sm.inputs[0]);
    if (!scores || (scores->size() != 3 && scores->size() != 4)) throw Declined{"shape: scores not a static 3-D or 4-D tensor"};
    const int64_t rank = static_cast<int64_t>(scores->size());
    // Before opset 13 Softmax flattens from its axis (default 1): over the keys only as the last axis.
    if (int64_t axis = sm.attrInt("axis", m_opset < 13 ? 1 : -1); axis != -1 && axis != rank - 1)
      throw Declined{"softmax: not over the keys"};
    const long pv = soleConsumer(m_idx, sm.outputs[0], "MatMul");
    if (pv < 0 || nodeAt(m_idx, static_cast<size_t>(pv)).inputs[0] != sm.outputs[0])
      throw Declined{"structure: the probabilities do not feed one MatMul with V"};
    m_members = {softmax, static_cast<size_t>(pv)};
    const size_t scoresMm = walkScores(sm.inputs[0]);
    m_members.push_back(scoresMm);
    const Node& qk = nodeAt(m_idx, scoresMm);

    // Q, Kᵀ and V back to their projections, through head splits and scales.
    MovementChain qc = movementChainTo(m_known, qk.inputs[0], true), kc = movementChainTo(m_known, qk.inputs[1], true);
    MovementChain vc = movementChainTo(m_known, nodeAt(m_idx, static_cast<size_t>(pv)).inputs[1], false);
    for (const MovementChain* c : {&qc, &kc})
      for (size_t i : c->nodes)
        if (auto f = scalarFactor(m_known, nodeAt(m_idx, i))) m_scale *= f->factor;
    std::vector<Projection> projections;
    auto projection = [&](const std::string& src) -> const Projection& {
      for (const auto& p : projections)
        if (p.value == src) return p;
      auto p = projectionOf(m_idx, src);
      if (!p) throw Declined{"projection: Q, K and V are not MatMuls of one input by constant weights (plus a constant bias)"};
      projections.push_back(std::move(*p));
      return projections.back();
    };
    projection(qc.source);
    projection(kc.source);
    projection(vc.source);
    for (const auto& p : projections)
      if (p.x != projections[0].x) throw Declined{"projection: not self-attention (Q, K and V read different inputs)"};
    // Only MatMul, scale and movement nodes between a projection and the scores.
    for (const MovementChain* c : {&qc, &kc, &vc}) m_members.insert(m_members.end(), c->nodes.begin(), c->nodes.end());
    for (const auto& p : projections) {
      m_members.push_back(p.matmul);
      if (p.add >= 0) m_members.push_back(static_cast<size_t>(p.add));
    }

    auto qDims = staticDims(m_idx, qk.inputs[0]), kDims = staticDims(m_idx, qk.inputs[1]);
    auto vDims = staticDims(m_idx, nodeAt(m_idx, static_cast<size_t>(pv)).inputs[1]);
    if (!qDims || !kDims || !vDims || qDims->size() != scores->size() || kDims->size() != scores->size() ||
        vDims->size() != scores->size())
      throw Declined{"shape: Q, Kᵀ or V not static with the scores' rank"};
    const int64_t d = qDims->back(), S = (*qDims)[qDims->size() - 2];
    if ((*kDims)[kDims->size() - 2] != d || kDims->back() != S || (*vDims)[vDims->size() - 2] != S || vDims->back() != d ||
        (*scores)[scores->size() - 2] != S || scores->back() != S)
      throw Declined{"shape: queries, keys and values do not share one sequence and head size"};

    // The input the Attention reads: what the projections read, or where its rows came from.
    const std::string& xin = projections[0].x;
    MovementChain xc = movementChainTo(m_known, xin, false);
    std::vector<std::string> candidates;
    if (xc.source != xin) candidates.push_back(xc.source);
    candidates.push_back(xin);
    std::string lastWhy;
    const auto members = m_members;
    for (const auto& cand : candidates) {
      try {
        m_members = members;
        return finish(softmax, cand, cand == xin ? MovementChain{xin, xin, {}} : xc, qc, kc, vc, projections, *scores, d, S,
                      static_cast<size_t>(pv));
      } catch (const Declined& e) {
        lastWhy = e.why;
      }
    }
    throw Declined{lastWhy};
  }

 private:
  // Softmax input back to MatMul(Q, Kᵀ): scalar scales, Where masks and additive masks.
  size_t walkScores(std::string v) {
    double after = 1;  // scale applied after the step being looked at
    for (int step = 0; step < 8; ++step) {
      const long p = m_idx.producer(v);
      if (p < 0) throw Declined{"structure: the scores do not come from a MatMul"};
      const Node& n = nodeAt(m_idx, static_cast<size_t>(p));
      if (n.is("MatMul")) return static_cast<size_t>(p);
      m_members.push_back(static_cast<size_t>(p));
      if (auto f = scalarFactor(m_known, n)) {
        m_scale *= f->factor;
        after *= f->factor;
        v = f->data;
        continue;
      }
      if (n.is("Add") && n.inputs.size() == 2) {
        const int side = scoresSide(n, {0, 1});
        addMask(n.inputs[static_cast<size_t>(1 - side)], after);
        v = n.inputs[static_cast<size_t>(side)];
        continue;
      }
      if (n.is("Where") && n.inputs.size() == 3) {
        const int side = scoresSide(n, {1, 2});
        auto fill = uniform(n.inputs[static_cast<size_t>(side == 1 ? 2 : 1)]);
        if (!fill) throw Declined{"mask: the Where fill is not one constant value"};
        whereMask(n.inputs[0], side == 2, *fill * after);
        v = n.inputs[static_cast<size_t>(side)];
        continue;
      }
      throw Declined{"structure: '" + n.opType + "' between the scores and the Softmax"};
    }
    throw Declined{"structure: too many steps between the scores and the Softmax"};
  }

  // Which operand (of `sides`) carries the scores: the one that reaches a MatMul through the
  // steps walkScores accepts.
  int scoresSide(const Node& n, std::initializer_list<int> sides) {
    std::function<bool(std::string_view, int)> reaches = [&](std::string_view x, int depth) {
      const Node* a = m_idx.producerNode(x);
      if (!a) return false;
      if (a->is("MatMul")) return true;
      if (depth == 0 || !(a->is("Mul") || a->is("Div") || a->is("Add") || a->is("Where"))) return false;
      return std::any_of(a->inputs.begin(), a->inputs.end(), [&](const std::string& in) { return reaches(in, depth - 1); });
    };
    int found = -1;
    for (int s : sides)
      if (reaches(n.inputs[static_cast<size_t>(s)], 6)) {
        if (found >= 0) throw Declined{"mask: both operands of '" + n.name + "' come from a MatMul"};
        found = s;
      }
    if (found < 0) throw Declined{"structure: no scores operand at '" + n.name + "'"};
    return found;
  }

  // A constant whose elements are all one value (torch writes zeros_like(mask) as a full tensor):
  // broadcasting it only replicates that value.
  std::optional<double> uniform(const std::string& v) const {
    auto x = m_known.values(v);
    if (!x || x->empty()) return std::nullopt;
    for (double e : *x)
      if (!(e == x->front())) return std::nullopt;
    return x->front();
  }

  // A Where(cond, fill, scores) (masksWhen = true) or Where(cond, scores, fill) mask.
  void whereMask(const std::string& cond, bool masksWhen, double fill) {
    if (!hides(fill)) throw Declined{"mask: the fill does not hide a score (above -1e4)"};
    m_where.push_back({cond, masksWhen, fill});
  }

  void addMask(const std::string& m, double after) {
    // Where(cond, fill, 0) — or its 0/fill mirror — possibly ·1: a boolean mask written additively.
    std::string v = m;
    for (int k = 0; k < 4; ++k) {
      const Node* p = m_idx.producerNode(v);
      if (!p) break;
      if (auto f = scalarFactor(m_known, *p); f && f->factor == 1.0) {
        v = f->data;
        continue;
      }
      if (p->is("Where") && p->inputs.size() == 3) {
        auto a = uniform(p->inputs[1]), b = uniform(p->inputs[2]);
        // Hidden by -inf: a key-padding mask (mask_index). A finite fill stays additive
        // (attention_bias): score + fill as in the graph, even in a row whose keys are all hidden.
        if (a && b && (*a == 0) != (*b == 0)) {
          const double fill = (*a == 0 ? *b : *a) * after;
          if (std::isinf(fill) && fill < 0) {
            m_where.push_back({p->inputs[0], *a != 0, fill});
            return;
          }
        }
      }
      break;
    }
    if (auto c = m_known.values(m); c && causalConstant(*m_known.dims(m), *c, after)) return;
    if (!m_additive.empty()) throw Declined{"mask: more than one additive mask"};
    if (m_idx.dtype(m) != DType::Float) throw Declined{"mask: the additive mask is not float32"};
    m_additive = m;
    m_additiveScale = after;
  }

  // A constant additive mask of 0 on and below the diagonal and a hiding fill above it.
  bool causalConstant(const Dims& dims, const std::vector<double>& v, double after) {
    if (dims.size() < 2) return false;
    for (size_t i = 0; i + 2 < dims.size(); ++i)
      if (dims[i] != 1) return false;
    const int64_t rows = dims[dims.size() - 2], cols = dims.back();
    if (rows != cols || rows < 2 || static_cast<int64_t>(v.size()) != rows * cols) return false;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const double x = v[static_cast<size_t>(i * cols + j)] * after;
        if (j <= i ? x != 0 : !hides(x)) return false;
      }
    m_causalRows = rows;
    return true;
  }

  // A condition known before the run (a constant causal mask, or one computed from a buffer).
  std::optional<std::vector<double>> conditionValues(const std::string& cond) const {
    if (m_idx.dtype(cond) != DType::Bool && m_idx.dtype(cond) != DType::Undefined) return std::nullopt;
    if (const Tensor* t = m_idx.constant(cond); t && t->dtype == DType::Bool) {
      std::vector<double> v;
      for (char ch : t->raw()) v.push_back(ch != 0);
      return v;
    }
    return m_known.values(cond);
  }

  // The conditions of the Where masks, now that the batch and sequence are known.
  void resolveWhereMasks(AttentionForm& f, const Dims& scores) {
    for (const auto& w : m_where) {
      if (auto c = conditionValues(w.cond)) {
        const Dims dims = *m_known.dims(w.cond);
        if (dims.size() < 2) throw Declined{"mask: a constant condition that is not [queries, keys]"};
        for (size_t i = 0; i + 2 < dims.size(); ++i)
          if (dims[i] != 1) throw Declined{"mask: a constant condition that differs per batch or head"};
        const int64_t rows = dims[dims.size() - 2], cols = dims.back();
        if (rows != f.sequence || cols != f.sequence || static_cast<int64_t>(c->size()) != rows * cols)
          throw Declined{"mask: a constant condition not [queries, keys]"};
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            if ((((*c)[static_cast<size_t>(i * cols + j)] != 0) == w.masksWhen) != (j > i))
              throw Declined{"mask: a constant condition that is not causal"};
        f.causal = true;
        continue;
      }
      if (!f.padding.empty()) throw Declined{"mask: more than one padding mask"};
      CondChain cc = condChain(m_idx, w.cond);
      auto src = staticDims(m_idx, cc.source);
      if (!src || src->size() != 2 || (*src)[0] != f.batch || (*src)[1] != f.sequence || m_idx.dtype(cc.source) != DType::Bool)
        throw Declined{"mask: the condition is not a boolean [batch, keys] value broadcast over heads and queries"};
      auto m = iotaMap(*src, m_max);
      for (size_t i : cc.nodes) {
        if (!m) break;
        const Node& n = nodeAt(m_idx, i);
        if (isDataMovement(n)) m = applyMovement(n, 0, std::move(*m), m_known);
      }
      if (m) m = broadcastMap(*m, scores);
      if (!m) throw Declined{"mask: the condition's layout is not known"};
      // Element (b, h, i, j) — or (b·H + h, i, j) — of the scores reads key j of batch b.
      const int64_t H = f.heads, S = f.sequence;
      size_t e = 0;
      for (int64_t b = 0; b < f.batch; ++b)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < S; ++i)
            for (int64_t j = 0; j < S; ++j, ++e)
              if (m->from[e] != b * S + j) throw Declined{"mask: the condition is not a key-padding mask"};
      f.padding = cc.source;
      f.paddingMasks = w.masksWhen != cc.flipped;
      f.maskFill = w.fill;
    }
    if (m_causalRows > 0) {
      if (m_causalRows != f.sequence) throw Declined{"mask: the causal mask is not [queries, keys]"};
      f.causal = true;
    }
  }

  void resolveAdditive(AttentionForm& f, const Dims& scores) {
    if (m_additive.empty()) return;
    auto m = staticDims(m_idx, m_additive);
    if (!m || m->size() > scores.size()) throw Declined{"mask: the additive mask's shape is not static"};
    Dims padded(scores.size() - m->size(), 1);
    padded.insert(padded.end(), m->begin(), m->end());
    const int64_t S = f.sequence;
    if (padded.back() != S || (padded[padded.size() - 2] != 1 && padded[padded.size() - 2] != S))
      throw Declined{"mask: the additive mask is not [.., queries|1, keys]"};
    int64_t mb = 0, mh = 0;
    if (scores.size() == 4) {
      mb = padded[0];
      mh = padded[1];
      if ((mb != 1 && mb != f.batch) || (mh != 1 && mh != f.heads)) throw Declined{"mask: the additive mask's batch or heads"};
    } else {
      if (padded[0] == 1) mb = mh = 1;
      else if (padded[0] == f.batch * f.heads) mb = f.batch, mh = f.heads;
      else throw Declined{"mask: the additive mask's batch or heads"};
    }
    f.additive = m_additive;
    f.additiveView = {mb, mh, padded[padded.size() - 2], S};
    f.additiveDims = {mb, mh, S, S};
    f.additiveScale = m_additiveScale;
  }

  // The row of each projection output row in the Attention input [B, S, Cin]: the movement chain
  // from `x0` to what the projections read must move whole rows.
  std::vector<int64_t> rowsOf(const std::string& x0, const MovementChain& chain, int64_t cin, int64_t tokens) {
    auto map = chain.nodes.empty() ? iotaMap(*staticDims(m_idx, x0), m_max) : mapAlong(m_known, chain, m_max);
    if (!map || map->dims.empty() || map->dims.back() != cin || static_cast<int64_t>(map->from.size()) != tokens * cin)
      throw Declined{"input: the projections' rows are not the input's tokens"};
    std::vector<int64_t> rows(static_cast<size_t>(tokens));
    std::vector<bool> seen(static_cast<size_t>(tokens), false);
    for (int64_t r = 0; r < tokens; ++r) {
      const int64_t base = map->from[static_cast<size_t>(r * cin)];
      if (base % cin != 0) throw Declined{"input: the projections' rows are not the input's tokens"};
      for (int64_t c = 1; c < cin; ++c)
        if (map->from[static_cast<size_t>(r * cin + c)] != base + c) throw Declined{"input: the projections' rows are not whole tokens"};
      const int64_t t = base / cin;
      if (seen[static_cast<size_t>(t)]) throw Declined{"input: a token read twice"};
      seen[static_cast<size_t>(t)] = true;
      rows[static_cast<size_t>(r)] = t;
    }
    return rows;
  }

  // Columns of the projection feeding Q (or Kᵀ when `keys`, V) per Attention column h·d+k, from
  // the map of that operand over the projection's output.
  std::vector<int64_t> columnsOf(const MovementChain& chain, const Projection& p, const std::vector<int64_t>& rows,
                                 int64_t B, int64_t H, int64_t S, int64_t d, bool keys, const char* what) {
    auto map = mapAlong(m_known, chain, m_max);
    const int64_t N = p.outputs;
    if (!map || static_cast<int64_t>(map->from.size()) != B * H * S * d)
      throw Declined{std::string("layout: ") + what + "'s heads are not known"};
    std::vector<int64_t> cols(static_cast<size_t>(H * d), -1);
    size_t e = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t x = 0; x < (keys ? d : S); ++x)
          for (int64_t y = 0; y < (keys ? S : d); ++y, ++e) {
            const int64_t s = keys ? y : x, k = keys ? x : y;
            const int64_t from = map->from[e], row = from / N, col = from % N;
            if (rows[static_cast<size_t>(row)] != b * S + s) throw Declined{std::string("layout: ") + what + " mixes tokens"};
            int64_t& c = cols[static_cast<size_t>(h * d + k)];
            if (c < 0) c = col;
            else if (c != col) throw Declined{std::string("layout: ") + what + "'s head columns differ per token"};
          }
    return cols;
  }

  AttentionForm finish(size_t softmax, const std::string& x0, const MovementChain& xc, const MovementChain& qc,
                       const MovementChain& kc, const MovementChain& vc, const std::vector<Projection>& projections,
                       const Dims& scores, int64_t d, int64_t S, size_t pv) {
    auto xd = staticDims(m_idx, x0);
    const int64_t cin = projections[0].inputs;
    if (!xd || xd->size() != 3 || xd->back() != cin || m_idx.dtype(x0) != DType::Float)
      throw Declined{"input: not a static float [batch, sequence, hidden] value"};
    AttentionForm f;
    f.input = x0;
    f.batch = (*xd)[0];
    f.sequence = (*xd)[1];
    f.inputHidden = cin;
    if (f.sequence != S) throw Declined{"input: its sequence is not the attention's"};
    const int64_t tokens = f.batch * S;
    if (count(scores) % (tokens * S) != 0) throw Declined{"shape: heads do not divide the scores"};
    f.heads = count(scores) / (tokens * S);
    f.headSize = d;
    const std::vector<int64_t> rows = rowsOf(x0, xc, cin, tokens);
    auto proj = [&](const std::string& v) -> const Projection& {
      return *std::find_if(projections.begin(), projections.end(), [&](const Projection& p) { return p.value == v; });
    };
    for (const Projection& p : projections)
      if (count(*staticDims(m_idx, p.value)) != tokens * p.outputs) throw Declined{"shape: a projection is not one row per token"};
    f.q = proj(qc.source).p;
    f.k = proj(kc.source).p;
    f.v = proj(vc.source).p;
    f.q.columns = columnsOf(qc, proj(qc.source), rows, f.batch, f.heads, S, d, false, "Q");
    f.k.columns = columnsOf(kc, proj(kc.source), rows, f.batch, f.heads, S, d, true, "K");
    f.v.columns = columnsOf(vc, proj(vc.source), rows, f.batch, f.heads, S, d, false, "V");
    f.scale = m_scale;
    resolveWhereMasks(f, scores);
    resolveAdditive(f, scores);
    // A query whose keys are all hidden: the graph's softmax gives NaN (-inf everywhere) or a
    // uniform row (one finite fill everywhere); the kernel adds its masks, and its causal one is
    // -10000 whatever mask_filter_value says. Exact only where no such row can differ: padding
    // hidden by -inf (NaN in both) and no other mask beside a causal one.
    if (f.causal && (!f.padding.empty() || !f.additive.empty()))
      throw Declined{"mask: causal together with a padding or additive mask (a fully hidden row differs: the kernel's causal mask adds -10000)"};
    if (!f.padding.empty() && !(std::isinf(f.maskFill) && f.maskFill < 0))
      throw Declined{"mask: a padding fill other than -inf (a fully hidden row would differ)"};
    resolveOutput(f, pv);
    std::sort(m_members.begin(), m_members.end());
    m_members.erase(std::unique(m_members.begin(), m_members.end()), m_members.end());
    f.members = m_members;
    blockers(f);
    (void)softmax;
    return f;
  }

  // The merged heads: the furthest value along the movement chain after MatMul(P, V) whose
  // elements are the Attention output's, as [B, S, C] or [S, B, C].
  void resolveOutput(AttentionForm& f, size_t pv) {
    const int64_t B = f.batch, H = f.heads, S = f.sequence, d = f.headSize, C = H * d;
    std::string v = nodeAt(m_idx, pv).outputs[0];
    auto dims = staticDims(m_idx, v);
    auto map = dims ? iotaMap(*dims, m_max) : std::nullopt;
    if (!map) throw Declined{"output: not static"};
    std::vector<int32_t> layout[2];  // element (b, s, h·d+k) of each layout, as an index into the context
    for (int seqFirst = 0; seqFirst < 2; ++seqFirst) {
      layout[seqFirst].resize(static_cast<size_t>(B * S * C));
      for (int64_t b = 0; b < B; ++b)
        for (int64_t s = 0; s < S; ++s)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t k = 0; k < d; ++k) {
              const int64_t at = (seqFirst ? s * B + b : b * S + s) * C + h * d + k;
              layout[seqFirst][static_cast<size_t>(at)] = static_cast<int32_t>(((b * H + h) * S + s) * d + k);
            }
    }
    std::vector<size_t> chain;
    bool found = false;
    for (int step = 0; step <= 8; ++step) {
      for (int seqFirst = 0; seqFirst < 2 && !(found && f.output == v); ++seqFirst)
        if (map->from == layout[seqFirst]) {
          found = true;
          f.output = v;
          f.outputDims = map->dims;
          f.outputSequenceFirst = seqFirst == 1 && B > 1;
          m_outputChain = chain;
        }
      const long c = soleConsumer(m_idx, v);
      if (c < 0) break;
      const Node& n = nodeAt(m_idx, static_cast<size_t>(c));
      if (!isDataMovement(n) || n.inputs[0] != v || n.outputs.size() != 1) break;
      map = applyMovement(n, 0, std::move(*map), m_known);
      if (!map) break;
      chain.push_back(static_cast<size_t>(c));
      v = n.outputs[0];
    }
    if (!found) throw Declined{"output: the heads are not merged back into [batch, sequence, hidden]"};
    m_members.insert(m_members.end(), m_outputChain.begin(), m_outputChain.end());
  }

  // Values produced inside and read outside, except shape reads of static values.
  void blockers(AttentionForm& f) {
    std::set<size_t> inside(f.members.begin(), f.members.end());
    std::set<size_t> readers;
    for (size_t m : f.members)
      for (const auto& o : nodeAt(m_idx, m).outputs) {
        if (o.empty() || o == f.output) continue;
        if (m_idx.isGraphOutput(o)) {
          f.blockers.push_back("graph_output:" + o);
          continue;
        }
        for (const Use& u : m_idx.consumers(o)) {
          if (inside.count(u.node)) continue;
          const Node& r = nodeAt(m_idx, u.node);
          const Shape* s = m_idx.shape(o);
          if ((r.is("Shape") || r.is("Size")) && s && s->fullyKnown()) {
            readers.insert(u.node);
            continue;
          }
          f.blockers.push_back("multi_consumer:" + o);
          break;
        }
      }
    f.shapeReaders.assign(readers.begin(), readers.end());
  }

  struct Where {
    std::string cond;
    bool masksWhen;
    double fill;
  };
  const GraphIndex& m_idx;
  const KnownOperands& m_known;
  int64_t m_opset;
  size_t m_max;
  std::vector<size_t> m_members, m_outputChain;
  double m_scale = 1;
  std::vector<Where> m_where;
  std::string m_additive;
  double m_additiveScale = 1;
  int64_t m_causalRows = 0;
};

}  // namespace

AttentionAnalysis analyzeAttention(const KnownOperands& known, size_t softmax, int64_t opset, size_t maxElements) {
  AttentionAnalysis a;
  try {
    a.form = Analyzer(known, opset, maxElements).run(softmax);
  } catch (const Declined& d) {
    a.declined = d.why;
  }
  return a;
}

}  // namespace msa
