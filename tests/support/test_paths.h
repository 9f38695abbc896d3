#pragma once
// Where tests find their data. Paths are fixed at configure time by tests/CMakeLists.txt.
#include <filesystem>
#include <string>
#include <vector>

namespace msa::test {

std::filesystem::path modelsDir();         // the unpacked corpus (may be empty: see hasCorpus)
bool hasCorpus();
std::filesystem::path corpusModel(const std::string& fileName);  // modelsDir() / fileName
std::vector<std::filesystem::path> corpusModels();               // every *.onnx, sorted
std::filesystem::path onnxTestData();      // /usr/share/libonnx-testdata/data
// ../shared/real-profiles: real profiler output from real hardware (may be empty: not shipped)
std::filesystem::path realProfilesDir();
std::filesystem::path binaryDir();         // the build tree
std::filesystem::path sourceDir();
std::filesystem::path cliPath();           // the msadvisor-cli built with the tests

// A fresh empty directory under the build tree, removed when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& tag = "tmp");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

}  // namespace msa::test
