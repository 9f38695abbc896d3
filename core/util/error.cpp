#include "util/error.h"

#include "util/text_escape.h"

namespace msa {

std::string Error::describe() const {
  std::string out;
  // Names are bytes from a file: control characters, escape sequences and bytes that are not
  // UTF-8 are shown escaped (a message goes to a terminal, a log or a dialog).
  if (!file.empty()) out += terminalText(file) + ": ";
  if (!node.empty()) out += "node '" + terminalText(node) + "': ";
  out += terminalText(message);
  return out;
}

}  // namespace msa
