#include "model/shape_inference.h"

#include <charconv>
#include <map>
#include <set>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/graph_index.h"
#include "model/onnx_proto.h"

namespace msa {
namespace {

constexpr int64_t kStripAbove = 64 * 1024;  // weights bigger than this are never shape arithmetic
const std::string kQuarantined = "MsadvisorUnsafe";  // op type prefix no schema has

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

bool hasType(const onnx::ValueInfoProto& v) {  // or another kind: sequences, maps, optionals
  if (!v.has_type() || v.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return false;
  return !v.type().has_tensor_type() || v.type().tensor_type().elem_type() != 0;
}

bool producesShapeData(const onnx::GraphProto& g) {
  for (const auto& n : g.node()) {
    if (n.op_type() == "Shape" || n.op_type() == "Size") return true;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && producesShapeData(a.g())) return true;
      for (const auto& sub : a.graphs())
        if (producesShapeData(sub)) return true;
    }
  }
  return false;
}

// libonnx 1.12's data propagation dereferences the type of every input it looks at: a value
// without a tensor type (never produced, or the output of an op whose schema ONNX does not know,
// such as a custom-domain op) crashes the process. Returns the first such input, by node.
std::string untypedInput(const onnx::GraphProto& g, std::set<std::string> typed) {
  for (const auto& v : g.input())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& t : g.initializer()) typed.insert(t.name());
  for (const auto& v : g.value_info())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& v : g.output())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& n : g.node()) {
    if (n.op_type().rfind(kQuarantined, 0) == 0) continue;  // ONNX skips it
    for (const auto& in : n.input())
      if (!in.empty() && !typed.count(in)) return "value '" + in + "' (input of node '" + n.name() + "') has no type";
    for (const auto& a : n.attribute()) {
      std::string w;
      if (a.has_g()) w = untypedInput(a.g(), typed);
      for (int k = 0; w.empty() && k < a.graphs_size(); ++k) w = untypedInput(a.graphs(k), typed);
      if (!w.empty()) return w;
    }
  }
  return {};
}

// Attribute values that make libonnx 1.12's shape inference divide by zero or worse (a crash,
// not an error). Returns why, or empty when the node is safe to hand over.
std::string unsafeForOnnx(const onnx::NodeProto& n) {
  static const std::set<std::string, std::less<>> convPool{
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "MaxUnpool"};
  auto positiveInts = [&](const char* name) -> std::string {
    for (const auto& a : n.attribute()) {
      if (a.name() != name) continue;
      if (a.type() != onnx::AttributeProto::INTS) return std::string("'") + name + "' is not a list of ints";
      for (int64_t v : a.ints())
        if (v <= 0) return std::string("'") + name + "' holds " + std::to_string(v);
    }
    return {};
  };
  auto positiveInt = [&](const char* name) -> std::string {
    for (const auto& a : n.attribute())
      if (a.name() == name && (a.type() != onnx::AttributeProto::INT || a.i() <= 0))
        return std::string("'") + name + "' is not a positive int";
    return {};
  };
  if (!n.domain().empty() && n.domain() != "ai.onnx") return {};
  if (convPool.count(n.op_type())) {
    for (const char* a : {"strides", "dilations", "kernel_shape"})
      if (auto w = positiveInts(a); !w.empty()) return w;
    return positiveInt("group");
  }
  if (n.op_type() == "DepthToSpace" || n.op_type() == "SpaceToDepth") return positiveInt("blocksize");
  return {};
}

// Hides unsafe nodes from ONNX (in the protobuf copy only): an op type no schema has is skipped,
// and its outputs stay untyped. Unsafe, because several libonnx 1.12 inference functions crash
// (not throw) on them: attribute values it divides by; anything the op's schema check refuses (a
// missing required attribute, a wrong attribute type, too few inputs); an input that has no type
// when ONNX reaches the node (never produced, produced further down, produced by an op ONNX
// does not know and not declared in value_info); an output that redefines a value (not SSA).
// `typed` holds the values with a type at this point: declared ones and outputs of nodes handed
// over so far, outer scopes included.
void quarantineUnsafe(onnx::GraphProto& g, const std::map<std::string, int>& opsets, std::set<std::string> typed,
                      bool isSubgraph, std::vector<std::string>& warnings) {
  std::set<std::string> defined;  // SSA: every name defined once in this graph
  // Later duplicates of a graph input are dropped: ONNX would merge their types.
  for (int i = 0; i < g.input_size();) {
    if (!defined.insert(g.input(i).name()).second) {
      warnings.push_back("graph input '" + g.input(i).name() + "' is declared twice; the second is ignored");
      g.mutable_input()->DeleteSubrange(i, 1);
      continue;
    }
    // A subgraph's inputs get their types from the node that runs it.
    if (isSubgraph || g.input(i).has_type()) typed.insert(g.input(i).name());
    ++i;
  }
  for (const auto& t : g.initializer()) typed.insert(t.name()), defined.insert(t.name());
  for (const auto& v : g.value_info())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& v : g.output())
    if (hasType(v)) typed.insert(v.name());

  for (auto& n : *g.mutable_node()) {
    std::string why = unsafeForOnnx(n);
    for (const auto& in : n.input())
      if (why.empty() && !in.empty() && !typed.count(in)) why = "input '" + in + "' has no type at this point";
    for (const auto& out : n.output())
      if (why.empty() && !out.empty() && defined.count(out)) why = "output '" + out + "' is defined twice";
    const std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
    const onnx::OpSchema* schema = nullptr;
    if (auto v = opsets.find(domain); v != opsets.end())
      schema = onnx::OpSchemaRegistry::Schema(n.op_type(), v->second, domain);
    if (why.empty() && schema) {
      try {
        schema->Verify(n);
      } catch (const std::exception& e) {
        why = e.what();
        if (auto cut = why.find("\n"); cut != std::string::npos) why.resize(cut);
      }
    }
    for (const auto& out : n.output()) defined.insert(out);
    if (!why.empty()) {
      warnings.push_back("node '" + n.name() + "' (" + n.op_type() + "): " + why + "; its shapes are not inferred");
      n.set_op_type(kQuarantined + n.op_type());
      continue;  // its outputs stay untyped unless value_info declares them
    }
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) quarantineUnsafe(*a.mutable_g(), opsets, typed, true, warnings);
      for (auto& sub : *a.mutable_graphs()) quarantineUnsafe(sub, opsets, typed, true, warnings);
    }
    if (schema)
      for (const auto& out : n.output()) typed.insert(out);
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
  // First without data propagation (safe on any input); then, when Shape/Size arithmetic can
  // add something and every consumed value has a type, again with it.
  bool complete = true;
  std::map<std::string, int> opsets;
  for (const auto& o : mp.opset_import())
    opsets[o.domain() == "ai.onnx" ? std::string() : o.domain()] = static_cast<int>(o.version());
  quarantineUnsafe(*mp.mutable_graph(), opsets, {}, false, report.warnings);
  try {
    onnx::ShapeInferenceOptions so(false, 0, false);
    onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    complete = false;
    report.warnings.push_back(std::string("shape inference stopped early: ") + e.what());
  }
  if (complete && options.dataPropagation && producesShapeData(mp.graph())) {
    if (std::string why = untypedInput(mp.graph(), {}); !why.empty()) {
      report.warnings.push_back("shape arithmetic not propagated: " + why);
    } else {
      try {
        onnx::ShapeInferenceOptions so(false, 0, true);
        onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
      } catch (const std::exception& e) {
        report.warnings.push_back(std::string("shape inference stopped early: ") + e.what());
      }
    }
  }
  readBack(mp.graph(), model.graph);

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
