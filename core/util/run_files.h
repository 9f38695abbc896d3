#pragma once
// What a run reads, so that nothing it writes lands on it. Every output (-o, --json, --html,
// --md, --trace, the external data an export generates, the GUI's and Python's saves) is checked
// against every file the run reads — the model, its external data, profiles, inputs — as the
// same file, however it is reached (a symlink or a hard link: the same device and inode), before
// any work; a clash is refused with a sentence naming both.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace msa {

class ReadFiles {
 public:
  // `role` says what the file is to the run, for the refusal: "the model", "its external data".
  // A folder adds the regular files under it (profiles are folders), up to kMaxFolderFiles.
  void add(const std::filesystem::path& path, std::string role);
  // Refused when `out` is (or reaches) a file of the run. `what` names the output ("--json").
  Status checkOutput(const std::filesystem::path& out, std::string_view what) const;
  bool empty() const { return m_files.empty(); }

  static constexpr int kMaxFolderFiles = 100000;

 private:
  struct Entry {
    uint64_t device = 0, inode = 0;
    std::string path, role;
  };
  void addFile(const std::filesystem::path& path, const std::string& role);
  std::vector<Entry> m_files;
};

// Outputs of one run, each `what` (an option name) with its path: refused when two land on the
// same file (the second would replace the first) or when one lands on a file the run reads.
// "-" (standard output) and paths that are not regular files (/dev/null, a pipe) are never a clash.
struct PlannedOutput {
  std::string what;
  std::filesystem::path path;
};
Status checkOutputs(const ReadFiles& reads, const std::vector<PlannedOutput>& outputs);

// Writes `text` to `out` (atomically; in place into /dev/null or a pipe) unless `out` is a file of
// `reads`: what the GUI's and Python's report writers call. `what` names the output in a refusal.
Status writeOutputFile(const ReadFiles& reads, const std::filesystem::path& out, std::string_view text,
                       std::string_view what = "the output");

}  // namespace msa
