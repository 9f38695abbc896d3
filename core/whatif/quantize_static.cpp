#include "whatif/quantize_static.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "whatif/quant_params.h"

namespace msa {
namespace {

// Ops with an int8 kernel on ONNX Runtime's CPU provider that read activations only (QLinearAdd,
// QLinearMul, QLinearConcat, QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool,
// QLinearGlobalAveragePool), quantized when an int8 node feeds them.
bool neighbourOp(const Node& n) {
  static const std::set<std::string, std::less<>> ops = {"Add", "Mul", "Concat", "AveragePool", "GlobalAveragePool",
                                                         "Sigmoid", "LeakyRelu"};
  return n.isDefaultDomain() && ops.count(n.opType);
}

// Ops that move uint8 values as they move floats (their Q/DQ dropped at load), on input 0.
bool movingOp(const Node& n) {
  static const std::set<std::string, std::less<>> ops = {"MaxPool", "Resize", "Reshape", "Transpose", "Flatten",
                                                         "Squeeze", "Unsqueeze", "Slice", "Expand", "Tile"};
  return n.isDefaultDomain() && ops.count(n.opType) && n.outputs.size() == 1;
}

bool isFloatActivation(const GraphIndex& idx, const std::string& v) {
  return !v.empty() && !idx.constant(v) && idx.dtype(v) == DType::Float;
}

// A Relu, or a Clip from 0 (to 6 or anything): quantized from 0, its output needs no Relu/Clip.
bool absorbableActivation(const GraphIndex& idx, const Node& n) {
  if (!n.isDefaultDomain()) return false;
  if (n.opType == "Relu") return true;
  if (n.opType != "Clip") return false;
  double lo = n.attrFloat("min", -3.4e38f);
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = idx.constant(n.inputs[1]);
    if (!t || !t->scalar()) return false;
    lo = *t->scalar();
  }
  return lo == 0.0;
}

}  // namespace

StaticPlan planStatic(const Model& model, const std::set<std::string, std::less<>>& keepFloat) {
  const Graph& g = model.graph;
  GraphIndex idx(g);
  StaticPlan plan;
  std::unordered_map<std::string, QuantLayer> layers;
  std::unordered_set<std::string> floatLayers;
  for (QuantLayer& l : quantizableLayers(g, true)) {
    if (keepFloat.count(l.node)) floatLayers.insert(l.node);
    else layers.emplace(l.node, l);
  }
  const std::vector<size_t> order = g.topologicalOrder();
  auto producedInt8 = [&](const std::string& v) {
    const Node* p = idx.producerNode(v);
    return p && plan.nodes.count(p->name);
  };
  // A layer kept in float must not sit between a DequantizeLinear and a QuantizeLinear: ONNX
  // Runtime would quantize its weights itself at load (WeightBiasQuantization). Nothing reading
  // its output is quantized.
  auto producedByFloatLayer = [&](const std::string& v) {
    const Node* p = idx.producerNode(v);
    return p && floatLayers.count(p->name);
  };
  // Which nodes run in int8, in execution order (a neighbour needs its producer decided first).
  std::vector<const Node*> int8Nodes;
  for (size_t i : order) {
    const Node& n = g.nodes[i];
    bool int8 = false;
    if (layers.count(n.name)) {
      int8 = true;
    } else if (neighbourOp(n)) {
      bool allActivations = !n.inputs.empty(), anyInt8 = false, floatInput = false;
      for (const auto& in : n.inputs) {
        allActivations = allActivations && isFloatActivation(idx, in);
        anyInt8 = anyInt8 || producedInt8(in);
        floatInput = floatInput || producedByFloatLayer(in);
      }
      int8 = allActivations && anyInt8 && !floatInput && isFloatActivation(idx, n.outputs[0]);
    } else if (movingOp(n)) {
      int8 = isFloatActivation(idx, n.inputs[0]) && producedInt8(n.inputs[0]);
    } else if (absorbableActivation(idx, n)) {
      // Written through by the int8 layer or neighbour before it when it is that node's only
      // reader: the node's output is quantized from 0 and the runtime drops the Relu/Clip.
      const Node* p = idx.producerNode(n.inputs[0]);
      if (p && plan.nodes.count(p->name) && !movingOp(*p) && !absorbableActivation(idx, *p) &&
          idx.consumerCount(n.inputs[0]) == 1 && !idx.isGraphOutput(n.inputs[0]) && isFloatActivation(idx, n.outputs[0])) {
        plan.absorbed[p->name] = n.name;
        int8 = true;
      }
    }
    if (int8) {
      plan.nodes.insert(n.name);
      int8Nodes.push_back(&n);
    }
  }
  std::unordered_set<std::string> absorbedActs;
  for (const auto& [producer, act] : plan.absorbed) absorbedActs.insert(act);
  std::unordered_set<std::string> planned;
  auto own = [&](const std::string& t) {
    if (idx.isGraphOutput(t) || plan.sameAs.count(t) || producedByFloatLayer(t)) return;
    if (planned.insert(t).second) plan.tensors.push_back(t);
  };
  auto anyInt8Consumer = [&](const std::string& v) {
    for (const Use& u : idx.consumers(v))
      if (plan.nodes.count(g.nodes[u.node].name)) return true;
    return false;
  };
  for (const Node* n : int8Nodes) {
    const std::string& out = n->outputs[0];
    const bool writesThrough = plan.absorbed.count(n->name) > 0;  // its Relu/Clip's output is the quantized one
    if (auto l = layers.find(n->name); l != layers.end()) {
      own(l->second.input);
      if (!writesThrough && (n->opType == "Conv" || anyInt8Consumer(out))) own(out);
      plan.layers.push_back(l->second);
    } else if (absorbedActs.count(n->name)) {
      own(out);  // its input (the node's output) stays unquantized: the runtime drops the Relu/Clip
    } else if (movingOp(*n)) {
      const std::string& in = n->inputs[0];
      own(in);
      if (!idx.isGraphOutput(out)) {
        auto root = plan.sameAs.find(in);
        plan.sameAs[out] = root != plan.sameAs.end() ? root->second : in;
      }
    } else {
      for (const auto& in : n->inputs) own(in);
      if (!writesThrough) own(out);
    }
  }
  return plan;
}

