#include "util/embedded.h"

#include <mutex>
#include <string>

namespace msa::embedded {
namespace {

std::mutex& mutex() {
  static std::mutex m;
  return m;
}

std::string& firstError() {
  static std::string e;
  return e;
}

}  // namespace

void recordTableError(std::string_view table, std::string_view message) {
  const std::lock_guard<std::mutex> lock(mutex());
  if (firstError().empty())
    firstError() = "the compiled-in table " + std::string(table) + " does not load (" + std::string(message) +
                   "): this build is broken; rebuild from a clean tree";
}

Status tableStatus() {
  const std::lock_guard<std::mutex> lock(mutex());
  if (firstError().empty()) return Ok{};
  return Error::device(firstError());
}

}  // namespace msa::embedded
