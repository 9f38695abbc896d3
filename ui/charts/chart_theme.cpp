#include "charts/chart_theme.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QFontMetrics>
#include <QLegend>
#include <QTextLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "util/units.h"

namespace msa::ui {

const ChartPalette& chartPalette() {
  static const ChartPalette p;
  return p;
}

void styleChart(QChart* chart, QChartView* view) {
  const ChartPalette& p = chartPalette();
  chart->setTheme(QChart::ChartThemeLight);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setBackgroundBrush(p.background);
  chart->setPlotAreaBackgroundBrush(p.plot);
  chart->setPlotAreaBackgroundVisible(true);
  chart->setMargins(QMargins(6, 4, 10, 4));
  QFont title = QApplication::font();
  title.setPointSizeF(title.pointSizeF() + 0.5);
  title.setWeight(QFont::DemiBold);
  chart->setTitleFont(title);
  chart->setTitleBrush(p.text);
  chart->legend()->setFont(smallChartFont());
  chart->legend()->setLabelColor(p.muted);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  if (view) {
    view->setRenderHint(QPainter::Antialiasing);
    view->setBackgroundBrush(p.background);
    view->setFrameShape(QFrame::NoFrame);
    view->setMinimumSize(260, 200);
  }
}

QFont smallChartFont() {
  QFont small = QApplication::font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() - 1));
  return small;
}

int lineHeight(const QFont& font, const QString& text) {
  QTextLayout layout(text, font);
  layout.beginLayout();
  QTextLine line = layout.createLine();
  if (line.isValid()) line.setLineWidth(1e6);
  const int height = line.isValid() ? static_cast<int>(std::ceil(line.height())) : 0;
  layout.endLayout();
  return std::max(height, QFontMetrics(font).height());
}

void styleAxis(QAbstractAxis* axis, const QString& title) {
  const ChartPalette& p = chartPalette();
  const QFont small = smallChartFont();
  axis->setLabelsFont(small);
  axis->setLabelsColor(p.muted);
  axis->setGridLineColor(p.grid);
  axis->setMinorGridLineColor(QColor(p.grid.red(), p.grid.green(), p.grid.blue(), 110));
  axis->setLinePenColor(p.axis);
  axis->setShadesVisible(false);
  if (!title.isEmpty()) {
    axis->setTitleText(title);
    axis->setTitleFont(small);
    axis->setTitleBrush(p.muted);
  }
}

void setTickLabels(QValueAxis* axis) {
  const double interval = axis->tickCount() > 1 ? (axis->max() - axis->min()) / (axis->tickCount() - 1) : axis->max();
  int decimals = 0;
  for (double scaled = interval; decimals < 4 && std::abs(scaled - std::round(scaled)) > 1e-6 * std::max(1.0, scaled); scaled *= 10)
    ++decimals;
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

QString formatSi(double v) { return QString::fromStdString(formatQuantity(v, "")); }

}  // namespace msa::ui
