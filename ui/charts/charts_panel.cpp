#include "charts/charts_panel.h"


#include "advisor/advisor.h"
#include "charts/latency_chart.h"
#include "charts/op_time_chart.h"
#include "charts/roofline_chart.h"

namespace msa::ui {

ChartsPanel::ChartsPanel(QWidget* parent)
    : QTabWidget(parent), m_opTime(new OpTimeChart(this)), m_roofline(new RooflineChart(this)), m_latency(new LatencyChart(this)) {
  setDocumentMode(true);
  setMinimumHeight(200);  // below this the log-log roofline has no room for its decades
  setTabPosition(QTabWidget::North);
  addTab(m_opTime, QString());
  addTab(m_roofline, QString());
  addTab(m_latency, QString());
  retranslate();
  connect(m_roofline, &RooflineChart::nodeClicked, this, &ChartsPanel::nodeActivated);
}

void ChartsPanel::retranslate() {
  setTabText(0, tr("Op types"));
  setTabText(1, tr("Roofline"));
  setTabText(2, tr("Before / after"));
  setTabToolTip(0, tr("Where the time goes, by operator type"));
  setTabToolTip(1, tr("Each operator against the device's compute and memory roofs; click a point to select its node"));
  setTabToolTip(2, tr("Original latency, after the safe fixes, the theoretical optimum and the verified result"));
}

void ChartsPanel::setReport(const Report& report) {
  m_shown = &report;
  m_opTime->setReport(report);
  m_roofline->setReport(report);
  m_latency->setReport(report);
}

void ChartsPanel::setVerified(double originalMs, double optimizedMs) { m_latency->setVerified(originalMs, optimizedMs); }

void ChartsPanel::clear() {
  m_shown = nullptr;
  m_opTime->clear();
  m_roofline->clear();
  m_latency->clear();
}

void ChartsPanel::selectNodes(const QStringList& names) { m_roofline->selectNodes(names); }

}  // namespace msa::ui
