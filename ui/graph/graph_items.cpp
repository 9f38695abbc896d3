#include "graph/graph_items.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <cmath>

namespace msa::ui {
namespace {

double lodOf(const QStyleOptionGraphicsItem* o, const QPainter* p) {
  return o->levelOfDetailFromTransform(p->worldTransform());
}

QString markGlyph(MarkKind k) {
  switch (k) {
    case MarkKind::FormatConversion: return QStringLiteral("⇄");
    case MarkKind::Warning: return QStringLiteral("!");
    case MarkKind::Note: break;
  }
  return QStringLiteral("i");
}

}  // namespace

QColor markColor(MarkKind k) {
  switch (k) {
    case MarkKind::FormatConversion: return QColor(0x8e, 0x24, 0xaa);
    case MarkKind::Warning: return QColor(0xe3, 0x74, 0x00);
    case MarkKind::Note: break;
  }
  return QColor(0x1a, 0x73, 0xe8);
}

// ---------------------------------------------------------------------------------------------

BoxItem::BoxItem(const GraphStyle* style, Kind kind, int item, QSizeF size, const QString& title,
                 const QString& subtitle, CategoryColors colors)
    : m_style(style), m_kind(kind), m_item(item), m_rect(-size.width() / 2, -size.height() / 2, size.width(), size.height()),
      m_colors(colors) {
  const double textWidth = size.width() - 2 * GraphStyle::kPadX - GraphStyle::kBar - (kind == Kind::Block ? 18 : 0);
  m_title = style->elide(title, style->titleFont, textWidth, Qt::ElideRight);
  m_subtitle = style->elide(subtitle, style->labelFont, textWidth, Qt::ElideMiddle);
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(true);
  setZValue(3);
  setCacheMode(NoCache);
}

QColor BoxItem::fillColor() const {
  if (m_heat) return *m_heat;
  if (m_metricShown && m_kind != Kind::Input && m_kind != Kind::Output) return m_style->neutralFill;
  if (m_kind == Kind::Block) return QColor(0xff, 0xff, 0xff);
  return m_colors.fill;
}

void BoxItem::setHeat(std::optional<QColor> fill, bool metricShown, const QString& valueText) {
  m_heat = fill;
  m_metricShown = metricShown;
  m_value = valueText;
  update();
}

void BoxItem::setMark(std::optional<MarkKind> kind) {
  m_mark = kind;
  update();
}

void BoxItem::setFindHit(bool hit) {
  m_findHit = hit;
  update();
}

QRectF BoxItem::boundingRect() const {
  // Room for the selection ring, the stacked-card offset and a mark badge poking out.
  return m_rect.adjusted(-4, -9, 9, 6);
}

QPainterPath BoxItem::shape() const {
  QPainterPath p;
  p.addRect(m_rect);
  return p;
}

void BoxItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = lodOf(option, p);
  const QColor fill = fillColor();
  const bool selected = isSelected();
  QRectF r = m_rect;
  if (m_kind == Kind::Block) r.adjust(0, 0, -4, -4);  // the card; the stack shows below/right

