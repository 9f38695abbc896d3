#pragma once
// Data files compiled into the core library (device profiles, op tables), see cmake/MsaEmbed.cmake.
#include <span>
#include <string_view>

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

}  // namespace msa::embedded
