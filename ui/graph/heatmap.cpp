#include "graph/heatmap.h"

#include <QString>
#include <algorithm>
#include <array>
#include <cmath>

#include "util/units.h"

namespace msa::ui {
namespace {

struct Lab {
  double L, a, b;
};

double toLinear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double toSrgb(double c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055; }

Lab toOklab(const QColor& c) {
  const double r = toLinear(c.redF()), g = toLinear(c.greenF()), b = toLinear(c.blueF());
  const double l = std::cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const double m = std::cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const double s = std::cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return {0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s, 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
          0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s};
}

QColor fromOklab(const Lab& c) {
  const double l = std::pow(c.L + 0.3963377774 * c.a + 0.2158037573 * c.b, 3);
  const double m = std::pow(c.L - 0.1055613458 * c.a - 0.0638541728 * c.b, 3);
  const double s = std::pow(c.L - 0.0894841775 * c.a - 1.2914855480 * c.b, 3);
  auto ch = [](double v) { return std::clamp(toSrgb(v), 0.0, 1.0); };
  return QColor::fromRgbF(static_cast<float>(ch(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s)),
                          static_cast<float>(ch(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s)),
                          static_cast<float>(ch(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)));
}

// ColorBrewer "Reds" (sequential), starting a step in so the coolest value still reads as
// "has a value" next to the neutral grey of nodes without one.
const std::array<Lab, 5>& stops() {
  static const std::array<Lab, 5> s = {toOklab(QColor(0xfd, 0xe4, 0xd6)), toOklab(QColor(0xfc, 0xae, 0x91)),
                                       toOklab(QColor(0xfb, 0x6a, 0x4a)), toOklab(QColor(0xcb, 0x18, 0x1d)),
                                       toOklab(QColor(0x67, 0x00, 0x0d))};
  return s;
}

}  // namespace

HeatMapping::HeatMapping(double lo, double hi, HeatScale scale) : m_lo(lo), m_hi(hi), m_scale(scale) {
  if (m_scale == HeatScale::Log) {
    if (m_hi <= 0) m_hi = 1;
    if (m_lo <= 0 || m_lo > m_hi) m_lo = m_hi * 1e-6;
  }
  if (m_scale == HeatScale::Diverging) {
    const double m = std::max(std::abs(m_lo), std::abs(m_hi));
    m_lo = -(m > 0 ? m : 1);
    m_hi = m > 0 ? m : 1;
  }
  if (!(m_hi > m_lo)) m_hi = m_lo + (m_lo == 0 ? 1 : std::abs(m_lo) * 1e-9 + 1e-12);
}

double HeatMapping::position(double v) const {
  double t = 0;
  if (m_scale == HeatScale::Log) {
    if (v <= 0) return 0;
    t = (std::log10(v) - std::log10(m_lo)) / (std::log10(m_hi) - std::log10(m_lo));
  } else {
    t = (v - m_lo) / (m_hi - m_lo);
  }
  return std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
}

double HeatMapping::valueAt(double t) const {
  t = std::clamp(t, 0.0, 1.0);
  if (m_scale == HeatScale::Log) return std::pow(10.0, std::log10(m_lo) + t * (std::log10(m_hi) - std::log10(m_lo)));
  return m_lo + t * (m_hi - m_lo);
}

QColor HeatMapping::divergingRamp(double t) {
  // ColorBrewer RdYlGn reversed, its middle a neutral light grey: improvements green, regressions red.
  static const std::array<Lab, 5> s = {toOklab(QColor(0x1a, 0x98, 0x50)), toOklab(QColor(0x91, 0xcf, 0x60)),
                                       toOklab(QColor(0xee, 0xee, 0xee)), toOklab(QColor(0xfc, 0x8d, 0x59)),
                                       toOklab(QColor(0xd7, 0x30, 0x27))};
  t = std::clamp(std::isfinite(t) ? t : 0.5, 0.0, 1.0) * static_cast<double>(s.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), s.size() - 2);
  const double f = t - static_cast<double>(i);
  const Lab& a = s[i];
  const Lab& b = s[i + 1];
  return fromOklab({a.L + f * (b.L - a.L), a.a + f * (b.a - a.a), a.b + f * (b.b - a.b)});
}

QColor HeatMapping::ramp(double t) {
  const auto& s = stops();
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * static_cast<double>(s.size() - 1);
  const size_t i = std::min(static_cast<size_t>(t), s.size() - 2);
  const double f = t - static_cast<double>(i);
  const Lab& a = s[i];
  const Lab& b = s[i + 1];
  return fromOklab({a.L + f * (b.L - a.L), a.a + f * (b.a - a.a), a.b + f * (b.b - a.b)});
}

QString formatMetric(double v, const QString& unit, double scaleOf) {
  return QString::fromStdString(formatQuantity(v, unit.toStdString(), scaleOf));
}

QString durationText(double ms) { return formatMetric(std::max(0.0, ms), QStringLiteral("ms")); }

QString percentText(double fraction) { return QString::fromStdString(formatPercent(fraction)); }

QString ratioText(double x) { return x > 0 ? QString::fromStdString(formatRatio(x)) : QStringLiteral("–"); }

QString figureText(double v) { return QString::fromStdString(formatSignificant(v)); }

}  // namespace msa::ui
