#include "model/mapped_file.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "util/input_file.h"

namespace msa {

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::filesystem::path& path) {
  // A model or its external data may be a FIFO or a device: refused before anything waits on it.
  uint64_t size = 0;
  auto fd = openInput(path, &size);
  if (!fd) return fd.error();
  std::shared_ptr<MappedFile> f(new MappedFile);
  f->m_path = path;
  f->m_size = static_cast<size_t>(size);
  struct stat st {};
  if (::fstat(fd->get(), &st) == 0) {
    f->m_device = st.st_dev;
    f->m_inode = st.st_ino;
  }
  if (f->m_size > 0) {
    void* p = ::mmap(nullptr, f->m_size, PROT_READ, MAP_PRIVATE, fd->get(), 0);
    if (p == MAP_FAILED) return Error::model(std::string("cannot map: ") + std::strerror(errno), path.string());
    f->m_data = p;
  }
  return std::shared_ptr<const MappedFile>(std::move(f));
}

bool MappedFile::stillAtPath() const {
  struct stat st {};
  return m_inode != 0 && ::stat(m_path.c_str(), &st) == 0 && st.st_dev == m_device && st.st_ino == m_inode;
}

MappedFile::~MappedFile() {
  if (m_data) ::munmap(m_data, m_size);
}

}  // namespace msa
