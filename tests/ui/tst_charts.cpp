// The Charts dock on a real analysis (ResNet-18, estimate mode on Ascend 910B): the bars are
// the report's op types, the scatter holds every node with FLOPs and a time at its intensity and
// achieved rate, the roofs are the device profile's figures, clicking a point emits its node,
// and the latency bars follow the report and Verify's pair. MSA_SCREENSHOT_DIR=DIR saves PNGs.
#include <QBarSet>
#include <QChart>
#include <QDir>
#include <QDockWidget>
#include <QMenuBar>
#include <QHorizontalBarSeries>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStackedBarSeries>
#include <QTest>
#include <QValueAxis>
#include <cmath>

#include "advisor/advisor.h"
#include "charts/charts_panel.h"
#include "charts/latency_chart.h"
#include "charts/op_time_chart.h"
#include "charts/roofline_chart.h"
#include "graph/graph_widget.h"
#include "mainwindow.h"
#include "cost/device_profile.h"
#include "i18n/language.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "measured_report.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

namespace {

bool near(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

template <typename T>
QList<T*> seriesOf(QChart* chart) {
  QList<T*> out;
  for (QAbstractSeries* s : chart->series())
    if (auto* t = qobject_cast<T*>(s)) out << t;
  return out;
}

// Scatter series with a legend entry: the category series (the selection ring has none).
QList<QScatterSeries*> pointSeries(RooflineChart* c) {
  QList<QScatterSeries*> out;
  for (QScatterSeries* s : seriesOf<QScatterSeries>(c->chart()))
    if (!s->name().isEmpty()) out << s;
  return out;
}

void save(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("MSA_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + QLatin1Char('/') + name));
}

}  // namespace

class TstCharts : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void opTypeBars();
  void rooflinePoints();
  void rooflineRoofsAreTheDevice();
  void clickingAPointEmitsItsNode();
  void selectingRingsThePoint_data();
  void selectingRingsThePoint();
  void latencyBars();
  void ticksReadAsPlainNumbers();
  void panelForwardsAndClears();
  void measuredReport();
  void mainWindowWiring();

 private:
  std::optional<Report> m_report;
  std::optional<DeviceProfile> m_device;
  std::optional<Model> m_model;
};

void TstCharts::initTestCase() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  // Screenshots in another language: MSA_SCREENSHOT_LANGUAGE=zh_CN (titles are then checked in English only).
  if (const QString lang = qEnvironmentVariable("MSA_SCREENSHOT_LANGUAGE"); !lang.isEmpty()) QVERIFY(installTranslators(lang));
  auto m = loadModel(test::corpusModel("resnet18.onnx"));
  QVERIFY2(m, m ? "" : m.error().describe().c_str());
  QVERIFY(inferShapes(*m));
  auto dev = loadDevice("ascend910b");
  QVERIFY(dev);
  m_device = *dev;
  m_model = *m;
  auto r = analyze(*m, *dev, {}, {});
  QVERIFY2(r, r ? "" : r.error().describe().c_str());
  QCOMPARE(r->latencySource, std::string("estimated"));
  m_report = std::move(*r);
}

