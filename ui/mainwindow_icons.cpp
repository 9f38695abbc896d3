#include "mainwindow_icons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <array>
#include <functional>

namespace msa::ui::icons {
namespace {

const QColor kInk(0x37, 0x41, 0x51);

QIcon draw(const std::function<void(QPainter&)>& f) {
  QIcon icon;
  for (int size : {16, 24, 32, 48}) {
    QPixmap pm(size, size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.scale(size / 24.0, size / 24.0);
    QPen pen(kInk, 1.8, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    f(p);
    p.end();
    icon.addPixmap(pm);
  }
  return icon;
}

void magnifier(QPainter& p) {
  p.drawEllipse(QPointF(10, 10), 6, 6);
  p.drawLine(QPointF(14.5, 14.5), QPointF(20, 20));
}

}  // namespace

QIcon open() {
  return draw([](QPainter& p) {
    QPainterPath path;
    path.moveTo(3, 6);
    path.lineTo(9, 6);
    path.lineTo(11, 8);
    path.lineTo(20, 8);
    path.lineTo(20, 18);
    path.lineTo(3, 18);
    path.closeSubpath();
    p.setBrush(QColor(0xdb, 0xe6, 0xf5));
    p.drawPath(path);
  });
}

QIcon zoomIn() {
  return draw([](QPainter& p) {
    magnifier(p);
    p.drawLine(QPointF(7, 10), QPointF(13, 10));
    p.drawLine(QPointF(10, 7), QPointF(10, 13));
  });
}

QIcon zoomOut() {
  return draw([](QPainter& p) {
    magnifier(p);
    p.drawLine(QPointF(7, 10), QPointF(13, 10));
  });
}

QIcon fit() {
  return draw([](QPainter& p) {
    for (auto [x, y, dx, dy] : {std::array<double, 4>{4, 4, 1, 1}, {20, 4, -1, 1}, {4, 20, 1, -1}, {20, 20, -1, -1}}) {
      p.drawLine(QPointF(x, y), QPointF(x + 5 * dx, y));
      p.drawLine(QPointF(x, y), QPointF(x, y + 5 * dy));
    }
    p.setBrush(QColor(0xdb, 0xe6, 0xf5));
    p.drawRoundedRect(QRectF(8.5, 8.5, 7, 7), 1.5, 1.5);
  });
}

QIcon find() {
  return draw([](QPainter& p) { magnifier(p); });
}

QIcon shapes() {
  return draw([](QPainter& p) {  // an edge with a tag beside it
    p.drawLine(QPointF(6, 3), QPointF(6, 21));
    p.drawLine(QPointF(3, 17), QPointF(6, 21));
    p.drawLine(QPointF(9, 17), QPointF(6, 21));
    p.setBrush(QColor(0xdb, 0xe6, 0xf5));
    p.drawRoundedRect(QRectF(10.5, 7, 10, 7), 1.5, 1.5);
  });
}

QIcon expandAll() {
  return draw([](QPainter& p) {
    p.drawRoundedRect(QRectF(4, 4, 16, 16), 3, 3);
    p.drawLine(QPointF(8, 12), QPointF(16, 12));
    p.drawLine(QPointF(12, 8), QPointF(12, 16));
  });
}

QIcon collapseAll() {
  return draw([](QPainter& p) {
    p.drawRoundedRect(QRectF(4, 4, 16, 16), 3, 3);
    p.drawLine(QPointF(8, 12), QPointF(16, 12));
  });
}

QIcon analyze() {  // a pulse over a baseline, with a play triangle: "measure and analyse"
  return draw([](QPainter& p) {
    p.setPen(QPen(QColor(0x0b, 0x8a, 0x4f), 1.8, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    QPolygonF pulse;
    pulse << QPointF(2, 14) << QPointF(6, 14) << QPointF(8.5, 7) << QPointF(11.5, 19) << QPointF(13.5, 12) << QPointF(15, 14);
    p.drawPolyline(pulse);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x0b, 0x8a, 0x4f));
    QPolygonF play;
    play << QPointF(16, 8) << QPointF(23, 13) << QPointF(16, 18);
    p.drawPolygon(play);
  });
}

// A curved arrow back (undo) or forward (redo).
QIcon arrow(bool back) {
  return draw([back](QPainter& p) {
    if (!back) {
      p.translate(24, 0);
      p.scale(-1, 1);
    }
    QPainterPath path;
    path.moveTo(8, 9);
    path.lineTo(15, 9);
    path.cubicTo(22, 9, 22, 19, 15, 19);
    path.lineTo(9, 19);
    p.drawPath(path);
    p.drawLine(QPointF(8, 9), QPointF(11.5, 5.5));
    p.drawLine(QPointF(8, 9), QPointF(11.5, 12.5));
  });
}

QIcon undo() { return arrow(true); }
QIcon redo() { return arrow(false); }

}  // namespace msa::ui::icons
