// The analysis hub (11.2) and the views that follow it: every dock shows the document on screen
// and its analysis — after an Apply, an Undo, another model — never one state behind, and the
// language switches at run time without a restart. Written first against the views that went
// stale (Properties one state behind after an Apply, Charts keeping the last Analyze's report,
// "7 nodes selected" with an empty list after opening another model) and a language menu that
// asked for a restart.
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QChartView>
#include <QGroupBox>
#include <QLabel>
#include <QLegendMarker>
#include <QTabBar>
#include <QTextDocument>
#include <QValueAxis>
#include <QApplication>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

#include "analysis/analysis_workspace.h"
#include "analysis/findings_panel.h"
#include "charts/charts_panel.h"
#include "edit/edit_controller.h"
#include "edit/reanalysis.h"
#include "example_models.h"
#include "graph/graph_widget.h"
#include "graph/heat_legend.h"
#include "graph/node_properties.h"
#include "heatmap_chooser.h"
#include <QSortFilterProxyModel>
#include "i18n/language.h"
#include "mainwindow.h"
#include "model/shape_inference.h"
#include "main_window_support.h"
#include "report/report_text.h"

using namespace msa;
using namespace msa::ui;

namespace {

using test::documentOf;

QStringList menuTitles(QMainWindow& w) {
  QStringList out;
  for (QAction* a : w.menuBar()->actions()) out << a->text();
  return out;
}

// Words of a text a Chinese user would read as English: lower-case, capitalised or upper-case
// words of four letters or more (upper case too: the Overview's captions are shown so, and a
// caption left in English — "LATENCY" — passed when only "Latency" was looked for). Names from
// the model (ops, nodes, tensors), units and product names are not English prose and are allowed.
// Code is not prose: a span in backticks, a command-line option ("--trace"), an identifier,
// a call or an assignment ("pin_memory=True", "bool(tensor)") and a Python location
// ("main.py(354): train") are left out, after undoing Markdown's escapes ("fold\_bn").
QStringList englishWords(const QString& raw, const QSet<QString>& allowed) {
  static const QRegularExpression escape(QStringLiteral("\\\\([\\\\`*_{}\\[\\]()#+\\-.!|<>])"));
  static const QRegularExpression code(QStringLiteral("`[^`]*`|\\S+\\.py\\(\\d+\\): \\w+"));
  static const QRegularExpression token(QStringLiteral("(?<![-\\w])[A-Za-z][A-Za-z0-9_./:=()\\[\\]\\-]*"));
  static const QRegularExpression word(QStringLiteral("^([a-z]{4,}|[A-Z][a-z]{3,}|[A-Z]{4,})$"));
  QString text = raw;
  text.replace(escape, QStringLiteral("\\1")).remove(code);
  QStringList out;
  for (auto it = token.globalMatch(text); it.hasNext();) {
    const QString t = it.next().captured();
    if (word.match(t).hasMatch() && !allowed.contains(t)) out << t;
  }
  return out;
}

QString plain(const QString& text) {
  if (!Qt::mightBeRichText(text)) return text;
  QTextDocument d;
  d.setHtml(text);
  return d.toPlainText();
}

// Every text a widget tree shows: labels, buttons, tabs, group titles, item views (cells and
// headers), charts (title, axes, legend).
QStringList shownTexts(QWidget* root) {
  QStringList out;
  auto add = [&](const QString& where, const QString& t) {
    if (!t.trimmed().isEmpty()) out << where + QStringLiteral(": ") + plain(t);
  };
  QList<QWidget*> all = root->findChildren<QWidget*>();
  all.prepend(root);
  for (QWidget* w : all) {
    if (!w->isVisibleTo(root->window())) continue;
    const QString name = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
    if (auto* l = qobject_cast<QLabel*>(w)) add(name, l->text());
    if (auto* b = qobject_cast<QAbstractButton*>(w)) add(name, b->text());
    if (auto* g = qobject_cast<QGroupBox*>(w)) add(name, g->title());
    if (auto* t = qobject_cast<QTabBar*>(w))
      for (int i = 0; i < t->count(); ++i) add(name, t->tabText(i));
    if (auto* v = qobject_cast<QAbstractItemView*>(w); v && v->model()) {
      const QAbstractItemModel* m = v->model();
      std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < std::min(m->rowCount(parent), 60); ++r)
          for (int c = 0; c < m->columnCount(parent); ++c) {
            const QModelIndex i = m->index(r, c, parent);
            add(name, i.data().toString());
            if (c == 0) walk(i);
          }
      };
      walk({});
      for (int c = 0; c < m->columnCount(); ++c) add(name, m->headerData(c, Qt::Horizontal).toString());
    }
    if (auto* cv = qobject_cast<QChartView*>(w)) {
      add(name, cv->chart()->title());
      for (QAbstractAxis* a : cv->chart()->axes()) add(name, a->titleText());
      for (QLegendMarker* mk : cv->chart()->legend()->markers()) add(name, mk->label());
    }
  }
  return out;
}

}  // namespace

