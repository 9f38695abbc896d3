#include "graph/heat_legend.h"

#include <QLinearGradient>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "graph/graph_style.h"

namespace msa::ui {
namespace {
constexpr int kW = 270;
}

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) { setAttribute(Qt::WA_TransparentForMouseEvents); }

void HeatLegend::setHeatmap(const QString& metric, const QString& unit, const HeatMapping& mapping,
                            const QString& description, const QString& noValue) {
  m_metric = metric;
  m_unit = unit;
  m_description = description;
  m_noValue = noValue;
  m_mapping = mapping;
  resize(sizeHint());
  update();
}

void HeatLegend::setCategories(const QList<OpCategory>& present) {
  m_mapping.reset();
  m_categories = present;
  resize(sizeHint());
  update();
}

// The ticks share one unit, the largest one's: "0 µs … 3.14 µs", not "0 ms … 3.14 µs".
double HeatLegend::tickScale() const { return m_mapping ? std::max(std::abs(m_mapping->low()), std::abs(m_mapping->high())) : 0; }
QString HeatLegend::lowText() const { return m_mapping ? formatMetric(m_mapping->low(), m_unit, tickScale()) : QString(); }
QString HeatLegend::midText() const { return m_mapping ? formatMetric(m_mapping->valueAt(0.5), m_unit, tickScale()) : QString(); }
QString HeatLegend::highText() const { return m_mapping ? formatMetric(m_mapping->high(), m_unit, tickScale()) : QString(); }

QString HeatLegend::noValueText() const { return m_noValue.isEmpty() ? tr("no value") : m_noValue; }

int HeatLegend::noValueLines(int width) const {
  const int line = fontMetrics().height();
  const QRect r = fontMetrics().boundingRect(QRect(0, 0, width - 44, 3 * line), Qt::TextWordWrap, noValueText());
  return std::clamp((r.height() + line - 1) / line, 1, 2);
}

QString HeatLegend::scaleName() const {
  if (!m_mapping) return {};
  return m_mapping->scale() == HeatScale::Log         ? tr("log scale")
         : m_mapping->scale() == HeatScale::Diverging ? tr("green faster, red slower")
                                                      : tr("linear scale");
}

QSize HeatLegend::sizeHint() const {
  const int line = fontMetrics().height();
  if (m_mapping) {
    // Wide enough for the title beside the scale's name (a long title widens it, up to twice).
    QFont bold = font();
    bold.setBold(true);
    const int title = QFontMetrics(bold).horizontalAdvance(m_metric) + fontMetrics().horizontalAdvance(scaleName()) + 28;
    // A long "no value" line widens the legend a little and wraps to a second line.
    const int noValue = std::min(fontMetrics().horizontalAdvance(noValueText()) + 44, kW * 3 / 2);
    const int w = std::clamp(std::max(title, noValue), kW, 2 * kW);
    return {w, 16 + line * ((m_description.isEmpty() ? 3 : 4) + noValueLines(w) - 1) + 22};
  }
  const int rows = (static_cast<int>(m_categories.size()) + 1) / 2;
  int widest = 0;
  for (OpCategory c : m_categories) widest = std::max(widest, fontMetrics().horizontalAdvance(opCategoryName(c)));
  return {2 * (widest + 15) + 20 + 12, 14 + rows * (line + 3) + 2};
}

void HeatLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(QColor(0xd5, 0xda, 0xe1), 1));
  p.setBrush(QColor(255, 255, 255, 238));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
  const QFontMetrics fm = fontMetrics();
  const int line = fm.height();
  const QColor text(0x1f, 0x29, 0x37), muted(0x6b, 0x72, 0x80);
  int y = 8;
  if (m_mapping) {
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    const QString scale = scaleName();
    // The title gives way to the scale's name: elided, never drawn under it.
    const int scaleWidth = fontMetrics().horizontalAdvance(scale) + 8;
    p.drawText(QRect(10, y, width() - 20 - scaleWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(m_metric, Qt::ElideRight, width() - 20 - scaleWidth));
    p.setFont(font());
    p.setPen(muted);
    p.drawText(QRect(10, y, width() - 20, line), Qt::AlignRight | Qt::AlignVCenter, scale);
    y += line;
    if (!m_description.isEmpty()) {
      p.drawText(QRect(10, y, width() - 20, line), Qt::AlignLeft | Qt::AlignVCenter,
                 fontMetrics().elidedText(m_description, Qt::ElideRight, width() - 20));
      y += line;
    }
    y += 4;
    const QRectF bar(10, y, width() - 20, 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 16; ++i) g.setColorAt(i / 16.0, m_mapping->colorAt(i / 16.0));
    p.setPen(QPen(QColor(0xc9, 0xce, 0xd6), 1));
    p.setBrush(g);
    p.drawRect(bar);
    y += 14;
    p.setPen(text);
    p.drawText(QRect(10, y, width() - 20, line), Qt::AlignLeft | Qt::AlignVCenter, lowText());
    p.drawText(QRect(10, y, width() - 20, line), Qt::AlignHCenter | Qt::AlignVCenter, midText());
    p.drawText(QRect(10, y, width() - 20, line), Qt::AlignRight | Qt::AlignVCenter, highText());
    y += line + 4;
    GraphStyle style;
    p.setPen(QPen(style.border, 1));
    p.setBrush(style.neutralFill);
    p.drawRoundedRect(QRectF(10, y + 2, 18, line - 4), 2, 2);
    p.setPen(muted);
    const int lines = noValueLines(width());
    const QString noValue = lines == 1 ? fontMetrics().elidedText(noValueText(), Qt::ElideRight, width() - 44) : noValueText();
    p.drawText(QRect(34, y, width() - 44, lines * line), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, noValue);
    return;
  }
  int col = 0;
  y = 7;
  for (OpCategory c : m_categories) {
    const int x = 10 + col * (width() - 20) / 2;
    const CategoryColors cc = categoryColors(c);
    p.setPen(Qt::NoPen);
    p.setBrush(cc.bar);
    p.drawRoundedRect(QRectF(x, y + 3, 10, line - 6), 2, 2);
    p.setPen(text);
    p.drawText(QRect(x + 15, y, (width() - 20) / 2 - 15, line), Qt::AlignLeft | Qt::AlignVCenter, opCategoryName(c));
    if (++col == 2) {
      col = 0;
      y += line + 3;
    }
  }
}

}  // namespace msa::ui
