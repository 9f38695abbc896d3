#pragma once
// The look shared by the Charts dock: a light, flat theme matching the graph view (same
// background, text and grid colours, the application font), no animations.
#include <QColor>
#include <QString>
#include <string>

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QFont;
class QChart;
class QChartView;
class QValueAxis;
QT_END_NAMESPACE

namespace msa::ui {

struct ChartPalette {
  QColor background{0xff, 0xff, 0xff};
  QColor plot{0xfb, 0xfb, 0xfc};
  QColor text{0x1f, 0x29, 0x37};
  QColor muted{0x6b, 0x72, 0x80};
  QColor grid{0xe5, 0xe7, 0xeb};
  QColor axis{0xc3, 0xc9, 0xd2};
  QColor measured{0x35, 0x6a, 0xd6};   // measured times
  QColor estimated{0x8f, 0xa8, 0xd8};  // estimates (lighter: less certain)
  QColor optimum{0x2a, 0x9a, 0x72};    // theoretical optimum
  QColor improved{0xd9, 0x7d, 0x22};   // after fixes
  QColor roof{0x37, 0x41, 0x51};
  QColor selection{0x1a, 0x73, 0xe8};
};
const ChartPalette& chartPalette();

// Applies the theme to a chart and its view (antialiasing, margins, fonts, legend).
void styleChart(QChart* chart, QChartView* view);
// Axis fonts, label and grid colours.
void styleAxis(QAbstractAxis* axis, const QString& title = {});

// Tick labels in plain decimals, as many as the axis's (nice) tick interval needs: "%.3g" read
// 1000 ms as "1e+03" and 0.25 as "0.25" beside "0.5". Call after setRange/applyNiceNumbers.
void setTickLabels(QValueAxis* axis);

// The height of one line of `text` as drawn: with the fallback fonts its glyphs need (a Chinese
// label is taller than the application font's own line, and an axis elides a label to "..."
// when its band is lower than that).
int lineHeight(const QFont& font, const QString& text);
// The axis labels' font: the application font a point smaller.
QFont smallChartFont();

// SI prefixes: 3.6e9 -> "3.60 G".
QString formatSi(double v);

}  // namespace msa::ui
