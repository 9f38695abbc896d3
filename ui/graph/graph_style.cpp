#include "graph/graph_style.h"

#include <QGuiApplication>
#include <algorithm>

namespace msa::ui {
namespace {

QFont baseFont() {
  QFont f = QGuiApplication::font();
  f.setHintingPreference(QFont::PreferNoHinting);  // text scales smoothly with zoom
  return f;
}

QFont sized(QFont f, double points, QFont::Weight w = QFont::Normal) {
  f.setPointSizeF(points);
  f.setWeight(w);
  return f;
}

}  // namespace

CategoryColors categoryColors(OpCategory c) {
  switch (c) {
    case OpCategory::Convolution: return {QColor(0x35, 0x6a, 0xd6), QColor(0xe4, 0xed, 0xfc)};
    case OpCategory::Linear: return {QColor(0x6b, 0x4f, 0xc9), QColor(0xec, 0xe7, 0xfb)};
    case OpCategory::Activation: return {QColor(0xd9, 0x7d, 0x22), QColor(0xfc, 0xef, 0xe0)};
    case OpCategory::Normalization: return {QColor(0x2a, 0x9a, 0x72), QColor(0xdf, 0xf3, 0xeb)};
    case OpCategory::Pooling: return {QColor(0x17, 0x97, 0xb2), QColor(0xde, 0xf2, 0xf6)};
    case OpCategory::Elementwise: return {QColor(0x71, 0x80, 0x96), QColor(0xec, 0xef, 0xf3)};
    case OpCategory::Reduction: return {QColor(0xc1, 0x3f, 0x85), QColor(0xf8, 0xe4, 0xef)};
    case OpCategory::Shape: return {QColor(0xa3, 0xac, 0xb9), QColor(0xf4, 0xf5, 0xf7)};
    case OpCategory::Conversion: return {QColor(0xb0, 0x85, 0x0a), QColor(0xf8, 0xf0, 0xd8)};
    case OpCategory::Control: return {QColor(0x8a, 0x6a, 0x5c), QColor(0xf0, 0xe9, 0xe5)};
    case OpCategory::Io: return {QColor(0x37, 0x41, 0x51), QColor(0xff, 0xff, 0xff)};
    case OpCategory::Other: break;
  }
  return {QColor(0x9c, 0x9c, 0x9c), QColor(0xf2, 0xf2, 0xf2)};
}

GraphStyle::GraphStyle()
    : titleFont(sized(baseFont(), 9.0, QFont::DemiBold)),
      labelFont(sized(baseFont(), 7.5)),
      edgeFont(sized(baseFont(), 7.0)),
      frameFont(sized(baseFont(), 8.0, QFont::DemiBold)),
      m_title(titleFont),
      m_label(labelFont) {}

QString GraphStyle::elide(const QString& s, const QFont& f, double width, Qt::TextElideMode mode) const {
  return QFontMetricsF(f).elidedText(s, mode, width);
}

QSizeF GraphStyle::opSize(const QString& opType, const QString& label) const {
  const double text = std::max(m_title.horizontalAdvance(opType), m_label.horizontalAdvance(label));
  const double w = std::clamp(text + 2 * kPadX + kBar, kMinWidth, kMaxWidth);
  return {std::ceil(w), std::ceil(m_title.height() + m_label.height() + 2 * kPadY)};
}

QSizeF GraphStyle::ioSize(const QString& name, const QString& detail) const {
  const double text = std::max(m_title.horizontalAdvance(name), m_label.horizontalAdvance(detail));
  const double w = std::clamp(text + 2 * kPadX + 8, kMinWidth, kMaxWidth);
  return {std::ceil(w), std::ceil(m_title.height() + m_label.height() + 2 * kPadY)};
}

QSizeF GraphStyle::blockSize(const QString& label, const QString& detail) const {
  // Room for the expand glyph on the right and the stacked-card offset below.
  const double text = std::max(m_title.horizontalAdvance(label), m_label.horizontalAdvance(detail));
  const double w = std::clamp(text + 2 * kPadX + kBar + 18, kMinWidth + 30, kMaxWidth + 40);
  return {std::ceil(w), std::ceil(m_title.height() + m_label.height() + 2 * kPadY + 6 + 4)};
}

QColor GraphStyle::textOn(const QColor& fill) {
  // Relative luminance (sRGB, linearised): dark fills get light text.
  auto lin = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  const double y = 0.2126 * lin(fill.redF()) + 0.7152 * lin(fill.greenF()) + 0.0722 * lin(fill.blueF());
  return y < 0.30 ? QColor(0xff, 0xff, 0xff) : QColor(0x1f, 0x29, 0x37);
}

}  // namespace msa::ui
