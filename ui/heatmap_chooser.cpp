#include "heatmap_chooser.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QMenu>
#include <QSignalBlocker>

#include "graph/graph_widget.h"
#include "i18n/language.h"

namespace msa::ui {

HeatmapChooser::HeatmapChooser(GraphWidget* graph, QWidget* parent) : QObject(parent), m_graph(graph) {
  m_metricBox = new QComboBox(parent);
  m_metricBox->setObjectName(QStringLiteral("heatmapBox"));
  m_metricBox->setMinimumContentsLength(14);
  m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_scaleBox = new QComboBox(parent);
  m_scaleBox->addItems({QString(), QString()});
  m_menu = new QMenu(parent);
  m_scaleMenu = new QMenu(parent);
  auto* scales = new QActionGroup(this);
  m_linearAct = m_scaleMenu->addAction(QString());
  m_logAct = m_scaleMenu->addAction(QString());
  for (QAction* a : {m_linearAct, m_logAct}) {
    a->setCheckable(true);
    scales->addAction(a);
  }
  m_linearAct->setChecked(true);
  connect(m_linearAct, &QAction::triggered, this, [this] { m_scaleBox->setCurrentIndex(0); });
  connect(m_logAct, &QAction::triggered, this, [this] { m_scaleBox->setCurrentIndex(1); });
  connect(m_metricBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &HeatmapChooser::apply);
  connect(m_scaleBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    (i == 1 ? m_logAct : m_linearAct)->setChecked(true);
    m_graph->setHeatScale(i == 1 ? HeatScale::Log : HeatScale::Linear);
  });
  retranslate();
}

void HeatmapChooser::retranslate() {
  m_metricBox->setToolTip(tr("Colour nodes by a metric"));
  m_scaleBox->setItemText(0, tr("linear"));
  m_scaleBox->setItemText(1, tr("log"));
  m_scaleBox->setToolTip(tr("Heatmap scale"));
  m_menu->setTitle(tr("&Heatmap"));
  m_scaleMenu->setTitle(tr("Heatmap S&cale"));
  m_linearAct->setText(tr("&Linear Scale"));
  m_logAct->setText(tr("Lo&g Scale"));
  rebuild();  // the metric titles
}

void HeatmapChooser::rebuild() {
  const int keep = m_metricBox->currentIndex();
  QSignalBlocker block(m_metricBox);
  m_metricBox->clear();
  m_metricBox->addItem(tr("None (op category)"));
  for (const NodeMetric& m : m_metrics) m_metricBox->addItem(metricTitle(m.name), m.name);
  m_menu->clear();
  delete m_group;
  m_group = new QActionGroup(this);
  for (int i = 0; i < m_metricBox->count(); ++i) {
    QAction* a = m_menu->addAction(m_metricBox->itemText(i));
    a->setCheckable(true);
    m_group->addAction(a);
    connect(a, &QAction::triggered, this, [this, i] { m_metricBox->setCurrentIndex(i); });
  }
  const int index = std::clamp(keep, 0, m_metricBox->count() - 1);
  m_metricBox->setCurrentIndex(index);
  m_group->actions().at(index)->setChecked(true);
}

void HeatmapChooser::apply(int index) {
  if (m_group && index >= 0 && index < m_group->actions().size()) m_group->actions().at(index)->setChecked(true);
  if (index <= 0 || index > m_metrics.size()) m_graph->clearMetric();
  else m_graph->setMetric(m_metrics[index - 1]);
}

QString HeatmapChooser::currentName() const {
  const int i = m_metricBox->currentIndex();
  return i > 0 && i <= m_metrics.size() ? m_metrics[i - 1].name : QString();
}

void HeatmapChooser::setDocumentMetrics(const QList<NodeMetric>& metrics, bool edited) {
  const QString looked = currentName();
  m_metrics = metrics;
  m_analysisMetrics.clear();
  m_hasDocument = true;
  {
    QSignalBlocker block(m_metricBox);
    m_metricBox->setCurrentIndex(0);
    rebuild();
  }
  emit metricsChanged(m_metrics);
  if (edited) select(looked);
  else if (m_chosen) select(m_pending);
  else if (!m_metrics.isEmpty()) m_metricBox->setCurrentIndex(1);  // the cost model's estimate
  apply(m_metricBox->currentIndex());  // the values are the new document's
}

void HeatmapChooser::addMetric(const NodeMetric& metric, bool show) {
  auto it = std::find_if(m_metrics.begin(), m_metrics.end(), [&](const NodeMetric& m) { return m.name == metric.name; });
  if (it != m_metrics.end()) *it = metric;
  else m_metrics.push_back(metric);
  {
    QSignalBlocker block(m_metricBox);
    rebuild();
  }
  emit metricsChanged(m_metrics);
  if (show) select(metric.name);
  apply(m_metricBox->currentIndex());
}

void HeatmapChooser::removeMetric(const QString& name) {
  const QString looked = currentName();
  if (m_metrics.removeIf([&](const NodeMetric& m) { return m.name == name; }) == 0) return;
  {
    QSignalBlocker block(m_metricBox);
    rebuild();  // keeps the position; the metric looked at is found again by name
    if (looked == name || !select(looked)) m_metricBox->setCurrentIndex(0);
  }
  emit metricsChanged(m_metrics);
  apply(m_metricBox->currentIndex());
}

void HeatmapChooser::setAnalysisMetrics(const QList<NodeMetric>& metrics, bool show) {
  const QString looked = currentName();
  m_metrics.removeIf([&](const NodeMetric& m) { return m_analysisMetrics.contains(m.name); });
  m_analysisMetrics.clear();
  for (const NodeMetric& m : metrics) {
    auto it = std::find_if(m_metrics.begin(), m_metrics.end(), [&](const NodeMetric& d) { return d.name == m.name; });
    if (it != m_metrics.end()) *it = m;
    else m_metrics.push_back(m);
    m_analysisMetrics << m.name;
  }
  {
    QSignalBlocker block(m_metricBox);
    m_metricBox->setCurrentIndex(0);
    rebuild();
  }
  emit metricsChanged(m_metrics);
  // The first of the analysis, or the metric looked at if it is still offered.
  if (!(show && !metrics.isEmpty() && select(metrics.front().name)) && !select(looked)) m_metricBox->setCurrentIndex(0);
  apply(m_metricBox->currentIndex());
}

bool HeatmapChooser::select(const QString& name) {
  if (!m_hasDocument) {  // applied when the document arrives
    m_pending = name;
    m_chosen = true;
    return true;
  }
  if (name.isEmpty() || name.compare(QStringLiteral("none"), Qt::CaseInsensitive) == 0) {
    m_metricBox->setCurrentIndex(0);
    return true;
  }
  for (int i = 0; i < m_metrics.size(); ++i)
    if (m_metrics[i].name.compare(name, Qt::CaseInsensitive) == 0) {
      m_metricBox->setCurrentIndex(i + 1);
      return true;
    }
  return false;
}

bool HeatmapChooser::logScale() const { return m_scaleBox->currentIndex() == 1; }
void HeatmapChooser::setLogScale(bool log) { m_scaleBox->setCurrentIndex(log ? 1 : 0); }

}  // namespace msa::ui