void TstCharts::opTypeBars() {
  OpTimeChart chart;
  chart.resize(640, 420);
  chart.setReport(*m_report);
  std::vector<OpTypeTime> types;
  double total = 0;
  for (const OpTypeTime& t : m_report->timeByOpType)
    if (t.ms > 0) types.push_back(t), total += t.ms;
  QVERIFY(types.size() >= 5);  // Conv, Relu, Add, MaxPool, Gemm…
  const qsizetype expected = static_cast<qsizetype>(types.size()) > OpTimeChart::kTopTypes + 1 ? OpTimeChart::kTopTypes + 1
                                                                                                 : static_cast<qsizetype>(types.size());
  QCOMPARE(chart.labels().size(), expected);
  const auto bars = seriesOf<QHorizontalBarSeries>(chart.chart());
  QCOMPARE(bars.size(), 1);
  QCOMPARE(bars[0]->barSets().size(), 1);
  QCOMPARE(bars[0]->barSets()[0]->count(), expected);
  // Highest first (drawn at the top: the set is reversed), and nothing lost to "other".
  QVERIFY(chart.labels()[0].startsWith(QString::fromStdString(types[0].opType) + QLatin1Char(' ')));
  QVERIFY(near(bars[0]->barSets()[0]->at(expected - 1), types[0].ms));
  double drawn = 0;
  for (double v : chart.times()) drawn += v;
  QVERIFY(near(drawn, total, 1e-9));
  QVERIFY(!chart.measured());
  if (currentLanguage() == QLatin1String("en"))
    QVERIFY2(chart.chart()->title().contains(QStringLiteral("estimated")), qPrintable(chart.chart()->title()));
  save(&chart, QStringLiteral("charts_optypes.png"));
}

void TstCharts::rooflinePoints() {
  RooflineChart chart;
  chart.setReport(*m_report);
  QHash<QString, const NodeReport*> expected;
  for (const NodeReport& n : m_report->nodes)
    if (n.flops > 0 && n.bytes > 0 && n.estimatedMs > 0) expected.insert(QString::fromStdString(n.name), &n);
  QVERIFY(expected.size() >= 40);  // ResNet-18: 20 Conv, Relu, Add, pooling, Gemm
  QCOMPARE(chart.pointCount(), expected.size());
  int inSeries = 0;
  for (QScatterSeries* s : pointSeries(&chart)) inSeries += s->count();
  QCOMPARE(inSeries, expected.size());
  for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
    const NodeReport& n = **it;
    const QPointF p = chart.pointOf(it.key());
    QVERIFY(near(p.x(), n.flops / n.bytes));
    QVERIFY(near(p.y(), n.flops / (n.estimatedMs * 1e-3) / 1e9));
    QScatterSeries* s = chart.seriesOf(it.key());
    QVERIFY(s);
    QVERIFY(s->points().contains(QPointF(p.x(), p.y() / chart.yScale())));
  }
  // Colours by op category: the Convs share one series, apart from the Relus.
  QVERIFY(chart.seriesOf(QStringLiteral("/conv1/Conv")));
  QCOMPARE(chart.seriesOf(QStringLiteral("/conv1/Conv")), chart.seriesOf(QStringLiteral("/layer1/layer1.0/conv1/Conv")));
  QVERIFY(chart.seriesOf(QStringLiteral("/conv1/Conv")) != chart.seriesOf(QStringLiteral("/relu/Relu")));
  chart.resize(720, 480);
  save(&chart, QStringLiteral("charts_roofline.png"));
}

void TstCharts::rooflineRoofsAreTheDevice() {
  RooflineChart chart;
  chart.setReport(*m_report);
  const double bw = m_device->memoryBandwidth.value / 1e9;
  QVERIFY(bw > 0);
  QVERIFY(!chart.roofs().empty());
  const auto lines = seriesOf<QLineSeries>(chart.chart());
  QCOMPARE(lines.size(), static_cast<qsizetype>(chart.roofs().size() + 1));
  // The slope: y = bandwidth × x, ending at the highest ceiling.
  const QList<QPointF> slope = lines[0]->points();
  QCOMPARE(slope.size(), 2);
  const double ys = chart.yScale();
  for (const QPointF& p : slope) QVERIFY(near(p.y() * ys, bw * p.x(), 1e-9));
  QVERIFY(near(slope.back().y() * ys, chart.roofs().front().gflops));
  // Every ceiling is one of the device's peak figures, drawn flat from its ridge.
  for (size_t k = 0; k < chart.roofs().size(); ++k) {
    const double g = chart.roofs()[k].gflops;
    bool found = false;
    for (const auto& [key, figure] : m_device->peaks) found = found || near(figure.value / 1e9, g);
    QVERIFY2(found, qPrintable(chart.roofs()[k].label));
    const QList<QPointF> ceiling = lines[static_cast<qsizetype>(k) + 1]->points();
    QCOMPARE(ceiling.size(), 2);
    QVERIFY(near(ceiling[0].y() * ys, g) && near(ceiling[1].y() * ys, g));
    QVERIFY(near(ceiling[0].x(), g / bw));
  }
}

