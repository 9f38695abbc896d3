// msa-make-examples OUTDIR: writes the bundled example models (tiny_yolo.onnx,
// tiny_transformer.onnx). Same bytes on every run: the weights come from fixed seeds.
#include <cstdio>
#include <filesystem>

#include "example_models.h"
#include "model/onnx_io.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: msa-make-examples OUTDIR\n");
    return 1;
  }
  fs::path dir = argv[1];
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", dir.c_str(), ec.message().c_str());
    return 2;
  }
  msa::SaveOptions o;
  o.external = msa::SaveOptions::External::Never;
  const std::pair<const char*, msa::Model (*)()> models[] = {
      {"tiny_yolo.onnx", msa::test::examples::tinyYolo},
      {"tiny_transformer.onnx", msa::test::examples::tinyTransformer},
  };
  for (const auto& [name, make] : models) {
    msa::Model m = make();
    fs::path out = dir / name;
    auto bytes = msa::serializeModel(m, o);
    if (!bytes) {
      std::fprintf(stderr, "%s\n", bytes.error().describe().c_str());
      return 2;
    }
    if (auto s = msa::saveModel(m, out, o); !s) {
      std::fprintf(stderr, "%s\n", s.error().describe().c_str());
      return 2;
    }
    std::printf("wrote %s (%zu nodes, %zu bytes)\n", out.c_str(), m.graph.nodes.size(), bytes->size());
  }
  return 0;
}
