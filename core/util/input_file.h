#pragma once
// Every file msadvisor reads comes from a stranger and may not be a file at all: open() on a FIFO
// waits for a writer that never comes, a device never ends (/dev/zero), a socket cannot be
// opened. Every reader goes through here: the path is checked before anything opens it (a
// regular file, or a folder where one is expected), the open itself cannot block (O_NONBLOCK,
// then fstat on the descriptor: what was checked is what is read), and compressed files inflate
// within the read limits (util/read_limits.h). Refusals are Error::model naming the file.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <streambuf>

#include "util/error.h"
#include "util/read_limits.h"

namespace msa {

enum class InputKind { File, Folder, FileOrFolder };

// Ok when `path` (symlinks followed) is what `kind` allows; else why not: "no such file", "a FIFO
// (named pipe), not a file", "a character device, not a file", "a socket, not a file", "a folder
// where a file is expected", "a file where a folder is expected".
Status checkInput(const std::filesystem::path& path, InputKind kind = InputKind::File);

// An open descriptor of a regular file, closed with the object.
class InputFd {
 public:
  InputFd() = default;
  explicit InputFd(int fd) : m_fd(fd) {}
  InputFd(InputFd&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
  InputFd& operator=(InputFd&& o) noexcept;
  ~InputFd();
  int get() const { return m_fd; }
  int release() {
    int fd = m_fd;
    m_fd = -1;
    return fd;
  }

 private:
  int m_fd = -1;
};

// Opens a regular file for reading; `size` (optional) receives its size in bytes.
Result<InputFd> openInput(const std::filesystem::path& path, uint64_t* size = nullptr);

// The whole file (as it is, not inflated). Refused beyond `maxBytes`.
Result<std::string> readInputFile(const std::filesystem::path& path, uint64_t maxBytes = UINT64_MAX);

// A file's bytes as a stream, inflated when they start with the gzip magic, within the read
// limits. A limit hit, an I/O error or corrupt compressed data ends the stream early and is
// kept in error(): a parser then sees a truncated text, and the caller reports error() instead.
class InputStream {
 public:
  static Result<std::unique_ptr<InputStream>> open(const std::filesystem::path& path);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  std::istream& stream() { return m_stream; }
  std::streambuf* buffer();
  bool compressed() const;
  uint64_t fileBytes() const;  // on disk
  uint64_t bytesRead() const;  // delivered (inflated) so far
  const std::optional<Error>& error() const;

 private:
  class Buffer;
  explicit InputStream(std::unique_ptr<Buffer> buffer);
  std::unique_ptr<Buffer> m_buffer;
  std::istream m_stream;
};

// The whole content of a file, inflated when it is gzip, within the read limits.
Result<std::string> readMaybeCompressed(const std::filesystem::path& path);

}  // namespace msa
