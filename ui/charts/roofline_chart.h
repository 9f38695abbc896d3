#pragma once
// Operators against the device's roofs, log-log: x = arithmetic intensity (FLOP/byte),
// y = achieved GFLOP/s (FLOPs / measured time, or the estimated time when not profiled). One
// scatter series per op category (the graph's category colours); the roofs are the memory
// bandwidth slope up to each compute ceiling of the report's DeviceProfile. Hovering a point
// shows the node, clicking it emits nodeClicked(name); selectNode() rings a point.
#include <QChartView>
#include <QHash>
#include <QStringList>
#include <vector>

namespace msa {
struct Report;
}

QT_BEGIN_NAMESPACE
class QGraphicsSimpleTextItem;
class QScatterSeries;
class QLineSeries;
class QLogValueAxis;
QT_END_NAMESPACE

namespace msa::ui {

class RooflineChart : public QChartView {
  Q_OBJECT
 public:
  explicit RooflineChart(QWidget* parent = nullptr);

  void setReport(const Report& report);
  void clear();

  struct Roof {
    QString label;
    double gflops = 0;     // compute ceiling
    double bandwidth = 0;  // GB/s (the slope)
  };
  // What is drawn, for tests and the Properties panel.
  int pointCount() const { return static_cast<int>(m_points.size()); }
  QStringList pointNodes() const;
  const std::vector<Roof>& roofs() const { return m_roofs; }
  QScatterSeries* seriesOf(const QString& node) const;  // the series holding the node's point
  QPointF pointOf(const QString& node) const;           // (intensity, GFLOP/s); null when absent
  bool timesMeasured() const { return m_measured; }
  // GFLOP/s per unit of the plotted y (1: GFLOP/s, 1000: TFLOP/s for fast devices).
  double yScale() const { return m_yScale; }
  QString selectedNode() const { return m_selected; }

 public slots:
  // Rings the node's point (or clears the ring for an unknown name); does not emit.
  void selectNode(const QString& name);
  void selectNodes(const QStringList& names);

 signals:
  void nodeClicked(const QString& name);

 protected:
  void resizeEvent(QResizeEvent* e) override;

 private:
  struct Point {
    QString node, opType;
    double x = 0, y = 0;  // intensity, GFLOP/s
    double ms = 0, efficiency = -1;
    QString bound;
    QScatterSeries* series = nullptr;
  };
  const Point* nearest(QScatterSeries* series, const QPointF& value) const;
  void placeRoofLabels();

  void fitAxisTitle();

  struct RoofLabel {
    QGraphicsSimpleTextItem* item;
    QPointF anchor;  // plotted value
    bool leftOfAnchor;  // slope label: ends at the anchor; ceiling labels end at the plot's right
    QPointF start;      // where the roof's line starts (plotted value): a label stays over its line
  };
  std::vector<RoofLabel> m_roofLabels;
  QString m_yTitle, m_yUnit;  // the y axis's title, and its unit alone for a low plot
  double m_yScale = 1;
  std::vector<Point> m_points;
  QHash<QString, int> m_byNode;
  std::vector<Roof> m_roofs;
  QScatterSeries* m_ring = nullptr;
  QLogValueAxis *m_x = nullptr, *m_y = nullptr;
  QString m_selected;
  bool m_measured = false;
};

}  // namespace msa::ui
