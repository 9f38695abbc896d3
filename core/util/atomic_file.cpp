#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "util/special_file.h"

namespace msa {
namespace {

Error failure(const char* what, const std::filesystem::path& dest) {
  std::string why = std::strerror(errno);
  if (errno == ENOSPC || errno == EFBIG || errno == EDQUOT) why += "; nothing was written, the old file (if any) is intact";
  return Error::model(std::string(what) + ": " + why, dest.string());
}

}  // namespace

AtomicFile::~AtomicFile() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_tmp.empty()) ::unlink(m_tmp.c_str());
}

Status AtomicFile::open() {
  if (isSpecialFile(m_dest)) {  // /dev/null, a FIFO: written in place, never renamed over
    m_fd = ::open(m_dest.c_str(), O_WRONLY);
    if (m_fd < 0) return failure("cannot open", m_dest);
    m_inPlace = true;
    return Ok{};
  }
  std::string tmpl = m_dest.string() + ".tmp.XXXXXX";
  m_fd = ::mkstemp(tmpl.data());
  if (m_fd < 0) return failure("cannot create a file", m_dest);
  m_tmp = tmpl;
  ::fchmod(m_fd, 0644);
  return Ok{};
}

Status AtomicFile::write(std::string_view b) {
  while (!b.empty()) {
    ssize_t w = ::write(m_fd, b.data(), b.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      return failure("write failed", m_dest);
    }
    b.remove_prefix(static_cast<size_t>(w));
    m_written += w;
  }
  return Ok{};
}

Status AtomicFile::commit() {
  if (m_inPlace) {
    const bool closed = ::close(m_fd) == 0;
    m_fd = -1;
    if (!closed) return failure("write failed", m_dest);
    return Ok{};
  }
  // fsync first: a rename that outlives a crash must not point at data that did not.
  if (::fsync(m_fd) != 0 || ::close(m_fd) != 0) {
    m_fd = -1;
    return failure("write failed", m_dest);
  }
  m_fd = -1;
  if (::rename(m_tmp.c_str(), m_dest.c_str()) != 0) return failure("cannot rename into place", m_dest);
  m_tmp.clear();
  return Ok{};
}

Status writeFileAtomically(const std::filesystem::path& dest, std::string_view bytes) {
  AtomicFile f(dest);
  if (auto s = f.open(); !s) return s;
  if (auto s = f.write(bytes); !s) return s;
  return f.commit();
}

}  // namespace msa
