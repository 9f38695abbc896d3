#include "optimize/opset_raise.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "model/graph_index.h"
#include "model/op_schema.h"
#include "model/rewrite.h"

namespace msa {
namespace {

// Checks a node (apply = false) or converts it (apply = true); returns why it cannot, or "".
using Converter = std::function<std::string(Node&, Graph&, const GraphIndex&, bool apply)>;

std::string attrToInput(Node& n, Graph& g, bool apply, std::string_view attr, size_t pos, Tensor value) {
  if (!apply) return {};
  if (n.inputs.size() <= pos) n.inputs.resize(pos + 1);
  n.inputs[pos] = addInitializer(g, std::move(value), n.name + "_" + std::string(attr));
  n.removeAttr(attr);
  return {};
}

Tensor ints(const std::vector<int64_t>& v, bool scalar = false) {
  return Tensor::fromValues({}, DType::Int64, scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(v.size())}, v);
}

// An attribute of ints that became input `pos`.
Converter intsToInput(std::string attr, size_t pos) {
  return [attr, pos](Node& n, Graph& g, const GraphIndex&, bool apply) -> std::string {
    const Attribute* a = n.attr(attr);
    if (!a) return {};
    if (n.inputs.size() > pos && !n.inputs[pos].empty()) return "both an attribute and an input '" + attr + "'";
    return attrToInput(n, g, apply, attr, pos, ints(a->ints));
  };
}

bool scalarFloatType(DType t) { return t == DType::Float || t == DType::Double || t == DType::Float16 || t == DType::BFloat16; }

// Softmax-family before 13 coerce the input to 2-D at `axis`; from 13 they act on that one axis.
// The same only when `axis` is the last one.
std::string lastAxisOnly(Node& n, Graph&, const GraphIndex& idx, bool apply) {
  const Shape* s = idx.shape(n.input(0));
  if (!s) return "input rank unknown";
  const int64_t rank = static_cast<int64_t>(s->rank());
  int64_t axis = n.attrInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1) return "axis " + std::to_string(axis) + " is not the last of " + std::to_string(rank);
  if (apply) n.setAttr(Attribute::makeInt("axis", rank - 1));
  return {};
}

