#include "charts/charts_panel.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>

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
  addTab(m_opTime, tr("Op types"));
  addTab(m_roofline, tr("Roofline"));
  addTab(m_latency, tr("Before / after"));
  setTabToolTip(0, tr("Where the time goes, by operator type"));
  setTabToolTip(1, tr("Each operator against the device's compute and memory roofs; click a point to select its node"));
  setTabToolTip(2, tr("Original latency, after the safe fixes, the theoretical optimum and the verified result"));
  connect(m_roofline, &RooflineChart::nodeClicked, this, &ChartsPanel::nodeActivated);
}

ChartsPanel* ChartsPanel::createDock(QMainWindow* window, QMenu* panelsMenu) {
  auto* panel = new ChartsPanel(window);
  auto* dock = new QDockWidget(tr("Charts"), window);
  dock->setObjectName(QStringLiteral("chartsDock"));
  dock->setWidget(panel);
  window->addDockWidget(Qt::BottomDockWidgetArea, dock);
  if (panelsMenu) panelsMenu->addAction(dock->toggleViewAction());
  dock->hide();  // empty until an analysis: shown by whoever sets the report
  return panel;
}

void ChartsPanel::setReport(const Report& report) {
  m_opTime->setReport(report);
  m_roofline->setReport(report);
  m_latency->setReport(report);
}

void ChartsPanel::setVerified(double originalMs, double optimizedMs) { m_latency->setVerified(originalMs, optimizedMs); }

void ChartsPanel::clear() {
  m_opTime->clear();
  m_roofline->clear();
  m_latency->clear();
}

void ChartsPanel::selectNodes(const QStringList& names) { m_roofline->selectNodes(names); }

}  // namespace msa::ui