class TstHub : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void viewsFollowEveryState();
  void anotherModelLeavesNothingBehind();
  void languageSwitchesWithoutRestart();
  void anotherDeviceReplacesTheMeasuredMetrics();
  void theViewStaysPutAfterApplyAndFocus();
  void noEnglishInAChineseSession();
  void noEnglishOnAMeasuredRunOrAProfile();

 private:
  static QSet<QString> allowedWords(const MainWindow& w);
  static void scan(const QSet<QString>& allowed, const QString& where, const QStringList& texts, QStringList& leaks);
  static void scanWindow(MainWindow& w, const QString& when, QStringList& leaks);
  static void scanMenus(MainWindow& w, QStringList& leaks);
  static void scanReports(MainWindow& w, const QString& where, QStringList& leaks);
  void analyse();
  std::unique_ptr<MainWindow> m_w;
};

void TstHub::init() {
  m_w = std::make_unique<MainWindow>(nullptr, false);
  m_w->setInteractive(false);
  m_w->resize(1400, 900);
  m_w->show();
  m_w->showDocument(documentOf(test::examples::tinyYolo(), QStringLiteral("tiny_yolo.onnx")));
}

void TstHub::cleanup() {
  m_w->editController()->setDiscardConfirmation([] { return EditController::DiscardChoice::Discard; });
  m_w.reset();
  installTranslators(QStringLiteral("en"));
}

void TstHub::analyse() {
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  QSignalSpy done(m_w.get(), &MainWindow::analysisFinished);
  m_w->runAnalysis(s);
  QVERIFY(done.wait(120000));
}

void TstHub::viewsFollowEveryState() {
  analyse();
  NodeProperties* props = m_w->properties();
  ChartsPanel* charts = m_w->charts();
  QVERIFY(props && charts);
  QCOMPARE(props->report(), m_w->report());
  QCOMPARE(charts->shownReport(), m_w->report().get());
  // A Conv whose BatchNormalization a fix folds, shown in Properties.
  const Finding* bn = nullptr;
  for (const Finding& f : m_w->report()->findings)
    if (f.hasFix() && f.fixPass == "fold_bn_into_conv") {
      bn = &f;
      break;
    }
  QVERIFY(bn);
  const QString conv = QString::fromStdString(bn->nodes.front());
  m_w->graphWidget()->selectNodes({conv});
  QCOMPARE(props->shownNodes(), QStringList{conv});
  EditController* edit = m_w->editController();
  edit->setCurrentFinding(QString::fromStdString(bn->id));
  QSignalSpy applied(edit->session(), &EditSession::applyFinished);
  edit->applyAction()->trigger();
  QVERIFY(applied.wait(120000));
  // Every view shows the edited model and its re-derived analysis: the same objects as the hub.
  const auto edited = m_w->analysis()->analysis();
  QVERIFY(edited && edited->document == m_w->document());
  QCOMPARE(edited->report, edit->session()->currentReport());
  QCOMPARE(props->document(), m_w->document());
  QCOMPARE(props->report(), m_w->report());
  QCOMPARE(charts->shownReport(), m_w->report().get());
  for (const auto& t : m_w->analysis()->tables()) QCOMPARE(t->model()->report(), m_w->report());
  QCOMPARE(props->shownNodes(), QStringList{conv});  // the Conv is still there, still shown
  // Undo: the original state, everywhere.
  edit->undoAction()->trigger();
  QCOMPARE(m_w->document(), edit->session()->originalState()->document);
  QCOMPARE(props->document(), m_w->document());
  QCOMPARE(props->report(), m_w->report());
  QCOMPARE(charts->shownReport(), m_w->report().get());
  QCOMPARE(m_w->report(), edit->session()->originalState()->report);
  // As a user does it: the finding clicked (its nodes selected), applied, undone — Properties
  // shows what the graph selects after each step, never the step before.
  QVERIFY(m_w->selectFinding(QString::fromStdString(bn->id)));
  QCOMPARE(props->shownNodes(), m_w->graphWidget()->selectedNodes());
  const QStringList findingNodes = m_w->graphWidget()->selectedNodes();
  edit->applyAction()->trigger();
  QVERIFY(applied.wait(120000));
  QCOMPARE(props->shownNodes(), m_w->graphWidget()->selectedNodes());
  QVERIFY(m_w->graphWidget()->selectedNodes().size() < findingNodes.size());  // the fix removed some
  edit->undoAction()->trigger();
  // Undo gives back the finding's nodes as they were selected, not the ones the fix kept (the
  // walk saw "3 nodes selected" beside the finding's 4 framed).
  QTRY_COMPARE(m_w->graphWidget()->selectedNodes(), findingNodes);
  QCOMPARE(props->shownNodes(), m_w->graphWidget()->selectedNodes());
  edit->redoAction()->trigger();
  QCOMPARE(props->shownNodes(), m_w->graphWidget()->selectedNodes());
}

