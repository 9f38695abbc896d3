#pragma once
// Writes that never leave half a file: a temporary next to the destination, fsync'd and renamed
// over it on commit(), removed when anything fails (disk full, a file-size limit, permission
// denied: the error says which). A destination that is not a regular file (/dev/null, a FIFO) is
// written in place (util/special_file.h).
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "util/error.h"

namespace msa {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path dest) : m_dest(std::move(dest)) {}
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status open();
  int fd() const { return m_fd; }
  Status write(std::string_view b);
  int64_t written() const { return m_written; }
  Status commit();

 private:
  std::filesystem::path m_dest;
  std::filesystem::path m_tmp;
  int m_fd = -1;
  int64_t m_written = 0;
  bool m_inPlace = false;
};

// open + write + commit. Errors are Error::model naming `dest`.
Status writeFileAtomically(const std::filesystem::path& dest, std::string_view bytes);

}  // namespace msa
