#include "mainwindow.h"

#include <graphviz_version.h>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include "file_dialog.h"
#include "profile/profile_import.h"
#include "analysis/analysis_workspace.h"
#include "analysis/analyze_dialog.h"
#include "analysis/compare_panel.h"
#include "analysis/whatif_panel.h"
#include "analysis/findings_panel.h"
#include "charts/charts_panel.h"
#include "docks.h"
#include "document_loader.h"
#include "edit/edit_controller.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/layout_cache.h"
#include "graph/node_properties.h"
#include "heatmap_chooser.h"
#include "i18n/language.h"
#include "mainwindow_icons.h"
#include "profile_file_dialog.h"
#include "task_status.h"

namespace msa::ui {
namespace {

constexpr int kMaxRecent = 10;

bool isModelFile(const QString& path) { return path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive); }

const QString& panelId(MainWindow::Panel p) {
  static const QString ids[] = {QStringLiteral("propertiesDock"),  QStringLiteral("overviewDock"), QStringLiteral("bottlenecksDock"),
                                QStringLiteral("fusionDock"),      QStringLiteral("formatDock"),   QStringLiteral("kernelDock")};
  return ids[static_cast<int>(p)];
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
  m_loader = new DocumentLoader(this);
  m_heat = new HeatmapChooser(m_graph, this);
  m_status = new TaskStatus(statusBar());
  if (persistent) m_analysisSettings = AnalysisSettings::load();
  createActions();
  createMenus();
  createToolBar();
  createDocks();
  m_layoutText = new QLabel(this);
  m_layoutText->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_zoomText = new QLabel(QStringLiteral("100%"), this);
  m_zoomText->setMinimumWidth(48);
  m_zoomText->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  statusBar()->insertPermanentWidget(0, m_layoutText);
  statusBar()->addPermanentWidget(m_zoomText);

  // Loading.
  connect(m_loader, &DocumentLoader::loaded, this, [this](std::shared_ptr<const ModelDocument> doc) { showDocument(std::move(doc)); });
  connect(m_loader, &DocumentLoader::failed, this, [this](const QString& path, const QString& msg) {
    setIdle(tr("Could not open %1").arg(QFileInfo(path).fileName()));
    emit loadFailed(path, msg);
    if (m_interactive) QMessageBox::critical(this, tr("Cannot open model"), msg);
  });
  connect(m_loader, &DocumentLoader::cancelled, this, [this] { setIdle(tr("Loading cancelled")); });

  // Layout.
  connect(m_graph, &GraphWidget::layoutStarted, this, [this](int items) {
    if (!m_loader->loading() && !m_analysis->running()) m_status->begin(tr("Laying out %1 boxes…").arg(items), [this] { m_graph->cancelLayout(); });
  });
  connect(m_graph, &GraphWidget::layoutFinished, this, [this](double seconds, bool cached, bool patched) {
    m_layoutTexts = [this, seconds, cached, patched] {
      m_layoutText->setText(cached    ? tr("layout from cache")
                            : patched ? tr("layout adjusted to the edit")
                                      : tr("layout %1").arg(durationText(seconds * 1000)));
    };
    m_layoutTexts();
    if (!m_analysis->running()) setIdle();
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
  connect(m_graph, &GraphWidget::selectionChanged, this, &MainWindow::updateBlockActions);
  connect(m_graph, &GraphWidget::zoomChanged, this, [this](double z) { m_zoomText->setText(QStringLiteral("%1%").arg(qRound(z * 100))); });

  // The hub: the document and its analysis.
  connect(m_analysis, &AnalysisWorkspace::documentChanged, this, &MainWindow::onDocumentChanged);
  connect(m_heat, &HeatmapChooser::metricsChanged, properties(), &NodeProperties::setMetrics);
  connect(m_analysis, &AnalysisWorkspace::progressChanged, this, [this](const QString& phase, double f) {
    if (!m_status->busy()) m_status->begin(phase, [this] { m_analysis->cancel(); });
    m_status->setProgress(phase, f);
  });
  connect(m_analysis, &AnalysisWorkspace::metricsReady, this, [this](const QList<NodeMetric>& metrics, bool show) {
    m_heat->setAnalysisMetrics(metrics, show);
  });
  // Queued: the docks appear in an event of their own, after the one that filled the graph and
  // the tables with a large model's analysis (each within the event loop's budget).
  connect(m_analysis, &AnalysisWorkspace::finished, this, &MainWindow::onAnalysisFinished, Qt::QueuedConnection);
  connect(m_analysis, &AnalysisWorkspace::failed, this, [this](const QString& msg) {
    m_analyzeAct->setEnabled(document() != nullptr);
    setIdle(tr("Analysis failed: %1").arg(msg.section(QLatin1Char('\n'), 0, 0)));
    emit analysisFailed(msg);
    if (m_interactive) QMessageBox::warning(this, tr("Analysis failed"), msg);
  });
  connect(m_analysis, &AnalysisWorkspace::cancelled, this, [this] {
    m_analyzeAct->setEnabled(document() != nullptr);
    setIdle(tr("Analysis cancelled"));
  });

  EditPlacement where{m_fileMenu, m_quitAct, m_editMenu, m_findAct, m_analyzeMenu, m_toolBar};
  m_edit = new EditController({m_analysis, m_graph, m_status, this}, where, this);
  m_edit->setInteractive(m_interactive);
  connect(m_edit, &EditController::modifiedChanged, this, &QWidget::setWindowModified);
  connect(m_edit, &EditController::verifyFinished, this, [this](const VerifyOutcome& o) {  // measured as deployed
    if (o.latency && charts()) charts()->setVerified(o.latency->originalAll.median, o.latency->optimizedAll.median);
  });
  connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, this, &MainWindow::retranslate);
  retranslate();
  readSettings();
  setIdle();
  if (persistent) {
    m_saveGeometry = new QTimer(this);
    m_saveGeometry->setSingleShot(true);
    m_saveGeometry->setInterval(800);
    // Settings are written as they change (a crash keeps them), not only at close.
    connect(m_saveGeometry, &QTimer::timeout, this, &MainWindow::writeSettings);
    connect(m_shapesAct, &QAction::toggled, m_saveGeometry, qOverload<>(&QTimer::start));
  }
}

MainWindow::~MainWindow() { m_loader->drop(); }

QAction* MainWindow::action(const std::function<void(QAction*)>& texts, const QIcon& icon) {
  auto* a = new QAction(icon, QString(), this);
  m_texts.emplace_back(a, texts);
  return a;
}

void MainWindow::createActions() {
  m_openAct = action([](QAction* a) {
    a->setText(tr("&Open…"));
    a->setToolTip(tr("Open an ONNX model"));
  }, icons::open());
  m_openAct->setShortcut(QKeySequence::Open);
  connect(m_openAct, &QAction::triggered, this, &MainWindow::openDialog);
  m_openProfileAct = action([](QAction* a) {
    a->setText(tr("Open &Profile…"));
    a->setToolTip(tr("Analyse a profile from a device (msprof, torch_npu, ONNX Runtime, TensorRT…) without its model"));
  });
  connect(m_openProfileAct, &QAction::triggered, this, &MainWindow::openProfileDialog);
  m_importProfileAct = action([](QAction* a) {
    a->setText(tr("&Import Profile…"));
    a->setToolTip(tr("Analyse the open model with a profile taken elsewhere, instead of measuring here"));
  });
  connect(m_importProfileAct, &QAction::triggered, this, &MainWindow::importProfileDialog);
  m_compareAct = action([](QAction* a) {
    a->setText(tr("&Compare With…"));
    a->setToolTip(tr("Put a second model, or a saved analysis or profile, beside this one: per-node changes on the graph"));
  });
  connect(m_compareAct, &QAction::triggered, this, &MainWindow::compareDialog);
  m_quitAct = action([](QAction* a) { a->setText(tr("&Quit")); });
  m_quitAct->setShortcut(QKeySequence::Quit);
  connect(m_quitAct, &QAction::triggered, this, &QWidget::close);
  m_findAct = action([](QAction* a) {
    a->setText(tr("&Find…"));
    a->setToolTip(tr("Find a node by name or op type (Ctrl+F)"));
  }, icons::find());
  m_findAct->setShortcut(QKeySequence::Find);
  connect(m_findAct, &QAction::triggered, m_graph, &GraphWidget::showFind);

  m_zoomInAct = action([](QAction* a) { a->setText(tr("Zoom &In")); }, icons::zoomIn());
  m_zoomInAct->setShortcut(QKeySequence::ZoomIn);
  connect(m_zoomInAct, &QAction::triggered, m_graph, &GraphWidget::zoomIn);
  m_zoomOutAct = action([](QAction* a) { a->setText(tr("Zoom &Out")); }, icons::zoomOut());
  m_zoomOutAct->setShortcut(QKeySequence::ZoomOut);
  connect(m_zoomOutAct, &QAction::triggered, m_graph, &GraphWidget::zoomOut);
  m_fitAct = action([](QAction* a) { a->setText(tr("&Fit to Window")); }, icons::fit());
  m_fitAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(m_fitAct, &QAction::triggered, m_graph, &GraphWidget::fitToWindow);
  m_actualAct = action([](QAction* a) { a->setText(tr("&Actual Size")); });
  m_actualAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
  connect(m_actualAct, &QAction::triggered, this, [this] { m_graph->view()->actualSize(); });

  m_shapesAct = action([](QAction* a) {
    a->setText(tr("Show &Shapes"));
    a->setToolTip(tr("Show tensor shapes on edges"));
  }, icons::shapes());
  m_shapesAct->setCheckable(true);
  m_shapesAct->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  connect(m_shapesAct, &QAction::toggled, m_graph, &GraphWidget::setShowShapes);

  m_expandAct = action([](QAction* a) {
    a->setText(tr("&Expand Block"));
    a->setToolTip(tr("Open the selected collapsed block (or double-click it)"));
  });
  connect(m_expandAct, &QAction::triggered, this, [this] {
    const QStringList sel = m_graph->selectedNodes();
    if (sel.isEmpty() || !document()) return;
    m_graph->frameNodes({sel.front()});
  });
  m_collapseAct = action([](QAction* a) {
    a->setText(tr("&Collapse Block"));
    a->setToolTip(tr("Collapse the block around the selection (or double-click its title)"));
  });
  connect(m_collapseAct, &QAction::triggered, this, [this] {
    const QStringList sel = m_graph->selectedNodes();
    const auto doc = document();
    if (sel.isEmpty() || !doc) return;
    const int n = doc->graph->nodeIndex(sel.front());
    if (n < 0) return;
    // The innermost block that is open around the first selected node.
    for (int b = doc->graph->nodes()[static_cast<size_t>(n)].block; b >= 0; b = doc->graph->blocks()[static_cast<size_t>(b)].parent) {
      if (!m_graph->collapseState()[static_cast<size_t>(b)]) {
        m_graph->setBlockCollapsed(b, true);
        return;
      }
    }
  });
  m_expandAllAct = action([](QAction* a) { a->setText(tr("E&xpand All Blocks")); }, icons::expandAll());
  connect(m_expandAllAct, &QAction::triggered, this, [this] {
    const auto doc = document();
    if (!doc) return;
    const size_t n = doc->graph->nodes().size();
    if (n > 5000 && m_interactive &&
        QMessageBox::question(this, tr("Expand all blocks"),
                              tr("Drawing all %1 nodes at once takes Graphviz a while (you can cancel it). Continue?").arg(n)) !=
            QMessageBox::Yes)
      return;
    m_graph->expandAll();
  });
  m_collapseAllAct = action([](QAction* a) { a->setText(tr("Co&llapse All Blocks")); }, icons::collapseAll());
  connect(m_collapseAllAct, &QAction::triggered, m_graph, &GraphWidget::collapseAll);
  m_defaultCollapseAct = action([](QAction* a) {
    a->setText(tr("&Default Blocks"));
    a->setToolTip(tr("Collapse as when the model was opened"));
  });
  connect(m_defaultCollapseAct, &QAction::triggered, m_graph, &GraphWidget::resetCollapse);

  m_analyzeAct = action([](QAction* a) {
    a->setText(tr("&Run…"));
    a->setIconText(tr("Analyze"));
    a->setToolTip(tr("Profile and analyse the model: latency, bottlenecks, what to fix (Ctrl+R)"));
  }, icons::analyze());
  m_analyzeAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_analyzeAct->setEnabled(false);
  connect(m_analyzeAct, &QAction::triggered, this, &MainWindow::showAnalyzeDialog);
  m_whatIfAct = action([](QAction* a) {
    a->setText(tr("&What If…"));
    a->setToolTip(tr("Build int8, session-setting and bf16 variants, check their accuracy and measure them beside the original"));
  });
  m_whatIfAct->setEnabled(false);
  connect(m_whatIfAct, &QAction::triggered, this, &MainWindow::whatIf);
  connect(m_analysis, &AnalysisWorkspace::documentChanged, this,
          [this](std::shared_ptr<const ModelDocument> d, bool) { m_whatIfAct->setEnabled(d && d->model); });
  m_settingsAct = action([](QAction* a) { a->setText(tr("&Settings…")); });
  connect(m_settingsAct, &QAction::triggered, this, &MainWindow::showAnalysisSettings);

  m_aboutAct = action([](QAction* a) { a->setText(tr("&About msadvisor")); });
  connect(m_aboutAct, &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About msadvisor"),
                       tr("<h3>msadvisor %1</h3><p>Model optimization advisor for ONNX models on Ascend NPUs and "
                          "CPUs.</p><p>Qt %2 · Graphviz %3</p>")
                           .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                                QStringLiteral(PACKAGE_VERSION)));
  });
}