void TstCharts::clickingAPointEmitsItsNode() {
  RooflineChart chart;
  chart.resize(900, 640);
  chart.setReport(*m_report);
  chart.show();
  QVERIFY(QTest::qWaitForWindowExposed(&chart));
  // A point no other marker covers: within 14 px nothing else.
  auto viewPos = [&](const QString& node) {
    const QPointF v(chart.pointOf(node).x(), chart.pointOf(node).y() / chart.yScale());
    return chart.mapFromScene(chart.chart()->mapToScene(chart.chart()->mapToPosition(v, chart.seriesOf(node))));
  };
  QString target;
  const QStringList nodes = chart.pointNodes();
  for (const QString& n : nodes) {
    const QPoint p = viewPos(n);
    bool alone = true;
    for (const QString& o : nodes)
      if (o != n && (viewPos(o) - p).manhattanLength() < 14) alone = false;
    if (alone) {
      target = n;
      break;
    }
  }
  QVERIFY2(!target.isEmpty(), "every point overlaps another");
  QSignalSpy spy(&chart, &RooflineChart::nodeClicked);
  QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, viewPos(target));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), target);
  QCOMPARE(chart.selectedNode(), target);
  // A click on empty plot area selects nothing.
  QTest::mouseClick(chart.viewport(), Qt::LeftButton, {}, chart.mapFromScene(chart.chart()->plotArea().topLeft() + QPointF(3, 3)));
  QCOMPARE(spy.count(), 1);
}

void TstCharts::selectingRingsThePoint_data() {
  QTest::addColumn<QStringList>("selection");
  QTest::addColumn<QString>("ringed");
  QTest::newRow("conv") << QStringList{QStringLiteral("/conv1/Conv")} << QStringLiteral("/conv1/Conv");
  QTest::newRow("first with a point") << QStringList{QStringLiteral("no such node"), QStringLiteral("/fc/Gemm")} << QStringLiteral("/fc/Gemm");
  QTest::newRow("none") << QStringList{QStringLiteral("no such node")} << QString();
  QTest::newRow("empty") << QStringList{} << QString();
}

void TstCharts::selectingRingsThePoint() {
  QFETCH(QStringList, selection);
  QFETCH(QString, ringed);
  RooflineChart chart;
  chart.setReport(*m_report);
  QSignalSpy spy(&chart, &RooflineChart::nodeClicked);
  chart.selectNode(QStringLiteral("/layer1/layer1.0/conv1/Conv"));
  chart.selectNodes(selection);
  QCOMPARE(chart.selectedNode(), ringed);
  QCOMPARE(spy.count(), 0);  // selecting from outside does not echo back
  QList<QScatterSeries*> rings;
  for (QScatterSeries* s : seriesOf<QScatterSeries>(chart.chart()))
    if (s->name().isEmpty()) rings << s;
  QCOMPARE(rings.size(), 1);
  QCOMPARE(rings[0]->count(), ringed.isEmpty() ? 0 : 1);
  if (!ringed.isEmpty()) QCOMPARE(rings[0]->at(0), QPointF(chart.pointOf(ringed).x(), chart.pointOf(ringed).y() / chart.yScale()));
}

