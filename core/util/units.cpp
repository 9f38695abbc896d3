#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace msa {
namespace {

std::string printf1(const char* format, int decimals, double v) {
  char b[64];
  std::snprintf(b, sizeof b, format, decimals, v);
  return b;
}

// The decimal exponent of |v| once rounded to three significant digits (99.96 → 2, as 100).
int roundedExponent(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2e", std::fabs(v));
  const char* e = std::strchr(b, 'e');
  return e ? std::atoi(e + 1) : 0;
}

// `v` with the decimals that give `ref` three significant digits (figures shown together read
// alike: "0.001 ms" beside "0.270 ms").
std::string digitsOf(double v, double ref) {
  if (!std::isfinite(v)) return "–";
  if (v == 0) return "0";
  const double a = std::fabs(ref);
  // Beyond any run or model's figure (a year in ms, a petabyte): short, never hundreds of digits.
  if (a >= 1e15 || a < 1e-6) return printf1("%.*g", 3, v);
  return printf1("%.*f", std::max(0, 2 - roundedExponent(a)), v);
}

}  // namespace

std::string withUnit(std::string figure, std::string_view unit) {
  if (unit.empty() || unit == "%" || unit == "×") return figure + std::string(unit);
  return figure + std::string(kUnitSpace) + std::string(unit);
}

std::string formatSignificant(double v) { return digitsOf(v, v); }

std::string formatMilliseconds(double ms) { return withUnit(formatSignificant(ms), "ms"); }

std::string formatPercent(double fraction) {
  if (!std::isfinite(fraction)) return "–";
  const double p = fraction * 100, a = std::fabs(p);
  if (p == 0) return "0%";
  if (a < 0.01) return p > 0 ? "<0.01%" : ">−0.01%";
  // One decimal from 1 % up (0.96 % reads "1.0%", not "1%"), whole from 100 %; below, one
  // significant digit.
  std::string n = a >= 1e6     ? printf1("%.*g", 3, a)
                  : a >= 99.95 ? printf1("%.*f", 0, a)
                  : a >= 0.95  ? printf1("%.*f", 1, a)
                               : printf1("%.*g", 1, a);
  return (p < 0 ? "−" : "") + n + "%";
}

std::string formatRatio(double x) { return std::isfinite(x) ? formatSignificant(x) + "×" : "–"; }

std::string percentColumn(double fraction) {
  const std::string s = formatPercent(fraction);
  size_t width = 0;  // characters, not bytes: "−" and "–" are one column each
  for (const char c : s) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width >= 6 ? s : std::string(6 - width, ' ') + s;
}

std::string formatSimilarity(double c) {
  if (!std::isfinite(c)) return "–";
  if (c == 1) return "1";
  // Two significant digits of the distance from 1, never fewer than five decimals.
  const double gap = std::fabs(1 - c);
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(gap))) + 1, 5, 15);
  char b[40];
  std::snprintf(b, sizeof b, "%.*f", decimals, c);
  return b;
}

std::string formatQuantity(double v, std::string_view unit, double scaleOf) {
  if (!std::isfinite(v)) return "–";
  const double ref = std::isfinite(scaleOf) && scaleOf != 0 ? std::fabs(scaleOf) : std::fabs(v);
  if (v == 0 && ref == 0) return withUnit("0", unit);
  if (unit == "ms") {
    if (ref >= 1000) return withUnit(digitsOf(v / 1000, ref / 1000), "s");
    if (ref < 0.1) return withUnit(digitsOf(v * 1000, ref * 1000), "µs");
    return withUnit(digitsOf(v, ref), "ms");
  }
  if (unit == "%") return formatPercent(v / 100);
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
  const std::string n = p == 0 && x == std::floor(x) && std::fabs(x) < 1e15 ? std::to_string(static_cast<long long>(x)) : digitsOf(x, r);
  return withUnit(n, std::string(kPrefixes[p]) + std::string(unit));
}

}  // namespace msa
