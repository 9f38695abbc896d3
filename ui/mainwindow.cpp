#include "mainwindow.h"

#include <graphviz_version.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QTimer>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

#include "charts/charts_panel.h"
#include "edit/edit_controller.h"
#include "analysis/analysis_workspace.h"
#include "analysis/analyze_dialog.h"
#include "analysis/findings_panel.h"
#include "analysis/overview_panel.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/layout_cache.h"
#include "graph/node_properties.h"
#include "i18n/language.h"
#include "mainwindow_icons.h"

namespace msa::ui {
namespace {

constexpr int kMaxRecent = 10;
using LoadResult = std::shared_ptr<Result<ModelDocument>>;

bool isModelFile(const QString& path) { return path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive); }

[[maybe_unused]] QLabel* emptyPanel(const QString& text) {
  auto* l = new QLabel(text);
  l->setAlignment(Qt::AlignCenter);
  l->setWordWrap(true);
  l->setMargin(16);
  l->setStyleSheet(QStringLiteral("color: #6b7280;"));
  return l;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent, bool persistent) : QMainWindow(parent), m_persistent(persistent) {
  setWindowTitle(QStringLiteral("msadvisor"));
  setAcceptDrops(true);
  setDockOptions(AnimatedDocks | AllowTabbedDocks);
  m_cache = std::make_shared<LayoutCache>(persistent ? LayoutCache::defaultFolder() : QString());
  m_graph = new GraphWidget(this);
  m_graph->setLayoutCache(m_cache);
  setCentralWidget(m_graph);
  m_analysis = new AnalysisWorkspace(m_graph, this);
  if (persistent) m_analysisSettings = AnalysisSettings::load();
  createActions();
  createMenus();
  createToolBar();
  createDocks();
  createStatusBar();

  connect(m_graph, &GraphWidget::layoutStarted, this, [this](int items) {
    if (!m_loading) setBusy(tr("Laying out %1 boxes…").arg(items), true);
  });
  connect(m_graph, &GraphWidget::layoutFinished, this, [this](double seconds, bool cached) {
    m_layoutText->setText(cached ? tr("layout from cache") : tr("layout %1 s").arg(seconds, 0, 'f', 2));
    setIdle();
  });
  connect(m_graph, &GraphWidget::layoutFailed, this, [this](const QString& msg) {
    setIdle(tr("Layout failed"));
    if (m_interactive) QMessageBox::warning(this, tr("Layout failed"), msg);
  });
  connect(m_graph, &GraphWidget::layoutCancelled, this, [this] { setIdle(tr("Layout cancelled")); });
  connect(m_graph, &GraphWidget::contentReady, this, [this] {
    updateBlockActions();
    emit ready();
  });
  connect(m_graph, &GraphWidget::selectionChanged, m_properties, &NodeProperties::showNodes);
  connect(m_graph, &GraphWidget::selectionChanged, m_charts, &ChartsPanel::selectNodes);
  connect(m_charts, &ChartsPanel::nodeActivated, this, [this](const QString& n) { m_graph->selectNodes({n}), m_graph->frameNodes({n}); });
  connect(m_graph, &GraphWidget::selectionChanged, this, &MainWindow::updateBlockActions);
  connect(m_analysis, &AnalysisWorkspace::progressChanged, this, [this](const QString& phase, double f) {
    setBusy(phase, true);
    m_progress->setRange(0, 1000);
    m_progress->setValue(qRound(f * 1000));
  });
  connect(m_analysis, &AnalysisWorkspace::metricsReady, this, [this](const QList<NodeMetric>& metrics, bool show) {
    for (int i = 0; i < metrics.size(); ++i) addHeatmapMetric(metrics[i], show && i == 0);
  });
  connect(m_analysis, &AnalysisWorkspace::finished, this, [this] {
    const auto r = report();
    setIdle(tr("Analysis done: latency %1 (%2), %n finding(s)", nullptr, static_cast<int>(r->findings.size()))
                .arg(formatMetric(r->latencyMs, QStringLiteral("ms")), QString::fromStdString(r->latencySource)));
    // The first time the docks appear they get room for a screenful of findings; later the
    // user's arrangement stays.
    const bool firstShow = panel(Panel::Bottlenecks)->isHidden() && panel(Panel::Fusion)->isHidden();
    panel(Panel::Overview)->show();
    for (Panel p : {Panel::Bottlenecks, Panel::Fusion, Panel::Format, Panel::Kernel}) panel(p)->show();
    panel(Panel::Bottlenecks)->raise();
    if (firstShow) {  // once the docks are laid out
      QTimer::singleShot(0, this, [this] {
        resizeDocks({panel(Panel::Bottlenecks)}, {std::max(240, height() * 3 / 10)}, Qt::Vertical);
        if (!panel(Panel::Properties)->isHidden())
          resizeDocks({panel(Panel::Overview), panel(Panel::Properties)}, {360, std::max(200, height() - 360)}, Qt::Vertical);
      });
    }
    m_analyzeAct->setEnabled(m_doc != nullptr);
    emit analysisFinished();
  });
  connect(m_analysis, &AnalysisWorkspace::failed, this, [this](const QString& msg) {
    m_analyzeAct->setEnabled(m_doc != nullptr);
    setIdle(tr("Analysis failed: %1").arg(msg.section(QLatin1Char('\n'), 0, 0)));
    emit analysisFailed(msg);
    if (m_interactive) QMessageBox::warning(this, tr("Analysis failed"), msg);
  });
  connect(m_analysis, &AnalysisWorkspace::cancelled, this, [this] {
    m_analyzeAct->setEnabled(m_doc != nullptr);
    setIdle(tr("Analysis cancelled"));
  });
  connect(this, &MainWindow::analysisFinished, this, [this] {  // charts and properties follow the report
    m_charts->setReport(*report()), m_properties->setReport(report()), m_charts->parentWidget()->show();
  });
  connect(m_graph, &GraphWidget::zoomChanged, this, [this](double z) { m_zoomText->setText(QStringLiteral("%1 %").arg(qRound(z * 100))); });
  m_edit = new EditController(this);
  connect(m_edit, &EditController::verifyFinished, this, [this](const VerifyOutcome& o) {  // measured, optimizer disabled
    if (o.latency) m_charts->setVerified(o.latency->originalDisabled.median, o.latency->optimizedDisabled.median);
  });
  readSettings();
}

MainWindow::~MainWindow() {
  if (m_loadCancel) m_loadCancel->store(true);
}

void MainWindow::createActions() {
  m_openAct = new QAction(icons::open(), tr("&Open…"), this);
  m_openAct->setShortcut(QKeySequence::Open);
  m_openAct->setToolTip(tr("Open an ONNX model"));
  connect(m_openAct, &QAction::triggered, this, &MainWindow::openDialog);
  m_quitAct = new QAction(tr("&Quit"), this);
  m_quitAct->setShortcut(QKeySequence::Quit);
  connect(m_quitAct, &QAction::triggered, this, &QWidget::close);
  m_findAct = new QAction(icons::find(), tr("&Find…"), this);
  m_findAct->setShortcut(QKeySequence::Find);
  m_findAct->setToolTip(tr("Find a node by name or op type (Ctrl+F)"));
  connect(m_findAct, &QAction::triggered, m_graph, &GraphWidget::showFind);

  m_zoomInAct = new QAction(icons::zoomIn(), tr("Zoom &In"), this);
  m_zoomInAct->setShortcut(QKeySequence::ZoomIn);
  connect(m_zoomInAct, &QAction::triggered, m_graph, &GraphWidget::zoomIn);
  m_zoomOutAct = new QAction(icons::zoomOut(), tr("Zoom &Out"), this);
  m_zoomOutAct->setShortcut(QKeySequence::ZoomOut);
  connect(m_zoomOutAct, &QAction::triggered, m_graph, &GraphWidget::zoomOut);
  m_fitAct = new QAction(icons::fit(), tr("&Fit to Window"), this);
  m_fitAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(m_fitAct, &QAction::triggered, m_graph, &GraphWidget::fitToWindow);
  m_actualAct = new QAction(tr("&Actual Size"), this);
  m_actualAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
  connect(m_actualAct, &QAction::triggered, this, [this] { m_graph->view()->actualSize(); });

  m_shapesAct = new QAction(icons::shapes(), tr("Show &Shapes"), this);
  m_shapesAct->setCheckable(true);
  m_shapesAct->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  m_shapesAct->setToolTip(tr("Show tensor shapes on edges"));
  connect(m_shapesAct, &QAction::toggled, m_graph, &GraphWidget::setShowShapes);

  auto* scales = new QActionGroup(this);
  m_linearAct = new QAction(tr("&Linear Scale"), scales);
  m_logAct = new QAction(tr("Lo&g Scale"), scales);
  m_linearAct->setCheckable(true);
  m_logAct->setCheckable(true);
  m_linearAct->setChecked(true);
  connect(m_linearAct, &QAction::triggered, this, [this] { m_scaleCombo->setCurrentIndex(0); });
  connect(m_logAct, &QAction::triggered, this, [this] { m_scaleCombo->setCurrentIndex(1); });

  m_expandAct = new QAction(tr("&Expand Block"), this);
  m_expandAct->setToolTip(tr("Open the selected collapsed block (or double-click it)"));
  connect(m_expandAct, &QAction::triggered, this, [this] {
    const QStringList sel = m_graph->selectedNodes();
    if (sel.isEmpty() || !m_doc) return;
    m_graph->frameNodes({sel.front()});
  });
  m_collapseAct = new QAction(tr("&Collapse Block"), this);
  m_collapseAct->setToolTip(tr("Collapse the block around the selection (or double-click its title)"));
  connect(m_collapseAct, &QAction::triggered, this, [this] {
    const QStringList sel = m_graph->selectedNodes();
    if (sel.isEmpty() || !m_doc) return;
    const int n = m_doc->graph->nodeIndex(sel.front());
    if (n < 0) return;
    // The innermost block that is open around the first selected node.
    for (int b = m_doc->graph->nodes()[static_cast<size_t>(n)].block; b >= 0; b = m_doc->graph->blocks()[static_cast<size_t>(b)].parent) {
      if (!m_graph->collapseState()[static_cast<size_t>(b)]) {
        m_graph->setBlockCollapsed(b, true);
        return;
      }
    }
  });
  m_expandAllAct = new QAction(icons::expandAll(), tr("E&xpand All Blocks"), this);
  connect(m_expandAllAct, &QAction::triggered, this, [this] {
    if (!m_doc) return;
    const size_t n = m_doc->graph->nodes().size();
    if (n > 5000 && m_interactive &&
        QMessageBox::question(this, tr("Expand all blocks"),
                              tr("Drawing all %1 nodes at once takes Graphviz a while (you can cancel it). Continue?").arg(n)) !=
            QMessageBox::Yes)
      return;
    m_graph->expandAll();
  });
  m_collapseAllAct = new QAction(icons::collapseAll(), tr("Co&llapse All Blocks"), this);
  connect(m_collapseAllAct, &QAction::triggered, m_graph, &GraphWidget::collapseAll);
  m_defaultCollapseAct = new QAction(tr("&Default Blocks"), this);
  m_defaultCollapseAct->setToolTip(tr("Collapse as when the model was opened"));
  connect(m_defaultCollapseAct, &QAction::triggered, m_graph, &GraphWidget::resetCollapse);

  m_analyzeAct = new QAction(icons::analyze(), tr("&Run…"), this);
  m_analyzeAct->setIconText(tr("Analyze"));
  m_analyzeAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_analyzeAct->setToolTip(tr("Profile and analyse the model: latency, bottlenecks, what to fix (Ctrl+R)"));
  m_analyzeAct->setEnabled(false);
  connect(m_analyzeAct, &QAction::triggered, this, &MainWindow::showAnalyzeDialog);

  m_aboutAct = new QAction(tr("&About msadvisor"), this);
  connect(m_aboutAct, &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About msadvisor"),
                       tr("<h3>msadvisor %1</h3><p>Model optimization advisor for ONNX models on Ascend NPUs and "
                          "CPUs.</p><p>Qt %2 · Graphviz %3</p>")
                           .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                                QStringLiteral(PACKAGE_VERSION)));
  });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_openAct);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Import Profile…"), this, &MainWindow::importProfileDialog);
  file->addSeparator();
  file->addAction(m_quitAct);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(m_findAct);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(m_zoomInAct);
  view->addAction(m_zoomOutAct);
  view->addAction(m_fitAct);
  view->addAction(m_actualAct);
  view->addSeparator();
  view->addAction(m_shapesAct);
  m_heatMenu = view->addMenu(tr("&Heatmap"));
  QMenu* scale = view->addMenu(tr("Heatmap S&cale"));
  scale->addAction(m_linearAct);
  scale->addAction(m_logAct);
  view->addSeparator();
  view->addAction(m_expandAct);
  view->addAction(m_collapseAct);
  view->addAction(m_expandAllAct);
  view->addAction(m_collapseAllAct);
  view->addAction(m_defaultCollapseAct);
  view->addSeparator();
  m_panelsMenu = view->addMenu(tr("&Panels"));
  view->addMenu(createLanguageMenu(this));

  QMenu* analyze = menuBar()->addMenu(tr("&Analyze"));
  analyze->addAction(m_analyzeAct);
  analyze->addAction(tr("&Settings…"), this, &MainWindow::showAnalysisSettings);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(m_aboutAct);
}

