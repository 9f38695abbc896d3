// Heatmap colour mapping (linear and log), the ramp, value formatting, and the scene applying a
// metric to boxes (nodes without a value neutral, collapsed blocks aggregated).
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QTest>
#include <cmath>

#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_style.h"
#include "graph/heat_legend.h"
#include "graph/heatmap.h"
#include "ui_fixtures.h"

using namespace msa;
using namespace msa::ui;

namespace {
double luminance(const QColor& c) {
  auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}
}  // namespace

class TstHeatmap : public QObject {
  Q_OBJECT
 private slots:
  void position_data();
  void position();
  void inverse();
  void rampIsSequential();
  void formatMetric_data();
  void formatMetric();
  void legendTicksShareAUnitAndTheTitleFits();
  void sceneColoursBoxes_data();
  void sceneColoursBoxes();
  void highlightsNeverHideTheHeat_data();
  void highlightsNeverHideTheHeat();
};

void TstHeatmap::position_data() {
  QTest::addColumn<double>("lo");
  QTest::addColumn<double>("hi");
  QTest::addColumn<bool>("log");
  QTest::addColumn<double>("value");
  QTest::addColumn<double>("expected");
  QTest::newRow("linear low") << 2.0 << 10.0 << false << 2.0 << 0.0;
  QTest::newRow("linear high") << 2.0 << 10.0 << false << 10.0 << 1.0;
  QTest::newRow("linear mid") << 2.0 << 10.0 << false << 6.0 << 0.5;
  QTest::newRow("linear clamps below") << 2.0 << 10.0 << false << -5.0 << 0.0;
  QTest::newRow("linear clamps above") << 2.0 << 10.0 << false << 50.0 << 1.0;
  QTest::newRow("log decade") << 1.0 << 1000.0 << true << 10.0 << 1.0 / 3;
  QTest::newRow("log two decades") << 1.0 << 1000.0 << true << 100.0 << 2.0 / 3;
  QTest::newRow("log zero sits low") << 1.0 << 1000.0 << true << 0.0 << 0.0;
  QTest::newRow("log lo<=0 falls back") << 0.0 << 1e6 << true << 1.0 << 0.0;  // lo = hi * 1e-6
  QTest::newRow("degenerate range") << 5.0 << 5.0 << false << 5.0 << 0.0;
}

void TstHeatmap::position() {
  QFETCH(double, lo);
  QFETCH(double, hi);
  QFETCH(bool, log);
  QFETCH(double, value);
  QFETCH(double, expected);
  const HeatMapping m(lo, hi, log ? HeatScale::Log : HeatScale::Linear);
  QVERIFY2(std::abs(m.position(value) - expected) < 1e-9, qPrintable(QString::number(m.position(value))));
}

void TstHeatmap::inverse() {
  for (HeatScale s : {HeatScale::Linear, HeatScale::Log}) {
    const HeatMapping m(0.5, 2000, s);
    for (double t : {0.0, 0.25, 0.5, 0.9, 1.0}) QVERIFY(std::abs(m.position(m.valueAt(t)) - t) < 1e-9);
  }
  // Log spreads small values that linear crushes together.
  const HeatMapping lin(1, 1000, HeatScale::Linear), log(1, 1000, HeatScale::Log);
  QVERIFY(lin.position(10) < 0.01);
  QVERIFY(log.position(10) > 0.3);
}

void TstHeatmap::rampIsSequential() {
  // Light to dark: luminance falls monotonically; the ends are a pale and a deep red.
  double prev = 2;
  for (int i = 0; i <= 50; ++i) {
    const QColor c = HeatMapping::ramp(i / 50.0);
    const double y = luminance(c);
    QVERIFY2(y < prev, qPrintable(QStringLiteral("step %1").arg(i)));
    prev = y;
    QVERIFY(c.red() >= c.green() && c.red() >= c.blue());  // a red ramp throughout
  }
  QVERIFY(luminance(HeatMapping::ramp(0)) > 0.7);
  QVERIFY(luminance(HeatMapping::ramp(1)) < 0.05);
  // The coolest value is distinguishable from "no value".
  QVERIFY(HeatMapping::ramp(0) != GraphStyle().neutralFill);
  // Text stays readable: dark fills get white text.
  QCOMPARE(GraphStyle::textOn(HeatMapping::ramp(1)), QColor(Qt::white));
  QVERIFY(GraphStyle::textOn(HeatMapping::ramp(0)) != QColor(Qt::white));
}