void TstHub::anotherModelLeavesNothingBehind() {
  analyse();
  QStringList some;
  for (const auto& n : m_w->document()->graph->nodes()) {
    if (n.kind != ViewNode::Kind::Op) continue;
    some << n.id;
    if (some.size() == 7) break;
  }
  m_w->graphWidget()->selectNodes(some);
  QCOMPARE(m_w->properties()->shownNodes().size(), 7);
  m_w->showDocument(documentOf(test::examples::tinyTransformer(), QStringLiteral("tiny_transformer.onnx")));
  QVERIFY(!m_w->report());
  QVERIFY(m_w->properties()->shownNodes().isEmpty());
  QVERIFY(!m_w->properties()->report());
  QVERIFY(!m_w->charts()->shownReport());
  for (const auto& t : m_w->analysis()->tables()) QCOMPARE(t->model()->rowCount(), 0);
}

void TstHub::languageSwitchesWithoutRestart() {
  analyse();
  QVERIFY(menuTitles(*m_w).contains(QStringLiteral("&File")));
  FindingsPanel* top = m_w->analysis()->table(AnalysisWorkspace::Table::Bottlenecks);
  QVERIFY(top->model()->rowCount() > 0);
  const QString englishTitle = top->model()->index(0, FindingsModel::Title).data().toString();
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  // The same window, at once: menus, actions, docks and the findings (core's zh texts).
  QVERIFY2(menuTitles(*m_w).contains(QStringLiteral("文件(&F)")), qPrintable(menuTitles(*m_w).join(u' ')));
  QCOMPARE(m_w->charts()->parentWidget()->windowTitle(), QStringLiteral("图表"));
  QVERIFY(!m_w->editController()->applyAllSafeAction()->text().contains(QStringLiteral("Apply")));
  const QString chineseTitle = top->model()->index(0, FindingsModel::Title).data().toString();
  QVERIFY2(chineseTitle != englishTitle, qPrintable(chineseTitle));
  QVERIFY2(chineseTitle.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))), qPrintable(chineseTitle));
  // And back.
  QVERIFY(installTranslators(QStringLiteral("en")));
  QVERIFY(menuTitles(*m_w).contains(QStringLiteral("&File")));
  QCOMPARE(top->model()->index(0, FindingsModel::Title).data().toString(), englishTitle);
}

// A CPU analysis offers Measured time; an Ascend estimate after it must not keep offering it
// (Properties kept showing the CPU's "Measured time" beside the Ascend estimate).
void TstHub::anotherDeviceReplacesTheMeasuredMetrics() {
  analyse();
  // The same analysis as if measured: every node's estimate as its measured time.
  auto measured = std::make_shared<Report>(*m_w->report());
  measured->latencySource = "measured";
  measured->measuredNodeSumMs = 0;
  for (NodeReport& n : measured->nodes) {
    n.measuredMs = n.estimatedMs;
    measured->measuredNodeSumMs += n.estimatedMs;
  }
  auto result = std::make_shared<AnalysisResult>(*m_w->analysis()->analysis());
  result->report = measured;
  m_w->analysis()->setAnalysis(result);
  auto names = [&] {
    QStringList out;
    for (const NodeMetric& m : m_w->heatmap()->metrics()) out << m.name;
    return out;
  };
  QVERIFY2(names().contains(QStringLiteral("Measured time")), qPrintable(names().join(u',')));
  analyse();  // an estimate on the Ascend device profile
  QVERIFY2(!names().contains(QStringLiteral("Measured time")), qPrintable(names().join(u',')));
  QVERIFY2(!names().contains(QStringLiteral("Efficiency")), qPrintable(names().join(u',')));
  QVERIFY(names().contains(QStringLiteral("Estimated time share")));
  // Properties of one node shows no measured row either.
  const QString conv = QString::fromStdString(m_w->report()->nodes.front().name);
  m_w->graphWidget()->selectNodes({conv});
  const auto rows = m_w->properties()->findItems(metricTitle(QStringLiteral("Measured time")), Qt::MatchExactly | Qt::MatchRecursive, 0);
  QVERIFY2(rows.isEmpty(), qPrintable(conv));
}