void MainWindow::createToolBar() {
  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->setMovable(false);
  tb->setIconSize(QSize(20, 20));
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addAction(m_openAct);
  tb->addAction(m_analyzeAct);
  tb->addSeparator();
  for (QAction* a : {m_zoomInAct, m_zoomOutAct, m_fitAct, m_findAct}) {
    tb->addAction(a);
    if (auto* b = qobject_cast<QToolButton*>(tb->widgetForAction(a))) b->setToolButtonStyle(Qt::ToolButtonIconOnly);
  }
  tb->addSeparator();
  tb->addAction(m_shapesAct);
  tb->addAction(m_collapseAllAct);
  tb->addAction(m_expandAllAct);
  if (auto* b = qobject_cast<QToolButton*>(tb->widgetForAction(m_collapseAllAct))) b->setToolButtonStyle(Qt::ToolButtonIconOnly);
  if (auto* b = qobject_cast<QToolButton*>(tb->widgetForAction(m_expandAllAct))) b->setToolButtonStyle(Qt::ToolButtonIconOnly);
  tb->addSeparator();
  auto* heatLabel = new QLabel(tr(" Heatmap: "), tb);
  tb->addWidget(heatLabel);
  m_heatCombo = new QComboBox(tb);
  m_heatCombo->setMinimumContentsLength(14);
  m_heatCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_heatCombo->setToolTip(tr("Colour nodes by a metric"));
  tb->addWidget(m_heatCombo);
  m_scaleCombo = new QComboBox(tb);
  m_scaleCombo->addItems({tr("linear"), tr("log")});
  m_scaleCombo->setToolTip(tr("Heatmap scale"));
  tb->addWidget(m_scaleCombo);
  connect(m_heatCombo, qOverload<int>(&QComboBox::currentIndexChanged), this, &MainWindow::applyHeatmapChoice);
  connect(m_scaleCombo, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    (i == 1 ? m_logAct : m_linearAct)->setChecked(true);
    m_graph->setHeatScale(i == 1 ? HeatScale::Log : HeatScale::Linear);
  });
  rebuildHeatmapChoices();
}

