#pragma once
// Fonts, colours and box metrics of the graph drawing. Sizes are measured with QFontMetricsF
// here, before layout, and the painters use the same numbers: Graphviz never measures text.
#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QSizeF>
#include <QString>

#include "graph/view_graph.h"

namespace msa::ui {

struct CategoryColors {
  QColor bar;   // the strong colour: left bar, legend swatch
  QColor fill;  // the light tint used when no metric is shown
};
CategoryColors categoryColors(OpCategory c);

class GraphStyle {
 public:
  GraphStyle();

  QFont titleFont;   // op type, block name
  QFont labelFont;   // node name, block count
  QFont edgeFont;    // tensor shapes on edges
  QFont frameFont;   // cluster titles

  QColor background{0xf6, 0xf7, 0xf9};
  QColor text{0x1f, 0x29, 0x37};
  QColor mutedText{0x6b, 0x72, 0x80};
  QColor border{0xc3, 0xc9, 0xd2};
  QColor selection{0x1a, 0x73, 0xe8};
  QColor edge{0x8d, 0x96, 0xa3};
  QColor edgeHighlight{0x1a, 0x73, 0xe8};
  QColor neutralFill{0xf1, 0xf2, 0xf4};  // heatmap on, node has no value
  QColor frameFill{0x33, 0x4a, 0x70, 6};
  QColor frameBorder{0xd3, 0xd8, 0xe0};
  QColor frameText{0x5b, 0x67, 0x78};

  static constexpr double kPadX = 10, kPadY = 5, kBar = 4, kRadius = 5;
  static constexpr double kMinWidth = 84, kMaxWidth = 230;
  static constexpr double kEdgeWidth = 1.15;

  // Box sizes, in scene units (1 unit = 1 px at 100 % zoom = 1 Graphviz point).
  QSizeF opSize(const QString& opType, const QString& label) const;
  QSizeF ioSize(const QString& name, const QString& detail) const;
  QSizeF blockSize(const QString& label, const QString& detail) const;
  double titleHeight() const { return m_title.height(); }
  double labelHeight() const { return m_label.height(); }
  QString elide(const QString& s, const QFont& f, double width, Qt::TextElideMode mode = Qt::ElideMiddle) const;

  // Text colour that reads on a fill.
  static QColor textOn(const QColor& fill);

 private:
  QFontMetricsF m_title, m_label;
};

}  // namespace msa::ui
