#include "util/error.h"

#include "util/utf8.h"

namespace msa {

std::string Error::describe() const {
  std::string out;
  // Names are bytes from a file: shown escaped where they are not UTF-8.
  if (!file.empty()) out += escapeInvalidUtf8(file) + ": ";
  if (!node.empty()) out += "node '" + escapeInvalidUtf8(node) + "': ";
  out += escapeInvalidUtf8(message);
  return out;
}

}  // namespace msa
