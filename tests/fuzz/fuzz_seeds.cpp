// msa-fuzz-seeds OUT TESTDATA MODELS: gathers small, varied ONNX files as the fuzzer's seeds:
// the builder's presets, ONNX's backend test models, the corpus files up to 64 KiB, and the larger
// corpus models (real exports: ResNet, BERT, ViT, OCR, VAD) without their weights.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "model/onnx_io.h"
#include "model_presets.h"

namespace fs = std::filesystem;

namespace {

// Large tensors (initializers, Constant values) of g and its subgraphs become inputs of the
// top-level graph (subgraphs see outer-scope values), so the file stays a valid, shape-inferable
// model; small ones (shape operands, axes) stay, they steer shape inference.
void hoistWeights(msa::Graph& g, msa::Graph& top) {
  constexpr int64_t kSmall = 64;
  auto addInput = [&](const std::string& name, const msa::Tensor& t) {
    top.inputs.push_back({name, msa::TypeInfo::tensor(t.dtype, msa::Shape::of(t.dims)), {}, {}});
  };
  std::vector<msa::Tensor> kept;
  for (msa::Tensor& t : g.initializers) {
    if (t.numElements() <= kSmall) kept.push_back(std::move(t));
    else addInput(t.name, t);
  }
  g.initializers = std::move(kept);
  std::vector<msa::NodeId> constants;
  for (msa::Node& n : g.nodes) {
    const msa::Attribute* value = n.attr("value");
    if (n.opType == "Constant" && n.isDefaultDomain() && n.outputs.size() == 1 && value &&
        value->type == msa::AttrType::Tensor && value->tensors.size() == 1 && value->tensors[0].numElements() > kSmall) {
      addInput(n.outputs[0], value->tensors[0]);
      constants.push_back(n.id);
    }
    for (msa::Attribute& a : n.attributes)
      for (msa::Graph& sub : a.graphs) hoistWeights(sub, top);
  }
  g.removeNodes(constants);
}

// A real model's graph as a seed: its weights (megabytes the fuzzer would spend its time
// flipping) hoisted into graph inputs.
bool writeStructure(const fs::path& from, const fs::path& to) {
  auto model = msa::loadModel(from);
  if (!model) {
    std::fprintf(stderr, "%s: not a seed: %s\n", from.c_str(), model.error().describe().c_str());
    return false;
  }
  hoistWeights(model->graph, model->graph);
  auto bytes = msa::serializeModel(*model);
  if (bytes && bytes->size() > 256 * 1024) {  // the intermediate shapes are inferred again anyway
    model->graph.valueInfo.clear();
    bytes = msa::serializeModel(*model);
  }
  if (!bytes || bytes->size() > 256 * 1024) {  // above the fuzzers' -max_len
    std::fprintf(stderr, "%s: not a seed: %zu bytes without its weights\n", from.c_str(), bytes ? bytes->size() : 0);
    return false;
  }
  std::ofstream(to, std::ios::binary) << *bytes;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: msa-fuzz-seeds OUT TESTDATA MODELS\n");
    return 1;
  }
  const fs::path out = argv[1];
  fs::create_directories(out);
  int n = 0;
  for (const auto& p : msa::test::presets::all()) {
    auto bytes = msa::serializeModel(p.model);
    if (!bytes) continue;
    std::ofstream(out / ("preset_" + p.name + ".onnx"), std::ios::binary) << *bytes;
    ++n;
  }
  std::error_code ec;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"})
    for (const auto& e : fs::directory_iterator(fs::path(argv[2]) / suite, ec)) {
      fs::path model = e.path() / "model.onnx";
      if (!fs::exists(model) || fs::file_size(model) > 64 * 1024) continue;
      fs::copy_file(model, out / (std::string(suite) + "_" + e.path().filename().string() + ".onnx"),
                    fs::copy_options::overwrite_existing, ec);
      ++n;
    }
  for (const auto& e : fs::directory_iterator(argv[3], ec)) {
    if (e.path().extension() != ".onnx") continue;
    if (fs::file_size(e.path()) <= 64 * 1024) {
      fs::copy_file(e.path(), out / ("corpus_" + e.path().filename().string()), fs::copy_options::overwrite_existing, ec);
      ++n;
    } else if (writeStructure(e.path(), out / ("corpus_structure_" + e.path().filename().string()))) {
      ++n;
    }
  }
  std::printf("%d seeds in %s\n", n, out.c_str());
  return 0;
}
