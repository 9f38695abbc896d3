#include "charts/latency_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "advisor/advisor.h"
#include "charts/chart_theme.h"
#include "graph/graph_overlays.h"
#include "i18n/language.h"

namespace msa::ui {

LatencyChart::LatencyChart(QWidget* parent) : QChartView(new QChart, parent) {
  styleChart(chart(), this);
  connect(chart(), &QChart::plotAreaChanged, this, &LatencyChart::placeValueLabels);
  clear();
}

void LatencyChart::clear() {
  m_hasReport = false;
  m_verifiedBefore = m_verifiedAfter = -1;
  rebuild();
}

void LatencyChart::setReport(const Report& r) {
  m_hasReport = true;
  m_measured = r.latencySource == "measured";
  m_latency = r.latencyMs;
  m_afterFixes = r.estimatedOptimizedMs;
  m_optimum = r.optimumMs;
  m_device = shortDeviceTitle(r);
  rebuild();
}

void LatencyChart::setVerified(double originalMs, double optimizedMs) {
  m_verifiedBefore = originalMs;
  m_verifiedAfter = optimizedMs;
  rebuild();
}

void LatencyChart::rebuild() {
  chart()->removeAllSeries();
  m_series = nullptr;
  for (QAbstractAxis* a : chart()->axes()) chart()->removeAxis(a), delete a;
  qDeleteAll(m_valueLabels);
  m_valueLabels.clear();
  m_labels.clear();
  m_values.clear();
  if (!m_hasReport) {
    chart()->setTitle(tr("Latency before and after: run Analyze"));
    return;
  }
  const ChartPalette& p = chartPalette();
  struct Bar {
    QString label, axisLabel;  // full (tooltip, labels()) and short (under the bar)
    double ms;
    QColor color;
  };
  std::vector<Bar> bars = {
      {m_measured ? tr("Original (measured)") : tr("Original (estimated)"), tr("Original"), m_latency,
       m_measured ? p.measured : p.estimated},
      {tr("After safe fixes (estimated)"), tr("Safe fixes"), m_afterFixes, p.improved.lighter(125)},
      {tr("Theoretical optimum"), tr("Optimum"), m_optimum, p.optimum},
  };
  const bool verified = m_verifiedAfter > 0;
  if (verified) bars.push_back({tr("Optimized (measured)"), tr("Verified"), m_verifiedAfter, p.improved});

  // One set per bar in a stacked series: each category gets its own colour and label.
  auto* series = new QStackedBarSeries;
  for (size_t i = 0; i < bars.size(); ++i) {
    auto* set = new QBarSet(bars[i].label);
    for (size_t j = 0; j < bars.size(); ++j) *set << (i == j ? bars[i].ms : 0.0);
    set->setColor(bars[i].color);
    set->setBorderColor(Qt::transparent);
    set->setLabelColor(p.text);
    series->append(set);
    m_labels << bars[i].label;
    m_values << bars[i].ms;
  }
  series->setBarWidth(0.6);
  chart()->addSeries(series);
  m_series = series;
  for (const Bar& b : bars) {
    auto* label = new QGraphicsSimpleTextItem(durationText(b.ms), chart());
    label->setFont(smallChartFont());
    label->setBrush(p.text);
    label->setZValue(20);
    m_valueLabels << label;
  }
  chart()->legend()->hide();
  connect(series, &QStackedBarSeries::hovered, this, [bars](bool on, int, QBarSet* set) {
    if (!on) return QToolTip::hideText();
    for (const Bar& b : bars)
      if (b.label == set->label()) QToolTip::showText(QCursor::pos(), b.label + QStringLiteral(": ") + durationText(b.ms));
  });

  auto* x = new QBarCategoryAxis;
  QStringList cats;
  for (const Bar& b : bars) cats << b.axisLabel;
  x->append(cats);
  styleAxis(x);
  x->setGridLineVisible(false);
  auto* y = new QValueAxis;
  double max = 0;
  for (const Bar& b : bars) max = std::max(max, b.ms);
  y->setRange(0, max > 0 ? max * 1.12 : 1);
  y->applyNiceNumbers();
  setTickLabels(y);
  styleAxis(y, tr("milliseconds"));
  chart()->addAxis(x, Qt::AlignBottom);
  chart()->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);

  QString title = tr("Latency on %1").arg(m_device);
  // "%1: %2" is the language's own colon (a full-width one in Chinese).
  if (verified && m_verifiedBefore > 0)
    title = tr("%1: %2").arg(title, tr("measured speedup %1").arg(ratioText(m_verifiedBefore / m_verifiedAfter)));
  else if (m_afterFixes > 0 && m_latency > 0)
    title = tr("%1: %2").arg(title, tr("safe fixes %1 (estimated)").arg(ratioText(m_latency / m_afterFixes)));
  chart()->setTitle(title);
  placeValueLabels();
}

// Over each bar, centred; inside its top when the plot has no room above it.
void LatencyChart::placeValueLabels() {
  if (!m_series) return;
  const QRectF plot = chart()->plotArea();
  for (int i = 0; i < m_valueLabels.size() && i < m_values.size(); ++i) {
    QGraphicsSimpleTextItem* label = m_valueLabels[i];
    const QSizeF box = label->boundingRect().size();
    const QPointF top = chart()->mapToPosition(QPointF(i, m_values[i]), m_series);
    double y = top.y() - box.height() - 2;
    if (y < plot.top()) y = top.y() + 2;
    label->setPos(top.x() - box.width() / 2, y);
  }
}

}  // namespace msa::ui
