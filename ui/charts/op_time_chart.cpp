#include "charts/op_time_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QFontMetrics>
#include <QHorizontalBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "graph/graph_overlays.h"
#include "advisor/advisor.h"
#include "charts/chart_theme.h"
#include "i18n/language.h"

namespace msa::ui {

OpTimeChart::OpTimeChart(QWidget* parent) : QChartView(new QChart, parent) {
  styleChart(chart(), this);
  clear();
}

void OpTimeChart::clear() {
  chart()->removeAllSeries();
  for (QAbstractAxis* a : chart()->axes()) chart()->removeAxis(a), delete a;
  chart()->setTitle(tr("Time by op type: run Analyze"));
  m_labels.clear();
  m_times.clear();
  m_types.clear();
  m_drawnBars = 0;
  m_measured = false;
}

int OpTimeChart::barsThatFit() const {
  // The tallest label drawn: "other" is translated (Chinese glyphs come from a taller font, and
  // a label taller than its bar's band is drawn as "...").
  const int line = lineHeight(smallChartFont(), tr("other (%n types)", nullptr, 99));
  // The title and the value axis (labels and title) take about five lines; a bar and its gap
  // need a line and a half for its label to be drawn whole.
  const int room = height() - 5 * line - 16;
  return std::clamp(static_cast<int>(room / (1.5 * line)), 3, kTopTypes + 1);
}

void OpTimeChart::resizeEvent(QResizeEvent* e) {
  QChartView::resizeEvent(e);
  if (!m_types.empty() && barsThatFit() != m_drawnBars) draw();
}

void OpTimeChart::setReport(const Report& r) {
  clear();
  m_measured = r.latencySource == "measured";
  // timeByOpType is sorted by time.
  for (const OpTypeTime& t : r.timeByOpType)
    if (t.ms > 0) m_types.push_back({t.opType, {t.ms, t.count}});
  const QString device = shortDeviceTitle(r);
  m_title = m_measured ? tr("Time by op type, measured on %1").arg(device)
                       : tr("Time by op type, estimated (roofline, %1)").arg(device);
  draw();
}

void OpTimeChart::draw() {
  chart()->removeAllSeries();
  for (QAbstractAxis* a : chart()->axes()) chart()->removeAxis(a), delete a;
  m_labels.clear();
  m_times.clear();
  // Keep the top types that fit and fold the rest into "other".
  struct TypeTime {
    std::string opType;
    double ms;
    int count;
  };
  std::vector<TypeTime> types;
  for (const auto& [op, tc] : m_types) types.push_back({op, tc.first, tc.second});
  const int top = barsThatFit() - 1;
  m_drawnBars = barsThatFit();
  double otherMs = 0;
  int otherTypes = 0, otherNodes = 0;
  const bool fold = static_cast<int>(types.size()) > top + 1;
  double total = 0;
  for (size_t i = 0; i < types.size(); ++i) {
    total += types[i].ms;
    if (fold && static_cast<int>(i) >= top) otherMs += types[i].ms, ++otherTypes, otherNodes += types[i].count;
  }
  if (fold) types.resize(static_cast<size_t>(top));

  QStringList tips;
  for (const TypeTime& t : types) {
    m_labels << QStringLiteral("%1 ×%2").arg(QString::fromStdString(t.opType)).arg(t.count);
    m_times << t.ms;
    tips << tr("%1: %2 nodes, %3 (%4 of the node time)")
                .arg(QString::fromStdString(t.opType))
                .arg(t.count)
                .arg(durationText(t.ms))
                .arg(percentText(total > 0 ? t.ms / total : 0));
  }
  if (otherTypes > 0) {
    m_labels << tr("other (%n types)", nullptr, otherTypes);
    m_times << otherMs;
    tips << tr("%1 other op types, %2 nodes, %3").arg(otherTypes).arg(otherNodes).arg(durationText(otherMs));
  }

  const ChartPalette& p = chartPalette();
  auto* set = new QBarSet(m_measured ? tr("measured") : tr("estimated"));
  set->setColor(m_measured ? p.measured : p.estimated);
  set->setBorderColor(Qt::transparent);
  set->setLabelColor(p.text);
  // Bars are drawn bottom-up: reverse so the most expensive type is at the top.
  QStringList categories;
  for (qsizetype i = m_labels.size() - 1; i >= 0; --i) {
    *set << m_times[i];
    categories << m_labels[i];
  }
  auto* series = new QHorizontalBarSeries;
  series->append(set);
  series->setBarWidth(0.72);
  series->setLabelsVisible(true);
  series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
  series->setLabelsFormat(QStringLiteral("@value"));
  series->setLabelsPrecision(3);
  chart()->addSeries(series);
  chart()->legend()->hide();

  auto* y = new QBarCategoryAxis;
  y->append(categories);
  styleAxis(y);
  y->setGridLineVisible(false);
  auto* x = new QValueAxis;
  const double max = m_times.isEmpty() ? 1 : *std::max_element(m_times.cbegin(), m_times.cend());
  x->setRange(0, max * 1.18);
  x->applyNiceNumbers();
  setTickLabels(x);
  styleAxis(x, tr("milliseconds"));
  chart()->addAxis(y, Qt::AlignLeft);
  chart()->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  series->attachAxis(y);

  chart()->setTitle(m_title);
  const int n = static_cast<int>(m_labels.size());
  connect(set, &QBarSet::hovered, this, [tips, n](bool on, int index) {
    if (on && index >= 0 && index < n) QToolTip::showText(QCursor::pos(), tips[n - 1 - index]);
    else QToolTip::hideText();
  });
}

}  // namespace msa::ui
