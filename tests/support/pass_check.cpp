#include "pass_check.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/onnx_proto.h"
#include "profile/ort_session.h"

namespace msa::test {

std::string graphProblem(const Model& model) {
  const Graph& g = model.graph;
  if (model.opset() == 0) return "no default-domain opset";
  std::unordered_map<std::string, size_t> producedAt;
  std::unordered_set<std::string> available, names;
  std::unordered_set<NodeId> ids;
  for (const auto& v : g.inputs) available.insert(v.name);
  for (const auto& t : g.initializers) {
    if (t.name.empty()) return "an initializer without a name";
    if (!available.insert(t.name).second && !g.isGraphInput(t.name)) return "initializer '" + t.name + "' declared twice";
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.name.empty()) return "a node without a name";
    if (!names.insert(n.name).second) return "two nodes named '" + n.name + "'";
    if (!ids.insert(n.id).second) return "two nodes with id " + std::to_string(n.id);
    for (const auto& in : n.inputs)
      if (!in.empty() && !available.count(in))
        return "node '" + n.name + "' reads '" + in + "', which nothing before it produces";
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (available.count(o)) return "value '" + o + "' is defined twice (node '" + n.name + "')";
      available.insert(o);
      producedAt[o] = i;
    }
  }
  for (const auto& o : g.outputs)
    if (!available.count(o.name)) return "graph output '" + o.name + "' is produced by nothing";
  for (const auto& v : g.valueInfo)
    if (!available.count(v.name)) return "value_info names '" + v.name + "', which no longer exists";
  std::set<std::string> seen;
  for (const auto& v : g.valueInfo)
    if (!seen.insert(v.name).second) return "value_info has '" + v.name + "' twice";
  return {};
}

Status onnxCheck(const Model& model) {
  onnx::ModelProto mp;
  ProtoOptions po;
  po.stripInitializersAbove = 1 << 20;
  if (auto s = toProto(model, mp, po); !s) return s;
  try {
    onnx::checker::check_model(mp);
    onnx::ShapeInferenceOptions so(true, 1, false);
    onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    return Error::model(std::string("ONNX checker: ") + e.what());
  }
  return Ok{};
}

Result<std::vector<DataValue>> runOutputs(const Model& model, const std::vector<Tensor>& inputs) {
  RuntimeOptions ro;
  ro.optimization = GraphOptimization::Disabled;
  ro.intraOpThreads = 1;
  auto s = OrtSession::create(model, ro);
  if (!s) return s.error();
  return s->run(std::span<const Tensor>(inputs));
}

OutputsCompared compareOutputs(const std::vector<DataValue>& actual, const std::vector<DataValue>& expected,
                               const Tolerance& tol) {
  OutputsCompared r;
  if (actual.size() != expected.size()) {
    r.equal = false;
    r.message = std::to_string(actual.size()) + " outputs instead of " + std::to_string(expected.size());
    return r;
  }
  for (size_t k = 0; k < actual.size(); ++k) {
    Comparison c = compareValues(actual[k], expected[k], tol);
    r.maxAbsError = std::max(r.maxAbsError, c.maxAbsError);
    r.maxRelError = std::max(r.maxRelError, c.maxRelError);
    if (!c.equal && r.equal) {
      r.equal = false;
      r.message = "output " + std::to_string(k) + " '" + expected[k].name + "': " + c.firstMismatch;
    }
  }
  return r;
}

Result<OutputsCompared> compareModels(const Model& original, const Model& rewritten, const Tolerance& tol,
                                      const InputOptions& inputs) {
  auto in = makeRandomInputs(original, inputs);
  if (!in) return in.error();
  auto a = runOutputs(original, *in);
  if (!a) return a.error();
  auto b = runOutputs(rewritten, *in);
  if (!b) return b.error();
  return compareOutputs(*b, *a, tol);
}

std::map<std::string, int> opHistogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const Node& n : g.nodes) ++h[(n.isDefaultDomain() ? std::string() : n.domain + ".") + n.opType];
  return h;
}

int countOp(const Graph& g, const std::string& op) {
  auto h = opHistogram(g);
  auto it = h.find(op);
  return it == h.end() ? 0 : it->second;
}

}  // namespace msa::test
