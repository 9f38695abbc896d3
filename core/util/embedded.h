#pragma once
// Data files compiled into the core library (device profiles, op tables), see cmake/MsaEmbed.cmake.
#include <span>
#include <string_view>

#include "util/error.h"

namespace msa::embedded {

struct File {
  std::string_view name;  // "<folder>/<file>", e.g. "devices/ascend910b.json"
  std::string_view bytes;
};

std::span<const File> files();

inline std::string_view find(std::string_view name) {
  for (const File& f : files())
    if (f.name == name) return f.bytes;
  return {};
}

// A compiled-in table that fails to parse is a defect of the build, never a silently empty table:
// its reader records the failure here (once), and every analysis fails with it (tableStatus) —
// the caller sees which file and why instead of an analysis that quietly lacks a table.
void recordTableError(std::string_view table, std::string_view message);
Status tableStatus();  // Error::device naming the first table that failed; Ok when none has

}  // namespace msa::embedded
