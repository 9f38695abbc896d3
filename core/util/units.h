#pragma once
// One typography for the figures every writer prints (the GUI's lists, legends, charts and
// Properties, the reports, the findings' texts): three significant digits, never an exponent,
// durations in µs/ms/s, SI prefixes for the rest, one style of percentage.
#include <limits>
#include <string>
#include <string_view>

namespace msa {

// Between a figure and its unit: a narrow no-break space (U+202F), as typesetting has it, so that
// "12.3 ms" is never split across two lines. Resource templates write it as "\u202f".
inline constexpr std::string_view kUnitSpace = "\u202f";

// A figure already formatted, followed by its unit: "12.3 ms" (no space before "%" or "×").
std::string withUnit(std::string figure, std::string_view unit);

// A duration kept in ms whatever its size, for a sentence or column whose unit is fixed:
// "0.0457 ms", "165 ms" (formatQuantity picks µs/ms/s by size instead).
std::string formatMilliseconds(double ms);

// Three significant digits in fixed notation: "165", "81.8", "1.23", "0.0456"; whole above a
// thousand ("1235"); "0" for zero; "–" when not finite.
std::string formatSignificant(double v);

// A share (0.223) as a percentage: "22.3%", "1.4%", "0.04%", "100%", "−0.04%"; "<0.01%" for a
// non-zero share too small to show; "–" when not finite.
std::string formatPercent(double fraction);

// The same, right-aligned in a text table's column six characters wide: " 12.3%".
std::string percentColumn(double fraction);

// A ratio or speedup, the sign after: "3.84×", "1.02×", "12.5×"; "–" when not finite.
std::string formatRatio(double x);

// A similarity that is at most 1 (a cosine): five decimals, more when five would round it to 1 —
// "0.99871", "0.9999963" (not "1.00000", which reads as an exact match) — and "1" when exact; "–"
// when not finite.
std::string formatSimilarity(double c);

// "1.25 ms", "42.0 µs", "2.50 s", "5.72 MB", "3.40 GFLOP", "11.7 M" (no unit), "37.5%", "–" when
// not finite. `unit` "ms" is a duration; "%" a value already in percent; anything else takes an
// SI prefix. `scaleOf`: when finite, the unit and prefix are those of that value, so that figures
// shown together read in one unit ("0 µs · 1.57 µs · 3.14 µs").
std::string formatQuantity(double value, std::string_view unit,
                           double scaleOf = std::numeric_limits<double>::quiet_NaN());

}  // namespace msa
