#pragma once
// Time by op type: horizontal bars, the top op types by time and "other" for the rest,
// measured when the report was profiled and the roofline estimate otherwise (the title says which).
#include <QChartView>
#include <QStringList>
#include <string>
#include <utility>
#include <vector>

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
  // As many bars as the chart's height gives a readable label each (at least 3, at most the
  // kTopTypes types and "other"); the rest fold into "other". QtCharts elides every category label to "..." once
  // they do not fit, which at a dock's default height left no label readable.
  int barsThatFit() const;

  explicit OpTimeChart(QWidget* parent = nullptr);

  void setReport(const Report& report);
  void clear();

  // What is drawn, top bar first: op type labels ("Conv ×20", "other (7 types)") and times (ms).
  QStringList labels() const { return m_labels; }
  QList<double> times() const { return m_times; }
  bool measured() const { return m_measured; }

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  void draw();
  std::vector<std::pair<std::string, std::pair<double, int>>> m_types;  // op type -> (ms, count), by time
  QString m_title;
  int m_drawnBars = 0;
  QStringList m_labels;
  QList<double> m_times;
  bool m_measured = false;
};

}  // namespace msa::ui
