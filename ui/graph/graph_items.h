#pragma once
// The scene items, all drawn by us. Each paints by level of detail: far out a box is a plain
// filled rectangle and edges are hairlines, so 10,000-node graphs stay smooth.
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>
#include <optional>

#include "graph/graph_overlays.h"
#include "graph/graph_style.h"

namespace msa::ui {

// Below these levels of detail (scene-to-device scale) text and ornaments are skipped.
inline constexpr double kLodText = 0.45;
// Below this, edges are not drawn (a whole 10,000-node graph on screen: the boxes carry the
// structure and the heat; 12,000 curves would only add grey at five frames a second).
inline constexpr double kLodEdges = 0.06;
inline constexpr double kLodDetail = 0.75;

class BoxItem : public QGraphicsItem {
 public:
  enum class Kind { Op, Input, Output, Block };
  enum { Type = UserType + 1 };

  BoxItem(const GraphStyle* style, Kind kind, int item, QSizeF size, const QString& title, const QString& subtitle,
          CategoryColors colors);

  int type() const override { return Type; }
  int itemIndex() const { return m_item; }
  Kind kind() const { return m_kind; }
  QRectF rect() const { return m_rect; }
  QString title() const { return m_title; }

  // Heatmap: a fill (none = category tint, or neutral grey when a metric is shown without a
  // value here) and, for blocks, the aggregate as text.
  void setHeat(std::optional<QColor> fill, bool metricShown, const QString& valueText = {});
  std::optional<QColor> heat() const { return m_heat; }
  void setMark(std::optional<MarkKind> kind);
  std::optional<MarkKind> mark() const { return m_mark; }
  void setFindHit(bool hit);

  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  QColor fillColor() const;  // what it is filled with (the heat, or its category's tint)

 protected:
  void hoverEnterEvent(QGraphicsSceneHoverEvent* e) override;
  void hoverLeaveEvent(QGraphicsSceneHoverEvent* e) override;

 private:

  const GraphStyle* m_style;
  Kind m_kind;
  int m_item;
  QRectF m_rect;
  QString m_title, m_subtitle, m_value;
  CategoryColors m_colors;
  std::optional<QColor> m_heat;
  bool m_metricShown = false;
  std::optional<MarkKind> m_mark;
  bool m_hover = false, m_findHit = false;
};

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };
  // A routed edge: Graphviz's cubic chain (scene coordinates) and an arrowhead.
  EdgeItem(const GraphStyle* style, int edge, const std::vector<QPointF>& cubic, std::optional<QPointF> arrowTip,
           const QString& label);
  // A stub for an edge left out of the layout: a short dashed arrow into `head` from above,
  // labelled with where it comes from.
  EdgeItem(const GraphStyle* style, int edge, QPointF head, const QString& from, const QString& label);

  int type() const override { return Type; }
  int edgeIndex() const { return m_edge; }
  bool isStub() const { return m_stub; }
  QPainterPath path() const { return m_path; }
  void setShowLabel(bool show);
  void setHighlighted(bool on);
  bool highlighted() const { return m_highlight; }

  QRectF boundingRect() const override { return m_bounds; }
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  void finish();

  const GraphStyle* m_style;
  int m_edge;
  bool m_stub = false;
  QPainterPath m_path;
  QPolygonF m_polyline;  // the on-curve points: what is drawn far out
  QPolygonF m_arrow;
  QString m_label, m_from;
  QRectF m_labelRect, m_fromRect, m_bounds;
  bool m_showLabel = false, m_highlight = false;
  mutable QPainterPath m_shape;  // the stroke, built on the first hit test
};

// An expanded block drawn as a frame around its members. Only the title band takes the mouse,
// so drags inside the frame pan the view.
class FrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  FrameItem(const GraphStyle* style, int block, int depth, QRectF rect, const QString& title, const QString& count);

  int type() const override { return Type; }
  int block() const { return m_block; }
  QRectF rect() const { return m_rect; }
  QRectF titleRect() const;

  QRectF boundingRect() const override { return m_rect.adjusted(-1, -1, 1, 1); }
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const GraphStyle* m_style;
  int m_block, m_depth;
  QRectF m_rect;
  QString m_title, m_count;
};

// A rounded outline around a group of boxes (a fusion candidate), with its label.
class GroupItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 4 };
  // The label is drawn left of the outline, centred on `labelY`. `outline` may be the members'
  // shapes overlapping (fill rule winding): they are merged when first painted.
  GroupItem(const GraphStyle* style, const QPainterPath& outline, const QString& label, QColor color, double labelY);

  int type() const override { return Type; }
  QString label() const { return m_label; }
  // The group's id (a finding id; empty for a per-block summary).
  void setId(const QString& id) { m_id = id; }
  QString id() const { return m_id; }
  // Emphasised: the selected finding (a heavier outline); dimmed: another one is selected.
  enum class Emphasis { Normal, Emphasised, Dimmed };
  void setEmphasis(Emphasis e);
  Emphasis emphasis() const { return m_emphasis; }
  QRectF boundingRect() const override { return m_bounds; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  // The label's rectangle (item coordinates = scene coordinates) and the side it sits on: right
  // of the outline where a neighbour's boxes take the left.
  QRectF labelRect() const { return m_labelRect; }
  void setLabelOnRight(bool right);

 private:
  const GraphStyle* m_style;
  QPainterPath m_outline;  // the members' rounded rectangles and bridges, merged at first paint
  bool m_simplified = false;
  QString m_label, m_id;
  QColor m_color;
  QRectF m_labelRect, m_bounds;
  bool m_labelRight = false;
  Emphasis m_emphasis = Emphasis::Normal;
};

QColor markColor(MarkKind k);

}  // namespace msa::ui