void MainWindow::createMenus() {
  m_fileMenu = menuBar()->addMenu(QString());
  m_fileMenu->addAction(m_openAct);
  m_recentMenu = m_fileMenu->addMenu(QString());
  m_fileMenu->addAction(m_openProfileAct);
  m_fileMenu->addAction(m_importProfileAct);
  m_fileMenu->addAction(m_compareAct);
  m_fileMenu->addSeparator();
  m_fileMenu->addAction(m_quitAct);

  m_editMenu = menuBar()->addMenu(QString());
  m_editMenu->addAction(m_findAct);

  m_viewMenu = menuBar()->addMenu(QString());
  m_viewMenu->addAction(m_zoomInAct);
  m_viewMenu->addAction(m_zoomOutAct);
  m_viewMenu->addAction(m_fitAct);
  m_viewMenu->addAction(m_actualAct);
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(m_shapesAct);
  m_viewMenu->addMenu(m_heat->menu());
  m_viewMenu->addMenu(m_heat->scaleMenu());
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(m_expandAct);
  m_viewMenu->addAction(m_collapseAct);
  m_viewMenu->addAction(m_expandAllAct);
  m_viewMenu->addAction(m_collapseAllAct);
  m_viewMenu->addAction(m_defaultCollapseAct);
  m_viewMenu->addSeparator();
  m_panelsMenu = m_viewMenu->addMenu(QString());
  m_viewMenu->addMenu(createLanguageMenu(this));

  m_analyzeMenu = menuBar()->addMenu(QString());
  m_analyzeMenu->addAction(m_analyzeAct);
  m_analyzeMenu->addAction(m_whatIfAct);
  m_analyzeMenu->addAction(m_settingsAct);

  m_helpMenu = menuBar()->addMenu(QString());
  m_helpMenu->addAction(m_aboutAct);
}

