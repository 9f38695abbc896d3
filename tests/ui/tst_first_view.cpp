// A first view worth showing (issue 11.3) and an Overview that says what its figures compare
// (issue 12): written first against what a new user saw — a profile without its model read
// "130 ms · optimum 3.56 ms · gap 2.4×" with nothing saying the gap is the priced kernels'.
#include <QChartView>
#include <QDockWidget>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QStyledItemDelegate>
#include <QHeaderView>
#include <QTableView>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <filesystem>

#include "advisor/advisor.h"
#include "advisor/profile_only.h"
#include "analysis/analysis_workspace.h"
#include "analysis/findings_model.h"
#include "analysis/findings_panel.h"
#include "i18n/language.h"
#include "charts/chart_theme.h"
#include "charts/charts_panel.h"
#include "charts/latency_chart.h"
#include "charts/op_time_chart.h"
#include "charts/roofline_chart.h"
#include "edit/edit_controller.h"
#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/minimap.h"
#include "graph/node_properties.h"
#include "mainwindow.h"
#include "profile/profile_import.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "example_models.h"
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "report/report_format.h"
#include "test_paths.h"
#include "main_window_support.h"

using namespace msa;
using namespace msa::ui;

namespace {

using test::documentOf;

// Tall and about a screen wide: `branches` parallel chains of `depth` Conv → Relu from one
// input, concatenated.
Model wideTallModel(int branches, int depth) {
  test::ModelBuilder b("wide_tall", 17, 5);
  auto x = b.input("images", {1, 8, 16, 16});
  std::vector<std::string> outs;
  for (int k = 0; k < branches; ++k) {
    test::ModelBuilder::Scope s(b, "branch" + std::to_string(k));
    std::string h = x;
    for (int d = 0; d < depth; ++d) h = b.relu(b.conv(h, 8, 3, {.pads = 1}));
    outs.push_back(h);
  }
  b.output(b.concat(outs, 1), "features");
  return b.build();
}

std::unique_ptr<MainWindow> openWindow(Model m, QSize size) {
  auto w = std::make_unique<MainWindow>(nullptr, false);
  w->setInteractive(false);
  w->resize(size);
  w->show();
  QSignalSpy ready(w.get(), &MainWindow::ready);
  w->showDocument(documentOf(std::move(m), QStringLiteral("model.onnx")));
  if (!ready.wait(60000)) return nullptr;
  QTest::qWait(50);  // the first view is set once the layout arrived
  return w;
}

// Texts QtCharts drew, with "..." where it elided them.
QStringList chartTexts(QChartView* view) {
  QStringList out;
  for (QGraphicsItem* i : view->scene()->items()) {
    if (!i->isVisible()) continue;
    if (auto* t = dynamic_cast<QGraphicsTextItem*>(i)) out << t->toPlainText();
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(i)) out << t->text();
  }
  return out;
}

}  // namespace

class TstFirstView : public QObject {
  Q_OBJECT
 private slots:
  void cleanup() { installTranslators(QStringLiteral("en")); }
  void profileGapSaysItIsTheKernels();
  void aProfileOpensWhereAModelWould();
  void tallGraphOpensCentredClearOfTheOverview();
  void chartsReadableAtTheirDefaultHeight();
  void profileChartsReadableInASmallWindow_data();
  void profileChartsReadableInASmallWindow();
  void toolbarKeepsItsActionsAfterAnApply();
  void findingsCutWhereLeastUseful();
};

