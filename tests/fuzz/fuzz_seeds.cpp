// msa-fuzz-seeds OUT TESTDATA MODELS: gathers small, varied ONNX files as the fuzzer's seeds.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "model/onnx_io.h"
#include "model_presets.h"

namespace fs = std::filesystem;

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
  for (const auto& e : fs::directory_iterator(argv[3], ec))
    if (e.path().extension() == ".onnx" && fs::file_size(e.path()) <= 64 * 1024) {
      fs::copy_file(e.path(), out / ("corpus_" + e.path().filename().string()), fs::copy_options::overwrite_existing, ec);
      ++n;
    }
  std::printf("%d seeds in %s\n", n, out.c_str());
  return 0;
}