void MainWindow::createToolBar() {
  m_toolBar = addToolBar(QString());
  m_toolBar->setObjectName(QStringLiteral("mainToolBar"));
  m_toolBar->setMovable(false);
  m_toolBar->setIconSize(QSize(20, 20));
  m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_toolBar->addAction(m_openAct);
  m_toolBar->addAction(m_analyzeAct);
  m_toolBar->addSeparator();
  for (QAction* a : {m_zoomInAct, m_zoomOutAct, m_fitAct, m_findAct, m_shapesAct, m_collapseAllAct, m_expandAllAct}) {
    if (a == m_shapesAct) m_toolBar->addSeparator();
    m_toolBar->addAction(a);
    if (auto* b = qobject_cast<QToolButton*>(m_toolBar->widgetForAction(a)); b && a != m_shapesAct)
      b->setToolButtonStyle(Qt::ToolButtonIconOnly);
  }
  m_toolBar->addSeparator();
  m_heatLabel = new QLabel(m_toolBar);
  m_toolBar->addWidget(m_heatLabel);
  m_toolBar->addWidget(m_heat->metricBox());
  m_toolBar->addWidget(m_heat->scaleBox());
}

void MainWindow::createDocks() {
  const DockContext context{m_analysis, m_graph, m_heat};
  QDockWidget* groupHead = nullptr;
  QString group;
  m_dockSpecs = dockTable();
  for (const DockSpec& spec : m_dockSpecs) {
    auto* dock = new QDockWidget(dockTitle(spec), this);
    dock->setObjectName(spec.id);
    dock->setWidget(spec.factory(context, dock));
    addDockWidget(spec.area, dock);
    m_docks.push_back(dock);
    m_panelsMenu->addAction(dock->toggleViewAction());
    if (!spec.tabGroup.isEmpty() && spec.tabGroup == group && groupHead) tabifyDockWidget(m_docks[m_docks.size() - 2], dock);
    if (spec.tabGroup != group || !groupHead) groupHead = dock;
    group = spec.tabGroup;
    if (spec.afterAnalysis || spec.onDemand) dock->hide();  // until there is something to show
  }
  if (auto* compare = dock(QStringLiteral("compareDock"))->findChild<ComparePanel*>()) {
    connect(compare, &ComparePanel::comparisonReady, this, [this] {
      QDockWidget* d = dock(QStringLiteral("compareDock"));
      d->show();
      d->raise();
      setIdle(tr("Compared: %1").arg(d->findChild<ComparePanel*>()->comparison()->labelB));
      emit comparisonFinished();
    });
    connect(compare, &ComparePanel::comparisonFailed, this, [this](const QString& message) {
      setIdle(tr("Comparison failed: %1").arg(message));
      if (m_interactive) QMessageBox::warning(this, tr("Compare With"), message);
      emit comparisonFailed(message);
    });
  }
  if (auto* w = dock(QStringLiteral("whatIfDock"))->findChild<WhatIfPanel*>()) {
    auto show = [this] {
      QDockWidget* d = dock(QStringLiteral("whatIfDock"));
      d->show();
      d->raise();
    };
    connect(w, &WhatIfPanel::progressChanged, this, [this](const QString& phase, double f) {
      m_status->setProgress(tr("What If: %1").arg(phase), f);
    });
    connect(w, &WhatIfPanel::resultReady, this, [this, w, show] {
      show();
      setIdle(tr("What If: %n variant(s)", nullptr, w->result() ? static_cast<int>(w->result()->variants.size()) : 0));
      emit whatIfFinished();
    });
    connect(w, &WhatIfPanel::cancelled, this, [this] { setIdle(tr("What If cancelled")); });
    connect(w, &WhatIfPanel::exported, this, [this](const QString& path) { setIdle(tr("Exported %1").arg(QFileInfo(path).fileName())); });
    connect(w, &WhatIfPanel::failed, this, [this](const QString& message) {
      setIdle(tr("What If failed: %1").arg(message.section(QLatin1Char('\n'), 0, 0)));
      if (m_interactive) QMessageBox::warning(this, tr("What If"), message);
      emit whatIfFailed(message);
    });
  }
  splitDockWidget(dock(panelId(Panel::Overview)), dock(panelId(Panel::Properties)), Qt::Vertical);
  resizeDocks({dock(panelId(Panel::Properties))}, {380}, Qt::Horizontal);
}

