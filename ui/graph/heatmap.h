#pragma once
// Heatmap colours: a value range mapped linearly or logarithmically onto [0, 1], and a
// sequential light-to-dark red ramp interpolated in OKLab (perceptually even steps).
#include <QColor>
#include <optional>

#include "graph/graph_overlays.h"

namespace msa::ui {

class HeatMapping {
 public:
  HeatMapping() = default;
  HeatMapping(double lo, double hi, HeatScale scale);

  // Position of a value in [0, 1]; values outside the range clamp. Log scale maps lo..hi by
  // log10 (non-positive values sit at 0); Diverging maps −m..m (m = max |lo|, |hi|), 0 at 0.5.
  double position(double value) const;
  double valueAt(double position) const;  // inverse, for legend ticks
  double low() const { return m_lo; }
  double high() const { return m_hi; }
  HeatScale scale() const { return m_scale; }

  static QColor ramp(double t);  // t in [0, 1]
  // Green (0) through a light grey (0.5, no change) to red (1), for signed changes.
  static QColor divergingRamp(double t);
  QColor colorAt(double t) const { return m_scale == HeatScale::Diverging ? divergingRamp(t) : ramp(t); }
  QColor color(double value) const { return colorAt(position(value)); }

 private:
  double m_lo = 0, m_hi = 1;
  HeatScale m_scale = HeatScale::Linear;
};

}  // namespace msa::ui
