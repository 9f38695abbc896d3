#pragma once
// The Charts dock: tabs for time by op type, the roofline scatter and the latency before and
// after fixes. Takes the analysis as a value (setReport) and Verify's measured pair
// (setVerified); a click on a roofline point is nodeActivated(name).
#include <QTabWidget>
#include <optional>
#include <utility>

namespace msa {
struct Report;
}


namespace msa::ui {

class OpTimeChart;
class RooflineChart;
class LatencyChart;

class ChartsPanel : public QTabWidget {
  Q_OBJECT
 public:
  enum class Tab { OpTypes, Roofline, Latency };

  explicit ChartsPanel(QWidget* parent = nullptr);

  void setReport(const Report& report);
  void retranslate();  // tab titles (the charts redraw with the next report)
  const Report* shownReport() const { return m_shown; }  // the report drawn (null: cleared)
  void setVerified(double originalMs, double optimizedMs);
  void clear();

  OpTimeChart* opTimeChart() const { return m_opTime; }
  RooflineChart* rooflineChart() const { return m_roofline; }
  LatencyChart* latencyChart() const { return m_latency; }
  void showTab(Tab t) { setCurrentIndex(static_cast<int>(t)); }

 public slots:
  void selectNodes(const QStringList& names);  // rings the first that is on the roofline

 signals:
  void nodeActivated(const QString& name);

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  void drawPending();  // the report that arrived while hidden, once shown
  OpTimeChart* m_opTime;
  RooflineChart* m_roofline;
  LatencyChart* m_latency;
  const Report* m_shown = nullptr;  // the hub's report, alive while shown
  std::optional<std::pair<double, double>> m_verified;  // Verify's measured before/after, ms
  bool m_pending = false;   // m_shown arrived while hidden: drawn once shown (drawPending)
  QStringList m_selection;  // the nodes selected in the graph
};

}  // namespace msa::ui
