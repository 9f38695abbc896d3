#include "whatif/quantize_dynamic.h"

#include <map>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "whatif/quant_layers.h"
#include "whatif/quant_params.h"

namespace msa {

Result<QuantizedModel> quantizeDynamic(const Model& model, const DynamicQuantOptions& o) {
  if (model.opset() < 11) return Error::usage("dynamic quantization needs ai.onnx opset 11 or later (DynamicQuantizeLinear)");
  QuantizedModel out{model, {}};
  Graph& g = out.model.graph;
  const std::vector<QuantLayer> layers = quantizableLayers(g, false);
  NameSource names(g);
  std::map<std::string, std::vector<std::string>> quantizedInput;  // activation -> its DynamicQuantizeLinear outputs
  std::vector<NodeId> removed;
  std::vector<Node> added;
  std::vector<Tensor> weights;
  for (const QuantLayer& l : layers) {
    if (o.keepFloat.count(l.node)) continue;
    const Node* n = g.findNodeByName(l.node);
    const Tensor* w = g.findInitializer(l.weight);
    if (!n || !w) continue;
    const std::string& y = n->outputs[0];
    auto& aq = quantizedInput[l.input];
    if (aq.empty()) {
      // One DynamicQuantizeLinear per activation, shared by every layer that reads it (the
      // attention's Q, K and V projections of one LayerNorm output), as the runtime's quantizer does.
      aq = {names.fresh(l.input + "_quantized"), names.fresh(l.input + "_scale"), names.fresh(l.input + "_zero_point")};
      added.push_back(makeNode("DynamicQuantizeLinear", {l.input}, aq, names.fresh(l.input + "_DynamicQuantizeLinear")));
    }
    // The weight as [K, N], quantized per output column (axis 1) or per tensor.
    Tensor kn = l.transB ? transposed2D(*w) : *w;
    if (l.alpha != 1.0f) {
      std::vector<float> v = floatValues(kn);
      for (float& x : v) x *= l.alpha;
      kn = Tensor::fromValues(kn.name, DType::Float, kn.dims, v);
    }
    WeightQuant q = quantizeWeight(kn, o.perChannel ? 1 : -1, l.weight);
    for (Tensor* t : {&q.values, &q.scales, &q.zeroPoints}) {
      t->name = names.fresh(t->name);
      weights.push_back(*t);
    }
    const std::string base = l.node;
    const std::string acc = names.fresh(y + "_int32"), accf = names.fresh(y + "_int32_float"),
                      scale = names.fresh(y + "_scale");
    added.push_back(makeNode("MatMulInteger", {aq[0], q.values.name, aq[2], q.zeroPoints.name}, {acc},
                             names.fresh(base + "_MatMulInteger")));
    added.push_back(makeNode("Mul", {aq[1], q.scales.name}, {scale}, names.fresh(base + "_scales_Mul")));
    added.push_back(makeNode("Cast", {acc}, {accf}, names.fresh(base + "_output_Cast"),
                             {Attribute::makeInt("to", static_cast<int64_t>(DType::Float))}));
    if (l.bias.empty()) {
      added.push_back(makeNode("Mul", {accf, scale}, {y}, names.fresh(base + "_output_scale_Mul")));
    } else {
      std::string bias = l.bias;
      if (l.beta != 1.0f || g.findInitializer(l.bias)->dims.size() != 1) {
        std::vector<float> b = floatValues(*g.findInitializer(l.bias));
        for (float& x : b) x *= l.beta;
        Tensor t = Tensor::fromValues(names.fresh(l.bias + "_scaled"), DType::Float, {static_cast<int64_t>(b.size())}, b);
        bias = t.name;
        weights.push_back(std::move(t));
      }
      const std::string unbiased = names.fresh(y + "_before_bias");
      added.push_back(makeNode("Mul", {accf, scale}, {unbiased}, names.fresh(base + "_output_scale_Mul")));
      added.push_back(makeNode("Add", {unbiased, bias}, {y}, names.fresh(base + "_bias_Add")));
    }
    removed.push_back(n->id);
    out.layers.push_back(l.node);
  }
  g.removeNodes(removed);
  for (Tensor& t : weights) g.initializers.push_back(std::move(t));
  for (Node& n : added) g.addNode(std::move(n));
  g.sortTopologically();
  removeDeadCode(g);
  return out;
}

}  // namespace msa
