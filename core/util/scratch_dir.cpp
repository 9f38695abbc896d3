#include "util/scratch_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace msa {
namespace {

constexpr const char* kOwnerFile = ".msadvisor-owner";

// The start time of process `pid` (clock ticks after boot, field 22 of /proc/PID/stat), "" when
// there is no such process. With the pid it tells a process from a later one reusing the pid.
std::string startTime(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  const size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return {};
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return field;
  return {};
}

}  // namespace

ScratchDir::ScratchDir(const std::string& prefix) {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  if (ec) return;
  sweepStaleScratchDirs(tmp);
  std::string tmpl = (tmp / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) return;
  m_path = tmpl;
  std::ofstream(m_path / kOwnerFile) << ::getpid() << ' ' << startTime(::getpid()) << '\n';
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!m_path.empty()) fs::remove_all(m_path, ec);
}

int sweepStaleScratchDirs(const fs::path& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("msadvisor-")) continue;
    std::error_code e2;
    if (!it->is_directory(e2) || it->is_symlink(e2)) continue;
    std::ifstream owner(it->path() / kOwnerFile);
    long pid = 0;
    std::string started;
    if (!(owner >> pid >> started) || pid <= 0) continue;  // not one of ours, or being written
    if (startTime(pid) == started) continue;               // its process is still running
    fs::remove_all(it->path(), e2);
    if (!e2) ++removed;
  }
  return removed;
}

}  // namespace msa
