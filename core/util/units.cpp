#include "util/units.h"

#include <cmath>
#include <cstdio>

namespace msa {
namespace {

// Three significant digits in fixed notation; zero as "0" in any unit.
std::string digits3(double x) {
  if (x == 0) return "0";
  const double a = std::fabs(x);
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", a >= 100 ? 0 : a >= 10 ? 1 : 2, x);
  return b;
}

std::string withUnit(std::string n, std::string_view unit) {
  return unit.empty() ? n : n + " " + std::string(unit);
}

}  // namespace

std::string formatQuantity(double v, std::string_view unit, double scaleOf) {
  if (!std::isfinite(v)) return "–";
  const double ref = std::isfinite(scaleOf) && scaleOf != 0 ? std::fabs(scaleOf) : std::fabs(v);
  if (v == 0 && ref == 0) return withUnit("0", unit);
  if (unit == "ms") {
    if (ref >= 1000) return digits3(v / 1000) + " s";
    if (ref < 0.1) return digits3(v * 1000) + " µs";
    return digits3(v) + " ms";
  }
  if (unit == "%") return digits3(v) + " %";
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  double x = v, r = ref;
  // No prefix beyond P: a figure that large is shown in P, not indexed out of the table.
  while (r >= 1000 && p < 5) {
    x /= 1000;
    r /= 1000;
    ++p;
  }
  // Whole counts below a thousand stay whole ("3 B", not "3.00 B").
  const std::string n = p == 0 && x == std::floor(x) && std::fabs(x) < 1e15 ? std::to_string(static_cast<long long>(x)) : digits3(x);
  return withUnit(n, std::string(kPrefixes[p]) + std::string(unit));
}

}  // namespace msa
