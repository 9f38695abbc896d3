// Matrix products: MatMul (batched, broadcast), Gemm, Einsum and the quantized forms.
// MACs = batch x M x K x N; FLOPs = 2 x MACs plus the scalings and bias of Gemm.
#include <algorithm>
#include <cctype>
#include <map>

#include "cost/cost_registry.h"
#include "model/shape_values.h"

namespace msa::cost {
namespace {

DType outType(const CostContext& c) {
  DType t = c.outputType(0);
  return t != DType::Undefined ? t : c.mainType();
}

OpCost matmulCost(const CostContext& c, size_t ai, size_t bi, bool transA = false, bool transB = false) {
  auto a = c.inputDims(ai);
  auto b = c.inputDims(bi);
  if (!a || !b) return unknownCost(missingShapeReason(c, true, false));
  if (a->empty() || b->empty()) return unknownCost("MatMul of a scalar");
  const bool vecA = a->size() == 1, vecB = b->size() == 1;
  if (vecA) a->insert(a->begin(), 1);
  if (vecB) b->push_back(1);
  if (transA) std::swap((*a)[a->size() - 1], (*a)[a->size() - 2]);
  if (transB) std::swap((*b)[b->size() - 1], (*b)[b->size() - 2]);
  const int64_t m = (*a)[a->size() - 2], k = (*a)[a->size() - 1];
  const int64_t k2 = (*b)[b->size() - 2], n = (*b)[b->size() - 1];
  if (k != k2)
    return unknownCost("inner dims differ: " + std::to_string(k) + " vs " + std::to_string(k2));
  auto batch = broadcastDims(Dims(a->begin(), a->end() - 2), Dims(b->begin(), b->end() - 2));
  if (!batch) return unknownCost("batch dims do not broadcast");
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) {
    Dims y = *batch;
    if (!vecA) y.push_back(m);
    if (!vecB) y.push_back(n);
    writeOverride = {tensorBytes(y, outType(c))};
  }
  OpCost cost;
  cost.unit = ComputeUnit::Cube;
  cost.computeType = c.inputType(ai);
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.macs = static_cast<double>(product(*batch)) * static_cast<double>(m) * static_cast<double>(k) *
              static_cast<double>(n);
  cost.flops = 2 * cost.macs;
  return cost;
}

OpCost matmul(const CostContext& c) { return matmulCost(c, 0, 1); }
OpCost qlinearMatMul(const CostContext& c) { return matmulCost(c, 0, 3); }

OpCost fusedMatMul(const CostContext& c) {
  return matmulCost(c, 0, 1, c.node().attrInt("transA", 0) != 0, c.node().attrInt("transB", 0) != 0);
}

// Y = alpha * A' * B' + beta * C.
OpCost gemm(const CostContext& c) {
  const bool transA = c.node().attrInt("transA", 0) != 0, transB = c.node().attrInt("transB", 0) != 0;
  auto a = c.inputDims(0);
  auto b = c.inputDims(1);
  if (!a || !b) return unknownCost(missingShapeReason(c, true, false));
  if (a->size() != 2 || b->size() != 2) return unknownCost("Gemm needs 2-D A and B");
  const double m = static_cast<double>(transA ? (*a)[1] : (*a)[0]);
  const double k = static_cast<double>(transA ? (*a)[0] : (*a)[1]);
  const double kb = static_cast<double>(transB ? (*b)[1] : (*b)[0]);
  const double n = static_cast<double>(transB ? (*b)[0] : (*b)[1]);
  if (k != kb) return unknownCost("Gemm inner dims differ");
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) writeOverride = {tensorBytes({int64_t(m), int64_t(n)}, outType(c))};
  OpCost cost;
  cost.unit = ComputeUnit::Cube;
  cost.computeType = c.inputType(0);
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.macs = m * k * n;
  cost.flops = 2 * cost.macs;
  if (c.node().attrFloat("alpha", 1.0f) != 1.0f) cost.flops += m * n;
  if (c.hasInput(2)) {
    cost.flops += m * n;
    if (c.node().attrFloat("beta", 1.0f) != 1.0f) cost.flops += m * n;
  }
  return cost;
}

// One operand term of an Einsum equation: its letters, with '.' standing for the ellipsis.
struct Term {
  std::string letters;
  bool ellipsis = false;
};

