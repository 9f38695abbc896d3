#include "charts/roofline_chart.h"

#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QTextDocument>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QLegend>
#include <QResizeEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include "graph/graph_overlays.h"
#include "advisor/advisor.h"
#include "charts/chart_theme.h"
#include "graph/graph_style.h"
#include "graph/view_graph.h"
#include "i18n/language.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

double decadeBelow(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decadeAbove(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent) {
  styleChart(chart(), this);
  setRubberBand(QChartView::NoRubberBand);
  connect(chart(), &QChart::plotAreaChanged, this, &RooflineChart::placeRoofLabels);
  clear();
}

void RooflineChart::clear() {
  chart()->removeAllSeries();
  for (QAbstractAxis* a : chart()->axes()) chart()->removeAxis(a), delete a;
  chart()->setTitle(tr("Roofline: run Analyze"));
  m_points.clear();
  m_byNode.clear();
  m_roofs.clear();
  m_ring = nullptr;
  m_x = m_y = nullptr;
  for (RoofLabel& l : m_roofLabels) delete l.item;
  m_roofLabels.clear();
  m_yTitle.clear();
  m_yScale = 1;
  m_selected.clear();
  m_measured = false;
}

QStringList RooflineChart::pointNodes() const {
  QStringList out;
  for (const Point& p : m_points) out << p.node;
  return out;
}

QScatterSeries* RooflineChart::seriesOf(const QString& node) const {
  const int i = m_byNode.value(node, -1);
  return i < 0 ? nullptr : m_points[static_cast<size_t>(i)].series;
}

QPointF RooflineChart::pointOf(const QString& node) const {
  const int i = m_byNode.value(node, -1);
  if (i < 0) return {};
  const Point& p = m_points[static_cast<size_t>(i)];
  return {p.x, p.y};
}

void RooflineChart::setReport(const Report& r) {
  clear();
  m_measured = r.latencySource == "measured";
  const ChartPalette& pal = chartPalette();

  // Points: nodes that do arithmetic and have a time (measured in a profiled report).
  std::map<int, std::vector<size_t>> byCategory;
  for (const NodeReport& n : r.nodes) {
    const double ms = m_measured ? n.measuredMs : n.estimatedMs;
    if (n.flops <= 0 || n.bytes <= 0 || !(ms > 0)) continue;
    Point p;
    p.node = qs(n.name);
    p.opType = qs(n.opType);
    p.x = n.flops / n.bytes;
    p.y = n.flops / (ms * 1e-3) / 1e9;
    p.ms = ms;
    p.efficiency = n.efficiency;
    p.bound = qs(n.bound);
    m_byNode.insert(p.node, static_cast<int>(m_points.size()));
    byCategory[static_cast<int>(opCategory(p.opType))].push_back(m_points.size());
    m_points.push_back(std::move(p));
  }

  // Roofs, in GFLOP/s and GB/s.
  const double bw = r.bandwidthBytesPerSecond / 1e9;
  for (const Report::Roof& roof : r.roofs) m_roofs.push_back({roofTitle(qs(roof.label)), roof.flopsPerSecond / 1e9, bw});
  std::sort(m_roofs.begin(), m_roofs.end(), [](const Roof& a, const Roof& b) { return a.gflops > b.gflops; });

  // Axis ranges: every point, every ridge, whole decades.
  double xMin = 1e30, xMax = 0, yMin = 1e30, yMax = 0;
  for (const Point& p : m_points) {
    xMin = std::min(xMin, p.x), xMax = std::max(xMax, p.x);
    yMin = std::min(yMin, p.y), yMax = std::max(yMax, p.y);
  }
  for (const Roof& roof : m_roofs) {
    yMax = std::max(yMax, roof.gflops);
    if (bw > 0) xMax = std::max(xMax, roof.gflops / bw * 4);
  }
  if (xMax <= 0) xMin = 0.1, xMax = 1000;
  if (yMax <= 0) yMin = 1, yMax = 1000;
  if (xMin > xMax) xMin = xMax / 1000;
  if (yMin > yMax) yMin = yMax / 1e4;
  // TFLOP/s once GFLOP/s labels would need exponents.
  m_yScale = yMax > 2e4 ? 1000 : 1;
  const double ys = m_yScale;
  const double x0 = decadeBelow(xMin * 0.8), x1 = decadeAbove(xMax * 1.25);
  const double y0 = decadeBelow(yMin / ys * 0.8), y1 = decadeAbove(yMax / ys * 1.6);

  m_x = new QLogValueAxis;
  m_x->setBase(10);
  m_x->setRange(x0, x1);
  m_x->setLabelFormat(QStringLiteral("%g"));
  m_x->setMinorTickCount(8);
  styleAxis(m_x, tr("arithmetic intensity (FLOP/byte)"));
  m_y = new QLogValueAxis;
  m_y->setBase(10);
  m_y->setRange(y0, y1);
  m_y->setLabelFormat(QStringLiteral("%g"));
  m_y->setMinorTickCount(8);
  m_y->setLabelFormat(QStringLiteral("%.4g"));
  if (ys > 1) m_yTitle = m_measured ? tr("achieved TFLOP/s (measured)") : tr("achieved TFLOP/s (estimated)");
  else m_yTitle = m_measured ? tr("achieved GFLOP/s (measured)") : tr("achieved GFLOP/s (estimated)");
  m_yUnit = ys > 1 ? QStringLiteral("TFLOP/s") : QStringLiteral("GFLOP/s");
  styleAxis(m_y, m_yTitle);
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);

  // The memory slope up to the highest ridge, then each compute ceiling from its ridge.
  if (bw > 0 && !m_roofs.empty()) {
    auto* slope = new QLineSeries;
    slope->setName(tr("memory %1B/s").arg(formatSi(bw * 1e9)));
    const double xs = std::max(x0, y0 * ys / bw);
    slope->append(xs, bw * xs / ys);
    slope->append(m_roofs.front().gflops / bw, m_roofs.front().gflops / ys);
    slope->setPen(QPen(pal.roof, 2.0));
    chart()->addSeries(slope);
    slope->attachAxis(m_x);
    slope->attachAxis(m_y);
  }
  for (size_t k = 0; k < m_roofs.size(); ++k) {
    const Roof& roof = m_roofs[k];
    auto* line = new QLineSeries;
    line->setName(tr("%1 %2FLOP/s").arg(roof.label, formatSi(roof.gflops * 1e9)));
    const double ridge = bw > 0 ? std::max(x0, roof.gflops / bw) : x0;
    line->append(ridge, roof.gflops / ys);
    line->append(x1, roof.gflops / ys);
    QPen pen(pal.roof, k == 0 ? 2.0 : 1.3);
    if (k > 0) pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    chart()->addSeries(line);
    line->attachAxis(m_x);
    line->attachAxis(m_y);
  }

  for (const auto& [cat, indices] : byCategory) {
    const OpCategory c = static_cast<OpCategory>(cat);
    auto* s = new QScatterSeries;
    s->setName(opCategoryTitle(c));
    s->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    s->setMarkerSize(9);
    QColor fill = categoryColors(c).bar;
    fill.setAlpha(205);
    s->setColor(fill);
    s->setBorderColor(Qt::white);
    for (size_t i : indices) {
      s->append(m_points[i].x, m_points[i].y / ys);
      m_points[i].series = s;
    }
    chart()->addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(m_y);
    connect(s, &QScatterSeries::hovered, this, [this, s](const QPointF& v, bool on) {
      const Point* p = on ? nearest(s, v) : nullptr;
      if (!p) return QToolTip::hideText();
      QString tip = QStringLiteral("<b>%1</b> (%2)<br>").arg(p->node.toHtmlEscaped(), p->opType) +
                    tr("%1 · %2 FLOP/byte · %3FLOP/s").arg(durationText(p->ms)).arg(p->x, 0, 'g', 3).arg(formatSi(p->y * 1e9));
      if (p->efficiency >= 0) tip += QStringLiteral("<br>") + tr("efficiency %1 of the roofline").arg(percentText(p->efficiency));
      if (p->bound == QLatin1String("compute")) tip += QStringLiteral("<br>") + tr("compute-bound");
      else if (p->bound == QLatin1String("memory")) tip += QStringLiteral("<br>") + tr("memory-bound");
      else if (p->bound == QLatin1String("overhead")) tip += QStringLiteral("<br>") + tr("launch-overhead-bound");
      QToolTip::showText(QCursor::pos(), tip, this);
    });
    connect(s, &QScatterSeries::clicked, this, [this, s](const QPointF& v) {
      if (const Point* p = nearest(s, v)) {
        const QString name = p->node;
        selectNode(name);
        emit nodeClicked(name);
      }
    });
  }

  // The selection ring, on top, out of the legend.
  m_ring = new QScatterSeries;
  m_ring->setMarkerShape(QScatterSeries::MarkerShapeCircle);
  m_ring->setMarkerSize(17);
  m_ring->setColor(Qt::transparent);
  m_ring->setBorderColor(pal.selection);
  m_ring->setPen(QPen(pal.selection, 2.2));
  chart()->addSeries(m_ring);
  m_ring->attachAxis(m_x);
  m_ring->attachAxis(m_y);
  for (QLegendMarker* m : chart()->legend()->markers(m_ring)) m->setVisible(false);
  chart()->legend()->setVisible(true);
  // Roofs are labelled on the plot, not in the legend (which keeps the op categories).
  const QFont small = smallChartFont();
  for (QAbstractSeries* series : chart()->series()) {
    auto* line = series->type() == QAbstractSeries::SeriesTypeLine ? static_cast<QLineSeries*>(series) : nullptr;
    if (!line || line->count() < 2) continue;
    for (QLegendMarker* m : chart()->legend()->markers(line)) m->setVisible(false);
    auto* item = new QGraphicsSimpleTextItem(line->name(), chart());
    item->setFont(small);
    item->setBrush(pal.roof);
    item->setZValue(20);
    const bool slope = line->at(0).y() != line->at(1).y();
    // The slope's label sits above it, the ceilings' at their right end.
    // (Three quarters up the slope in log space: operators crowd its low end.)
    auto along = [](double a, double b) { return std::pow(a, 0.3) * std::pow(b, 0.7); };
    const QPointF anchor = slope ? QPointF(along(line->at(0).x(), line->at(1).x()), along(line->at(0).y(), line->at(1).y())) : line->at(1);
    m_roofLabels.push_back({item, anchor, slope, line->at(0)});
    // Hovering the roof names it, labelled or not.
    connect(line, &QLineSeries::hovered, this, [this, name = line->name()](const QPointF&, bool on) {
      if (on) QToolTip::showText(QCursor::pos(), name, this);
      else QToolTip::hideText();
    });
  }
  placeRoofLabels();

  const QString device = shortDeviceTitle(r);
  chart()->setTitle(tr("Roofline on %1: %n operators", nullptr, pointCount()).arg(device));
}