void MainWindow::createDocks() {
  struct Spec {
    Panel panel;
    QString title, objectName;
    QWidget* widget;
    Qt::DockWidgetArea area;
  };
  m_properties = new NodeProperties(this);
  const Spec specs[] = {
      {Panel::Properties, tr("Properties"), QStringLiteral("propertiesDock"), m_properties, Qt::RightDockWidgetArea},
      {Panel::Overview, tr("Overview"), QStringLiteral("overviewDock"), m_analysis->overview(), Qt::RightDockWidgetArea},
      {Panel::Bottlenecks, tr("Bottlenecks"), QStringLiteral("bottlenecksDock"),
       m_analysis->table(AnalysisWorkspace::Table::Bottlenecks), Qt::BottomDockWidgetArea},
      {Panel::Fusion, tr("Fusion"), QStringLiteral("fusionDock"), m_analysis->table(AnalysisWorkspace::Table::Fusion),
       Qt::BottomDockWidgetArea},
      {Panel::Format, tr("Format Conversions"), QStringLiteral("formatDock"),
       m_analysis->table(AnalysisWorkspace::Table::Format), Qt::BottomDockWidgetArea},
      {Panel::Kernel, tr("Kernel && Alignment"), QStringLiteral("kernelDock"),
       m_analysis->table(AnalysisWorkspace::Table::Kernel), Qt::BottomDockWidgetArea},
  };
  for (const Spec& s : specs) {
    auto* dock = new QDockWidget(s.title, this);
    dock->setObjectName(s.objectName);
    dock->setWidget(s.widget);
    addDockWidget(s.area, dock);
    m_panels[static_cast<int>(s.panel)] = dock;
    m_panelsMenu->addAction(dock->toggleViewAction());
  }
  // Until the analysis lands only Properties has something to show.
  panel(Panel::Overview)->hide();
  tabifyDockWidget(panel(Panel::Bottlenecks), panel(Panel::Fusion));
  tabifyDockWidget(panel(Panel::Fusion), panel(Panel::Format));
  tabifyDockWidget(panel(Panel::Format), panel(Panel::Kernel));
  splitDockWidget(panel(Panel::Overview), panel(Panel::Properties), Qt::Vertical);
  for (Panel p : {Panel::Bottlenecks, Panel::Fusion, Panel::Format, Panel::Kernel}) panel(p)->hide();
  m_charts = ChartsPanel::createDock(this, m_panelsMenu);  // hidden until a report arrives
  tabifyDockWidget(panel(Panel::Kernel), qobject_cast<QDockWidget*>(m_charts->parentWidget()));
  resizeDocks({panel(Panel::Properties)}, {360}, Qt::Horizontal);
}