  if (lod < kLodText) {  // far out: a filled box, the cheapest thing that still reads as a node
    p->setRenderHint(QPainter::Antialiasing, false);
    if (m_kind == Kind::Block) p->fillRect(r.translated(4, 4), m_style->border);
    p->fillRect(r, fill);
    if (!m_heat) p->fillRect(QRectF(r.left(), r.top(), std::max(2.0, r.width() / 6), r.height()), m_colors.bar);
    // A mark or the selection is a frame around the box, never a fill: the heat stays readable.
    // Under 6 px on screen there is no room for both: the heat wins.
    if ((m_mark || selected) && r.height() * lod >= 6) {
      // Inside the box (its bounding rect), 1.5 px on screen where the box allows it.
      const double w = std::min(std::max(r.height() / 6, 1.5 / std::max(lod, 1e-3)), r.height() / 4);
      QPainterPath frame;
      frame.addRect(r);
      frame.addRect(r.adjusted(w, w, -w, -w));
      p->fillPath(frame, selected ? m_style->selection : markColor(*m_mark));
    }
    return;
  }
  p->setRenderHint(QPainter::Antialiasing, true);
  const double radius = m_kind == Kind::Input || m_kind == Kind::Output ? r.height() / 2 : GraphStyle::kRadius;
  if (m_kind == Kind::Block) {  // a stack of cards says "there is more inside"
    p->setPen(QPen(m_style->border, 1));
    p->setBrush(QColor(0xfa, 0xfb, 0xfc));
    p->drawRoundedRect(r.translated(4, 4), radius, radius);
    p->drawRoundedRect(r.translated(2, 2), radius, radius);
  }
  QColor border = m_hover ? m_style->text : m_style->border;
  double borderWidth = 1;
  if (m_mark) {
    border = markColor(*m_mark);
    borderWidth = 2;
  }
  if (m_findHit) {
    border = QColor(0xf5, 0xb4, 0x00);
    borderWidth = 2.5;
  }
  if (selected) {
    p->setPen(Qt::NoPen);
    p->setBrush(QColor(m_style->selection.red(), m_style->selection.green(), m_style->selection.blue(), 60));
    p->drawRoundedRect(r.adjusted(-3.5, -3.5, 3.5, 3.5), radius + 3, radius + 3);
    border = m_style->selection;
    borderWidth = 2;
  }
  p->setPen(QPen(border, borderWidth));
  p->setBrush(fill);
  p->drawRoundedRect(r, radius, radius);
  if (m_kind == Kind::Op || m_kind == Kind::Block) {  // the category bar on the left
    QPainterPath clip;
    clip.addRoundedRect(r.adjusted(borderWidth / 2, borderWidth / 2, -borderWidth / 2, -borderWidth / 2), radius, radius);
    p->save();
    p->setClipPath(clip);
    p->fillRect(QRectF(r.left(), r.top(), GraphStyle::kBar, r.height()), m_colors.bar);
    p->restore();
  }

  const QColor text = GraphStyle::textOn(fill);
  const double x = r.left() + GraphStyle::kPadX + (m_kind == Kind::Op || m_kind == Kind::Block ? GraphStyle::kBar / 2 : 0);
  const double w = r.right() - GraphStyle::kPadX - x - (m_kind == Kind::Block ? 14 : 0);
  const double th = m_style->titleHeight(), lh = m_style->labelHeight();
  const double top = r.center().y() - (th + lh) / 2;
  p->setPen(text);
  p->setFont(m_style->titleFont);
  const bool showSubtitle = lod >= kLodDetail && !(m_subtitle.isEmpty() && m_value.isEmpty());
  const QRectF titleRect(x, showSubtitle ? top : r.center().y() - th / 2, w, th);
  p->drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, m_title);
  if (showSubtitle) {
    QColor sub = text == m_style->text ? m_style->mutedText : QColor(255, 255, 255, 220);
    p->setPen(sub);
    p->setFont(m_style->labelFont);
    QString line = m_subtitle;
    if (!m_value.isEmpty()) line += QStringLiteral("  ·  ") + m_value;
    p->drawText(QRectF(x, top + th, w + (m_kind == Kind::Block ? 14 : 0), lh), Qt::AlignLeft | Qt::AlignVCenter,
                m_style->elide(line, m_style->labelFont, w + (m_kind == Kind::Block ? 14 : 0), Qt::ElideRight));
  }
  if (m_kind == Kind::Block) {  // expand affordance
    const QPointF c(r.right() - 11, r.center().y());
    p->setPen(QPen(text == m_style->text ? m_style->mutedText : text, 1.4));
    p->setBrush(Qt::NoBrush);
    p->drawEllipse(c, 5.5, 5.5);
    p->drawLine(c + QPointF(-3, 0), c + QPointF(3, 0));
    p->drawLine(c + QPointF(0, -3), c + QPointF(0, 3));
  }
  if (m_mark && lod >= kLodText) {  // badge at the top right corner
    const QPointF c(r.right() - 2, r.top() + 1);
    p->setPen(QPen(QColor(255, 255, 255), 1.5));
    p->setBrush(markColor(*m_mark));
    p->drawEllipse(c, 7.5, 7.5);
    QFont f = m_style->labelFont;
    f.setBold(true);
    p->setFont(f);
    p->setPen(QColor(255, 255, 255));
    p->drawText(QRectF(c.x() - 7.5, c.y() - 7.5, 15, 15), Qt::AlignCenter, markGlyph(*m_mark));
  }
}