void TstHeatmap::formatMetric_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QString>("unit");
  QTest::addColumn<QString>("text");
  QTest::newRow("ms") << 1.25 << "ms" << "1.25\u202fms";
  QTest::newRow("µs") << 0.042 << "ms" << "42.0\u202fµs";
  QTest::newRow("s") << 2500.0 << "ms" << "2.50\u202fs";
  QTest::newRow("bytes") << 3.0 << "B" << "3\u202fB";
  QTest::newRow("MB") << 5720000.0 << "B" << "5.72\u202fMB";
  QTest::newRow("GFLOP") << 3.4e9 << "FLOP" << "3.40\u202fGFLOP";
  QTest::newRow("count") << 11700000.0 << "" << "11.7\u202fM";
  QTest::newRow("percent") << 37.5 << "%" << "37.5%";
  QTest::newRow("rounds up a digit") << 99.96 << "ms" << "100\u202fms";
  QTest::newRow("three digits below 1") << 0.456 << "ms" << "0.456\u202fms";
  QTest::newRow("zero") << 0.0 << "ms" << "0\u202fms";
  QTest::newRow("beyond P") << 2.5e19 << "B" << "25000\u202fPB";
  QTest::newRow("not finite") << std::numeric_limits<double>::quiet_NaN() << "ms" << "–";
}

void TstHeatmap::formatMetric() {
  QFETCH(double, value);
  QFETCH(QString, unit);
  QFETCH(QString, text);
  QCOMPARE(ui::formatMetric(value, unit), text);
}

// The legend's three ticks in one unit (the walk saw "0 ms · 1.57 µs · 3.14 µs" and
// "-0.27 ms · 0.63 µs · 0.27 ms"), and a long title beside the scale's name without overprinting
// it ("Accuracy cost of quantizinglinear scale").
void TstHeatmap::legendTicksShareAUnitAndTheTitleFits() {
  QCOMPARE(ui::formatMetric(0, QStringLiteral("ms"), 0.00314), QStringLiteral("0\u202fµs"));
  QCOMPARE(ui::formatMetric(0.00157, QStringLiteral("ms"), 0.00314), QStringLiteral("1.57\u202fµs"));
  QCOMPARE(ui::formatMetric(0.00063, QStringLiteral("ms"), 0.27), QStringLiteral("0.001\u202fms"));
  QCOMPARE(ui::formatMetric(950, QStringLiteral("B"), 5.72e6), QStringLiteral("0.00\u202fMB"));
  HeatLegend legend;
  legend.setHeatmap(QStringLiteral("Estimated time"), QStringLiteral("ms"), HeatMapping(0, 0.00314, HeatScale::Linear));
  for (const QString& t : {legend.lowText(), legend.midText(), legend.highText()})
    QVERIFY2(t.endsWith(QStringLiteral("\u202fµs")), qPrintable(t));
  const QString title = QStringLiteral("Accuracy cost of quantizing");
  legend.setHeatmap(title, QStringLiteral("%"), HeatMapping(0.5, 1.41, HeatScale::Linear), QStringLiteral("relative RMS error"));
  QFont bold = legend.font();
  bold.setBold(true);
  QVERIFY(legend.width() >= QFontMetrics(bold).horizontalAdvance(title) + legend.fontMetrics().horizontalAdvance(QStringLiteral("linear scale")) + 20);
}

void TstHeatmap::sceneColoursBoxes_data() {
  QTest::addColumn<bool>("log");
  QTest::newRow("linear") << false;
  QTest::newRow("log") << true;
}