QDockWidget* MainWindow::panel(Panel p) const { return m_panels[static_cast<int>(p)]; }

void MainWindow::createStatusBar() {
  m_statusText = new QLabel(tr("Ready"), this);
  m_layoutText = new QLabel(this);
  m_layoutText->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_zoomText = new QLabel(QStringLiteral("100 %"), this);
  m_zoomText->setMinimumWidth(48);
  m_zoomText->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 0);
  m_progress->setMaximumWidth(140);
  m_progress->setMaximumHeight(14);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_cancel = new QToolButton(this);
  m_cancel->setText(tr("Cancel"));
  m_cancel->setAutoRaise(true);
  m_cancel->hide();
  connect(m_cancel, &QToolButton::clicked, this, &MainWindow::cancelWork);
  statusBar()->addWidget(m_statusText, 1);
  statusBar()->addPermanentWidget(m_layoutText);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_cancel);
  statusBar()->addPermanentWidget(m_zoomText);
}

void MainWindow::setBusy(const QString& what, bool cancellable) {
  m_statusText->setText(what);
  m_progress->setRange(0, 0);
  m_progress->show();
  m_cancel->setVisible(cancellable);
}

void MainWindow::setIdle(const QString& message) {
  m_progress->hide();
  m_cancel->hide();
  if (!message.isEmpty()) {
    m_statusText->setText(message);
    return;
  }
  if (!m_doc) {
    m_statusText->setText(tr("Ready"));
    return;
  }
  const ViewGraph& g = *m_doc->graph;
  const Model& m = *m_doc->model;
  const int drawn = m_graph->scene()->visibleGraph() ? static_cast<int>(m_graph->scene()->visibleGraph()->items.size()) : 0;
  m_statusText->setText(tr("%1  ·  %2 nodes  ·  %3 boxes drawn  ·  %4 parameters  ·  opset %5")
                            .arg(QFileInfo(m_doc->path).fileName())
                            .arg(m.graph.nodes.size())
                            .arg(drawn)
                            .arg(formatMetric(static_cast<double>(m_doc->parameters), QString()))
                            .arg(m.opset()));
  Q_UNUSED(g);
}

