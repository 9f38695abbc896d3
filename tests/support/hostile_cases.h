#pragma once
// The catalogue of hostile inputs (docs/robustness.md): models and profiles a stranger could hand
// msadvisor, each with what every verb must do with it. One table drives the files (written from a
// seed, no binary blobs in the repository), the test that runs every verb on them
// (tests/corpus/tst_hostile_catalogue) and the table in the docs (msa-hostile-cases --markdown).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace msa::test {

// Verbs a case runs through: models go through info, estimate, analyze (ONNX Runtime on the
// CPU) and optimize --verify; profiles through profile --import and analyze --profile.
inline const std::vector<std::string> kModelVerbs{"info", "estimate", "analyze", "optimize"};
inline const std::vector<std::string> kProfileVerbs{"import", "analyze-profile"};

struct HostileCase {
  std::string id;    // "model.cycle": stable, the docs' row key
  std::string what;  // one line for the docs
  std::string file;  // written under the catalogue folder (a file or a folder)
  bool profile = false;
  std::vector<std::string> extraArgs;  // given to every verb (--dim bindings)
  std::map<std::string, int> exitCode;  // per verb: the exit code it must give
  // Must appear in what the verb printed: stderr for a refusal, stdout + stderr otherwise.
  std::map<std::string, std::string> says;
};

std::vector<HostileCase> hostileCases();

// Writes every case (and base.onnx, the intact model the profiles belong to) under `dir`.
// The same seed writes the same bytes.
void writeHostileCases(const std::filesystem::path& dir, uint64_t seed = 14);

// The docs' table: one row per case, the outcome per verb.
std::string hostileCasesMarkdown();

}  // namespace msa::test
