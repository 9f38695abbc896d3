#include "model_compare.h"

#include <cstring>

namespace msa::test {
namespace {

template <typename T>
std::string cmp(const std::string& where, const char* what, const T& a, const T& b) {
  return a == b ? std::string() : where + ": " + what + " differ";
}

#define MSA_CMP(where, field)                                            \
  if (auto d = cmp(where, #field, a.field, b.field); !d.empty()) return d

std::string typeDiff(const std::string& where, const TypeInfo& a, const TypeInfo& b) {
  MSA_CMP(where, kind);
  MSA_CMP(where, elem);
  MSA_CMP(where, shape);
  MSA_CMP(where, raw);
  MSA_CMP(where, denotation);
  return {};
}

std::string valueDiff(const std::string& where, const std::vector<ValueInfo>& va, const std::vector<ValueInfo>& vb) {
  if (va.size() != vb.size())
    return where + ": " + std::to_string(va.size()) + " vs " + std::to_string(vb.size()) + " entries";
  for (size_t i = 0; i < va.size(); ++i) {
    const ValueInfo& a = va[i];
    const ValueInfo& b = vb[i];
    std::string w = where + " '" + a.name + "'";
    MSA_CMP(w, name);
    MSA_CMP(w, docString);
    MSA_CMP(w, unknownFields);
    if (auto d = typeDiff(w, a.type, b.type); !d.empty()) return d;
  }
  return {};
}

std::string tensorDiff(const std::string& where, const Tensor& a, const Tensor& b) {
  std::string w = where + " tensor '" + a.name + "'";
  MSA_CMP(w, name);
  MSA_CMP(w, dtype);
  MSA_CMP(w, dims);
  MSA_CMP(w, strings);
  MSA_CMP(w, docString);
  MSA_CMP(w, unknownFields);
  if ((a.data == nullptr) != (b.data == nullptr)) return w + ": one has data, the other not";
  if (a.raw() != b.raw()) return w + ": bytes differ";
  if (a.external.has_value() != b.external.has_value()) return w + ": external in one only";
  if (a.external) {
    const ExternalLocation& x = *a.external;
    const ExternalLocation& y = *b.external;
    if (x.location != y.location || x.offset != y.offset || x.length != y.length || x.extra != y.extra)
      return w + ": external locations differ";
  }
  return {};
}

std::string attrDiff(const std::string& where, const Attribute& a, const Attribute& b) {
  std::string w = where + " attr '" + a.name + "'";
  MSA_CMP(w, name);
  MSA_CMP(w, type);
  if (std::memcmp(&a.f, &b.f, sizeof a.f) != 0) return w + ": f differs";
  MSA_CMP(w, i);
  MSA_CMP(w, s);
  if (a.floats.size() != b.floats.size() ||
      (!a.floats.empty() && std::memcmp(a.floats.data(), b.floats.data(), a.floats.size() * sizeof(float)) != 0))
    return w + ": floats differ";
  MSA_CMP(w, ints);
  MSA_CMP(w, strings);
  MSA_CMP(w, refAttrName);
  MSA_CMP(w, docString);
  MSA_CMP(w, raw);
  if (a.tensors.size() != b.tensors.size()) return w + ": tensor counts differ";
  for (size_t i = 0; i < a.tensors.size(); ++i)
    if (auto d = tensorDiff(w, a.tensors[i], b.tensors[i]); !d.empty()) return d;
  if (a.graphs.size() != b.graphs.size()) return w + ": graph counts differ";
  for (size_t i = 0; i < a.graphs.size(); ++i)
    if (auto d = firstDifference(a.graphs[i], b.graphs[i], w + " graph " + std::to_string(i)); !d.empty()) return d;
  return {};
}

std::string nodeDiff(const std::string& where, const Node& a, const Node& b) {
  std::string w = where + " node '" + a.name + "'";
  MSA_CMP(w, name);
  MSA_CMP(w, generatedName);
  MSA_CMP(w, opType);
  MSA_CMP(w, domain);
  MSA_CMP(w, inputs);
  MSA_CMP(w, outputs);
  MSA_CMP(w, docString);
  MSA_CMP(w, unknownFields);
  if (a.attributes.size() != b.attributes.size()) return w + ": attribute counts differ";
  for (size_t i = 0; i < a.attributes.size(); ++i)
    if (auto d = attrDiff(w, a.attributes[i], b.attributes[i]); !d.empty()) return d;
  return {};
}

}  // namespace

std::string firstDifference(const Graph& a, const Graph& b, const std::string& where) {
  MSA_CMP(where, name);
  MSA_CMP(where, docString);
  MSA_CMP(where, unknownFields);
  MSA_CMP(where, sparseInitializers);
  MSA_CMP(where, quantizationAnnotations);
  if (auto d = valueDiff(where + " inputs", a.inputs, b.inputs); !d.empty()) return d;
  if (auto d = valueDiff(where + " outputs", a.outputs, b.outputs); !d.empty()) return d;
  if (auto d = valueDiff(where + " value_info", a.valueInfo, b.valueInfo); !d.empty()) return d;
  if (a.initializers.size() != b.initializers.size()) return where + ": initializer counts differ";
  for (size_t i = 0; i < a.initializers.size(); ++i)
    if (auto d = tensorDiff(where, a.initializers[i], b.initializers[i]); !d.empty()) return d;
  if (a.nodes.size() != b.nodes.size())
    return where + ": " + std::to_string(a.nodes.size()) + " vs " + std::to_string(b.nodes.size()) + " nodes";
  for (size_t i = 0; i < a.nodes.size(); ++i)
    if (auto d = nodeDiff(where, a.nodes[i], b.nodes[i]); !d.empty()) return d;
  return {};
}

std::string firstDifference(const Model& a, const Model& b) {
  const std::string where = "model";
  MSA_CMP(where, irVersion);
  MSA_CMP(where, producerName);
  MSA_CMP(where, producerVersion);
  MSA_CMP(where, domain);
  MSA_CMP(where, docString);
  MSA_CMP(where, modelVersion);
  MSA_CMP(where, metadata);
  MSA_CMP(where, functions);
  MSA_CMP(where, trainingInfo);
  MSA_CMP(where, unknownFields);
  if (a.opsets.size() != b.opsets.size()) return where + ": opset counts differ";
  for (size_t i = 0; i < a.opsets.size(); ++i)
    if (a.opsets[i].domain != b.opsets[i].domain || a.opsets[i].version != b.opsets[i].version)
      return where + ": opset '" + a.opsets[i].domain + "' differs";
  return firstDifference(a.graph, b.graph);
}

}  // namespace msa::test
