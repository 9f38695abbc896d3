#pragma once
// The catalogue of hostile inputs (docs/robustness.md): models and profiles a stranger could hand
// msadvisor, each with what every verb must do with it. One table drives the files (written from a
// seed, no binary blobs in the repository), the test that runs every verb on them
// (tests/corpus/tst_hostile_catalogue), the Python API's run over them (tests/python), the GUI's
// batch mode (tests/ui) and the table in the docs (msa-hostile-cases --markdown; --json for the
// Python test).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace msa::test {

// Verbs a case runs through. Models: info, estimate, analyze (ONNX Runtime on the CPU), optimize
// --verify, report (analyze on a device profile writing the JSON, HTML and Markdown reports) and
// compare (the model with itself). Profiles: profile --import, analyze --profile (writing the three
// reports), training, compare (the file with itself).
inline const std::vector<std::string> kModelVerbs{"info", "estimate", "analyze", "optimize", "report", "compare"};
inline const std::vector<std::string> kProfileVerbs{"import", "analyze-profile", "training", "compare"};

struct HostileCase {
  std::string id;    // "model.cycle": stable, the docs' row key
  std::string what;  // one line for the docs
  std::string file;  // written under the catalogue folder (a file or a folder)
  bool profile = false;
  std::vector<std::string> extraArgs;  // given to every verb but compare (--dim bindings, --max-events)
  std::map<std::string, int> exitCode;  // per verb: the exit code it must give
  // Must appear in what the verb printed: stderr for a refusal, stdout + stderr otherwise.
  std::map<std::string, std::string> says;
};

std::vector<HostileCase> hostileCases();

// Writes every case (and base.onnx, the intact model the profiles belong to) under `dir`. The
// same seed writes the same bytes. Cases that are not regular files (a FIFO, a link to a device)
// are made as such.
void writeHostileCases(const std::filesystem::path& dir, uint64_t seed = 14);

// The docs' table: one row per case, the outcome per verb.
std::string hostileCasesMarkdown();
// The table as JSON: [{"id", "file", "profile", "extra_args", "exit": {verb: code}}], for the Python test.
std::string hostileCasesJson();

// Peak memory a run on `input` (a file or a folder) may take: 1 GiB + 4 × its size on disk.
uint64_t memoryBound(const std::filesystem::path& input);

}  // namespace msa::test
