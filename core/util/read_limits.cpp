#include "util/read_limits.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string_view>

namespace msa {
namespace {

std::mutex g_mu;
bool g_set = false;
ReadLimits g_limits;

// A positive number from the environment; nullopt when unset.
Result<std::optional<double>> envNumber(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::optional<double>();
  std::string_view s(v);
  double x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x) || x <= 0)
    return Error::usage(std::string(name) + " is a positive number, not '" + v + "'");
  return std::optional<double>(x);
}

uint64_t toCount(double x) { return x >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(x); }

std::string mebibytes(uint64_t bytes) { return std::to_string((bytes + (uint64_t(1) << 20) - 1) >> 20) + " MiB"; }

}  // namespace

uint64_t ReadLimits::inflateBudget(uint64_t compressedBytes) const {
  const double byRatio = maxInflateRatio * static_cast<double>(compressedBytes);
  const uint64_t ratio = byRatio >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(byRatio);
  return std::min(maxInflatedBytes, std::max(ratio, kInflateFloor));
}

Result<ReadLimits> readLimitsFromEnvironment() {
  ReadLimits l;
  auto events = envNumber("MSA_MAX_EVENTS");
  if (!events) return events.error();
  if (*events) l.maxEvents = toCount(**events);
  auto names = envNumber("MSA_MAX_NAMES");
  if (!names) return names.error();
  if (*names) l.maxNames = toCount(**names);
  auto ratio = envNumber("MSA_MAX_INFLATE_RATIO");
  if (!ratio) return ratio.error();
  if (*ratio) l.maxInflateRatio = **ratio;
  auto mb = envNumber("MSA_MAX_INFLATED_MB");
  if (!mb) return mb.error();
  if (*mb) l.maxInflatedBytes = toCount(**mb * 1048576.0);
  return l;
}

const ReadLimits& readLimits() {
  std::lock_guard lock(g_mu);
  if (!g_set) {
    // A bad variable keeps the defaults here; the CLI and Python check it up front and say so.
    auto l = readLimitsFromEnvironment();
    if (l) g_limits = *l;
    g_set = true;
  }
  return g_limits;
}

void setReadLimits(const ReadLimits& limits) {
  std::lock_guard lock(g_mu);
  g_limits = limits;
  g_set = true;
}

Error countLimitError(const std::string& file, const std::string& what, CountLimit which) {
  const bool names = which == CountLimit::Names;
  const uint64_t limit = names ? readLimits().maxNames : readLimits().maxEvents;
  return Error::model("holds more than " + std::to_string(limit) + " " + what +
                          ", the limit that keeps memory bounded: raise it with " +
                          (names ? "--max-names N or the environment variable MSA_MAX_NAMES=N"
                                 : "--max-events N or the environment variable MSA_MAX_EVENTS=N"),
                      file);
}

Error inflateLimitError(const std::string& file, uint64_t compressedBytes) {
  const ReadLimits& l = readLimits();
  return Error::model("the compressed file inflates beyond " + mebibytes(l.inflateBudget(compressedBytes)) + " (" +
                          std::to_string(static_cast<long long>(l.maxInflateRatio)) + " times its " +
                          mebibytes(compressedBytes) +
                          ", at most " + mebibytes(l.maxInflatedBytes) +
                          "): a decompression bomb or not a profile; if it is one, raise the limits with "
                          "MSA_MAX_INFLATE_RATIO and MSA_MAX_INFLATED_MB",
                      file);
}

}  // namespace msa