const std::map<std::pair<std::string_view, int64_t>, Converter>& table() {
  static const std::map<std::pair<std::string_view, int64_t>, Converter> t = [] {
    std::map<std::pair<std::string_view, int64_t>, Converter> m;
    // Same meaning for every valid node of the older version: new types, negative axes, new
    // optional attributes or inputs whose defaults are the old behaviour.
    const std::pair<std::string_view, std::vector<int64_t>> same[] = {
        {"Abs", {13}}, {"Add", {13, 14}}, {"Sub", {13, 14}}, {"Mul", {13, 14}}, {"Div", {13, 14}},
        {"ArgMax", {11, 12, 13}}, {"ArgMin", {11, 12, 13}}, {"AveragePool", {10, 11}},
        {"BatchNormalization", {15}}, {"Cast", {9, 13}}, {"Ceil", {13}}, {"Clip", {12, 13}},
        {"Concat", {11, 13}}, {"Constant", {9, 11, 12, 13}}, {"Conv", {11}}, {"ConvTranspose", {11}},
        {"CumSum", {14}}, {"DepthToSpace", {11, 13}}, {"DequantizeLinear", {13}}, {"Dropout", {13}},
        {"Equal", {11, 13}}, {"Erf", {13}}, {"Exp", {13}}, {"Expand", {13}}, {"Flatten", {9, 11, 13}},
        {"Floor", {13}}, {"GRU", {14}}, {"LSTM", {14}}, {"RNN", {14}}, {"Gather", {11, 13}},
        {"GatherElements", {13}}, {"GatherND", {12, 13}}, {"Gemm", {9, 11, 13}}, {"Greater", {9, 13}},
        {"Less", {9, 13}}, {"GreaterOrEqual", {16}}, {"LessOrEqual", {16}}, {"Hardmax", {11}},
        {"LogSoftmax", {11}}, {"Softmax", {11}}, {"Identity", {13, 14, 16}}, {"If", {11, 13, 16}},
        {"Loop", {11, 13, 16}}, {"Scan", {11, 16}}, {"IsNaN", {13}}, {"LRN", {13}}, {"LeakyRelu", {16}},
        {"Log", {13}}, {"LpPool", {11}}, {"MatMul", {9, 13}}, {"Max", {8, 12, 13}}, {"Min", {8, 12, 13}},
        {"Mean", {8, 13}}, {"Sum", {8, 13}}, {"MaxPool", {8, 10, 11, 12}}, {"MaxUnpool", {11}},
        {"MeanVarianceNormalization", {13}}, {"Mod", {13}}, {"Neg", {13}}, {"NonMaxSuppression", {11}},
        {"NonZero", {13}}, {"OneHot", {11}}, {"Compress", {11}}, {"PRelu", {9, 16}}, {"Pad", {13}},
        {"Pow", {12, 13, 15}}, {"QuantizeLinear", {13}}, {"Reciprocal", {13}}, {"ReduceL1", {11, 13}},
        {"ReduceL2", {11, 13}}, {"ReduceLogSum", {11, 13}}, {"ReduceLogSumExp", {11, 13}},
        {"ReduceMax", {11, 12, 13}}, {"ReduceMean", {11, 13}}, {"ReduceMin", {11, 12, 13}},
        {"ReduceProd", {11, 13}}, {"ReduceSum", {11}}, {"ReduceSumSquare", {11, 13}}, {"Relu", {13, 14}},
        {"Reshape", {13, 14}}, {"Resize", {13}}, {"ScatterElements", {13, 16}}, {"ScatterND", {13, 16}},
        {"Shape", {13, 15}}, {"Sigmoid", {13}}, {"Sign", {13}}, {"Size", {13}}, {"Slice", {11, 13}},
        {"SpaceToDepth", {13}}, {"Split", {11}}, {"Sqrt", {13}}, {"Squeeze", {11}}, {"Unsqueeze", {11}},
        {"Tanh", {13}}, {"Tile", {13}}, {"TopK", {11}}, {"Transpose", {13}}, {"Where", {16}}};
    for (const auto& [op, versions] : same)
      for (int64_t v : versions) m[{op, v}] = nullptr;
    // Attributes that became inputs.
    m[{"Squeeze", 13}] = intsToInput("axes", 1);
    m[{"Unsqueeze", 13}] = intsToInput("axes", 1);
    m[{"ReduceSum", 13}] = intsToInput("axes", 1);
    m[{"Split", 13}] = intsToInput("split", 1);
    m[{"Slice", 10}] = [](Node& n, Graph& g, const GraphIndex&, bool apply) -> std::string {
      if (!n.attr("starts") || !n.attr("ends")) return "no starts/ends";
      if (!apply) return {};
      auto axes = n.attrInts("axes");
      attrToInput(n, g, true, "starts", 1, ints(n.attrInts("starts")));
      attrToInput(n, g, true, "ends", 2, ints(n.attrInts("ends")));
      if (n.attr("axes")) attrToInput(n, g, true, "axes", 3, ints(axes));
      return {};
    };
    m[{"TopK", 10}] = [](Node& n, Graph& g, const GraphIndex&, bool apply) -> std::string {
      const Attribute* k = n.attr("k");
      if (!k) return "no k";
      return attrToInput(n, g, apply, "k", 1, ints({k->i}));
    };
    m[{"Clip", 11}] = [](Node& n, Graph& g, const GraphIndex& idx, bool apply) -> std::string {
      DType t = idx.dtype(n.input(0));
      if (!scalarFloatType(t)) return "input type unknown";
      if (!apply) return {};
      for (auto [attr, pos] : {std::pair<const char*, size_t>{"min", 1}, {"max", 2}})
        if (const Attribute* a = n.attr(attr)) attrToInput(n, g, true, attr, pos, Tensor::fromDoubles({}, t, {}, {double(a->f)}));
      return {};
    };
    m[{"Pad", 11}] = [](Node& n, Graph& g, const GraphIndex& idx, bool apply) -> std::string {
      const Attribute* pads = n.attr("pads");
      if (!pads) return "no pads";
      DType t = idx.dtype(n.input(0));
      const Attribute* value = n.attr("value");
      if (value && value->f != 0 && !scalarFloatType(t)) return "input type unknown";
      if (!apply) return {};
      attrToInput(n, g, true, "pads", 1, ints(pads->ints));
      if (value && value->f != 0) attrToInput(n, g, true, "value", 2, Tensor::fromDoubles({}, t, {}, {double(value->f)}));
      n.removeAttr("value");
      return {};
    };
    m[{"Dropout", 10}] = [](Node& n, Graph&, const GraphIndex& idx, bool) -> std::string {
      if (n.outputs.size() > 1 && !n.outputs[1].empty() && idx.consumerCount(n.outputs[1])) return "mask output in use";
      return {};
    };
    m[{"Dropout", 12}] = [](Node& n, Graph& g, const GraphIndex&, bool apply) -> std::string {
      const Attribute* r = n.attr("ratio");
      if (!r) return {};
      return attrToInput(n, g, apply, "ratio", 1, Tensor::fromDoubles({}, DType::Float, {}, {double(r->f)}));
    };
    m[{"BatchNormalization", 9}] = [](Node& n, Graph&, const GraphIndex&, bool apply) -> std::string {
      if (n.attrInt("spatial", 1) != 1) return "spatial=0";
      if (apply) n.removeAttr("spatial");
      return {};
    };
    m[{"BatchNormalization", 14}] = [](Node& n, Graph&, const GraphIndex&, bool) -> std::string {
      for (size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) return "training outputs";
      return {};
    };
    for (std::string_view op : {"Softmax", "LogSoftmax", "Hardmax"}) m[{op, 13}] = lastAxisOnly;
    m[{"RoiAlign", 16}] = [](Node& n, Graph&, const GraphIndex&, bool apply) -> std::string {
      if (apply && !n.attr("coordinate_transformation_mode"))
        n.setAttr(Attribute::makeString("coordinate_transformation_mode", "output_half_pixel"));
      return {};
    };
    return m;
  }();
  return t;
}