std::vector<std::string> calibrationTensors(const StaticPlan& plan) {
  std::vector<std::string> out = plan.tensors;
  for (const auto& [t, root] : plan.sameAs) out.push_back(t);
  return out;
}

namespace {

// Inserts a QuantizeLinear → DequantizeLinear pair on activation `t` (in the graph being built):
// its producer then writes "<t>_float" and the pair writes `t` again, so every reader sees the
// quantized values. A graph input (or output) keeps its name: the pair writes "<t>_dequantized"
// and the int8 readers (`readers`; every reader for a graph input) are pointed at it.
struct QdqInserter {
  Graph& g;
  NameSource& names;
  std::vector<Node>& added;
  std::vector<Tensor>& inits;

  void operator()(const std::string& t, const ActivationQuant& q, const std::set<std::string, std::less<>>& readers) {
    const std::string scale = names.fresh(t + "_scale"), zp = names.fresh(t + "_zero_point"), quantized = names.fresh(t + "_quantized");
    inits.push_back(scalarFloat(scale, q.scale));
    inits.push_back(scalarUint8(zp, q.zeroPoint));
    std::string source = t, target = t;
    if (g.isGraphInput(t) || g.isGraphOutput(t)) {
      target = names.fresh(t + "_dequantized");
      const bool input = g.isGraphInput(t);
      for (Node& n : g.nodes)
        if (input || readers.count(n.name))
          for (auto& in : n.inputs)
            if (in == t) in = target;
    } else {
      source = names.fresh(t + "_float");
      for (Node& n : g.nodes)
        for (auto& o : n.outputs)
          if (o == t) o = source;
    }
    added.push_back(makeNode("QuantizeLinear", {source, scale, zp}, {quantized}, names.fresh(t + "_QuantizeLinear")));
    added.push_back(makeNode("DequantizeLinear", {quantized, scale, zp}, {target}, names.fresh(t + "_DequantizeLinear")));
  }
};

// The weight (and bias) of a layer behind DequantizeLinear nodes; returns their outputs.
struct DequantizedWeights {
  std::string weight, bias;
};
DequantizedWeights dequantizedWeights(const Graph& g, const QuantLayer& l, double inputScale, bool perChannel,
                                      NameSource& names, std::vector<Node>& added, std::vector<Tensor>& inits) {
  DequantizedWeights out;
  const Tensor* w = g.findInitializer(l.weight);
  WeightQuant q = quantizeWeight(*w, perChannel ? l.channelAxis : -1, l.weight);
  for (Tensor* t : {&q.values, &q.scales, &q.zeroPoints}) t->name = names.fresh(t->name);
  out.weight = names.fresh(l.weight + "_dequantized");
  std::vector<Attribute> axis;
  if (q.axis >= 0) axis.push_back(Attribute::makeInt("axis", q.axis));
  added.push_back(makeNode("DequantizeLinear", {q.values.name, q.scales.name, q.zeroPoints.name}, {out.weight},
                           names.fresh(l.weight + "_DequantizeLinear"), axis));
  for (Tensor* t : {&q.values, &q.scales, &q.zeroPoints}) inits.push_back(std::move(*t));
  if (!l.bias.empty() && l.alpha == 1.0f && l.beta == 1.0f) {
    const Tensor* b = g.findInitializer(l.bias);
    const size_t channels = static_cast<size_t>(b->numElements());
    Tensor bq = quantizeBias(*b, inputScale, q.scaleValues, names.fresh(l.bias + "_quantized"));
    bq.dims = {static_cast<int64_t>(channels)};
    Tensor bs = biasScales(channels, inputScale, q.scaleValues, names.fresh(l.bias + "_scale"));
    Tensor bz = Tensor::fromValues(names.fresh(l.bias + "_zero_point"), DType::Int32, {static_cast<int64_t>(channels)},
                                   std::vector<int32_t>(channels, 0));
    out.bias = names.fresh(l.bias + "_dequantized");
    added.push_back(makeNode("DequantizeLinear", {bq.name, bs.name, bz.name}, {out.bias}, names.fresh(l.bias + "_DequantizeLinear"),
                             {Attribute::makeInt("axis", 0)}));
    inits.push_back(std::move(bq));
    inits.push_back(std::move(bs));
    inits.push_back(std::move(bz));
  }
  return out;
}

const Range* rangeOf(const StaticPlan& plan, const std::map<std::string, Range>& ranges, const std::string& t) {
  auto s = plan.sameAs.find(t);
  auto r = ranges.find(s != plan.sameAs.end() ? s->second : t);
  return r == ranges.end() ? nullptr : &r->second;
}

}  // namespace

