#pragma once
// Time by op type: horizontal bars, the top op types by time and "other" for the rest,
// measured when the report was profiled and the roofline estimate otherwise (the title says which).
#include <QChartView>
#include <QStringList>

namespace msa {
struct Report;
}

QT_BEGIN_NAMESPACE
class QBarSet;
QT_END_NAMESPACE

namespace msa::ui {

class OpTimeChart : public QChartView {
  Q_OBJECT
 public:
  static constexpr int kTopTypes = 12;

  explicit OpTimeChart(QWidget* parent = nullptr);

  void setReport(const Report& report);
  void clear();

  // What is drawn, top bar first: op type labels ("Conv ×20", "other (7 types)") and times (ms).
  QStringList labels() const { return m_labels; }
  QList<double> times() const { return m_times; }
  bool measured() const { return m_measured; }

 private:
  QStringList m_labels;
  QList<double> m_times;
  bool m_measured = false;
};

}  // namespace msa::ui