// After an Apply, or when focus comes back to a findings table (closing the Verify dialog), the
// view jumped to finding #1: a table getting focus set its current row, which activated it.
void TstHub::theViewStaysPutAfterApplyAndFocus() {
  analyse();
  FindingsPanel* top = m_w->analysis()->table(AnalysisWorkspace::Table::Bottlenecks);
  QVERIFY(top->model()->rowCount() > 1);
  QSignalSpy activated(m_w->analysis(), &AnalysisWorkspace::findingSelected);
  EditController* edit = m_w->editController();
  QString fixable;
  for (const Finding& f : m_w->report()->findings)
    if (f.hasFix() && f.fixPass == "fold_bn_into_conv") fixable = QString::fromStdString(f.id);
  QVERIFY(!fixable.isEmpty());
  edit->setCurrentFinding(fixable);
  QSignalSpy applied(edit->session(), &EditSession::applyFinished);
  edit->applyAction()->trigger();
  QVERIFY(applied.wait(120000));
  QApplication::processEvents();
  QVERIFY2(activated.isEmpty(), qPrintable(activated.isEmpty() ? QString() : activated.front().front().toString()));
  // Focus comes back to the table (as when a dialog closes): nothing is activated.
  m_w->activateWindow();
  top->view()->setFocus(Qt::ActiveWindowFocusReason);
  QFocusEvent in(QEvent::FocusIn, Qt::ActiveWindowFocusReason);
  QApplication::sendEvent(top->view(), &in);
  QApplication::processEvents();
  QVERIFY2(activated.isEmpty(), qPrintable(activated.isEmpty() ? QString() : activated.front().front().toString()));
  // The same when the graph's selection highlighted rows first, the top one among them (after
  // an Undo the walk opened What If and finding #1's 222 nodes were selected): focus makes no
  // highlighted row the current one.
  top->setReport(m_w->report());  // a re-analysis: no current row
  top->highlightNodes(top->proxy()->index(0, FindingsModel::Title).data(FindingsModel::NodesRole).toStringList());
  QVERIFY(top->view()->selectionModel()->isRowSelected(0, {}));
  top->view()->clearFocus();
  top->view()->setFocus(Qt::ActiveWindowFocusReason);
  QApplication::sendEvent(top->view(), &in);
  QApplication::processEvents();
  QVERIFY2(activated.isEmpty(), qPrintable(activated.isEmpty() ? QString() : activated.front().front().toString()));
  // A click still activates the row.
  top->view()->setFocus(Qt::MouseFocusReason);
  const QModelIndex second = top->proxy()->index(1, FindingsModel::Title);
  QTest::mouseClick(top->view()->viewport(), Qt::LeftButton, {}, top->view()->visualRect(second).center());
  QCOMPARE(activated.size(), 1);
}

// 11.7: in a Chinese session no dock, chart or the Overview shows English prose (an analysis
// made in English, then the language switched at run time; a node selected in Properties and
// each chart tab drawn). Written first: the goal/scenario line, roof names, Properties' headers
// and the charts' titles after a switch were English.
void TstHub::noEnglishInAChineseSession() {
  analyse();  // in English; then the language switches under the open window
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  QStringList leaks;
  scanWindow(*m_w, QStringLiteral("switched: "), leaks);
  // An analysis run in Chinese, on the host CPU's profile this time (its name is the CPU's).
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  s.deviceProfile = QStringLiteral("cpu-host");
  QSignalSpy done(m_w.get(), &MainWindow::analysisFinished);
  m_w->runAnalysis(s);
  QVERIFY(done.wait(120000));
  QCOMPARE(m_w->report()->device, std::string("cpu-host"));
  scanWindow(*m_w, QStringLiteral("analysed in Chinese: "), leaks);
  leaks.removeDuplicates();
  QVERIFY2(leaks.isEmpty(), qPrintable(QStringLiteral("%1 English text(s):\n").arg(leaks.size()) + leaks.join(u'\n')));
}