bool MainWindow::busy() const { return m_loading || m_graph->layoutRunning() || m_analysis->running(); }

void MainWindow::cancelWork() {
  if (m_analysis->running()) {
    m_analysis->cancel();
    return;
  }
  if (m_loading) {
    if (m_loadCancel) m_loadCancel->store(true);
    ++m_loadGeneration;  // the late result is dropped
    m_loading = false;
    setIdle(tr("Loading cancelled"));
    return;
  }
  m_graph->cancelLayout();
}

void MainWindow::openDialog() {
  const QString dir = m_doc ? QFileInfo(m_doc->path).absolutePath() : QString();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), dir, tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openFile(const QString& path) {
  if (!m_edit->confirmDiscard()) return;  // unsaved fixes: the user chose to stay
  const QString abs = QFileInfo(path).absoluteFilePath();
  const quint64 gen = ++m_loadGeneration;
  if (m_loadCancel) m_loadCancel->store(true);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  m_loadCancel = cancel;
  m_loading = true;
  setBusy(tr("Loading %1…").arg(QFileInfo(abs).fileName()), true);
  auto* watcher = new QFutureWatcher<LoadResult>(this);
  connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, gen, abs] {
    watcher->deleteLater();
    if (gen != m_loadGeneration) return;  // superseded or cancelled
    m_loading = false;
    const LoadResult r = watcher->result();
    if (!r->ok()) {
      if (r->error().kind == ErrorKind::Cancelled) {
        setIdle(tr("Loading cancelled"));
        return;
      }
      QString msg = QString::fromStdString(r->error().describe());
      if (!msg.contains(abs) && !msg.contains(QFileInfo(abs).fileName())) msg = abs + QStringLiteral(": ") + msg;
      setIdle(tr("Could not open %1").arg(QFileInfo(abs).fileName()));
      emit loadFailed(abs, msg);
      if (m_interactive) QMessageBox::critical(this, tr("Cannot open model"), msg);
      return;
    }
    setDocument(std::make_shared<const ModelDocument>(std::move(r->value())));
  });
  watcher->setFuture(QtConcurrent::run([abs, cancel]() -> LoadResult {
    return std::make_shared<Result<ModelDocument>>(loadDocument(abs, cancel.get()));
  }));
}

