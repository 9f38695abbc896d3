#include "rules/finding.h"

#include <mutex>
#include <set>
#include <string>

namespace msa {

std::string_view categoryName(Category c) { return c.id(); }

Category Category::named(std::string_view id) {
  static std::mutex mutex;
  static std::set<std::string, std::less<>> ids;  // nodes never move: the views stay valid
  const std::lock_guard<std::mutex> lock(mutex);
  return Category(*ids.emplace(id).first);
}

std::string_view priorityName(Priority p) {
  switch (p) {
    case Priority::P0: return "P0";
    case Priority::P1: return "P1";
    case Priority::P2: return "P2";
  }
  return "P2";
}

std::string_view impactSourceName(ImpactSource s) {
  switch (s) {
    case ImpactSource::Measured: return "measured";
    case ImpactSource::Estimated: return "estimated";
    case ImpactSource::Both: return "both";
  }
  return "estimated";
}

}  // namespace msa