void BoxItem::hoverEnterEvent(QGraphicsSceneHoverEvent*) {
  m_hover = true;
  update();
}

void BoxItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*) {
  m_hover = false;
  update();
}

// ---------------------------------------------------------------------------------------------

EdgeItem::EdgeItem(const GraphStyle* style, int edge, const std::vector<QPointF>& cubic, std::optional<QPointF> arrowTip,
                   const QString& label)
    : m_style(style), m_edge(edge), m_label(label) {
  if (!cubic.empty()) {
    m_path.moveTo(cubic.front());
    m_polyline << cubic.front();
    for (size_t i = 1; i + 2 < cubic.size(); i += 3) {
      m_path.cubicTo(cubic[i], cubic[i + 1], cubic[i + 2]);
      m_polyline << cubic[i + 2];
    }
  }
  if (arrowTip && !cubic.empty()) {
    const QPointF base = cubic.back(), tip = *arrowTip;
    const QPointF d = tip - base;
    const double len = std::hypot(d.x(), d.y());
    if (len > 0.1) {
      const QPointF n(-d.y() / len * len * 0.36, d.x() / len * len * 0.36);
      m_arrow << tip << base + n << base - n;
    }
  }
  // The shape label sits beside the edge where it leaves its producer (one rank: the middle),
  // measured along the curve's on-curve points (a path's exact length costs more than the rest
  // of building the item).
  if (!m_label.isEmpty() && m_polyline.size() >= 2) {
    double length = 0;
    for (qsizetype i = 1; i < m_polyline.size(); ++i) length += QLineF(m_polyline[i - 1], m_polyline[i]).length();
    double want = length < 80 ? length / 2 : std::min(26.0, length / 2);
    QPointF p = m_polyline.front();
    for (qsizetype i = 1; i < m_polyline.size(); ++i) {
      const QLineF seg(m_polyline[i - 1], m_polyline[i]);
      if (seg.length() >= want) {
        p = seg.pointAt(seg.length() > 0 ? want / seg.length() : 0);
        break;
      }
      want -= seg.length();
      p = m_polyline[i];
    }
    const QFontMetricsF fm(style->edgeFont);
    m_labelRect = QRectF(p.x() + 4, p.y() - fm.height() / 2, fm.horizontalAdvance(m_label) + 2, fm.height());
  }
  finish();
}

EdgeItem::EdgeItem(const GraphStyle* style, int edge, QPointF head, const QString& from, const QString& label)
    : m_style(style), m_edge(edge), m_stub(true), m_label(label), m_from(from) {
  const QPointF start = head - QPointF(0, 22);
  m_path.moveTo(start);
  m_path.lineTo(head - QPointF(0, 6));
  m_polyline << start << head - QPointF(0, 6);
  m_arrow << head << head + QPointF(-3.5, -7) << head + QPointF(3.5, -7);
  const QFontMetricsF fm(style->edgeFont);
  m_fromRect = QRectF(start.x() - fm.horizontalAdvance(m_from) / 2 - 3, start.y() - fm.height() - 1,
                      fm.horizontalAdvance(m_from) + 6, fm.height());
  if (!m_label.isEmpty())
    m_labelRect = QRectF(start.x() + 4, start.y() + 2, fm.horizontalAdvance(m_label) + 2, fm.height());
  setToolTip(QStringLiteral("From %1 (a long edge drawn as a stub; double-click to go there)").arg(from));
  finish();
}