void MainWindow::showDocument(std::shared_ptr<const ModelDocument> doc, bool edited) {
  ++m_loadGeneration;  // a load still running is superseded
  m_loading = false;
  setDocument(std::move(doc), edited);
}

void MainWindow::setDocument(std::shared_ptr<const ModelDocument> doc, bool edited) {
  const QString heatmap = edited && m_heatCombo->currentIndex() >= 0 ? m_heatCombo->currentText() : QString();
  m_doc = std::move(doc);
  m_metrics = m_doc->metrics;
  m_properties->setDocument(m_doc);
  m_properties->setMetrics(m_metrics);
  m_graph->clearMetric();
  if (edited) m_graph->updateGraph(m_doc->graph);
  else m_graph->setGraph(m_doc->graph);
  rebuildHeatmapChoices();
  // The cost model's estimate is the default heatmap; a choice made before loading wins.
  if (!edited) {
    if (m_heatmapChosen) selectHeatmap(m_pendingHeatmap);
    else if (!m_metrics.isEmpty()) m_heatCombo->setCurrentIndex(1);
  }
  setWindowTitle(QFileInfo(m_doc->path).fileName() + QStringLiteral(" — msadvisor"));
  if (QFileInfo::exists(m_doc->path)) addRecent(m_doc->path);
  if (m_analysis->running()) m_analysis->cancel();  // it measured the previous document
  m_analyzeAct->setEnabled(true);
  m_analysis->documentChanged(m_doc);
  m_properties->setReport(report());  // the analysis stays for a rewritten model, else it is gone
  if (!report()) m_charts->clear();
  // An edit keeps the heatmap the user looked at (the analysis metrics are back by now).
  if (edited && m_heatCombo->findText(heatmap) >= 0) {
    QSignalBlocker block(m_heatCombo);
    m_heatCombo->setCurrentIndex(m_heatCombo->findText(heatmap));
    applyHeatmapChoice(m_heatCombo->currentIndex());  // the metric's values are the new document's
  }
  emit documentLoaded(m_doc->path);
}