void MainWindow::retranslate() {
  for (auto& [a, texts] : m_texts)
    if (a) texts(a);
  m_fileMenu->setTitle(tr("&File"));
  m_recentMenu->setTitle(tr("Open &Recent"));
  m_editMenu->setTitle(tr("&Edit"));
  m_viewMenu->setTitle(tr("&View"));
  m_panelsMenu->setTitle(tr("&Panels"));
  m_analyzeMenu->setTitle(tr("&Analyze"));
  m_helpMenu->setTitle(tr("&Help"));
  m_toolBar->setWindowTitle(tr("Main"));
  m_heatLabel->setText(tr(" Heatmap: "));
  m_heat->retranslate();
  for (size_t i = 0; i < m_docks.size(); ++i) m_docks[i]->setWindowTitle(dockTitle(m_dockSpecs[i]));
  if (charts()) charts()->retranslate();
  m_analysis->retranslate();
  if (auto* p = properties()) p->showNodes(p->shownNodes());
  rebuildRecentMenu();
  if (m_layoutTexts) m_layoutTexts();
  if (!m_status->busy()) setIdle();
}

QDockWidget* MainWindow::dock(const QString& id) const {
  for (QDockWidget* d : m_docks)
    if (d->objectName() == id) return d;
  return nullptr;
}