void TstCharts::latencyBars() {
  LatencyChart chart;
  chart.resize(640, 420);
  chart.setReport(*m_report);
  QCOMPARE(chart.values().size(), 3);
  QVERIFY(near(chart.values()[0], m_report->latencyMs));
  QVERIFY(near(chart.values()[1], m_report->estimatedOptimizedMs));
  QVERIFY(near(chart.values()[2], m_report->optimumMs));
  QVERIFY(m_report->optimumMs < m_report->latencyMs);
  if (currentLanguage() == QLatin1String("en")) QVERIFY(chart.labels()[0].contains(QStringLiteral("estimated")));
  auto stacked = seriesOf<QStackedBarSeries>(chart.chart());
  QCOMPARE(stacked.size(), 1);
  QCOMPARE(stacked[0]->count(), 3);
  // Verify's pair adds the measured optimized bar and the measured speedup.
  chart.setVerified(m_report->latencyMs * 1.1, m_report->latencyMs * 0.8);
  QCOMPARE(chart.values().size(), 4);
  QVERIFY(near(chart.values()[3], m_report->latencyMs * 0.8));
  QVERIFY2(chart.chart()->title().contains(QStringLiteral("1.38")), qPrintable(chart.chart()->title()));
  save(&chart, QStringLiteral("charts_latency.png"));
  chart.setVerified(-1, -1);
  QCOMPARE(chart.values().size(), 3);
  chart.clear();
  QCOMPARE(chart.values().size(), 0);
}

// A second-long run's axis read "1e+03" ms; a short one's ticks must still differ from each other.
void TstCharts::ticksReadAsPlainNumbers() {
  for (const double latency : {1500.0, 0.37, 42.0}) {
    Report r = *m_report;
    r.latencyMs = latency;
    r.estimatedOptimizedMs = latency * 0.8;
    r.optimumMs = latency * 0.5;
    LatencyChart chart;
    chart.resize(640, 420);
    chart.setReport(r);
    QValueAxis* y = nullptr;
    for (QAbstractAxis* a : chart.chart()->axes(Qt::Vertical)) y = y ? y : qobject_cast<QValueAxis*>(a);
    QVERIFY(y);
    QStringList labels;
    const double step = (y->max() - y->min()) / (y->tickCount() - 1);
    for (int k = 0; k < y->tickCount(); ++k) labels << QString::asprintf(y->labelFormat().toLatin1().constData(), y->min() + k * step);
    QVERIFY2(y->max() >= latency, qPrintable(labels.join(' ')));
    for (const QString& l : labels) QVERIFY2(!l.contains(QLatin1Char('e')), qPrintable(labels.join(' ')));
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
  }
}

void TstCharts::panelForwardsAndClears() {
  ChartsPanel panel;
  panel.resize(720, 520);
  panel.setReport(*m_report);
  // Hidden, the panel draws nothing yet (a large model's charts take longer than the event loop
  // may be held); shown, it draws the report and the selection made meanwhile.
  QCOMPARE(panel.rooflineChart()->pointCount(), 0);
  panel.selectNodes({QStringLiteral("/layer1/layer1.0/conv1/Conv")});
  QCOMPARE(panel.rooflineChart()->selectedNode(), QString());
  panel.showTab(ChartsPanel::Tab::Roofline);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QTRY_VERIFY(panel.rooflineChart()->pointCount() >= 20);
  QVERIFY(!panel.opTimeChart()->labels().isEmpty());
  QCOMPARE(panel.rooflineChart()->selectedNode(), QStringLiteral("/layer1/layer1.0/conv1/Conv"));
  QSignalSpy spy(&panel, &ChartsPanel::nodeActivated);
  emit panel.rooflineChart()->nodeClicked(QStringLiteral("/fc/Gemm"));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("/fc/Gemm"));
  panel.selectNodes({QStringLiteral("/fc/Gemm")});
  QCOMPARE(panel.rooflineChart()->selectedNode(), QStringLiteral("/fc/Gemm"));
  save(&panel, QStringLiteral("charts_panel.png"));
  panel.clear();
  QCOMPARE(panel.rooflineChart()->pointCount(), 0);
  QCOMPARE(panel.opTimeChart()->labels().size(), 0);
}