void EdgeItem::finish() {
  setZValue(1);
  setFlag(ItemIsSelectable, false);
  setAcceptedMouseButtons(m_stub ? Qt::LeftButton : Qt::NoButton);
  QRectF b = m_path.boundingRect() | m_arrow.boundingRect();
  if (!m_labelRect.isNull()) b |= m_labelRect;
  if (!m_fromRect.isNull()) b |= m_fromRect;
  m_bounds = b.adjusted(-3, -3, 3, 3);
}

void EdgeItem::setShowLabel(bool show) {
  if (show == m_showLabel) return;
  m_showLabel = show;
  update();
}

void EdgeItem::setHighlighted(bool on) {
  if (on == m_highlight) return;
  m_highlight = on;
  setZValue(on ? 2 : 1);
  update();
}

QPainterPath EdgeItem::shape() const {
  if (m_shape.isEmpty()) {
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    m_shape = stroker.createStroke(m_path);
    m_shape.addPolygon(m_arrow);
    if (!m_fromRect.isNull()) m_shape.addRect(m_fromRect);
  }
  return m_shape;
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = lodOf(option, p);
  const QColor color = m_highlight ? m_style->edgeHighlight : m_style->edge;
  if (lod < kLodEdges && !m_highlight) return;
  if (lod < kLodText) {
    p->setRenderHint(QPainter::Antialiasing, false);
    QPen pen(color, m_highlight ? 2 : 0);  // hairline
    pen.setCosmetic(true);
    if (m_stub) pen.setStyle(Qt::DotLine);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->drawPolyline(m_polyline);  // a few pixels long per rank out here: straight pieces read the same
    return;
  }
  p->setRenderHint(QPainter::Antialiasing, true);
  QPen pen(color, m_highlight ? 2.0 : GraphStyle::kEdgeWidth);
  if (m_stub) pen.setStyle(Qt::DashLine);
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawPath(m_path);
  if (!m_arrow.isEmpty()) {
    p->setPen(Qt::NoPen);
    p->setBrush(color);
    p->drawPolygon(m_arrow);
  }
  if (lod < kLodDetail) return;
  p->setFont(m_style->edgeFont);
  if (m_stub) {
    p->setPen(QPen(m_style->border, 1));
    p->setBrush(QColor(0xff, 0xff, 0xff));
    p->drawRoundedRect(m_fromRect, 3, 3);
    p->setPen(m_highlight ? m_style->edgeHighlight : m_style->mutedText);
    p->drawText(m_fromRect, Qt::AlignCenter, m_from);
  }
  if (m_showLabel && !m_labelRect.isNull()) {
    p->fillRect(m_labelRect, QColor(m_style->background.red(), m_style->background.green(), m_style->background.blue(), 210));
    p->setPen(m_highlight ? m_style->edgeHighlight : m_style->mutedText);
    p->drawText(m_labelRect, Qt::AlignLeft | Qt::AlignVCenter, m_label);
  }
}

// ---------------------------------------------------------------------------------------------

FrameItem::FrameItem(const GraphStyle* style, int block, int depth, QRectF rect, const QString& title, const QString& count)
    : m_style(style), m_block(block), m_depth(depth), m_rect(rect), m_title(title), m_count(count) {
  setZValue(-1.0 + depth * 0.01);
  setToolTip(QStringLiteral("%1 — double-click the title to collapse").arg(title));
}

QRectF FrameItem::titleRect() const { return QRectF(m_rect.left(), m_rect.top(), m_rect.width(), 20); }

QPainterPath FrameItem::shape() const {
  QPainterPath p;
  p.addRect(titleRect());
  return p;
}

void FrameItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = lodOf(option, p);
  if (lod < kLodText) {
    p->setRenderHint(QPainter::Antialiasing, false);
    QPen pen(m_style->frameBorder, 0);
    p->setPen(pen);
    p->setBrush(m_style->frameFill);
    p->drawRect(m_rect);
    return;
  }
  p->setRenderHint(QPainter::Antialiasing, true);
  p->setPen(QPen(m_style->frameBorder, 1));
  p->setBrush(m_style->frameFill);
  p->drawRoundedRect(m_rect, 7, 7);
  p->setFont(m_style->frameFont);
  p->setPen(m_style->frameText);
  const QFontMetricsF fm(m_style->frameFont);
  const QRectF t(m_rect.left() + 9, m_rect.top() + 3, m_rect.width() - 18, fm.height());
  const QString title = fm.elidedText(m_title, Qt::ElideMiddle, t.width() * 0.75);
  p->drawText(t, Qt::AlignLeft | Qt::AlignVCenter, title);
  const double tw = fm.horizontalAdvance(title);
  p->setFont(m_style->labelFont);
  p->setPen(m_style->mutedText);
  p->drawText(t.adjusted(tw + 8, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, m_count);
}

// ---------------------------------------------------------------------------------------------

GroupItem::GroupItem(const GraphStyle* style, const QPainterPath& outline, const QString& label, QColor color,
                     double labelY)
    : m_style(style), m_outline(outline), m_label(label), m_color(color) {
  setZValue(2.5);
  setAcceptedMouseButtons(Qt::NoButton);
  const QFontMetricsF fm(style->labelFont);
  const QRectF b = outline.boundingRect();
  const double w = fm.horizontalAdvance(label) + 10, h = fm.height() + 2;
  m_labelRect = QRectF(b.left() - w - 4, labelY - h / 2, w, h);
  m_bounds = (b | m_labelRect).adjusted(-3, -3, 3, 3);
}

void GroupItem::setLabelOnRight(bool right) {
  if (right == m_labelRight) return;
  prepareGeometryChange();
  m_labelRight = right;
  const QRectF b = m_outline.boundingRect();
  m_labelRect.moveLeft(right ? b.right() + 4 : b.left() - m_labelRect.width() - 4);
  m_bounds = (b | m_labelRect).adjusted(-3, -3, 3, 3);
}

void GroupItem::setEmphasis(Emphasis e) {
  if (e == m_emphasis) return;
  m_emphasis = e;
  setZValue(e == Emphasis::Emphasised ? 2.7 : 2.5);
  update();
}

void GroupItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = lodOf(option, p);
  p->setRenderHint(QPainter::Antialiasing, lod >= kLodText);
  QColor fill = m_color;
  const bool strong = m_emphasis == Emphasis::Emphasised, dim = m_emphasis == Emphasis::Dimmed;
  fill.setAlpha(strong ? 46 : dim ? 14 : 28);
  QColor line = m_color;
  if (dim) line.setAlpha(120);
  QPen pen(line, lod < kLodText ? 0 : strong ? 3.5 : dim ? 1.4 : 2.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
  if (lod < kLodText) pen.setCosmetic(true);
  p->setPen(pen);
  p->setBrush(fill);
  if (!m_simplified) {  // merged into one outline when first seen: hundreds of groups, few on screen
    m_outline = m_outline.simplified();
    m_simplified = true;
  }
  p->drawPath(m_outline);
  if (lod < kLodText || m_label.isEmpty()) return;
  p->setPen(Qt::NoPen);
  p->setBrush(line);
  p->drawRoundedRect(m_labelRect, 3, 3);
  p->setPen(QPen(line, 1.5));  // a short tick joins the label to the outline
  const double tickFrom = m_labelRight ? m_labelRect.left() : m_labelRect.right();
  p->drawLine(QPointF(tickFrom, m_labelRect.center().y()), QPointF(tickFrom + (m_labelRight ? -5 : 5), m_labelRect.center().y()));
  p->setPen(QColor(255, 255, 255));
  p->setFont(m_style->labelFont);
  p->drawText(m_labelRect, Qt::AlignCenter, m_label);
}

}  // namespace msa::ui
