#include "whatif/runtime_variants.h"

#include <cstring>
#include <map>
#include <fstream>
#include <sstream>

#include "model/graph_index.h"
#include "model/rewrite.h"
#include "profile/model_inputs.h"
#include "whatif/quant_layers.h"
#include "whatif/quant_params.h"

namespace msa {

std::vector<std::pair<std::string, VariantSettings>> runtimeSettingVariants(int cores) {
  std::vector<std::pair<std::string, VariantSettings>> out;
  std::vector<int> counts;
  for (int t = 1; t < cores && counts.size() < 7; t *= 2) counts.push_back(t);
  for (int t : counts) {
    VariantSettings s;
    s.threads = t;
    out.emplace_back("threads_" + std::to_string(t), s);
  }
  VariantSettings noSpin;
  noSpin.spinning = false;
  out.emplace_back("spinning_off", noSpin);
  VariantSettings parallel;
  parallel.parallelExecution = true;
  out.emplace_back("parallel_execution", parallel);
  return out;
}

std::string_view batchDimName(BatchDim d) {
  switch (d) {
    case BatchDim::Symbolic: return "symbolic";
    case BatchDim::MadeSymbolic: return "made_symbolic";
    case BatchDim::Fixed: return "fixed";
    case BatchDim::None: break;
  }
  return "none";
}

BatchDim batchDimOf(const Model& model) {
  const auto inputs = runtimeInputs(model.graph);
  if (inputs.empty()) return BatchDim::None;
  bool allSymbolic = true, allOne = true;
  for (const ValueInfo* in : inputs) {
    if (!in->type.shape || in->type.shape->dims.empty()) return BatchDim::None;
    const Dim& d = in->type.shape->dims[0];
    allSymbolic = allSymbolic && !d.known();
    allOne = allOne && d.known() && d.value == 1;
  }
  return allSymbolic ? BatchDim::Symbolic : allOne ? BatchDim::MadeSymbolic : BatchDim::Fixed;
}

Model withSymbolicBatch(const Model& model) {
  Model m = model;
  auto symbolic = [](ValueInfo& v) {
    if (v.type.shape && !v.type.shape->dims.empty()) v.type.shape->dims[0] = Dim{-1, "batch"};
  };
  std::set<std::string, std::less<>> initializers;
  for (const Tensor& t : m.graph.initializers) initializers.insert(t.name);
  for (ValueInfo& v : m.graph.inputs)
    if (!initializers.count(v.name)) symbolic(v);
  for (ValueInfo& v : m.graph.outputs) symbolic(v);
  m.graph.valueInfo.clear();  // inferred at batch 1: the runtime infers them again
  return m;
}

std::vector<DataValue> stackSamples(const std::vector<std::vector<DataValue>>& samples, int batch) {
  std::vector<DataValue> out;
  if (samples.empty()) return out;
  for (size_t k = 0; k < samples.front().size(); ++k) {
    const Tensor& first = samples.front()[k].tensor;
    std::string bytes;
    for (int i = 0; i < batch; ++i) bytes += samples[static_cast<size_t>(i) % samples.size()][k].tensor.raw();
    Tensor t = first;
    if (!t.dims.empty()) t.dims[0] *= batch;
    t.data = TensorBytes::owned(std::move(bytes));
    out.push_back(DataValue::of(std::move(t)));
    out.back().name = samples.front()[k].name;
  }
  return out;
}

std::vector<std::vector<DataValue>> splitItems(const std::vector<DataValue>& outputs, int batch) {
  std::vector<std::vector<DataValue>> items(static_cast<size_t>(batch));
  for (const DataValue& v : outputs) {
    const Tensor& t = v.tensor;
    const bool split = v.kind == DataValue::Kind::Tensor && !t.dims.empty() && t.dims[0] == batch;
    const size_t itemBytes = split ? t.raw().size() / static_cast<size_t>(batch) : 0;
    for (int i = 0; i < batch; ++i) {
      DataValue item = v;
      if (split) {
        item.tensor.dims[0] = 1;
        item.tensor.data = TensorBytes::owned(std::string(t.raw().substr(static_cast<size_t>(i) * itemBytes, itemBytes)));
      }
      items[static_cast<size_t>(i)].push_back(std::move(item));
    }
  }
  return items;
}

bool cpuHasBf16() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;)
      if (w == "avx512_bf16" || w == "amx_bf16") return true;
    return false;
  }
  return false;
}

Model bf16Variant(const Model& model, std::set<std::string, std::less<>>* nodes) {
  Model m = model;
  Graph& g = m.graph;
  NameSource names(g);
  std::vector<Node> added;
  const auto layers = quantizableLayers(g, true);
  std::map<std::string, std::string> castInputs;  // float activation -> its bfloat16 copy
  for (const QuantLayer& l : layers) {
    Node* n = nullptr;
    for (Node& x : g.nodes)
      if (x.name == l.node) n = &x;
    if (!n) continue;
    auto& cast = castInputs[l.input];
    if (cast.empty()) {
      cast = names.fresh(l.input + "_bf16");
      added.push_back(makeNode("Cast", {l.input}, {cast}, names.fresh(l.input + "_Cast_bf16"),
                               {Attribute::makeInt("to", static_cast<int64_t>(DType::BFloat16))}));
    }
    n->inputs[0] = cast;
    // Weights (and bias) stored in bfloat16.
    for (size_t k = 1; k < n->inputs.size() && k < 3; ++k) {
      if (n->inputs[k].empty()) continue;
      const Tensor* w = g.findInitializer(n->inputs[k]);
      if (!w) continue;
      const std::vector<double> v = w->toDouble();
      Tensor t = Tensor::fromDoubles(names.fresh(n->inputs[k] + "_bf16"), DType::BFloat16, w->dims, v);
      n->inputs[k] = t.name;
      g.initializers.push_back(std::move(t));
    }
    const std::string y = n->outputs[0], yb = names.fresh(y + "_bf16");
    n->outputs[0] = yb;
    added.push_back(makeNode("Cast", {yb}, {y}, names.fresh(y + "_Cast_float"),
                             {Attribute::makeInt("to", static_cast<int64_t>(DType::Float))}));
    if (nodes) nodes->insert(l.node);
  }
  for (Node& n : added) g.addNode(std::move(n));
  g.sortTopologically();
  g.valueInfo.clear();
  removeDeadCode(g);
  return m;
}

}  // namespace msa