Result<QuantizedModel> quantizeStatic(const Model& model, const StaticPlan& plan, const std::map<std::string, Range>& ranges) {
  if (model.opset() < 13) return Error::usage("static QDQ quantization needs ai.onnx opset 13 or later (per-axis DequantizeLinear)");
  QuantizedModel out{model, {}};
  Graph& g = out.model.graph;
  NameSource names(g);
  std::vector<Node> added;
  std::vector<Tensor> inits;
  QdqInserter insert{g, names, added, inits};
  std::vector<std::string> all = plan.tensors;
  for (const auto& [t, root] : plan.sameAs) all.push_back(t);
  for (const std::string& t : all) {
    const Range* r = rangeOf(plan, ranges, t);
    if (!r) return Error::usage("static quantization: no calibrated range for '" + t + "'");
    insert(t, activationQuant(r->lo, r->hi), plan.nodes);
  }
  for (const QuantLayer& l : plan.layers) {
    const Range* r = rangeOf(plan, ranges, l.input);
    if (!r) return Error::usage("static quantization: no calibrated range for '" + l.input + "'");
    const DequantizedWeights d = dequantizedWeights(g, l, activationQuant(r->lo, r->hi).scale, true, names, added, inits);
    for (Node& n : g.nodes) {
      if (n.name != l.node) continue;
      n.inputs[1] = d.weight;
      if (!d.bias.empty()) n.inputs[2] = d.bias;
    }
    out.layers.push_back(l.node);
  }
  for (Tensor& t : inits) g.initializers.push_back(std::move(t));
  for (Node& n : added) g.addNode(std::move(n));
  g.sortTopologically();
  removeDeadCode(g);
  return out;
}

