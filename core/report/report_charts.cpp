#include "report/report_charts.h"

#include "rules/family_registry.h"

#include <algorithm>
#include <cmath>

#include "report/report_format.h"

namespace msa::report {

std::string priorityColor(Priority p) {
  switch (p) {
    case Priority::P0: return "#c0392b";
    case Priority::P1: return "#e67e22";
    case Priority::P2: return "#5d7fa3";
  }
  return "#5d7fa3";
}

std::string categoryColor(Category c) { return categoryColour(c); }

std::string boundColor(std::string_view bound) {
  if (bound == "compute") return "#3b5bdb";
  if (bound == "memory") return "#0ca678";
  if (bound == "overhead") return "#e8590c";
  return "#868e96";
}

namespace {

std::string n(double v) { return fmtFixed(v, 1); }

// Approximate rendered width of a label at 12 px.
double textWidth(std::string_view s) { return static_cast<double>(displayWidth(s)) * 6.6; }

std::string clip(std::string_view s, double px) {
  const size_t cols = static_cast<size_t>(std::max(4.0, px / 6.6));
  return displayWidth(s) > cols ? fitColumn(s, cols, true) : std::string(s);
}

std::string text(double x, double y, std::string_view s, std::string_view anchor = "start", std::string_view cls = "") {
  return "<text x=\"" + n(x) + "\" y=\"" + n(y) + "\" text-anchor=\"" + std::string(anchor) + "\"" +
         (cls.empty() ? "" : " class=\"" + std::string(cls) + "\"") + ">" + htmlText(s) + "</text>";
}

}  // namespace

std::string svgBars(const std::vector<BarItem>& items, int width, int labelWidth) {
  const int rowH = 22, valueW = 110;
  const int height = static_cast<int>(items.size()) * rowH + 6;
  double max = 0;
  for (const auto& it : items) max = std::max(max, it.value);
  const double barMax = width - labelWidth - valueW - 12;
  std::string s = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" width=\"100%\" role=\"img\">";
  for (size_t i = 0; i < items.size(); ++i) {
    const BarItem& it = items[i];
    const double y = 3 + static_cast<double>(i) * rowH;
    const double w = max > 0 ? std::max(1.5, barMax * it.value / max) : 0;
    s += "<g><title>" + htmlText(it.tooltip.empty() ? it.label : it.tooltip) + "</title>";
    s += text(labelWidth - 8, y + 15, clip(it.label, labelWidth - 10), "end", "lbl");
    s += "<rect x=\"" + std::to_string(labelWidth) + "\" y=\"" + n(y + 3) + "\" width=\"" + n(w) + "\" height=\"" +
         std::to_string(rowH - 6) + "\" rx=\"3\" fill=\"" + it.color + "\"/>";
    s += text(labelWidth + w + 6, y + 15, it.valueText, "start", "val");
    s += "</g>";
  }
  return s + "</svg>";
}

std::string svgRoofline(const Report& r, Lang lang, int width, int height) {
  struct Pt {
    double x, y, share;
    const NodeReport* node;
    double ms;
  };
  std::vector<Pt> pts;
  for (const NodeReport& nd : r.nodes) {
    const double ms = nd.measuredMs > 0 ? nd.measuredMs : nd.estimatedMs;
    if (nd.flops <= 0 || nd.bytes <= 0 || ms <= 0) continue;
    pts.push_back({nd.intensity, nd.flops / (ms * 1e-3), nd.share, &nd, ms});
  }
  const double bw = r.bandwidthBytesPerSecond;
  double peakMax = 0;
  for (const auto& roof : r.roofs) peakMax = std::max(peakMax, roof.flopsPerSecond);
  double xMin = 1e30, xMax = 0, yMin = 1e30, yMax = peakMax;
  for (const Pt& p : pts) {
    xMin = std::min(xMin, p.x);
    xMax = std::max(xMax, p.x);
    yMin = std::min(yMin, p.y);
    yMax = std::max(yMax, p.y);
  }
  for (const auto& roof : r.roofs)
    if (bw > 0) xMax = std::max(xMax, roof.flopsPerSecond / bw);
  if (pts.empty()) {
    xMin = 0.1;
    yMin = peakMax > 0 ? peakMax / 1e4 : 1e6;
  }
  if (xMax <= 0) xMax = 1000;
  if (yMax <= 0) yMax = 1e12;
  const double lx0 = std::floor(std::log10(std::max(xMin, 1e-3))), lx1 = std::ceil(std::log10(xMax * 1.5));
  const double ly0 = std::floor(std::log10(std::max(yMin, 1.0))), ly1 = std::ceil(std::log10(yMax * 1.5));
  const double L = 64, R = 18, T = 30, B = 44;
  const double pw = width - L - R, ph = height - T - B;
  auto X = [&](double v) { return L + pw * (std::log10(v) - lx0) / std::max(1.0, lx1 - lx0); };
  auto Y = [&](double v) { return T + ph * (1 - (std::log10(v) - ly0) / std::max(1.0, ly1 - ly0)); };

  std::string s = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\" width=\"100%\" role=\"img\">";
  s += "<rect x=\"" + n(L) + "\" y=\"" + n(T) + "\" width=\"" + n(pw) + "\" height=\"" + n(ph) + "\" class=\"plot\"/>";
  for (double d = lx0; d <= lx1; d += 1) {
    const double v = std::pow(10.0, d);
    s += "<line x1=\"" + n(X(v)) + "\" y1=\"" + n(T) + "\" x2=\"" + n(X(v)) + "\" y2=\"" + n(T + ph) + "\" class=\"grid\"/>";
    s += text(X(v), T + ph + 16, decadeLabel(v), "middle", "axis");
  }
  for (double d = ly0; d <= ly1; d += 1) {
    const double v = std::pow(10.0, d);
    s += "<line x1=\"" + n(L) + "\" y1=\"" + n(Y(v)) + "\" x2=\"" + n(L + pw) + "\" y2=\"" + n(Y(v)) + "\" class=\"grid\"/>";
    s += text(L - 6, Y(v) + 4, decadeLabel(v), "end", "axis");
  }
  s += text(L + pw / 2, height - 6, uiText("chart.intensity", lang), "middle", "axis-title");
  s += "<text class=\"axis-title\" transform=\"translate(14," + n(T + ph / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
       htmlText(uiText("chart.performance", lang)) + "</text>";

  // Roofs: min(peak, bandwidth × intensity).
  const double xa = std::pow(10.0, lx0), xb = std::pow(10.0, lx1);
  for (size_t k = 0; k < r.roofs.size(); ++k) {
    const double peak = r.roofs[k].flopsPerSecond;
    std::string path;
    if (bw > 0) {
      const double ridge = peak / bw;
      const double x0 = std::max(xa, std::pow(10.0, ly0) / bw);
      path = "M" + n(X(x0)) + "," + n(Y(std::min(peak, bw * x0)));
      if (ridge > x0 && ridge < xb) path += " L" + n(X(ridge)) + "," + n(Y(peak));
      path += " L" + n(X(xb)) + "," + n(Y(std::min(peak, bw * xb)));
    } else {
      path = "M" + n(X(xa)) + "," + n(Y(peak)) + " L" + n(X(xb)) + "," + n(Y(peak));
    }
    s += "<path d=\"" + path + "\" class=\"roof\"" + (k ? " stroke-dasharray=\"6 4\"" : "") + "/>";
    s += text(L + pw - 4, Y(peak) - 5, r.roofs[k].label + " " + formatQuantity(peak, "FLOP/s"), "end", "roof-label");
  }
  if (bw > 0) {
    const double xl = std::pow(10.0, lx0 + 0.35 * (lx1 - lx0));
    const double yl = bw * xl;
    if (yl > std::pow(10.0, ly0) && yl < std::pow(10.0, ly1))
      s += text(X(xl) + 6, Y(yl) - 8, formatQuantity(bw, "B/s"), "start", "roof-label");
  }
  // Largest first, so small operators stay visible on top.
  std::sort(pts.begin(), pts.end(), [](const Pt& a, const Pt& b) { return a.share > b.share; });
  for (const Pt& p : pts) {
    const double rad = 2.5 + 10 * std::sqrt(std::max(0.0, p.share));
    std::string tip = p.node->name + " (" + p.node->opType + ")\n" + formatQuantity(p.ms, "ms") + " · " + formatQuantity(p.x, "FLOP/B") + " · " +
                      formatQuantity(p.y, "FLOP/s") + " · " + boundLabel(p.node->bound, lang);
    if (p.node->efficiency >= 0) tip += " · " + uiText("col.efficiency", lang) + " " + formatPercent(p.node->efficiency);
    s += "<circle cx=\"" + n(X(p.x)) + "\" cy=\"" + n(Y(p.y)) + "\" r=\"" + n(rad) + "\" fill=\"" + boundColor(p.node->bound) +
         "\" class=\"pt\"><title>" + htmlText(tip) + "</title></circle>";
  }
  double lx = L + 4;
  for (const char* b : {"compute", "memory", "overhead"}) {
    s += "<circle cx=\"" + n(lx) + "\" cy=\"" + n(T - 14) + "\" r=\"5\" fill=\"" + boundColor(b) + "\"/>";
    const std::string label = boundLabel(b, lang);
    s += text(lx + 9, T - 10, label, "start", "legend");
    lx += 24 + textWidth(label);
  }
  return s + "</svg>";
}

std::string svgLatencyBar(const Report& r, Lang lang, int width) {
  const double total = std::max(r.latencyMs, 1e-12);
  const double L = 4, W = width - 8, H = 26;
  std::string s = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(width) + " 74\" width=\"100%\" role=\"img\">";
  double x = L;
  double saved = 0;
  for (const CategorySummary& c : r.categories) {
    if (c.impactMs <= 0) continue;
    const double w = W * c.impactMs / total;
    s += "<rect x=\"" + n(x) + "\" y=\"8\" width=\"" + n(w) + "\" height=\"" + n(H) + "\" fill=\"" + categoryColor(c.category) +
         "\"><title>" + htmlText(categoryLabel(c.category, lang) + ": " + formatQuantity(c.impactMs, "ms") + " (" + formatPercent(c.share) + ")") +
         "</title></rect>";
    x += w;
    saved += c.impactMs;
  }
  s += "<rect x=\"" + n(x) + "\" y=\"8\" width=\"" + n(std::max(0.0, L + W - x)) + "\" height=\"" + n(H) +
       "\" fill=\"#dee2e6\"><title>" + htmlText(uiText("chart.remaining", lang) + ": " + formatQuantity(r.latencyMs - saved, "ms")) +
       "</title></rect>";
  if (r.optimumMs > 0 && r.optimumMs < total) {
    const double ox = L + W * r.optimumMs / total;
    s += "<line x1=\"" + n(ox) + "\" y1=\"3\" x2=\"" + n(ox) + "\" y2=\"" + n(H + 13) + "\" class=\"opt\"/>";
    s += text(ox, H + 26, uiText("report.optimum", lang) + " " + formatQuantity(r.optimumMs, "ms"), ox > width * 0.7 ? "end" : "start", "legend");
  }
  double lx = L;
  for (const CategorySummary& c : r.categories) {
    if (c.impactMs <= 0) continue;
    const std::string label = categoryLabel(c.category, lang) + " " + formatSignificant(c.impactMs);
    s += "<rect x=\"" + n(lx) + "\" y=\"58\" width=\"10\" height=\"10\" fill=\"" + categoryColor(c.category) + "\"/>";
    s += text(lx + 14, 67, label, "start", "legend");
    lx += 30 + textWidth(label);
  }
  return s + "</svg>";
}

}  // namespace msa::report
