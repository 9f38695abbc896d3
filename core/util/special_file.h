#pragma once
// Writes go to a temporary file renamed over the destination, so a crash never leaves half a file.
// A destination that is not a regular file (/dev/null, /dev/stdout, a FIFO, a terminal) must be
// written in place instead: renaming over it would replace the device node or the pipe with a file.
#include <filesystem>
#include <system_error>

namespace msa {

inline bool isSpecialFile(const std::filesystem::path& p) {
  std::error_code ec;
  const auto st = std::filesystem::status(p, ec);  // follows symlinks: /dev/stdout -> /proc/self/fd/1
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}

}  // namespace msa