void MainWindow::rebuildHeatmapChoices() {
  const QString current = m_heatCombo->currentIndex() > 0 ? m_heatCombo->currentText() : QString();
  QSignalBlocker block(m_heatCombo);
  m_heatCombo->clear();
  m_heatCombo->addItem(tr("None (op category)"));
  for (const NodeMetric& m : m_metrics) m_heatCombo->addItem(metricTitle(m.name));
  m_heatMenu->clear();
  delete m_heatGroup;
  m_heatGroup = new QActionGroup(this);
  for (int i = 0; i < m_heatCombo->count(); ++i) {
    QAction* a = m_heatMenu->addAction(m_heatCombo->itemText(i));
    a->setCheckable(true);
    m_heatGroup->addAction(a);
    connect(a, &QAction::triggered, this, [this, i] { m_heatCombo->setCurrentIndex(i); });
  }
  const int keep = std::max(0, m_heatCombo->findText(current));
  m_heatCombo->setCurrentIndex(keep);
  if (!m_heatGroup->actions().isEmpty()) m_heatGroup->actions().at(keep)->setChecked(true);
}

void MainWindow::applyHeatmapChoice(int index) {
  if (m_heatGroup && index >= 0 && index < m_heatGroup->actions().size()) m_heatGroup->actions().at(index)->setChecked(true);
  if (index <= 0 || index > m_metrics.size()) m_graph->clearMetric();
  else m_graph->setMetric(m_metrics[index - 1]);
}

bool MainWindow::selectHeatmap(const QString& name) {
  if (!m_doc) {  // applied when the document arrives
    m_pendingHeatmap = name;
    m_heatmapChosen = true;
    return true;
  }
  if (name.isEmpty() || name.compare(QStringLiteral("none"), Qt::CaseInsensitive) == 0) {
    m_heatCombo->setCurrentIndex(0);
    return true;
  }
  for (int i = 0; i < m_metrics.size(); ++i) {
    if (m_metrics[i].name.compare(name, Qt::CaseInsensitive) == 0) {
      m_heatCombo->setCurrentIndex(i + 1);
      return true;
    }
  }
  return false;
}

void MainWindow::addHeatmapMetric(const NodeMetric& metric, bool show) {
  auto it = std::find_if(m_metrics.begin(), m_metrics.end(), [&](const NodeMetric& m) { return m.name == metric.name; });
  if (it != m_metrics.end()) *it = metric;
  else m_metrics.push_back(metric);
  m_properties->setMetrics(m_metrics);
  rebuildHeatmapChoices();
  if (show) selectHeatmap(metric.name);
  else applyHeatmapChoice(m_heatCombo->currentIndex());
}

void MainWindow::setShowShapes(bool show) { m_shapesAct->setChecked(show); }

std::shared_ptr<const Report> MainWindow::report() const { return m_analysis->report(); }
bool MainWindow::selectFinding(const QString& idOrRank) {
  if (!m_analysis->selectFinding(idOrRank)) return false;
  // Show it in the TOP list when it is there, else in its category's table.
  const QString id = m_analysis->selectedFinding();
  const std::pair<Panel, AnalysisWorkspace::Table> docks[] = {
      {Panel::Bottlenecks, AnalysisWorkspace::Table::Bottlenecks}, {Panel::Fusion, AnalysisWorkspace::Table::Fusion},
      {Panel::Format, AnalysisWorkspace::Table::Format}, {Panel::Kernel, AnalysisWorkspace::Table::Kernel}};
  for (const auto& [p, t] : docks)
    if (m_analysis->table(t)->model()->rowOfFinding(id) >= 0) {
      panel(p)->show();
      panel(p)->raise();
      break;
    }
  return true;
}
QString MainWindow::selectedFinding() const { return m_analysis->selectedFinding(); }

void MainWindow::runAnalysis(const AnalysisSettings& settings) {
  if (!m_doc) {
    emit analysisFailed(tr("Open a model first."));
    return;
  }
  if (m_analysis->running()) {
    emit analysisFailed(tr("An analysis is already running."));
    return;
  }
  m_analysisSettings = settings;
  m_analysisSettings.importedProfile.clear();  // the next Run measures again
  if (m_persistent) settings.save();
  if (!m_analysis->run(m_doc, settings)) {
    emit analysisFailed(tr("The analysis could not start."));
    return;
  }
  m_analyzeAct->setEnabled(false);  // until it ends, one way or another
}