void RooflineChart::resizeEvent(QResizeEvent* e) {
  // A wide, low dock (the bottom area) keeps the legend at the side so the plot keeps its height.
  const Qt::Alignment side = width() > 2 * height() ? Qt::AlignRight : Qt::AlignBottom;
  if (chart()->legend()->alignment() != side) chart()->legend()->setAlignment(side);
  QChartView::resizeEvent(e);
}

// The roofs' labels, each where it reads as its roof's and clear of the others: the slope's
// above it, a ceiling's at its right end above the line, else below it, else left of the label
// in the way. A label with no room anywhere (a low dock, ceilings a few pixels apart) is hidden:
// hovering its roof still names it.
void RooflineChart::placeRoofLabels() {
  fitAxisTitle();
  if (m_roofLabels.empty() || !m_ring) return;
  const QRectF plot = chart()->plotArea();
  std::vector<QRectF> placed;
  // The chart's title (its text, not the padding around it), which the headroom reaches.
  for (QGraphicsItem* c : chart()->childItems())
    if (auto* title = dynamic_cast<QGraphicsTextItem*>(c); title && title->isVisible()) {
      const qreal m = title->document()->documentMargin();
      placed.push_back(title->mapRectToParent(title->boundingRect().adjusted(m, m, -m, -m)));
    }
  // The ceilings' lines too: a label with a roof through it reads as struck out.
  for (const RoofLabel& l : m_roofLabels)
    if (!l.leftOfAnchor) {
      const QPointF from = chart()->mapToPosition(l.start, m_ring), to = chart()->mapToPosition(l.anchor, m_ring);
      placed.push_back(QRectF(QPointF(from.x(), from.y() - 0.5), QPointF(to.x(), to.y() + 0.5)));
    }
  // Most of a label into the band between the title and the plot: the top roof sits close
  // under the plot's top edge, and its label is the one that matters most.
  const double headroom = m_roofLabels.front().item->boundingRect().height() * 0.8;
  auto fits = [&](const QRectF& r) {
    return plot.adjusted(-1, -headroom, 1, 1).contains(r) &&
           std::none_of(placed.begin(), placed.end(), [&](const QRectF& p) { return p.intersects(r); });
  };
  for (RoofLabel& l : m_roofLabels) {
    const QPointF at = chart()->mapToPosition(l.anchor, m_ring);
    const QSizeF box = l.item->boundingRect().size();
    std::vector<QPointF> spots;
    if (l.leftOfAnchor) {
      spots.push_back({at.x() - box.width() - 6, at.y() - box.height() - 4});
    } else {
      const double right = plot.right() - box.width() - 4;
      spots = {{right, at.y() - box.height() - 2}, {right, at.y() + 2}};
      const double lineStart = chart()->mapToPosition(l.start, m_ring).x();
      for (const QRectF& p : placed)  // beside a label in the way, still over the line
        if (p.left() - box.width() - 8 >= lineStart) spots.push_back({p.left() - box.width() - 8, at.y() - box.height() - 2});
    }
    const auto spot = std::find_if(spots.begin(), spots.end(), [&](const QPointF& s) { return fits({s, box}); });
    const bool shown = spot != spots.end();
    l.item->setVisible(shown);
    if (shown) {
      l.item->setPos(*spot);
      placed.push_back({*spot, box});
    }
  }
}