std::optional<Term> parseTerm(std::string_view s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 3) == "...") {
      if (t.ellipsis) return std::nullopt;
      t.ellipsis = true;
      t.letters += '.';
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters += s[i];
    } else {
      return std::nullopt;
    }
  }
  return t;
}

// Iteration space = product of every index size; each point multiplies (operands - 1) times and
// accumulates once when an index is summed. A two-operand contraction is matrix work (Cube).
OpCost einsum(const CostContext& c) {
  std::string eq;
  for (char ch : c.node().attrString("equation")) if (ch != ' ') eq += ch;
  const std::string bad = "Einsum equation '" + c.node().attrString("equation") + "' ";
  const size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    auto t = parseTerm(std::string_view(lhs).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!t) return unknownCost(bad + "cannot be parsed");
    terms.push_back(*t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != c.inputCount()) return unknownCost(bad + "has " + std::to_string(terms.size()) + " operands for " + std::to_string(c.inputCount()) + " inputs");
  std::map<char, int64_t> size;
  std::map<char, int> uses;
  Dims ellipsisDims;
  for (size_t i = 0; i < terms.size(); ++i) {
    auto d = c.inputDims(i);
    if (!d) return unknownCost(missingShapeReason(c, true, false));
    const size_t named = terms[i].letters.size() - (terms[i].ellipsis ? 1 : 0);
    if (d->size() < named || (!terms[i].ellipsis && d->size() != named))
      return unknownCost(bad + "does not match the rank of input " + std::to_string(i));
    const size_t ellRank = d->size() - named;
    size_t axis = 0;
    for (char ch : terms[i].letters) {
      if (ch == '.') {
        auto b = broadcastDims(ellipsisDims, Dims(d->begin() + axis, d->begin() + axis + ellRank));
        if (!b) return unknownCost(bad + "ellipsis dims do not broadcast");
        ellipsisDims = *b;
        axis += ellRank;
        continue;
      }
      int64_t v = (*d)[axis++];
      auto [it, fresh] = size.emplace(ch, v);
      if (!fresh && it->second != v) {
        if (it->second != 1 && v != 1) return unknownCost(bad + "gives index '" + std::string(1, ch) + "' two sizes");
        it->second = std::max(it->second, v);
      }
      ++uses[ch];
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    auto t = parseTerm(std::string_view(eq).substr(arrow + 2));
    if (!t) return unknownCost(bad + "has an unreadable output");
    for (char ch : t->letters)
      if (ch != '.' && !size.count(ch)) return unknownCost(bad + "outputs an index no input has");
    out = t->letters;
  } else {  // implicit output: the letters used once, in alphabetical order
    for (const auto& [ch, n] : uses) if (n == 1) out += ch;
  }
  double total = static_cast<double>(product(ellipsisDims));
  for (const auto& [ch, v] : size) total *= static_cast<double>(v);
  bool summed = false;
  for (const auto& [ch, v] : size) summed |= out.find(ch) == std::string::npos;
  double outElems = static_cast<double>(product(ellipsisDims));
  for (char ch : out) if (ch != '.') outElems *= static_cast<double>(size[ch]);
  OpCost cost;
  const size_t operands = terms.size();
  if (operands >= 2 && summed) {
    cost.unit = ComputeUnit::Cube;
    cost.macs = static_cast<double>(operands - 1) * total;
    cost.flops = 2 * cost.macs;
  } else {
    const double mults = operands >= 2 ? static_cast<double>(operands - 1) * total : 0.0;
    const double adds = summed ? total - outElems : 0.0;
    cost.flops = mults + adds;
    cost.unit = cost.flops > 0 ? ComputeUnit::Vector : ComputeUnit::Memory;
  }
  std::vector<double> writeOverride;
  if (!c.outputDims(0)) writeOverride = {outElems * static_cast<double>(dtypeBytes(outType(c)))};
  const double flops = cost.flops, macs = cost.macs;
  if (!addIoBytes(c, cost, {}, writeOverride)) return cost;
  cost.flops = flops;
  cost.macs = macs;
  return cost;
}

}  // namespace

void registerMatMulCosts(CostRegistry& r) {
  r.add("MatMul", matmul);
  r.add("MatMulInteger", matmul);
  r.add("QLinearMatMul", qlinearMatMul);
  r.add("Gemm", gemm);
  r.add("Einsum", einsum);
  r.add("FusedMatMul", fusedMatMul, "com.microsoft");
}

}  // namespace msa::cost
