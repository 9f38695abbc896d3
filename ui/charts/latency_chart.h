#pragma once
// Before/after latency: the original (measured when profiled), the estimate after every safe
// fix, the theoretical optimum, and the measured optimized model once Verify has run. One bar
// each, in its own colour, labelled with its value.
#include <QChartView>
#include <QStringList>

namespace msa {
struct Report;
}

QT_BEGIN_NAMESPACE
class QAbstractSeries;
class QGraphicsSimpleTextItem;
QT_END_NAMESPACE

namespace msa::ui {

class LatencyChart : public QChartView {
  Q_OBJECT
 public:
  explicit LatencyChart(QWidget* parent = nullptr);

  void setReport(const Report& report);
  // Verify's result: the original and the optimized model measured in the same run. Negative
  // values clear it.
  void setVerified(double originalMs, double optimizedMs);
  void clear();

  QStringList labels() const { return m_labels; }
  QList<double> values() const { return m_values; }

 private:
  void rebuild();
  void placeValueLabels();

  bool m_hasReport = false;
  bool m_measured = false;
  double m_latency = 0, m_afterFixes = 0, m_optimum = 0;
  double m_verifiedBefore = -1, m_verifiedAfter = -1;
  QString m_device;
  QStringList m_labels;
  QList<double> m_values;
  // Each bar's value over it, in the one typography ("3.32 ms", "1.50 s"): the series' own
  // labels sat inside the bar, and a bar lower than a line of text (the optimum beside a
  // 130 ms step) had none.
  QList<QGraphicsSimpleTextItem*> m_valueLabels;
  QAbstractSeries* m_series = nullptr;
};

}  // namespace msa::ui