void TstHeatmap::sceneColoursBoxes() {
  QFETCH(bool, log);
  auto g = std::make_shared<const ViewGraph>(ViewGraph::build(test::fixtureModel().graph));
  CollapseState cs(g->blocks().size(), false);
  cs[size_t(g->blockIndex(QStringLiteral("/b")))] = true;  // /b drawn as one box
  auto v = std::make_shared<const VisibleGraph>(VisibleGraph::project(*g, cs));
  GraphScene scene;
  LayoutPtr l = computeLayout(scene.layoutRequest(*g, *v));
  QVERIFY(l);
  scene.populate(g, v, l);

  NodeMetric m;
  m.name = QStringLiteral("Estimated time");
  m.unit = QStringLiteral("ms");
  m.values = {{QStringLiteral("/a/MatMul"), 1.0}, {QStringLiteral("/a/Add"), 10.0},
              {QStringLiteral("/b/Conv"), 40.0}, {QStringLiteral("/b/Relu"), 50.0}};  // /a/Relu: no value
  const auto mapping = scene.setMetric(&m, log ? HeatScale::Log : HeatScale::Linear);
  QVERIFY(mapping);
  QCOMPARE(mapping->low(), 1.0);
  QCOMPARE(mapping->high(), 90.0);  // the /b box sums its members
  BoxItem* matmul = scene.boxOfNode(QStringLiteral("/a/MatMul"));
  BoxItem* add = scene.boxOfNode(QStringLiteral("/a/Add"));
  BoxItem* relu = scene.boxOfNode(QStringLiteral("/a/Relu"));
  BoxItem* b = scene.boxOfNode(QStringLiteral("/b/Conv"));
  QCOMPARE(b, scene.boxOfNode(QStringLiteral("/b/Relu")));
  QCOMPARE(b->kind(), BoxItem::Kind::Block);
  QCOMPARE(*matmul->heat(), HeatMapping::ramp(0));
  QCOMPARE(*b->heat(), HeatMapping::ramp(1));
  const double expectAdd = log ? std::log10(10.0) / std::log10(90.0) : 9.0 / 89.0;
  QCOMPARE(*add->heat(), HeatMapping::ramp(expectAdd));
  QVERIFY(!relu->heat());  // no value: drawn neutral
  // Switching the metric off restores category colours everywhere.
  QVERIFY(!scene.setMetric(nullptr, HeatScale::Linear));
  QVERIFY(!b->heat() && !matmul->heat());
}

void TstHeatmap::highlightsNeverHideTheHeat_data() {
  QTest::addColumn<double>("zoom");
  QTest::addColumn<bool>("selected");
  for (double z : {0.05, 0.2, 0.4, 1.0}) {
    QTest::addRow("marked at %d %%", int(z * 100)) << z << false;
    QTest::addRow("marked+selected at %d %%", int(z * 100)) << z << true;
  }
}

// Issue 11.3: at 20 % zoom a format-conversion mark filled the box with its purple and the heat
// colour was gone. A mark (and the selection) is an outline: the middle of the box keeps the heat
// (at 5 % the box is 2 px high: no outline, the heat alone).
void TstHeatmap::highlightsNeverHideTheHeat() {
  QFETCH(double, zoom);
  QFETCH(bool, selected);
  GraphStyle style;
  const QColor heat(0xd0, 0x30, 0x20);
  auto* box = new BoxItem(&style, BoxItem::Kind::Op, 0, QSizeF(160, 48), QStringLiteral("Conv"), QString(),
                          categoryColors(OpCategory::Convolution));
  box->setHeat(heat, true);
  box->setMark(MarkKind::FormatConversion);
  QGraphicsScene scene;
  scene.addItem(box);
  box->setFlag(QGraphicsItem::ItemIsSelectable);
  box->setSelected(selected);
  const QRectF source = box->mapRectToScene(box->rect());
  QImage img(QSize(int(source.width() * zoom) + 2, int(source.height() * zoom) + 2), QImage::Format_ARGB32);
  img.fill(Qt::white);
  {
    QPainter p(&img);
    scene.render(&p, QRectF(1, 1, source.width() * zoom, source.height() * zoom), source);
  }
  // A point right of the middle, clear of the title and of the category bar.
  const QColor c = img.pixelColor(int(img.width() * 0.8), img.height() / 2);
  const int d = std::abs(c.red() - heat.red()) + std::abs(c.green() - heat.green()) + std::abs(c.blue() - heat.blue());
  QVERIFY2(d < 40, qPrintable(QStringLiteral("%1 instead of %2").arg(c.name(), heat.name())));
}

QTEST_MAIN(TstHeatmap)
#include "tst_heatmap.moc"
