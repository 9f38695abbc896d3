#include "cost/cost_context.h"

#include <algorithm>
#include <climits>
#include <unordered_set>

#include "cost/cost_registry.h"
#include "model/shape_values.h"

namespace msa::cost {

const TypeInfo* TypeScope::type(std::string_view value) const {
  for (const TypeScope* s = this; s; s = s->m_outer)
    if (const TypeInfo* t = s->m_index->type(value)) return t;
  return nullptr;
}

const Tensor* TypeScope::constant(std::string_view value) const {
  for (const TypeScope* s = this; s; s = s->m_outer) {
    if (const Tensor* t = s->m_index->constant(value)) return t;
    // A value produced or declared in this scope shadows the outer ones.
    if (s->m_index->producer(value) >= 0 || s->m_index->isGraphInput(value)) return nullptr;
  }
  return nullptr;
}

std::optional<Dims> CostContext::valueDims(std::string_view value) const {
  if (value.empty()) return std::nullopt;
  const TypeInfo* t = m_scope->type(value);
  if (!t || !t->isTensor() || !t->shape || !t->shape->fullyKnown()) return std::nullopt;
  return t->shape->values();
}

std::optional<Dims> CostContext::inputDims(size_t i) const {
  return hasInput(i) ? valueDims(m_node->inputs[i]) : std::nullopt;
}

std::optional<Dims> CostContext::outputDims(size_t i) const {
  return hasOutput(i) ? valueDims(m_node->outputs[i]) : std::nullopt;
}

DType CostContext::inputType(size_t i) const {
  if (!hasInput(i)) return DType::Undefined;
  const TypeInfo* t = m_scope->type(m_node->inputs[i]);
  return t ? t->elem : DType::Undefined;
}

DType CostContext::outputType(size_t i) const {
  if (!hasOutput(i)) return DType::Undefined;
  const TypeInfo* t = m_scope->type(m_node->outputs[i]);
  return t ? t->elem : DType::Undefined;
}

const Tensor* CostContext::inputConstant(size_t i) const {
  return hasInput(i) ? m_scope->constant(m_node->inputs[i]) : nullptr;
}

std::optional<std::vector<int64_t>> CostContext::inputInts(size_t i) const {
  const Tensor* t = inputConstant(i);
  if (!t || !isInteger(t->dtype) || !t->hasData()) return std::nullopt;
  auto v = t->toInt64();
  if (static_cast<int64_t>(v.size()) != t->numElements()) return std::nullopt;
  return v;
}

DType CostContext::mainType() const {
  for (size_t i = 0; i < m_node->inputs.size(); ++i)
    if (DType t = inputType(i); isFloating(t)) return t;
  if (DType t = inputType(0); t != DType::Undefined) return t;
  return outputType(0);
}

int64_t product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < d.size() && i < to; ++i)
    if (__builtin_mul_overflow(p, std::max<int64_t>(d[i], 0), &p)) return INT64_MAX;  // absurd shapes saturate
  return p;
}

int64_t dtypeBytes(DType t) { return dtypeSize(t); }

OpCost unknownCost(std::string reason) {
  OpCost c;
  c.known = false;
  c.reason = std::move(reason);
  return c;
}

std::string missingShapeReason(const CostContext& c, bool inputs, bool outputs) {
  const Node& n = c.node();
  if (inputs)
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (c.hasInput(i) && !c.inputDims(i)) return "shape of input '" + n.inputs[i] + "' unknown";
  if (outputs)
    for (size_t i = 0; i < n.outputs.size(); ++i)
      if (c.hasOutput(i) && !c.outputDims(i)) return "shape of output '" + n.outputs[i] + "' unknown";
  return "shapes unknown";
}

double tensorBytes(const Dims& d, DType t) {
  return static_cast<double>(product(d)) * static_cast<double>(dtypeBytes(t));
}

bool addIoBytes(const CostContext& c, OpCost& cost, const std::vector<double>& readOverride,
                const std::vector<double>& writeOverride) {
  const Node& n = c.node();
  std::unordered_set<std::string_view> seen;
  auto valueBytes = [&](std::string_view name, double& bytes, bool& isF32) -> bool {
    const TypeInfo* t = c.scope().type(name);
    auto dims = c.valueDims(name);
    if (!t || !dims) return false;
    bytes = static_cast<double>(product(*dims)) * static_cast<double>(dtypeBytes(t->elem));
    isF32 = t->elem == DType::Float;
    return t->elem != DType::Undefined;
  };
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!c.hasInput(i) || !seen.insert(n.inputs[i]).second) continue;
    double b = 0;
    bool f32 = false;
    if (!valueBytes(n.inputs[i], b, f32)) {
      cost.known = false;
      cost.reason = "shape or type of input '" + n.inputs[i] + "' unknown";
      return false;
    }
    if (i < readOverride.size() && readOverride[i] >= 0) b = readOverride[i];
    cost.bytesRead += b;
    if (f32) cost.float32Bytes += b;
    if (c.scope().constant(n.inputs[i])) cost.paramBytes += b;
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!c.hasOutput(i)) continue;
    double b = 0;
    bool f32 = false;
    if (i < writeOverride.size() && writeOverride[i] >= 0) {
      DType t = c.outputType(i) != DType::Undefined ? c.outputType(i) : c.mainType();
      cost.bytesWritten += writeOverride[i];
      if (t == DType::Float) cost.float32Bytes += writeOverride[i];
      continue;
    }
    if (!valueBytes(n.outputs[i], b, f32)) {
      cost.known = false;
      cost.reason = "shape or type of output '" + n.outputs[i] + "' unknown";
      return false;
    }
    cost.bytesWritten += b;
    if (f32) cost.float32Bytes += b;
  }
  if (cost.computeType == DType::Undefined) cost.computeType = c.mainType();
  cost.known = true;
  cost.reason.clear();
  return true;
}

std::optional<Dims> elementwiseOutputDims(const CostContext& c, size_t output) {
  if (auto d = c.outputDims(output)) return d;
  std::optional<Dims> out;
  for (size_t i = 0; i < c.inputCount(); ++i) {
    if (!c.hasInput(i)) continue;
    auto d = c.inputDims(i);
    if (!d) return std::nullopt;
    out = out ? broadcastDims(*out, *d) : d;
    if (!out) return std::nullopt;
  }
  return out;
}

const CostRegistry& CostRegistry::instance() {
  static const CostRegistry r = [] {
    CostRegistry reg;
    registerConvCosts(reg);
    registerMatMulCosts(reg);
    registerElementwiseCosts(reg);
    registerNormCosts(reg);
    registerPoolReduceCosts(reg);
    registerDataCosts(reg);
    registerRnnCosts(reg);
    return reg;
  }();
  return r;
}

namespace {
std::string normDomain(std::string_view d) { return d == "ai.onnx" ? std::string() : std::string(d); }
}  // namespace

void CostRegistry::add(std::string_view opType, CostFn fn, std::string_view domain) {
  m_fns[{normDomain(domain), std::string(opType)}] = fn;
}

CostFn CostRegistry::find(std::string_view domain, std::string_view opType) const {
  auto it = m_fns.find(std::make_pair(normDomain(domain), std::string(opType)));
  return it == m_fns.end() ? nullptr : it->second;
}

std::vector<std::string> CostRegistry::opTypes() const {
  std::vector<std::string> out;
  for (const auto& [key, fn] : m_fns) out.push_back(key.first.empty() ? key.second : key.first + ":" + key.second);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace msa::cost
