#pragma once
// One typography for a figure with its unit, whoever prints it (the GUI's lists, legends, charts
// and Properties): three significant digits, durations in µs/ms/s, SI prefixes for the rest.
#include <limits>
#include <string>
#include <string_view>

namespace msa {

// "1.25 ms", "42.0 µs", "2.50 s", "5.72 MB", "3.40 GFLOP", "11.7 M" (no unit), "37.5 %", "–" when
// not finite. `unit` "ms" is a duration; "%" a percentage; anything else takes an SI prefix.
// `scaleOf`: when finite, the unit and prefix are those of that value, so that figures shown
// together read in one unit ("0 µs · 1.57 µs · 3.14 µs").
std::string formatQuantity(double value, std::string_view unit,
                           double scaleOf = std::numeric_limits<double>::quiet_NaN());

}  // namespace msa