// Profiled: bars and points use the measured times, the latency bar the measured run.
void TstCharts::measuredReport() {
  const Report r = test::measuredReport(*m_model);
  QCOMPARE(r.latencySource, std::string("measured"));
  ChartsPanel panel;
  panel.resize(720, 520);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  panel.setReport(r);  // shown: drawn at once
  QVERIFY(panel.opTimeChart()->measured());
  double total = 0;
  for (const OpTypeTime& t : r.timeByOpType) total += std::max(0.0, t.ms);
  double drawn = 0;
  for (double v : panel.opTimeChart()->times()) drawn += v;
  QVERIFY(near(drawn, total, 1e-9));
  RooflineChart* roof = panel.rooflineChart();
  QVERIFY(roof->timesMeasured());
  int expected = 0;
  for (const NodeReport& n : r.nodes) {
    if (!(n.flops > 0 && n.bytes > 0 && n.measuredMs > 0)) continue;
    ++expected;
    QVERIFY(near(roof->pointOf(QString::fromStdString(n.name)).y(), n.flops / (n.measuredMs * 1e-3) / 1e9));
  }
  QVERIFY(expected >= 20);
  QCOMPARE(roof->pointCount(), expected);
  // cpu-host: one roof per element type at most, and the bandwidth of the profile.
  QVERIFY(near(roof->roofs().front().bandwidth, r.bandwidthBytesPerSecond / 1e9));
  QVERIFY(near(panel.latencyChart()->values()[0], r.latencyMs));
  QVERIFY(panel.latencyChart()->labels()[0] != LatencyChart().labels().value(0));
  for (ChartsPanel::Tab t : {ChartsPanel::Tab::OpTypes, ChartsPanel::Tab::Roofline, ChartsPanel::Tab::Latency}) {
    panel.showTab(t);
    save(&panel, QStringLiteral("charts_measured_%1.png").arg(static_cast<int>(t)));
  }
}

// In the main window: a Charts dock in View > Panels, hidden until a report; a clicked roofline
// point selects its graph node, a graph selection rings the point.
void TstCharts::mainWindowWiring() {
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(1400, 900);
  QSignalSpy ready(&w, &MainWindow::ready);
  w.openFile(QString::fromStdString(test::corpusModel("resnet18.onnx").string()));
  QVERIFY(ready.wait(120000));
  ChartsPanel* charts = w.charts();
  QVERIFY(charts);
  auto* dock = qobject_cast<QDockWidget*>(charts->parentWidget());
  QVERIFY(dock);
  QCOMPARE(dock->objectName(), QStringLiteral("chartsDock"));
  QVERIFY(dock->isHidden());
  QVERIFY(w.findChildren<QAction*>().contains(dock->toggleViewAction()));
  w.show();  // the charts are drawn once their dock is on screen
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  charts->setReport(*m_report);
  dock->show();
  QTRY_VERIFY(charts->rooflineChart()->pointCount() > 0);
  emit charts->rooflineChart()->nodeClicked(QStringLiteral("/layer2/layer2.0/conv1/Conv"));
  QCOMPARE(w.graphWidget()->selectedNodes(), QStringList{QStringLiteral("/layer2/layer2.0/conv1/Conv")});
  w.graphWidget()->selectNodes({QStringLiteral("/fc/Gemm")});
  QTRY_COMPARE(charts->rooflineChart()->selectedNode(), QStringLiteral("/fc/Gemm"));
  if (!qEnvironmentVariable("MSA_SCREENSHOT_DIR").isEmpty()) {
    dock->raise();
    for (ChartsPanel::Tab t : {ChartsPanel::Tab::OpTypes, ChartsPanel::Tab::Roofline, ChartsPanel::Tab::Latency}) {
      charts->showTab(t);
      QTest::qWait(50);
      save(&w, QStringLiteral("main_charts_%1.png").arg(static_cast<int>(t)));
    }
  }
}

QTEST_MAIN(TstCharts)
#include "tst_charts.moc"