Result<ShadowModel> shadowModel(const Model& model, ShadowKind kind, const std::vector<QuantLayer>& layers,
                                const StaticPlan* plan, const std::map<std::string, Range>* ranges, bool perChannel) {
  if (kind == ShadowKind::Static && (!plan || !ranges)) return Error::usage("a static shadow needs the plan and its ranges");
  ShadowModel out{model, {}};
  Graph& g = out.model.graph;
  NameSource names(g);
  std::vector<Node> added;
  std::vector<Tensor> inits;
  std::vector<std::string> exposed;
  auto rangeFor = [&](const std::string& t) { return plan ? rangeOf(*plan, *ranges, t) : nullptr; };
  // A fake-quantized copy of `t` (QDQ at its range); `t` itself when it has none.
  auto fakeQuant = [&](const std::string& t, const Range* r) {
    if (!r) return t;
    const ActivationQuant q = activationQuant(r->lo, r->hi);
    const std::string scale = names.fresh(t + "_shadow_scale"), zp = names.fresh(t + "_shadow_zero_point"),
                      qv = names.fresh(t + "_shadow_quantized"), dq = names.fresh(t + "_shadow_dequantized");
    inits.push_back(scalarFloat(scale, q.scale));
    inits.push_back(scalarUint8(zp, q.zeroPoint));
    added.push_back(makeNode("QuantizeLinear", {t, scale, zp}, {qv}, names.fresh(t + "_shadow_QuantizeLinear")));
    added.push_back(makeNode("DequantizeLinear", {qv, scale, zp}, {dq}, names.fresh(t + "_shadow_DequantizeLinear")));
    return dq;
  };
  std::unordered_map<std::string, const Node*> byName;
  for (const Node& n : model.graph.nodes) byName[n.name] = &n;
  for (const QuantLayer& l : layers) {
    auto it = byName.find(l.node);
    if (it == byName.end()) continue;
    const Node& n = *it->second;
    std::string x;
    double inputScale = 1;
    if (kind == ShadowKind::Static) {
      const Range* r = rangeFor(l.input);
      if (!r) return Error::usage("sensitivity: no calibrated range for '" + l.input + "'");
      x = fakeQuant(l.input, r);
      inputScale = activationQuant(r->lo, r->hi).scale;
    } else {
      const std::string q = names.fresh(l.input + "_shadow_quantized"), s = names.fresh(l.input + "_shadow_scale"),
                        z = names.fresh(l.input + "_shadow_zero_point");
      x = names.fresh(l.input + "_shadow_dequantized");
      added.push_back(makeNode("DynamicQuantizeLinear", {l.input}, {q, s, z}, names.fresh(l.input + "_shadow_DynamicQuantizeLinear")));
      added.push_back(makeNode("DequantizeLinear", {q, s, z}, {x}, names.fresh(l.input + "_shadow_DequantizeLinear")));
    }
    QuantLayer shadowLayer = l;
    // A dynamic layer's bias stays float; a static one's is int32 at the input's scale.
    if (kind == ShadowKind::Dynamic) shadowLayer.bias.clear();
    const DequantizedWeights d = dequantizedWeights(model.graph, shadowLayer, inputScale, perChannel, names, added, inits);
    Node copy = n;
    copy.name = names.fresh(n.name + "_shadow");
    copy.inputs[0] = x;
    copy.inputs[1] = d.weight;
    if (!d.bias.empty()) copy.inputs[2] = d.bias;
    std::string reference = n.outputs[0];
    std::string shadow = names.fresh(reference + "_shadow");
    copy.outputs = {shadow};
    added.push_back(std::move(copy));
    if (kind == ShadowKind::Static) {
      if (auto a = plan->absorbed.find(l.node); a != plan->absorbed.end()) {
        const Node* act = byName.count(a->second) ? byName[a->second] : nullptr;
        if (!act) continue;
        Node actCopy = *act;
        actCopy.name = names.fresh(act->name + "_shadow");
        actCopy.inputs[0] = shadow;
        reference = act->outputs[0];
        shadow = names.fresh(reference + "_shadow");
        actCopy.outputs = {shadow};
        added.push_back(std::move(actCopy));
      }
      shadow = fakeQuant(shadow, rangeFor(reference));
    }
    out.pairs.push_back({l.node, reference, shadow});
    exposed.push_back(reference);
    exposed.push_back(shadow);
  }
  for (Tensor& t : inits) g.initializers.push_back(std::move(t));
  for (Node& n : added) g.addNode(std::move(n));
  g.sortTopologically();
  out.model = withOutputs(out.model, exposed);
  return out;
}

}  // namespace msa