// The same scan where the figures are measured: the model timed on this CPU by ONNX Runtime (the
// measurement's own words: runs, threads, a busy machine), a real Ascend training profile opened
// from its folder (kernels, steps, communication), every menu, and the reports a Chinese user
// saves (text and Markdown).
void TstHub::noEnglishOnAMeasuredRunOrAProfile() {
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  QStringList leaks;
  QString error;
  QVERIFY2(test::analyse(*m_w, test::cpuAnalysisSettings(), &error), qPrintable(error));
  QCOMPARE(m_w->report()->latencySource, std::string("measured"));
  scanWindow(*m_w, QStringLiteral("measured: "), leaks);
  scanMenus(*m_w, leaks);
  scanReports(*m_w, QStringLiteral("measured report: "), leaks);
  const auto job = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level2";
  if (std::filesystem::exists(job)) {
    QSignalSpy done(m_w.get(), &MainWindow::analysisFinished);
    QSignalSpy failed(m_w.get(), &MainWindow::analysisFailed);
    m_w->openProfile(QString::fromStdString(job.string()));
    QVERIFY2(done.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QVERIFY(m_w->report() && m_w->report()->profileOnly);
    scanWindow(*m_w, QStringLiteral("Ascend profile: "), leaks);
    scanReports(*m_w, QStringLiteral("Ascend profile report: "), leaks);
  }
  leaks.removeDuplicates();
  for (const QString& leak : leaks) qWarning("%s", qPrintable(leak));  // QtTest cuts a long message
  QVERIFY2(leaks.isEmpty(), qPrintable(QStringLiteral("%1 English text(s), listed above").arg(leaks.size())));
  if (!std::filesystem::exists(job)) QSKIP("no real profiles beside the source tree: the measured run was scanned");
}

// Words a Chinese text may carry: product and format names, units, terms of art, and every name
// that comes from the model or the profile (operators, nodes, tensors, kernels, the device id,
// finding ids shown for reference).
QSet<QString> TstHub::allowedWords(const MainWindow& w) {
  QSet<QString> allowed = {QStringLiteral("ONNX"), QStringLiteral("Runtime"), QStringLiteral("Ascend"), QStringLiteral("Graphviz"),
                           // unit symbols, SI-prefixed as formatMetric writes them ("6.91 MFLOP")
                           QStringLiteral("FLOP"), QStringLiteral("kFLOP"), QStringLiteral("MFLOP"), QStringLiteral("GFLOP"),
                           QStringLiteral("TFLOP"), QStringLiteral("PFLOP"), QStringLiteral("NCHW"), QStringLiteral("NHWC"), QStringLiteral("msadvisor"),
                           // a term of art Chinese texts keep ("Roofline 模型")
                           QStringLiteral("Roofline"),
                           // the Ascend AI Core's units, named so in CANN's Chinese documentation ("Cube 单元",
                           // "20 个 AI Core")
                           QStringLiteral("Cube"), QStringLiteral("Vector"), QStringLiteral("Core"),
                           // ONNX's data types, shown as the model names them
                           QStringLiteral("float"), QStringLiteral("double"), QStringLiteral("bool"), QStringLiteral("string"),
                           // a language's own name in View ▸ Language
                           QStringLiteral("English"),
                           // terms of art Chinese engineering texts keep (CANN's and torch_npu's Chinese
                           // documentation write "batch", "loss", "trace", "profiler", "Pass")
                           QStringLiteral("roofline"), QStringLiteral("batch"), QStringLiteral("loss"), QStringLiteral("trace"),
                           QStringLiteral("profiler"), QStringLiteral("pass"), QStringLiteral("token"), QStringLiteral("rank"),
                           QStringLiteral("opset"),
                           // PyTorch's names: literals, APIs and operators the advice lists, collectives
                           QStringLiteral("torch"), QStringLiteral("True"), QStringLiteral("False"), QStringLiteral("autocast"),
                           QStringLiteral("nonzero"), QStringLiteral("unique"), QStringLiteral("broadcast"), QStringLiteral("loader"),
                           // products and tools by name
                           QStringLiteral("Python"), QStringLiteral("Megatron"), QStringLiteral("torchair"), QStringLiteral("msprof"),
                           QStringLiteral("AIPP"), QStringLiteral("CANN"), QStringLiteral("HCCL"),
                           // the AI Core's pipes and msprof's columns, named as msprof prints them
                           QStringLiteral("vector"), QStringLiteral("scalar"), QStringLiteral("cube"), QStringLiteral("fixpipe"),
                           QStringLiteral("Wait"), QStringLiteral("Time")};
  auto allow = [&](const std::string& s) {
    static const QRegularExpression part(QStringLiteral("[A-Za-z]+"));
    for (auto it = part.globalMatch(QString::fromStdString(s)); it.hasNext();) allowed.insert(it.next().captured());
  };
  if (w.document()) {
    const Model& model = *w.document()->model;
    for (const Node& n : model.graph.nodes) {
      allow(n.opType);
      for (const Attribute& a : n.attributes) allow(a.name);  // ONNX's attribute names ("strides")
      allow(n.name);
      for (const auto& v : n.inputs) allow(v);
      for (const auto& v : n.outputs) allow(v);
    }
    for (const auto& v : model.graph.inputs) allow(v.name);
    for (const auto& v : model.graph.outputs) allow(v.name);
  }
  if (const auto r = w.report()) {
    // Not the device's name: the device profiles name it in Chinese too (display_name_zh), and a
    // Chinese session showed "Huawei Ascend 910B (910B3: 20 AI Cores…)" and "This machine's CPU
    // through ONNX Runtime" in the Overview, the heat legend and the charts.
    allow(r->device);
    for (const NodeReport& n : r->nodes) {  // a profile's kernels and operator types
      allow(n.name);
      allow(n.opType);
    }
    for (const Finding& f : r->findings) {
      allow(f.id);  // shown beside the title for reference
      for (const auto& n : f.nodes) allow(n);
    }
  }
  return allowed;
}

void TstHub::scan(const QSet<QString>& allowed, const QString& where, const QStringList& texts, QStringList& leaks) {
  for (const QString& t : texts)
    for (const QString& w : englishWords(t, allowed)) leaks << where + QStringLiteral(" / ") + t + QStringLiteral("  [") + w + u']';
}

void TstHub::scanWindow(MainWindow& w, const QString& when, QStringList& leaks) {
  const QSet<QString> allowed = allowedWords(w);
  if (w.document() && !w.report()->nodes.empty())
    w.graphWidget()->selectNodes({QString::fromStdString(w.report()->nodes.front().name)});
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    if (!d->isVisible() && !d->toggleViewAction()->isChecked()) continue;
    d->show();
    d->raise();
    if (auto* tabs = qobject_cast<QTabWidget*>(d->widget())) {
      for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents();
        scan(allowed, when + d->objectName(), shownTexts(tabs->currentWidget()), leaks);
      }
    }
    QApplication::processEvents();
    scan(allowed, when + d->objectName(), shownTexts(d), leaks);
  }
  // Outside the docks: the status bar ("分析完成：延迟 … (measured)") and the heat legend over
  // the graph (its subtitle names the device), which paints its texts.
  scan(allowed, when + QStringLiteral("status bar"), shownTexts(w.statusBar()), leaks);
  const HeatLegend* legend = w.graphWidget()->legend();
  if (w.document()) {
    QVERIFY(legend->showsHeatmap());
    scan(allowed, when + QStringLiteral("heat legend"), {legend->titleText(), legend->descriptionText()}, leaks);
  }
}

