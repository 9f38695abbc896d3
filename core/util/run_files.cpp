#include "util/run_files.h"

#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/special_file.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// Device and inode of what `p` reaches (symlinks followed); false when it does not exist.
bool identity(const fs::path& p, uint64_t& device, uint64_t& inode) {
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0) return false;
  device = static_cast<uint64_t>(st.st_dev);
  inode = static_cast<uint64_t>(st.st_ino);
  return true;
}

bool writesNothingReal(const fs::path& out) { return out.empty() || out == "-" || isSpecialFile(out); }

}  // namespace

void ReadFiles::addFile(const fs::path& path, const std::string& role) {
  Entry e;
  if (!identity(path, e.device, e.inode)) return;  // nothing there yet: nothing to lose
  e.path = path.string();
  e.role = role;
  m_files.push_back(std::move(e));
}

void ReadFiles::add(const fs::path& path, std::string role) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!isSpecialFile(path)) addFile(path, role);
    return;
  }
  int seen = 0;
  for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end && seen < kMaxFolderFiles; it.increment(ec), ++seen)
    if (it->is_regular_file(ec)) addFile(it->path(), role);
}

Status ReadFiles::checkOutput(const fs::path& out, std::string_view what) const {
  if (writesNothingReal(out)) return Ok{};
  uint64_t device = 0, inode = 0;
  if (!identity(out, device, inode)) return Ok{};
  for (const Entry& e : m_files)
    if (e.device == device && e.inode == inode)
      return Error::usage("refusing to write over its input: " + std::string(what) + " " + out.string() + " is " +
                          (e.path == out.string() ? e.role : e.role + " " + e.path) +
                          " that this run reads; choose another path");
  return Ok{};
}

Status checkOutputs(const ReadFiles& reads, const std::vector<PlannedOutput>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const PlannedOutput& o = outputs[i];
    if (auto s = reads.checkOutput(o.path, o.what); !s) return s;
    if (writesNothingReal(o.path)) continue;
    std::error_code ec;
    const fs::path mine = fs::weakly_canonical(o.path, ec);
    uint64_t device = 0, inode = 0;
    const bool exists = identity(o.path, device, inode);
    for (size_t j = 0; j < i; ++j) {
      const PlannedOutput& earlier = outputs[j];
      if (writesNothingReal(earlier.path)) continue;
      std::error_code ec2;
      uint64_t d2 = 0, i2 = 0;
      const bool sameFile = exists && identity(earlier.path, d2, i2) && d2 == device && i2 == inode;
      if (sameFile || fs::weakly_canonical(earlier.path, ec2) == mine)
        return Error::usage(std::string(earlier.what) + " and " + o.what + " both write " + o.path.string() +
                            ": the second would replace the first; give each its own path");
    }
  }
  return Ok{};
}

Status writeOutputFile(const ReadFiles& reads, const fs::path& out, std::string_view text, std::string_view what) {
  if (auto s = checkOutputs(reads, {{std::string(what), out}}); !s) return s;
  return writeFileAtomically(out, text);
}

}  // namespace msa
