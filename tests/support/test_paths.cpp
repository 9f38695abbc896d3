#include "test_paths.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace fs = std::filesystem;

namespace msa::test {

fs::path modelsDir() { return MSA_TEST_MODELS_DIR; }
bool hasCorpus() { return fs::exists(modelsDir() / "MANIFEST.md"); }
fs::path corpusModel(const std::string& fileName) { return modelsDir() / fileName; }

std::vector<fs::path> corpusModels() {
  std::vector<fs::path> out;
  if (!hasCorpus()) return out;
  for (const auto& e : fs::directory_iterator(modelsDir()))
    if (e.path().extension() == ".onnx") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path onnxTestData() { return MSA_ONNX_TESTDATA; }
fs::path realProfilesDir() { return MSA_REAL_PROFILES_DIR; }
fs::path binaryDir() { return MSA_BINARY_DIR; }
fs::path sourceDir() { return MSA_SOURCE_DIR; }
fs::path cliPath() { return binaryDir() / "app" / "cli" / "msadvisor-cli"; }

TempDir::TempDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  m_path = binaryDir() / "test-tmp" / (tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(m_path);
  fs::create_directories(m_path);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

}  // namespace msa::test