QDockWidget* MainWindow::panel(Panel p) const { return dock(panelId(p)); }

ChartsPanel* MainWindow::charts() const {
  QDockWidget* d = dock(QStringLiteral("chartsDock"));
  return d ? qobject_cast<ChartsPanel*>(d->widget()) : nullptr;
}

NodeProperties* MainWindow::properties() const { return qobject_cast<NodeProperties*>(panel(Panel::Properties)->widget()); }

std::shared_ptr<const ModelDocument> MainWindow::document() const { return m_analysis->document(); }

QString MainWindow::documentSummary() const {
  const auto doc = document();
  if (!doc) {
    const auto r = report();
    return r ? tr("%1  ·  a profile analysed without its model").arg(m_openedProfile.isEmpty() ? QString::fromStdString(r->model) : m_openedProfile)
             : tr("Ready");
  }
  const int drawn = m_graph->scene()->visibleGraph() ? static_cast<int>(m_graph->scene()->visibleGraph()->items.size()) : 0;
  return tr("%1  ·  %2 nodes  ·  %3 boxes drawn  ·  %4 parameters  ·  opset %5")
      .arg(QFileInfo(doc->path).fileName())
      .arg(doc->model->graph.nodes.size())
      .arg(drawn)
      .arg(formatMetric(static_cast<double>(doc->parameters), QString()))
      .arg(doc->model->opset());
}

