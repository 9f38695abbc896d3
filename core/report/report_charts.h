#pragma once
// Inline SVG charts for the HTML report: no script, no external resource; hovering a mark shows
// its <title>. Sizes are in CSS pixels; the SVGs scale with their container (viewBox).
#include <string>
#include <vector>

#include "advisor/advisor.h"
#include "rules/texts.h"

namespace msa::report {

struct BarItem {
  std::string label;      // left of the bar
  double value = 0;       // bar length, in the chart's unit
  std::string valueText;  // right of the bar
  std::string color;      // CSS colour
  std::string tooltip;
};

// Horizontal bars, longest = full width.
std::string svgBars(const std::vector<BarItem>& items, int width, int labelWidth);

// Operators against the device's roofs: arithmetic intensity (FLOP/byte) against achieved
// FLOP/s (measured time where measured), log-log, coloured by bound, area by share of time.
std::string svgRoofline(const Report& r, Lang lang, int width, int height);

// A stacked bar of the latency: what the findings save by category, and what is left.
std::string svgLatencyBar(const Report& r, Lang lang, int width);

// Colours shared by the charts and the page.
std::string priorityColor(Priority p);
std::string categoryColor(Category c);
std::string boundColor(std::string_view bound);

}  // namespace msa::report
