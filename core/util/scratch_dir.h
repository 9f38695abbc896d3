#pragma once
// A private folder under the temporary directory for files a run makes and drops (ONNX Runtime's
// profile, the graph it ran, a child process's temporaries): removed with the object, and — when
// the process was killed before it could — by the next msadvisor process that makes one: an owner
// file inside names the process (pid and start time), and a folder whose owner is gone is stale.
#include <filesystem>
#include <string>

namespace msa {

class ScratchDir {
 public:
  // "msadvisor-profile-" + a unique suffix under std::filesystem::temp_directory_path() ($TMPDIR).
  explicit ScratchDir(const std::string& prefix = "msadvisor-profile-");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  // Empty when the folder could not be made.
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

// Removes the msadvisor-* folders under `dir` whose owner process has ended; returns how many.
int sweepStaleScratchDirs(const std::filesystem::path& dir = std::filesystem::temp_directory_path());

}  // namespace msa