// Every action of every menu and submenu, with its tooltip and status tip.
void TstHub::scanMenus(MainWindow& w, QStringList& leaks) {
  const QSet<QString> allowed = allowedWords(w);
  std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& where) {
    QApplication::processEvents();
    for (QAction* a : menu->actions()) {
      if (a->isSeparator()) continue;
      QString text = a->text();
      text.remove(u'&');
      scan(allowed, where, {text, a->statusTip()}, leaks);
      if (a->menu()) walk(a->menu(), where + QStringLiteral(" ▸ ") + text);
    }
  };
  for (QAction* a : w.menuBar()->actions())
    if (a->menu()) walk(a->menu(), QStringLiteral("menu ") + a->text().remove(u'&'));
}

// The reports as a Chinese user saves them: the text report and Markdown, line by line.
void TstHub::scanReports(MainWindow& w, const QString& where, QStringList& leaks) {
  const QSet<QString> allowed = allowedWords(w);
  ReportOptions o;
  o.lang = Lang::Zh;
  for (const std::string& text : {reportToText(*w.report(), o), reportToMarkdown(*w.report(), o)})
    scan(allowed, where, QString::fromStdString(text).split(u'\n'), leaks);
}

QTEST_MAIN(TstHub)
#include "tst_hub.moc"
