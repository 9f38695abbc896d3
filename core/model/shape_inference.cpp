#include "model/shape_inference.h"

#include <charconv>
#include <set>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/graph_index.h"
#include "model/onnx_proto.h"
#include "model/shape_values.h"

namespace msa {
namespace {

constexpr int64_t kStripAbove = 64 * 1024;  // weights bigger than this are never shape arithmetic

void bindDims(Graph& g, const ShapeOptions& o, std::set<std::string>& used) {
  auto bind = [&](ValueInfo& v) {
    if (!v.type.shape) return;
    for (size_t axis = 0; axis < v.type.shape->dims.size(); ++axis) {
      Dim& d = v.type.shape->dims[axis];
      if (d.known()) continue;
      std::string byAxis = v.name + ":" + std::to_string(axis);
      auto it = o.dims.find(byAxis);
      if (it == o.dims.end() && !d.param.empty()) it = o.dims.find(d.param);
      if (it == o.dims.end()) continue;
      used.insert(it->first);
      d.value = it->second;
    }
  };
  for (auto& v : g.inputs) bind(v);
  for (auto& v : g.outputs) bind(v);
  for (auto& v : g.valueInfo) bind(v);
}

bool moreKnown(const TypeInfo& a, const TypeInfo& b) {  // is a better than b?
  if (!a.shape) return false;
  if (!b.shape) return true;
  auto known = [](const Shape& s) {
    size_t k = 0;
    for (const Dim& d : s.dims) k += d.known();
    return k;
  };
  return known(*a.shape) > known(*b.shape);
}

void readBack(const onnx::GraphProto& gp, Graph& g) {
  std::map<std::string, size_t, std::less<>> pos;
  for (size_t i = 0; i < g.valueInfo.size(); ++i) pos[g.valueInfo[i].name] = i;
  for (const auto& vp : gp.value_info()) {
    TypeInfo t = fromProto(vp.type());
    auto it = pos.find(vp.name());
    if (it == pos.end()) {
      pos[vp.name()] = g.valueInfo.size();
      g.valueInfo.push_back({vp.name(), std::move(t), {}, {}});
    } else if (moreKnown(t, g.valueInfo[it->second].type)) {
      g.valueInfo[it->second].type = std::move(t);
    }
  }
  for (const auto& op : gp.output())
    for (auto& v : g.outputs)
      if (v.name == op.name()) {
        TypeInfo t = fromProto(op.type());
        if (v.type.kind == TypeInfo::Kind::None || moreKnown(t, v.type)) v.type = std::move(t);
      }
  // Subgraphs sit at the same positions in the proto and in the IR.
  for (int n = 0; n < gp.node_size() && n < static_cast<int>(g.nodes.size()); ++n) {
    const auto& np = gp.node(n);
    for (int a = 0; a < np.attribute_size() && a < static_cast<int>(g.nodes[n].attributes.size()); ++a) {
      const auto& ap = np.attribute(a);
      auto& graphs = g.nodes[n].attributes[a].graphs;
      if (ap.has_g() && !graphs.empty()) readBack(ap.g(), graphs[0]);
      for (int k = 0; k < ap.graphs_size() && k < static_cast<int>(graphs.size()); ++k) readBack(ap.graphs(k), graphs[k]);
    }
  }
}

}  // namespace

Status parseDimBinding(const std::string& text, ShapeOptions& options) {
  auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return Error::usage("--dim expects NAME=VALUE (e.g. batch=1), got '" + text + "'");
  int64_t v = 0;
  const char* b = text.data() + eq + 1;
  const char* e = text.data() + text.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || v <= 0 || v > (int64_t(1) << 31))
    return Error::usage("--dim " + text + ": the value must be a positive integer");
  options.dims[text.substr(0, eq)] = v;
  return Ok{};
}

Result<ShapeReport> inferShapes(Model& model, const ShapeOptions& options) {
  ShapeReport report;
  std::set<std::string> used;
  bindDims(model.graph, options, used);
  for (const auto& [name, v] : options.dims)
    if (!used.count(name)) report.warnings.push_back("no symbolic input dim named '" + name + "'");

  onnx::ModelProto mp;
  ProtoOptions po;
  po.keepGeneratedNames = true;
  po.stripInitializersAbove = kStripAbove;
  if (auto s = toProto(model, mp, po); !s) return s.error();
  try {
    onnx::ShapeInferenceOptions so(false, 0, options.dataPropagation);
    onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    report.warnings.push_back(std::string("shape inference stopped early: ") + e.what());
  }
  readBack(mp.graph(), model.graph);
  // Shape arithmetic ONNX's data propagation does not follow (Div, Where…): evaluate it, show
  // inference the results as constants and infer again until nothing new resolves.
  for (int round = 0; round < 10 && options.dataPropagation; ++round) {
    if (foldKnownValues(*mp.mutable_graph(), model.graph) == 0) break;
    try {
      onnx::ShapeInferenceOptions so(false, 0, true);
      onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
    } catch (const std::exception& e) {
      report.warnings.push_back(std::string("shape inference (after folding shape arithmetic) stopped early: ") + e.what());
    }
    readBack(mp.graph(), model.graph);
  }

  GraphIndex idx(model.graph);
  for (const Node& n : model.graph.nodes)
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      const Shape* s = idx.shape(o);
      (s && s->fullyKnown() ? report.valuesWithShape : report.valuesWithoutShape)++;
    }
  for (const auto& v : model.graph.inputs) {
    if (!v.type.shape || model.graph.findInitializer(v.name)) continue;
    for (size_t a = 0; a < v.type.shape->dims.size(); ++a) {
      const Dim& d = v.type.shape->dims[a];
      if (!d.known()) report.unboundDims.push_back(d.param.empty() ? v.name + ":" + std::to_string(a) : d.param);
    }
  }
  std::sort(report.unboundDims.begin(), report.unboundDims.end());
  report.unboundDims.erase(std::unique(report.unboundDims.begin(), report.unboundDims.end()), report.unboundDims.end());
  return report;
}

}  // namespace msa