// The versions at which `op`'s definition changed in (from, to].
std::vector<int64_t> changes(std::string_view op, int64_t from, int64_t to) {
  std::vector<int64_t> out;
  int64_t last = opSchemaVersion(op, {}, from).since;
  for (int64_t o = from + 1; o <= to; ++o) {
    int64_t s = opSchemaVersion(op, {}, o).since;
    if (s != last) out.push_back(s);
    last = s;
  }
  return out;
}

// Checks (apply = false) or converts every default-domain node of `g` and its subgraphs.
Status visit(Graph& g, int64_t from, int64_t to, bool apply, std::vector<std::string>& converted) {
  std::optional<GraphIndex> idx(std::in_place, g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    for (Attribute& a : n.attributes)
      for (Graph& sub : a.graphs)
        if (auto s = visit(sub, from, to, apply, converted); !s) return s;
    if (!n.isDefaultDomain()) continue;
    auto node = "'" + n.name + "' (" + n.opType + ")";
    if (opSchemaVersion(n.opType, {}, from).since == 0)
      return Error::model("cannot raise the opset: " + node + " is not an opset-" + std::to_string(from) + " operator");
    if (opSchemaVersion(n.opType, {}, to).deprecated)
      return Error::model("cannot raise the opset: " + node + " is deprecated in opset " + std::to_string(to));
    for (int64_t v : changes(n.opType, from, to)) {
      auto it = table().find({n.opType, v});
      if (it == table().end())
        return Error::model("cannot raise the opset from " + std::to_string(from) + " to " + std::to_string(to) + ": " +
                            node + " changed meaning in opset " + std::to_string(v));
      if (!it->second) continue;
      if (apply) idx.emplace(g);  // a conversion adds initializers: the index must see the graph as it is
      std::string why = it->second(n, g, *idx, apply);
      if (!why.empty())
        return Error::model("cannot raise the opset to " + std::to_string(to) + ": " + node + " (opset " +
                            std::to_string(v) + "): " + why);
      if (apply) converted.push_back(n.opType + " '" + n.name + "' converted for opset " + std::to_string(v));
    }
  }
  return Ok{};
}

}  // namespace

std::string OpsetRaise::note() const {
  return "opset raised from " + std::to_string(from) + " to " + std::to_string(to);
}

Result<OpsetRaise> raiseOpset(Model& model, int64_t target) {
  OpsetRaise r;
  r.from = model.opset();
  r.to = std::max(r.from, target);
  if (r.from >= target) return r;
  if (target > maxKnownOpset())
    return Error::model("cannot raise the opset to " + std::to_string(target) + ": ONNX " +
                        std::to_string(maxKnownOpset()) + " is the newest this build can check");
  if (r.from < 7) return Error::model("cannot raise the opset from " + std::to_string(r.from) + ": older than 7 (legacy broadcasting)");
  std::vector<std::string> none;
  if (auto s = visit(model.graph, r.from, target, false, none); !s) return s.error();
  if (auto s = visit(model.graph, r.from, target, true, r.converted); !s) return s.error();
  model.setOpset({}, target);
  // IR version each opset needs: 13–14 → 7, 15–17 → 8.
  const int64_t ir = target >= 15 ? 8 : target >= 13 ? 7 : target >= 11 ? 6 : 5;
  if (model.irVersion < ir) model.irVersion = ir;
  return r;
}

}  // namespace msa
