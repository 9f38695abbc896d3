#pragma once
// A read-only memory mapping of a whole file. Pages are read by the kernel on first touch, so
// mapping a 4 GB weights file costs nothing until a tensor is actually read.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "util/error.h"

namespace msa {

class MappedFile {
 public:
  static Result<std::shared_ptr<const MappedFile>> open(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::string_view bytes() const { return {static_cast<const char*>(m_data), m_size}; }
  size_t size() const { return m_size; }
  const std::filesystem::path& path() const { return m_path; }
  // Whether path() still names the file that was mapped (not replaced, e.g. re-exported, since).
  bool stillAtPath() const;

 private:
  MappedFile() = default;
  void* m_data = nullptr;
  size_t m_size = 0;
  std::filesystem::path m_path;
  uint64_t m_device = 0, m_inode = 0;
};

}  // namespace msa
