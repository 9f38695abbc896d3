#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <zlib.h>

namespace msa {
namespace {

std::string typeName(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISDIR(m)) return "a folder";
  return "not a regular file";
}

Status checkMode(const std::filesystem::path& path, mode_t m, InputKind kind) {
  const bool dir = S_ISDIR(m), reg = S_ISREG(m);
  if (reg && kind != InputKind::Folder) return Ok{};
  if (dir && kind != InputKind::File) return Ok{};
  if (dir) return Error::model("a folder where a file is expected", path.string());
  if (reg) return Error::model("a file where a folder is expected", path.string());
  return Error::model(typeName(m) + ", not a file msadvisor can read", path.string());
}

}  // namespace

Status checkInput(const std::filesystem::path& path, InputKind kind) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Error::model(errno == ENOENT ? std::string("no such file or folder") : std::string("cannot read: ") + std::strerror(errno),
                        path.string());
  return checkMode(path, st.st_mode, kind);
}

InputFd& InputFd::operator=(InputFd&& o) noexcept {
  if (this != &o) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = o.m_fd;
    o.m_fd = -1;
  }
  return *this;
}

InputFd::~InputFd() {
  if (m_fd >= 0) ::close(m_fd);
}

Result<InputFd> openInput(const std::filesystem::path& path, uint64_t* size) {
  // stat first: open() on a FIFO without O_NONBLOCK waits for a writer; with it, a device may
  // still act on open (a tape rewinds), so nothing that is not a regular file is opened at all.
  if (auto s = checkInput(path, InputKind::File); !s) return s.error();
  InputFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return Error::model(std::string("cannot open: ") + std::strerror(errno), path.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::model(std::string("cannot read: ") + std::strerror(errno), path.string());
  // Swapped between the stat and the open: what is open is what counts.
  if (auto s = checkMode(path, st.st_mode, InputKind::File); !s) return s.error();
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  if (size) *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

Result<std::string> readInputFile(const std::filesystem::path& path, uint64_t maxBytes) {
  uint64_t size = 0;
  auto fd = openInput(path, &size);
  if (!fd) return fd.error();
  if (size > maxBytes)
    return Error::model("is " + std::to_string(size) + " bytes, more than the " + std::to_string(maxBytes) + " this reader takes",
                        path.string());
  std::string out;
  out.reserve(static_cast<size_t>(size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd->get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::model(std::string("cannot read: ") + std::strerror(errno), path.string());
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > maxBytes) return Error::model("grew beyond " + std::to_string(maxBytes) + " bytes while read", path.string());
  }
  return out;
}

// ---- InputStream -------------------------------------------------------------------------------

class InputStream::Buffer : public std::streambuf {
 public:
  Buffer(std::string label, InputFd fd, uint64_t fileBytes)
      : m_label(std::move(label)), m_fd(std::move(fd)), m_fileBytes(fileBytes), m_in(1 << 16), m_out(1 << 16) {}
  ~Buffer() override {
    if (m_zInit) inflateEnd(&m_z);
  }

  // Reads the first bytes to tell gzip from plain text.
  Status start() {
    if (!fillInput()) return m_error ? *m_error : Error::model("cannot read", m_label);
    m_compressed = m_inLen >= 2 && static_cast<unsigned char>(m_in[0]) == 0x1f && static_cast<unsigned char>(m_in[1]) == 0x8b;
    if (m_compressed) {
      std::memset(&m_z, 0, sizeof m_z);
      if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) return Error::model("cannot start decompression", m_label);
      m_zInit = true;
      m_budget = readLimits().inflateBudget(m_fileBytes);
      if (inflatesBeyondBudget()) return inflateLimitError(m_label, m_fileBytes);
    }
    return Ok{};
  }

  bool compressed() const { return m_compressed; }
  uint64_t fileBytes() const { return m_fileBytes; }
  uint64_t delivered() const { return m_delivered; }
  const std::optional<Error>& error() const { return m_error; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (m_error || m_done) return traits_type::eof();
    size_t n = m_compressed ? inflateSome() : plainSome();
    if (n == 0) return traits_type::eof();
    m_delivered += n;
    setg(m_out.data(), m_out.data(), m_out.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  // More raw bytes into m_in (from m_inPos on); false at the end of the file or on an error.
  bool fillInput() {
    for (;;) {
      const ssize_t n = ::read(m_fd.get(), m_in.data(), m_in.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        m_error = Error::model(std::string("cannot read: ") + std::strerror(errno), m_label);
        return false;
      }
      m_inPos = 0;
      m_inLen = static_cast<size_t>(n);
      return n > 0;
    }
  }

  // Whether the file inflates beyond the budget, counted in a pass of its own before a parser
  // sees a byte: zlib alone runs at hundreds of MB/s where a parser building a document runs at
  // tens (a 0.9 MB bomb was refused after 5 s and 500 MB, 90 s under ASan). Corrupt or truncated
  // data is left to the reading pass, which says so where it happens.
  bool inflatesBeyondBudget() {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
    std::vector<char> in(1 << 16), out(1 << 18);
    uint64_t total = 0;
    off_t offset = 0;
    bool beyond = false, more = true;
    while (more && !beyond) {
      const ssize_t n = ::pread(m_fd.get(), in.data(), in.size(), offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      offset += n;
      z.next_in = reinterpret_cast<Bytef*>(in.data());
      z.avail_in = static_cast<uInt>(n);
      while (z.avail_in > 0 && !beyond) {
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        const int rc = ::inflate(&z, Z_NO_FLUSH);
        total += out.size() - z.avail_out;
        beyond = total > m_budget;
        if (rc == Z_STREAM_END) ::inflateReset(&z);  // concatenated members are one file
        else if (rc != Z_OK && rc != Z_BUF_ERROR) more = false;
        if (!more || (rc == Z_BUF_ERROR && z.avail_out > 0)) break;
      }
    }
    ::inflateEnd(&z);
    return beyond;
  }

  size_t plainSome() {
    if (m_inPos < m_inLen) {  // the bytes start() read
      const size_t n = m_inLen - m_inPos;
      std::memcpy(m_out.data(), m_in.data() + m_inPos, n);
      m_inPos = m_inLen;
      return n;
    }
    if (!fillInput()) {
      m_done = true;
      return 0;
    }
    std::memcpy(m_out.data(), m_in.data(), m_inLen);
    m_inPos = m_inLen;
    return m_inLen;
  }

  size_t inflateSome() {
    m_z.next_out = reinterpret_cast<Bytef*>(m_out.data());
    m_z.avail_out = static_cast<uInt>(m_out.size());
    while (m_z.avail_out == m_out.size()) {
      if (m_inPos >= m_inLen) {
        if (!fillInput()) {
          if (!m_error && !m_streamEnded)
            m_error = Error::model("the compressed file is truncated", m_label);
          m_done = true;
          break;
        }
      }
      m_z.next_in = reinterpret_cast<Bytef*>(m_in.data() + m_inPos);
      m_z.avail_in = static_cast<uInt>(m_inLen - m_inPos);
      const int rc = ::inflate(&m_z, Z_NO_FLUSH);
      m_inPos = m_inLen - m_z.avail_in;
      if (rc == Z_STREAM_END) {
        m_streamEnded = true;
        // Concatenated gzip members (gzip a b > c) are one file to gunzip: go on when more follows.
        if (m_inPos < m_inLen || fillInput()) {
          ::inflateReset(&m_z);
          m_streamEnded = false;
          continue;
        }
        m_done = true;
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        m_error = Error::model(std::string("corrupt compressed data (") + (m_z.msg ? m_z.msg : "inflate failed") + ")", m_label);
        m_done = true;
        break;
      }
    }
    const size_t n = m_out.size() - m_z.avail_out;
    if (m_delivered + n > m_budget) {
      m_error = inflateLimitError(m_label, m_fileBytes);
      m_done = true;
      return 0;
    }
    return n;
  }

  std::string m_label;
  InputFd m_fd;
  uint64_t m_fileBytes = 0, m_delivered = 0, m_budget = UINT64_MAX;
  std::vector<char> m_in, m_out;
  size_t m_inPos = 0, m_inLen = 0;
  bool m_compressed = false, m_zInit = false, m_done = false, m_streamEnded = false;
  z_stream m_z{};
  std::optional<Error> m_error;
};

InputStream::InputStream(std::unique_ptr<Buffer> buffer) : m_buffer(std::move(buffer)), m_stream(m_buffer.get()) {}
InputStream::~InputStream() = default;

Result<std::unique_ptr<InputStream>> InputStream::open(const std::filesystem::path& path) {
  uint64_t size = 0;
  auto fd = openInput(path, &size);
  if (!fd) return fd.error();
  auto buffer = std::make_unique<Buffer>(path.string(), std::move(*fd), size);
  if (size > 0)
    if (auto s = buffer->start(); !s) return s.error();
  return std::unique_ptr<InputStream>(new InputStream(std::move(buffer)));
}

std::streambuf* InputStream::buffer() { return m_buffer.get(); }
bool InputStream::compressed() const { return m_buffer->compressed(); }
uint64_t InputStream::fileBytes() const { return m_buffer->fileBytes(); }
uint64_t InputStream::bytesRead() const { return m_buffer->delivered(); }
const std::optional<Error>& InputStream::error() const { return m_buffer->error(); }

Result<std::string> readMaybeCompressed(const std::filesystem::path& path) {
  auto in = InputStream::open(path);
  if (!in) return in.error();
  std::string out;
  char buf[1 << 16];
  std::streambuf* sb = (*in)->buffer();
  for (std::streamsize n; (n = sb->sgetn(buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  if ((*in)->error()) return *(*in)->error();
  return out;
}

}  // namespace msa
