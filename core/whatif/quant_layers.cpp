#include "whatif/quant_layers.h"

#include "model/graph_index.h"
#include "whatif/quant_params.h"

namespace msa {
namespace {

bool floatInitializer(const GraphIndex& idx, const std::string& name, size_t minRank, size_t maxRank) {
  const Tensor* t = idx.initializer(name);
  return t && (t->dtype == DType::Float || t->dtype == DType::Float16) && t->dims.size() >= minRank &&
         t->dims.size() <= maxRank && t->numElements() > 0 && t->hasData();
}

// An activation: produced at run time (not a constant), float.
bool floatActivation(const GraphIndex& idx, const std::string& name) {
  if (name.empty() || idx.constant(name)) return false;
  const DType t = idx.dtype(name);
  return t == DType::Float || t == DType::Undefined;
}

}  // namespace

std::vector<QuantLayer> quantizableLayers(const Graph& g, bool withConv) {
  GraphIndex idx(g);
  std::vector<QuantLayer> out;
  for (const Node& n : g.nodes) {
    if (!n.isDefaultDomain() || n.inputs.size() < 2 || n.outputs.empty()) continue;
    QuantLayer l;
    l.node = n.name;
    l.op = n.opType;
    l.input = n.inputs[0];
    l.weight = n.inputs[1];
    if (!floatActivation(idx, l.input)) continue;
    if (n.opType == "Conv" && withConv) {
      if (!floatInitializer(idx, l.weight, 3, 5)) continue;
      if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        if (!floatInitializer(idx, n.inputs[2], 1, 1)) continue;
        l.bias = n.inputs[2];
      }
      l.channelAxis = 0;
    } else if (n.opType == "MatMul") {
      if (!floatInitializer(idx, l.weight, 2, 2)) continue;
      l.channelAxis = 1;
    } else if (n.opType == "Gemm") {
      if (n.attrInt("transA", 0) != 0 || !floatInitializer(idx, l.weight, 2, 2)) continue;
      l.transB = n.attrInt("transB", 0) != 0;
      l.alpha = n.attrFloat("alpha", 1.0f);
      l.beta = n.attrFloat("beta", 1.0f);
      l.channelAxis = l.transB ? 0 : 1;
      if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        const Tensor* c = idx.initializer(n.inputs[2]);
        const int64_t channels = idx.initializer(l.weight)->dims[static_cast<size_t>(l.channelAxis)];
        // A bias per output channel ([N] or [1, N]); other shapes of C keep the Gemm in float.
        const bool perChannel = c && isFloating(c->dtype) && c->numElements() == channels &&
                                (c->dims.size() == 1 || (c->dims.size() == 2 && c->dims[0] == 1));
        if (!perChannel) continue;
        l.bias = n.inputs[2];
      }
    } else {
      continue;
    }
    out.push_back(std::move(l));
  }
  return out;
}

NameSource::NameSource(const Graph& g) {
  for (const Node& n : g.nodes) {
    m_used.insert(n.name);
    for (const auto& o : n.outputs) m_used.insert(o);
    for (const auto& i : n.inputs) m_used.insert(i);
  }
  for (const auto& v : g.inputs) m_used.insert(v.name);
  for (const auto& v : g.outputs) m_used.insert(v.name);
  for (const auto& t : g.initializers) m_used.insert(t.name);
}

std::string NameSource::fresh(const std::string& base) {
  std::string name = base;
  for (int k = 1; m_used.count(name); ++k) name = base + "_" + std::to_string(k);
  m_used.insert(name);
  return name;
}

Node makeNode(std::string opType, std::vector<std::string> inputs, std::vector<std::string> outputs, std::string name,
              std::vector<Attribute> attributes, std::string domain) {
  Node n;
  n.opType = std::move(opType);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.name = std::move(name);
  n.attributes = std::move(attributes);
  n.domain = std::move(domain);
  return n;
}

Tensor transposed2D(const Tensor& t) {
  const std::vector<float> v = floatValues(t);
  const size_t r = static_cast<size_t>(t.dims[0]), c = static_cast<size_t>(t.dims[1]);
  std::vector<float> out(v.size());
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < c; ++j) out[j * r + i] = v[i * c + j];
  return Tensor::fromValues(t.name, DType::Float, {t.dims[1], t.dims[0]}, out);
}

}  // namespace msa