void MainWindow::setIdle(const QString& message) {
  m_status->setIdleText(documentSummary());
  m_status->end(message);
}

void MainWindow::setInteractive(bool interactive) {
  m_interactive = interactive;
  m_edit->setInteractive(interactive);
}

bool MainWindow::busy() const { return m_loader->loading() || m_graph->layoutRunning() || m_analysis->running(); }

void MainWindow::cancelWork() {
  if (m_analysis->running()) {
    m_analysis->cancel();
    return;
  }
  if (m_loader->loading()) {
    m_loader->cancel();
    return;
  }
  m_graph->cancelLayout();
}

void MainWindow::openDialog() {
  const auto doc = document();
  const QString dir = doc ? QFileInfo(doc->path).absolutePath() : QString();
  const QString path = askOpenFile(this, tr("Open model"), dir, tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::openFile(const QString& path) {
  // A profile where a model was expected (the command line, File ▸ Open): what the device wrote,
  // opened as File ▸ Open Profile would.
  if (isProfilePath(path.toStdString())) {
    openProfile(path);
    return;
  }
  if (!m_edit->confirmDiscard()) return;  // unsaved fixes: the user chose to stay
  m_openedProfile.clear();
  m_status->begin(tr("Loading %1…").arg(QFileInfo(path).fileName()), [this] { m_loader->cancel(); });
  m_loader->load(path);
}

void MainWindow::showDocument(std::shared_ptr<const ModelDocument> doc, bool edited) {
  m_loader->drop();  // a load still running is superseded
  m_analysis->setDocument(std::move(doc), edited);
}

void MainWindow::onDocumentChanged(std::shared_ptr<const ModelDocument> doc, bool edited) {
  if (!doc) {  // a profile without its model: no graph
    m_graph->clear();
    m_heat->setDocumentMetrics({}, false);
    setWindowTitle(QStringLiteral("msadvisor"));
    m_analyzeAct->setEnabled(false);
    setIdle();
    return;
  }
  if (edited) m_graph->updateGraph(doc->graph);
  else m_graph->setGraph(doc->graph);
  m_heat->setDocumentMetrics(doc->metrics, edited);
  if (!edited) {
    setWindowTitle(QFileInfo(doc->path).fileName() + QStringLiteral("[*] — msadvisor"));
    setWindowModified(false);
    if (doc->onDisk) addRecent(doc->path);
  }
  m_analyzeAct->setEnabled(true);
  if (!m_graph->layoutRunning()) setIdle();
  emit documentLoaded(doc->path);
}

void MainWindow::onAnalysisFinished() {
  const auto r = report();
  if (!r) return;  // another document replaced it meanwhile
  if (!document()) {  // a profile alone: the window and the canvas describe the run
    // The run as the user opened it (a folder's name, a file's), the report's own model else.
    const QString path = m_openedProfile.isEmpty() ? QString::fromStdString(r->model) : m_openedProfile;
    const QFileInfo info(path);
    const QString run = info.isDir() ? QDir(path).dirName() : info.fileName();
    setWindowTitle(tr("%1 (profile) — msadvisor").arg(run.isEmpty() ? path : run));
    m_graph->setPlaceholder(tr("A profile analysed without its model: %1. Its findings are in the docks; "
                               "File ▸ Open… shows a model's graph.")
                                .arg(run));
  }
  setIdle(tr("Analysis done: latency %1 (%2), %n finding(s)", nullptr, static_cast<int>(r->findings.size()))
              .arg(durationText(r->latencyMs), latencySourceTitle(r->latencySource)));
  // The first time the docks appear they get room for a screenful of findings; later the
  // user's arrangement stays.
  const bool firstShow = !m_docksShown;
  m_docksShown = true;
  for (size_t i = 0; i < m_docks.size(); ++i)
    if (m_dockSpecs[i].afterAnalysis && (firstShow || !m_docks[i]->isHidden())) m_docks[i]->show();
  panel(Panel::Bottlenecks)->raise();
  if (firstShow) {  // once the docks are laid out
    // A profile alone has no node to show in Properties: the Overview (a job's ranks) gets the room.
    const bool profile = !document();
    QTimer::singleShot(0, this, [this, profile] {
      resizeDocks({panel(Panel::Bottlenecks)}, {std::max(260, height() * 3 / 10)}, Qt::Vertical);
      if (!panel(Panel::Properties)->isHidden())
        resizeDocks({panel(Panel::Overview), panel(Panel::Properties)},
                    {profile ? height() : 380, profile ? 120 : std::max(200, height() - 380)}, Qt::Vertical);
    });
  }
  m_analyzeAct->setEnabled(document() != nullptr);
  emit analysisFinished();
}

bool MainWindow::selectHeatmap(const QString& name) { return m_heat->select(name); }

void MainWindow::addHeatmapMetric(const NodeMetric& metric, bool show) { m_heat->addMetric(metric, show); }

void MainWindow::setShowShapes(bool show) { m_shapesAct->setChecked(show); }

std::shared_ptr<const Report> MainWindow::report() const { return m_analysis->report(); }

bool MainWindow::selectFinding(const QString& idOrRank) {
  if (!m_analysis->selectFinding(idOrRank)) return false;
  // Show it in the TOP list when it is there, else in the first table listing it.
  const QString id = m_analysis->selectedFinding();
  for (size_t i = 0; i < m_docks.size(); ++i) {
    auto* table = qobject_cast<FindingsPanel*>(m_docks[i]->widget());
    if (table && table->model()->rowOfFinding(id) >= 0) {
      m_docks[i]->show();
      m_docks[i]->raise();
      break;
    }
  }
  return true;
}

QString MainWindow::selectedFinding() const { return m_analysis->selectedFinding(); }

void MainWindow::runAnalysis(const AnalysisSettings& settings) {
  const bool profileOnly = !settings.importedProfile.isEmpty() && !document();
  if (!document() && !profileOnly) {
    emit analysisFailed(tr("Open a model first."));
    return;
  }
  if (m_analysis->running()) {
    emit analysisFailed(tr("An analysis is already running."));
    return;
  }
  m_analysisSettings = settings;
  m_analysisSettings.importedProfile.clear();  // the next Run measures again
  if (m_persistent) m_analysisSettings.save();
  if (!m_analysis->run(settings)) {
    emit analysisFailed(tr("The analysis could not start."));
    return;
  }
  m_status->begin(tr("Analysing…"), [this] { m_analysis->cancel(); });
  m_analyzeAct->setEnabled(false);  // until it ends, one way or another
}

void MainWindow::importProfileDialog() {
  const auto doc = document();
  if (!doc) {
    openProfileDialog();  // without a model: the profile alone
    return;
  }
  const QString path = ProfileFileDialog::getProfile(this, tr("Import Profile"), QFileInfo(doc->path).absolutePath());
  if (path.isEmpty()) return;
  AnalysisSettings s = m_analysisSettings;
  s.importedProfile = path;
  runAnalysis(s);
}

void MainWindow::openProfileDialog() {
  // A file of a run, or a profiler's folder (a job, a rank, PROF_*, *_ascend_pt…) in one dialog.
  const QString path = ProfileFileDialog::getProfile(this, tr("Open Profile: a file of a run or a profiler folder"), QString());
  if (!path.isEmpty()) openProfile(path);
}

void MainWindow::compareDialog() {
  // Beside an open profile the other run is usually next to it.
  const QString from = m_openedProfile.isEmpty() ? QString() : QFileInfo(m_openedProfile).absolutePath();
  const QString path = ProfileFileDialog::getProfile(this, tr("Compare With"), from, tr("ONNX models and analyses (*.onnx *.json)"));
  if (!path.isEmpty()) compareWith(path);
}

void MainWindow::compareWith(const QString& path) {
  auto* panel = dock(QStringLiteral("compareDock"))->findChild<ComparePanel*>();
  m_status->begin(tr("Comparing with %1…").arg(QFileInfo(path).fileName()), {});
  panel->compareWith(path);
}

void MainWindow::whatIf() {
  auto* panel = dock(QStringLiteral("whatIfDock"))->findChild<WhatIfPanel*>();
  QDockWidget* d = dock(QStringLiteral("whatIfDock"));
  d->show();
  d->raise();
  m_status->begin(tr("What If: building and measuring the variants…"), [panel] { panel->cancel(); });
  panel->run();
}

void MainWindow::openProfile(const QString& path) {
  if (!m_edit->confirmDiscard()) return;
  if (m_analysis->running()) m_analysis->cancel();
  showDocument(nullptr);  // the profile alone: no graph
  m_openedProfile = path;
  if (QFileInfo::exists(path)) addRecent(path);  // Open Recent reopens it as a profile (openFile tells)
  AnalysisSettings s = m_analysisSettings;
  s.importedProfile = path;
  runAnalysis(s);
}

std::optional<AnalysisSettings> MainWindow::askAnalysisSettings(bool settingsOnly) {
  QStringList dims;
  if (const auto doc = document())
    for (const std::string& d : doc->shapes.unboundDims) dims << QString::fromStdString(d);
  AnalyzeDialog dialog(m_analysisSettings, dims, this);
  if (settingsOnly) dialog.setSettingsOnly();
  else if (const auto doc = document())
    dialog.setModelInputs(modelInputRows(*doc->model));
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
  if (!document()) return;
  if (auto s = askAnalysisSettings(false)) runAnalysis(*s);
}

void MainWindow::updateBlockActions() {
  const auto doc = document();
  bool inCollapsed = false, inExpanded = false;
  if (doc) {
    const QStringList sel = m_graph->selectedNodes();
    if (!sel.isEmpty()) {
      const int n = doc->graph->nodeIndex(sel.front());
      for (int b = n >= 0 ? doc->graph->nodes()[static_cast<size_t>(n)].block : -1; b >= 0;
           b = doc->graph->blocks()[static_cast<size_t>(b)].parent) {
        if (m_graph->collapseState()[static_cast<size_t>(b)]) inCollapsed = true;
        else inExpanded = true;
      }
    }
  }
  m_expandAct->setEnabled(inCollapsed);
  m_collapseAct->setEnabled(inExpanded);
  const bool blocks = doc && !doc->graph->blocks().empty();
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
  const QStringList recent = m_persistent ? QSettings().value(QStringLiteral("recentFiles")).toStringList() : QStringList();
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

// The first window of a fresh configuration: most of the screen, centred (the size is
// remembered from then on as it changes: resizeEvent/moveEvent).
void MainWindow::applyInitialGeometry() {
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  if (!screen) return;
  const QRect avail = screen->availableGeometry();
  const QSize size(std::min(avail.width(), std::max(1024, avail.width() * 85 / 100)),
                   std::min(avail.height(), std::max(700, avail.height() * 85 / 100)));
  resize(size);
  move(avail.center() - QPoint(size.width() / 2, size.height() / 2));
}

void MainWindow::readSettings() {
  if (!m_persistent) return;
  QSettings s;
  if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) applyInitialGeometry();
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  // A comparison belongs to one session: its dock does not come back empty with the window state.
  for (size_t i = 0; i < m_docks.size(); ++i)
    if (dockTable()[i].onDemand) m_docks[i]->hide();
  m_shapesAct->setChecked(s.value(QStringLiteral("view/showShapes"), false).toBool());
  m_heat->setLogScale(s.value(QStringLiteral("view/logScale"), false).toBool());
  rebuildRecentMenu();
}

void MainWindow::writeSettings() {
  if (!m_persistent) return;
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("view/showShapes"), m_shapesAct->isChecked());
  s.setValue(QStringLiteral("view/logScale"), m_heat->logScale());
}

void MainWindow::resizeEvent(QResizeEvent* e) {
  QMainWindow::resizeEvent(e);
  if (m_saveGeometry) m_saveGeometry->start();
}

void MainWindow::moveEvent(QMoveEvent* e) {
  QMainWindow::moveEvent(e);
  if (m_saveGeometry) m_saveGeometry->start();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!m_edit->confirmDiscard()) {  // unsaved fixes: Cancel keeps the window
    e->ignore();
    return;
  }
  writeSettings();
  m_analysis->cancel();
  m_loader->drop();
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