// File ▸ Open Profile on a torch_npu training profile: the Overview's gap is the priced kernels'
// time against their rooflines, and the note under it must say so (the CLI's
// report.gap_text_kernels), in English and in Chinese.
void TstFirstView::profileGapSaysItIsTheKernels() {
  const auto dir = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level2";
  if (!std::filesystem::exists(dir)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  for (const QString& lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    installTranslators(lang);
    MainWindow w(nullptr, false);
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
    QSignalSpy done(&w, &MainWindow::analysisFinished);
    QSignalSpy failed(&w, &MainWindow::analysisFailed);
    w.openProfile(QString::fromStdString(dir.string()));
    QVERIFY2(done.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    const auto r = w.report();
    QVERIFY(r && r->profileOnly && r->gapRatio > 0);
    auto* note = w.panel(MainWindow::Panel::Overview)->findChild<QLabel*>(QStringLiteral("gapNote"));
    QVERIFY(note);
    const QString text = note->text();
    // The priced kernels' own time is named, and it is not the step latency shown beside it.
    const QString priced = QString::number(r->profileOnly->pricedMs, 'f', 1);
    QVERIFY2(text.contains(priced.left(priced.indexOf(QLatin1Char('.')))), qPrintable(text));
    if (lang == QStringLiteral("en"))
      QVERIFY2(text.contains(QStringLiteral("kernel")) && text.contains(QStringLiteral("step")), qPrintable(text));
    else
      QVERIFY2(text.contains(QStringLiteral("内核")), qPrintable(text));
    // Never scrolled sideways: the one-line headline wraps within the part shown (it was cut
    // after "11.09 ms," at the dock's default width, the rest behind a horizontal scroll bar).
    auto* headline = w.panel(MainWindow::Panel::Overview)->findChild<QLabel*>(QStringLiteral("headlineText"));
    auto* scroll = w.panel(MainWindow::Panel::Overview)->findChild<QScrollArea*>();
    QVERIFY(headline && scroll);
    // The narrowest the user can drag the dock to.
    w.resizeDocks({w.panel(MainWindow::Panel::Overview)}, {120}, Qt::Horizontal);
    QTest::qWait(50);  // the docks settle their sizes
    const int right = headline->mapTo(scroll->viewport(), QPoint(headline->width(), 0)).x();
    QVERIFY2(right <= scroll->viewport()->width(),
             qPrintable(QStringLiteral("headline ends at %1, the view at %2").arg(right).arg(scroll->viewport()->width())));
    // Properties describe the run, then the kernels of the finding clicked (there is no graph to
    // select on: it stayed empty).
    NodeProperties* props = w.properties();
    QVERIFY(props && props->topLevelItemCount() > 0);
    QCOMPARE(props->topLevelItem(0)->child(2)->text(1), QString::number(r->nodes.size()));
    const Finding* launch = nullptr;
    for (const Finding& f : r->findings)
      if (f.rule == "profile.launch_bound") launch = &f;
    QVERIFY(launch && launch->nodes.size() > 1);
    QVERIFY(w.selectFinding(QString::fromStdString(launch->id)));
    QCOMPARE(props->shownNodes().size(), static_cast<qsizetype>(launch->nodes.size()));
    const QString title = props->topLevelItem(0)->text(0);
    QVERIFY2(title.contains(QString::number(launch->nodes.size())), qPrintable(title));
    int typed = 0;  // the selection's kernels, counted by type
    for (int i = 0; i < props->topLevelItem(0)->childCount(); ++i) typed += props->topLevelItem(0)->child(i)->text(1).toInt();
    QCOMPARE(typed, static_cast<int>(launch->nodes.size()));
  }
}

// A profiler's folder given where a model is expected (the command line, File ▸ Open) opens as
// File ▸ Open Profile would (issue 27.9): the Qwen3 rank is analysed alone, ranked as the
// training step it is, and the window says what it holds (the run's tasks, not "0 nodes").
void TstFirstView::aProfileOpensWhereAModelWould() {
  const auto dir = test::realProfilesDir() / "ascend" / "torch_npu_qwen3_pp2dp2_level2";
  if (!std::filesystem::exists(dir)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  QVERIFY(isProfilePath(dir));
  QVERIFY(!isProfilePath(test::realProfilesDir() / "no such folder"));
  installTranslators(QStringLiteral("en"));
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy done(&w, &MainWindow::analysisFinished);
  QSignalSpy failed(&w, &MainWindow::analysisFailed);
  w.openFile(QString::fromStdString(dir.string()));
  QVERIFY2(done.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
  const auto r = w.report();
  QVERIFY(r && r->profileOnly && r->profile);
  QCOMPARE(r->goal, Goal::Training);
  // The chip the CLI decides from the same folder, not the Analyze dialog's default device.
  const test::CliRun cli = test::cli({"analyze", "--profile", QString::fromStdString(dir.string()), "--json", "-", "--progress", "none"});
  QVERIFY2(cli.exitCode == 0, cli.err.constData());
  QCOMPARE(r->device, nlohmann::json::parse(cli.out.toStdString())["device"].get<std::string>());
  QVERIFY2(w.windowTitle().startsWith(QStringLiteral("torch_npu_qwen3_pp2dp2_level2 (profile)")), qPrintable(w.windowTitle()));
  auto* context = w.panel(MainWindow::Panel::Overview)->findChild<QLabel*>(QStringLiteral("contextText"));
  QVERIFY(context);
  QVERIFY2(context->text().contains(goalTitle(Goal::Training)), qPrintable(context->text()));
  QVERIFY2(context->text().contains(QString::number(r->profile->tasks) + QStringLiteral(" device task")) &&
               !context->text().contains(QStringLiteral(" nodes")),
           qPrintable(context->text()));
  auto* job = w.panel(MainWindow::Panel::Overview)->findChild<QLabel*>(QStringLiteral("jobText"));
  QVERIFY(job && !job->isVisible());  // one rank: no job table

  // A job's folder (two real ranks: AlexNet at profiler levels 1 and 2, the second as rank 1):
  // the Overview puts the ranks side by side and names the slow one.
  test::TempDir jobDir("first-view-job");
  std::filesystem::copy(test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt", jobDir / "rank0_ascend_pt",
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy(test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level2" / "rank0_ascend_pt", jobDir / "rank1_ascend_pt",
                        std::filesystem::copy_options::recursive);
  std::filesystem::rename(jobDir / "rank1_ascend_pt" / "profiler_info_0.json", jobDir / "rank1_ascend_pt" / "profiler_info_1.json");
  done.clear();
  w.openFile(QString::fromStdString(jobDir.path().string()));
  QVERIFY2(done.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
  const auto jr = w.report();
  QVERIFY(jr && jr->job && jr->job->ranks.size() == 2);
  QVERIFY(job->isVisible());
  const QString table = job->text();
  for (const auto& k : jr->job->ranks)
    QVERIFY2(table.contains(QString::fromStdString(formatSignificant(k.stepMs))), qPrintable(table));
  // Their compute and idle time differ by under 1 % of the step: no rank is named slow.
  QVERIFY2(!table.contains(QStringLiteral("slow rank")), qPrintable(table));
}

// A tall graph nearly as wide as the view: it opened at 100 % centred, its right column under
// the overview (the minimap) at the bottom right. Now: a readable zoom, the inputs in view, no
// box under the overview, the graph centred.
void TstFirstView::tallGraphOpensCentredClearOfTheOverview() {
  const Model m = wideTallModel(6, 14);
  // The width of the graph at 100 %, and what the window adds around the graph's view.
  auto probe = openWindow(m, QSize(1400, 900));
  QVERIFY(probe);
  const double contentW = probe->graphWidget()->view()->scene()->sceneRect().width();
  const int chrome = probe->width() - probe->graphWidget()->view()->viewport()->width();
  const int overview = probe->graphWidget()->minimap()->width();
  probe.reset();
  // A view a little wider than the graph: the graph at 100 % would reach into the overview.
  auto w = openWindow(m, QSize(static_cast<int>(contentW) + overview / 2 + chrome, 900));
  QVERIFY(w);
  GraphView* view = w->graphWidget()->view();
  QVERIFY2(view->zoom() >= 0.5, qPrintable(QString::number(view->zoom())));
  const QRect vp = view->viewport()->rect();
  const QRect mini = w->graphWidget()->minimap()->geometry().translated(-view->viewport()->pos());
  QVERIFY(w->graphWidget()->minimap()->isVisible());
  QRectF drawn;
  for (const BoxItem* b : w->graphWidget()->scene()->boxes()) {
    const QRect r = view->mapFromScene(b->sceneBoundingRect()).boundingRect();
    if (!r.intersects(vp)) continue;
    drawn |= QRectF(r);
    QVERIFY2(!r.intersects(mini), qPrintable(QStringLiteral("a box under the overview at %1,%2 %3 mini %4,%5 %6 zoom %7").arg(r.x()).arg(r.y()).arg(r.width()).arg(mini.x()).arg(mini.y()).arg(mini.width()).arg(view->zoom())));
    if (b->kind() == BoxItem::Kind::Input) QVERIFY(vp.contains(r));
  }
  bool inputSeen = false;
  for (const BoxItem* b : w->graphWidget()->scene()->boxes())
    inputSeen |= b->kind() == BoxItem::Kind::Input && vp.contains(view->mapFromScene(b->sceneBoundingRect()).boundingRect());
  QVERIFY(inputSeen);
  // Centred: the margins left and right of what is drawn differ by little.
  const double left = drawn.left() - vp.left(), right = vp.right() - drawn.right();
  QVERIFY2(std::abs(left - right) < 0.15 * vp.width(), qPrintable(QStringLiteral("%1 / %2").arg(left).arg(right)));
}

// The Charts dock at the height it first gets: every op-type label drawn whole (QtCharts elides
// them all to "..." when the bars do not leave a line each).
void TstFirstView::chartsReadableAtTheirDefaultHeight() {
  // Fourteen op types, so the chart has more than fits.
  test::ModelBuilder b("many_types", 17, 9);
  auto x = b.input("x", {1, 16, 32, 32});
  auto h = b.conv(x, 16, 3, {.pads = 1});
  h = b.relu(b.batchNorm(h));
  h = b.sigmoid(b.add(h, b.mul(h, b.scalar(0.5f))));
  h = b.sqrt(b.add(b.mul(h, h), b.scalar(1.f)));
  h = b.div(h, b.scalar(2.f));
  h = b.sub(h, b.scalar(0.1f));
  h = b.erf(h);
  h = b.maxPool(h, 2);
  h = b.clip(h, 0.f, 6.f);
  h = b.transpose(h, {0, 2, 3, 1});
  h = b.softmax(h, -1);
  h = b.reduceMean(h, {1, 2});
  h = b.matmulWeight(h, 10);
  b.output(h, "out");
  auto w = openWindow(b.build(), QSize(1400, 900));
  QVERIFY(w);
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  QSignalSpy done(w.get(), &MainWindow::analysisFinished);
  w->runAnalysis(s);
  QVERIFY(done.wait(120000));
  QDockWidget* dock = w->dock(QStringLiteral("chartsDock"));
  dock->show();
  dock->raise();
  OpTimeChart* chart = w->charts()->opTimeChart();
  // Shown, filled (a hidden chart is drawn when it is shown) and laid out: later on a loaded machine.
  QTRY_VERIFY_WITH_TIMEOUT(chart->isVisible() && !chart->labels().isEmpty(), 5000);
  auto allWhole = [&] {
    const QStringList drawn = chartTexts(chart), labels = chart->labels();
    return std::all_of(labels.begin(), labels.end(), [&](const QString& l) { return drawn.contains(l); });
  };
  QTRY_VERIFY_WITH_TIMEOUT(allWhole(), 5000);
  const QStringList texts = chartTexts(chart);
  for (const QString& t : texts) QVERIFY2(!t.endsWith(QStringLiteral("...")), qPrintable(t + QStringLiteral(" | height ") + QString::number(chart->height())));
  for (const QString& l : chart->labels()) QVERIFY2(texts.contains(l), qPrintable(l + QStringLiteral(" not drawn whole")));
}

void TstFirstView::profileChartsReadableInASmallWindow_data() {
  QTest::addColumn<QString>("language");
  QTest::addColumn<QSize>("size");
  QTest::newRow("en 1024x700") << QStringLiteral("en") << QSize(1024, 700);
  QTest::newRow("zh_CN 1024x700") << QStringLiteral("zh_CN") << QSize(1024, 700);
  QTest::newRow("zh_CN 1920x1080") << QStringLiteral("zh_CN") << QSize(1920, 1080);
}

// A real Ascend training profile in the smallest window we support and a large one, each chart
// tab at the Charts dock's default size: no text drawn elided ("..."), the roofs' labels clear
// of each other and inside the plot, every tick label distinct (a log axis read "1e+03").
void TstFirstView::profileChartsReadableInASmallWindow() {
  QFETCH(QString, language);
  QFETCH(QSize, size);
  const auto dir = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level2";
  if (!std::filesystem::exists(dir)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  installTranslators(language);
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(size);
  w.show();
  QSignalSpy done(&w, &MainWindow::analysisFinished);
  w.openProfile(QString::fromStdString(dir.string()));
  QVERIFY(done.wait(120000));
  QDockWidget* dock = w.dock(QStringLiteral("chartsDock"));
  dock->show();
  dock->raise();
  ChartsPanel* panel = w.charts();
  QStringList problems;
  for (int tab = 0; tab < panel->count(); ++tab) {
    panel->setCurrentIndex(tab);
    auto* chart = qobject_cast<QChartView*>(panel->currentWidget());
    QVERIFY(chart);
    QTRY_VERIFY_WITH_TIMEOUT(chart->isVisible() && chart->width() > 0, 5000);
    QTest::qWait(50);  // the chart lays out its axes
    const QString where = panel->tabText(tab) + QStringLiteral(" at ") + QString::number(chart->width()) + u'x' +
                          QString::number(chart->height()) + QStringLiteral(": ");
    if (const QString shots = qEnvironmentVariable("MSA_SCREENSHOT_DIR"); !shots.isEmpty())
      chart->grab().save(shots + QStringLiteral("/profile_chart_%1_%2_%3.png").arg(language).arg(size.width()).arg(tab));
    const QStringList texts = chartTexts(chart);
    if (texts.isEmpty()) problems << where + QStringLiteral("no text");
    for (const QString& t : texts)
      if (t.endsWith(QStringLiteral("...")) || t.endsWith(QChar(0x2026)) || t.contains(QStringLiteral("e+"))) problems << where + t;
    if (chart == static_cast<QChartView*>(panel->latencyChart()))  // every bar says its value
      for (double ms : panel->latencyChart()->values())
        if (!texts.contains(durationText(ms))) problems << where + durationText(ms) + QStringLiteral(" not drawn");
    if (chart != static_cast<QChartView*>(panel->rooflineChart())) continue;
    // The roofs' labels: in the chart, over no other text (the title, a tick, another roof's
    // label) and no other roof's line.
    QList<QGraphicsSimpleTextItem*> roofLabels;
    QList<std::pair<QRectF, QString>> otherTexts;
    for (QGraphicsItem* i : chart->scene()->items()) {
      if (!i->isVisible()) continue;
      if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(i); t && t->parentItem() == chart->chart()) roofLabels << t;
      else if (auto* rich = dynamic_cast<QGraphicsTextItem*>(i)) {
        const qreal m = rich->document()->documentMargin();  // padding around the text, not text
        otherTexts.append({rich->sceneBoundingRect().adjusted(m, m, -m, -m), rich->toPlainText()});
      } else if (auto* simple = dynamic_cast<QGraphicsSimpleTextItem*>(i)) {
        otherTexts.append({simple->sceneBoundingRect(), simple->text()});
      }
    }
    if (roofLabels.isEmpty()) problems << where + QStringLiteral("no roof label");
    const QRectF plot = chart->chart()->plotArea();
    QList<QRectF> ceilings;
    for (QAbstractSeries* series : chart->chart()->series())
      if (auto* line = qobject_cast<QLineSeries*>(series); line && line->count() == 2 && line->at(0).y() == line->at(1).y()) {
        const QPointF a = chart->chart()->mapToPosition(line->at(0), line), b = chart->chart()->mapToPosition(line->at(1), line);
        ceilings << QRectF(QPointF(a.x(), a.y() - 0.5), QPointF(std::min(b.x(), plot.right()), b.y() + 0.5));
      }
    for (int a = 0; a < roofLabels.size(); ++a) {
      const QRectF ra = roofLabels[a]->sceneBoundingRect();
      const QString text = roofLabels[a]->text();
      if (!chart->sceneRect().contains(ra) || ra.right() > plot.right() + 1 || ra.bottom() > plot.bottom() + 1)
        problems << where + text + QStringLiteral(" leaves the plot");
      for (const auto& [rect, other] : otherTexts)
        if (ra.intersects(rect)) problems << where + text + QStringLiteral(" over ") + other;
      for (int b = a + 1; b < roofLabels.size(); ++b)
        if (ra.intersects(roofLabels[b]->sceneBoundingRect())) problems << where + text + QStringLiteral(" over ") + roofLabels[b]->text();
      int crossed = 0;
      for (const QRectF& c : ceilings) crossed += ra.intersects(c);
      if (crossed > 0) problems << where + text + QStringLiteral(" struck through by a roof");
    }
  }
  for (const QString& p : problems) qWarning("%s", qPrintable(p));
  QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 problem(s), listed above").arg(problems.size())));
}

// After an Apply the Undo action says "Undo Fuse Conv→BatchNormalization→Relu at …": the tool bar
// keeps Apply, Apply All and Verify in view (none pushed into the overflow menu).
void TstFirstView::toolbarKeepsItsActionsAfterAnApply() {
  auto w = openWindow(test::examples::tinyYolo(), QSize(1280, 860));
  QVERIFY(w);
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  QSignalSpy done(w.get(), &MainWindow::analysisFinished);
  w->runAnalysis(s);
  QVERIFY(done.wait(120000));
  EditController* edit = w->editController();
  const Finding* bn = nullptr;
  for (const Finding& f : w->report()->findings)
    if (f.fixPass == "fold_bn_into_conv" && f.hasFix()) bn = &f;
  QVERIFY(bn);
  edit->setCurrentFinding(QString::fromStdString(bn->id));
  QSignalSpy applied(edit, &EditController::reportChanged);
  edit->applyAction()->trigger();
  QVERIFY(applied.wait(120000));
  QVERIFY(edit->undoAction()->text().size() > 20);  // "Undo Fuse Conv→BatchNormalization→Relu at …"
  QTest::qWait(100);
  auto* bar = w->findChild<QToolBar*>(QStringLiteral("mainToolBar"));
  QVERIFY(bar);
  for (QAction* a : bar->actions()) {
    if (a->isSeparator() || !a->isVisible()) continue;
    QWidget* wid = bar->widgetForAction(a);
    QVERIFY2(wid && wid->isVisible() && bar->rect().contains(wid->geometry()),
             qPrintable(a->text() + QStringLiteral(" is in the overflow")));
  }
}

// The findings tables cut a title at its end (it starts with what to do) and a node name at its
// start (its end names the operator); both were cut in the middle ("Fuse Conv → Batc…2/cv1/conv").
void TstFirstView::findingsCutWhereLeastUseful() {
  auto w = openWindow(test::examples::tinyYolo(), QSize(1280, 860));
  QVERIFY(w);
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  QSignalSpy done(w.get(), &MainWindow::analysisFinished);
  w->runAnalysis(s);
  QVERIFY(done.wait(120000));
  QTableView* view = w->analysis()->table(AnalysisWorkspace::Table::Bottlenecks)->view();
  QVERIFY(view && view->model()->rowCount() > 0);
  // initStyleOption is protected: read the option each column's delegate paints with.
  struct Peek : QStyledItemDelegate {
    using QStyledItemDelegate::initStyleOption;
  };
  auto modeOf = [&](int column) {
    QStyleOptionViewItem o;
    o.initFrom(view);
    auto* d = static_cast<Peek*>(qobject_cast<QStyledItemDelegate*>(view->itemDelegateForColumn(column)));
    if (!d) return view->textElideMode();
    d->initStyleOption(&o, view->model()->index(0, column));
    return o.textElideMode;
  };
  QCOMPARE(modeOf(FindingsModel::Title), Qt::ElideRight);
  QCOMPARE(modeOf(FindingsModel::Location), Qt::ElideLeft);
  // In a 1024-pixel window the title keeps twice the location's room (a fixed 30-character
  // location left the title 240 px, its "· 32 more alike" cut); wide, the location keeps 30.
  QHeaderView* h = view->horizontalHeader();
  const int wide = h->sectionSize(FindingsModel::Location);
  w->resize(1024, 700);
  QApplication::processEvents();
  QTRY_VERIFY2(h->sectionSize(FindingsModel::Title) >= 2 * h->sectionSize(FindingsModel::Location),
               qPrintable(QStringLiteral("title %1, location %2").arg(h->sectionSize(FindingsModel::Title)).arg(h->sectionSize(FindingsModel::Location))));
  QVERIFY(h->sectionSize(FindingsModel::Location) < wide);
  // A width the user gave the column stays.
  h->resizeSection(FindingsModel::Location, 400);
  w->resize(1100, 700);
  QApplication::processEvents();
  QCOMPARE(h->sectionSize(FindingsModel::Location), 400);
}

QTEST_MAIN(TstFirstView)
#include "tst_first_view.moc"