void MainWindow::importProfileDialog() {
  if (!m_doc) {
    if (m_interactive) QMessageBox::information(this, tr("Import Profile"), tr("Open the model the profile was taken on first."));
    return;
  }
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Import Profile"), QFileInfo(m_doc->path).absolutePath(),
      tr("Profiles (*.json *.csv);;All files (*)"));
  if (path.isEmpty()) return;
  AnalysisSettings s = m_analysisSettings;
  s.importedProfile = path;
  runAnalysis(s);
}

std::optional<AnalysisSettings> MainWindow::askAnalysisSettings(bool settingsOnly) {
  QStringList dims;
  if (m_doc)
    for (const std::string& d : m_doc->shapes.unboundDims) dims << QString::fromStdString(d);
  AnalyzeDialog dialog(m_analysisSettings, dims, this);
  if (settingsOnly) dialog.setSettingsOnly();
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return dialog.settings();
}

void MainWindow::showAnalysisSettings() {
  auto s = askAnalysisSettings(true);
  if (!s) return;
  m_analysisSettings = *s;
  if (m_persistent) m_analysisSettings.save();
}

void MainWindow::showAnalyzeDialog() {
  if (!m_doc) return;
  if (auto s = askAnalysisSettings(false)) runAnalysis(*s);
}

void MainWindow::updateBlockActions() {
  const bool has = m_doc != nullptr;
  bool inCollapsed = false, inExpanded = false;
  if (has) {
    const QStringList sel = m_graph->selectedNodes();
    if (!sel.isEmpty()) {
      const int n = m_doc->graph->nodeIndex(sel.front());
      for (int b = n >= 0 ? m_doc->graph->nodes()[static_cast<size_t>(n)].block : -1; b >= 0;
           b = m_doc->graph->blocks()[static_cast<size_t>(b)].parent) {
        if (m_graph->collapseState()[static_cast<size_t>(b)]) inCollapsed = true;
        else inExpanded = true;
      }
    }
  }
  m_expandAct->setEnabled(inCollapsed);
  m_collapseAct->setEnabled(inExpanded);
  const bool blocks = has && !m_doc->graph->blocks().empty();
  m_expandAllAct->setEnabled(blocks);
  m_collapseAllAct->setEnabled(blocks);
  m_defaultCollapseAct->setEnabled(blocks);
}

void MainWindow::addRecent(const QString& path) {
  if (!m_persistent) return;
  QSettings s;
  QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  s.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent) {
    QAction* a = m_recentMenu->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    a->setStatusTip(path);
    connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
  }
  if (!recent.isEmpty()) {
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear List"), this, [this] {
      QSettings().remove(QStringLiteral("recentFiles"));
      rebuildRecentMenu();
    });
  }
  m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::readSettings() {
  if (!m_persistent) return;
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  m_shapesAct->setChecked(s.value(QStringLiteral("view/showShapes"), false).toBool());
  m_scaleCombo->setCurrentIndex(s.value(QStringLiteral("view/logScale"), false).toBool() ? 1 : 0);
  rebuildRecentMenu();
}

void MainWindow::writeSettings() {
  if (!m_persistent) return;
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("view/showShapes"), m_shapesAct->isChecked());
  s.setValue(QStringLiteral("view/logScale"), m_scaleCombo->currentIndex() == 1);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!m_edit->confirmDiscard()) {  // unsaved fixes: Cancel keeps the window
    e->ignore();
    return;
  }
  writeSettings();
  m_analysis->cancel();
  if (m_loadCancel) m_loadCancel->store(true);
  m_graph->cancelLayout();
  e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  for (const QUrl& url : e->mimeData()->urls()) {
    if (url.isLocalFile() && isModelFile(url.toLocalFile())) {
      e->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& url : e->mimeData()->urls()) {
    if (url.isLocalFile() && isModelFile(url.toLocalFile())) {
      openFile(url.toLocalFile());
      e->acceptProposedAction();
      return;
    }
  }
}

}  // namespace msa::ui
