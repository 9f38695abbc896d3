#pragma once
// Where a tensor's bytes lie when they are viewed in a mapped file (external data), so that a
// runtime can read them from that file itself instead of being handed a copy.
#include <cstddef>

#include "model/tensor.h"

namespace msa {

struct FileView {
  const MappedFile* file = nullptr;  // null: the bytes are owned (inline or rewritten weights)
  size_t offset = 0, length = 0;
};

FileView fileViewOf(const TensorBytes& bytes);

}  // namespace msa
