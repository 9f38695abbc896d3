#pragma once
// The legend over the graph: the heatmap's colour ramp with its metric, unit, range and scale,
// or, without a metric, the op category colours present in the graph.
#include <QList>
#include <QWidget>
#include <optional>

#include "graph/heatmap.h"
#include "graph/view_graph.h"

namespace msa::ui {

class HeatLegend : public QWidget {
  Q_OBJECT
 public:
  explicit HeatLegend(QWidget* parent = nullptr);

  // `noValue`: what the neutral swatch stands for when it is more than "no value" (nodes left
  // unpriced by unbound dims).
  void setHeatmap(const QString& metric, const QString& unit, const HeatMapping& mapping, const QString& description = {},
                  const QString& noValue = {});
  void setCategories(const QList<OpCategory>& present);
  bool showsHeatmap() const { return m_mapping.has_value(); }
  // The ticks under the ramp, in one unit (the largest tick's).
  QString lowText() const;
  QString midText() const;
  QString highText() const;
  // What it draws as text: the metric's title and its subtitle (where the numbers come from).
  QString titleText() const { return m_metric; }
  QString descriptionText() const { return m_description; }
  QString noValueText() const;

  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  QString scaleName() const;
  int noValueLines(int width) const;  // 1 or 2: the "no value" line wraps once
  double tickScale() const;
  std::optional<HeatMapping> m_mapping;
  QString m_metric, m_unit, m_description, m_noValue;
  QList<OpCategory> m_categories;
};

}  // namespace msa::ui
