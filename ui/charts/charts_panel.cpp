#include "charts/charts_panel.h"

#include <QTimer>

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
  // The charts' titles and axes in the new language: drawn again from what they show.
  if (m_shown) {
    const auto verified = m_verified;
    setReport(*m_shown);
    if (verified) setVerified(verified->first, verified->second);
  }
}

void ChartsPanel::setReport(const Report& report) {
  m_shown = &report;
  m_verified.reset();
  // A large model's charts (a point per operator) take longer to build than the event loop may
  // be held: a hidden panel draws them when it is shown.
  m_pending = !isVisible();
  if (m_pending) return;
  m_opTime->setReport(report);
  m_roofline->setReport(report);
  m_latency->setReport(report);
  m_roofline->selectNodes(m_selection);
}

void ChartsPanel::showEvent(QShowEvent* e) {
  QTabWidget::showEvent(e);
  // Drawn after the event that showed the panel, not in it: the docks appear after an analysis
  // in the same event that fills the graph and the tables, and a tab shown there may be hidden
  // again before it ends (Bottlenecks raised over it).
  if (m_pending && m_shown) QTimer::singleShot(0, this, &ChartsPanel::drawPending);
}

void ChartsPanel::drawPending() {
  if (!m_pending || !m_shown || !isVisible()) return;
  const auto verified = m_verified;
  setReport(*m_shown);
  if (verified) setVerified(verified->first, verified->second);
}

void ChartsPanel::setVerified(double originalMs, double optimizedMs) {
  m_verified = std::pair(originalMs, optimizedMs);
  if (!m_pending) m_latency->setVerified(originalMs, optimizedMs);
}

void ChartsPanel::clear() {
  m_shown = nullptr;
  m_pending = false;
  m_verified.reset();
  m_opTime->clear();
  m_roofline->clear();
  m_latency->clear();
}

void ChartsPanel::selectNodes(const QStringList& names) {
  m_selection = names;
  if (!m_pending) m_roofline->selectNodes(names);
}

}  // namespace msa::ui
