#include "util/error.h"

namespace msa {

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) out += file + ": ";
  if (!node.empty()) out += "node '" + node + "': ";
  out += message;
  return out;
}

}  // namespace msa