// The y axis says what it plots where the plot is tall enough for the words, and its unit alone
// where it is not (a low dock elided "achieved TFLOP/s (measured)" to "achieved TFLOP/...").
void RooflineChart::fitAxisTitle() {
  if (!m_y || m_yTitle.isEmpty()) return;
  const QFontMetrics metrics(m_y->titleFont());
  const QString title = metrics.horizontalAdvance(m_yTitle) <= chart()->plotArea().height() ? m_yTitle : m_yUnit;
  if (m_y->titleText() != title) m_y->setTitleText(title);
}

const RooflineChart::Point* RooflineChart::nearest(QScatterSeries* series, const QPointF& v) const {
  const Point* best = nullptr;
  double bestD = 1e300;
  if (v.x() <= 0 || v.y() <= 0) return nullptr;
  for (const Point& p : m_points) {
    if (p.series != series) continue;
    const double dx = std::log10(p.x / v.x()), dy = std::log10(p.y / m_yScale / v.y());
    const double d = dx * dx + dy * dy;
    if (d < bestD) bestD = d, best = &p;
  }
  return best;
}

void RooflineChart::selectNode(const QString& name) {
  if (!m_ring) return;
  const int i = m_byNode.value(name, -1);
  m_ring->clear();
  m_selected.clear();
  if (i < 0) return;
  const Point& p = m_points[static_cast<size_t>(i)];
  m_ring->append(p.x, p.y / m_yScale);
  m_selected = name;
}

void RooflineChart::selectNodes(const QStringList& names) {
  // One ring: the first selected node that has a point.
  for (const QString& n : names)
    if (m_byNode.contains(n)) return selectNode(n);
  selectNode(QString());
}

}  // namespace msa::ui
