#pragma once
// The main window shell: menus, toolbar, the graph in the middle and the docks around it
// (declared as data in docks.h). The parts live in their own classes: the analysis hub
// (AnalysisWorkspace: the document and its analysis, which every view subscribes to), the
// DocumentLoader (File ▸ Open off the GUI thread), the HeatmapChooser and the TaskStatus (the
// status bar's message, progress and Cancel). The window wires them and says things in words.
#include <QMainWindow>
#include <QPointer>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/analysis_settings.h"
#include "docks.h"
#include "graph/model_document.h"

namespace msa {
struct Report;
}

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QTimer;
class QToolBar;

namespace msa::ui {

class AnalysisWorkspace;
class ChartsPanel;
class DocumentLoader;
class EditController;
class GraphWidget;
class HeatmapChooser;
class LayoutCache;
class NodeProperties;
class TaskStatus;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // The built-in docks (docks.h has them all); object names are stable for saved window state:
  // propertiesDock, overviewDock, bottlenecksDock, fusionDock, formatDock, kernelDock.
  enum class Panel { Properties, Overview, Bottlenecks, Fusion, Format, Kernel };

  // A persistent window reads and writes QSettings (geometry, recent files, view options);
  // scripted ones (--screenshot, tests) start from defaults and leave no trace.
  explicit MainWindow(QWidget* parent = nullptr, bool persistent = true);
  ~MainWindow() override;

  // Errors go to a message box unless the window is driven by a script (--screenshot, tests).
  void setInteractive(bool interactive);
  bool interactive() const { return m_interactive; }
  GraphWidget* graphWidget() const { return m_graph; }
  ChartsPanel* charts() const;
  NodeProperties* properties() const;
  QDockWidget* panel(Panel p) const;
  QDockWidget* dock(const QString& id) const;
  std::shared_ptr<const ModelDocument> document() const;
  bool busy() const;
  TaskStatus* taskStatus() const { return m_status; }
  HeatmapChooser* heatmap() const { return m_heat; }
  // Chooses a heatmap by metric name ("Estimated time", "FLOPs", "Memory traffic",
  // "Parameters"); empty or "none" = op categories. Before a document is open the choice is kept
  // for it; otherwise a document opens with its first metric (the estimated time).
  bool selectHeatmap(const QString& metricName);
  // Offers another heatmap metric (e.g. estimated time once analysed) and optionally shows it.
  void addHeatmapMetric(const NodeMetric& metric, bool show);
  void setShowShapes(bool show);
  // Apply/Undo/Verify/Export (ui/edit): the editing session and its actions.
  EditController* editController() const { return m_edit; }

  // The analysis (ui/analysis): the hub, the last report, the selected finding.
  std::shared_ptr<const msa::Report> report() const;
  AnalysisWorkspace* analysis() const { return m_analysis; }
  AnalysisSettings analysisSettings() const { return m_analysisSettings; }
  // A finding id or a 1-based rank in the TOP list; selects its rows, nodes and frames them.
  bool selectFinding(const QString& idOrRank);
  QString selectedFinding() const;

 public slots:
  void openFile(const QString& path);
  // Shows a document built elsewhere (a model after a rewrite, a generated one). `edited`: the
  // same model after an edit — collapse state, selection, view and heatmap choice are kept.
  void showDocument(std::shared_ptr<const ModelDocument> doc, bool edited = false);
  void openDialog();
  void cancelWork();
  // Runs the analysis of the open document without the dialog (tests, --analyze); the dialog
  // (Analyze ▸ Run…) ends here too. Settings are remembered by persistent windows.
  void runAnalysis(const msa::ui::AnalysisSettings& settings);
  // File ▸ Import Profile: analyse a profile taken elsewhere on the open model, instead of measuring.
  void importProfileDialog();
  // File ▸ Open Profile: a profile alone, without its model (Overview, findings, charts; no graph).
  void openProfileDialog();
  void openProfile(const QString& path);
  // File ▸ Compare With…: the open model (and its analysis) beside another model or a saved
  // analysis/profile; the Compare dock shows the result, the graph the per-node change.
  void compareDialog();
  void compareWith(const QString& path);
  // Analyze ▸ What If…: the variants of the model on screen, built and measured in the What If dock.
  void whatIf();
  void showAnalyzeDialog();
  void showAnalysisSettings();

 signals:
  void documentLoaded(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void ready();  // the document's graph is drawn (after load and layout)
  void analysisFinished();  // report() holds the new report; docks and overlays show it
  void analysisFailed(const QString& message);  // also when it could not start; cancel is silent
  void comparisonFinished();                     // the Compare dock shows it
  void whatIfFinished();                         // the What If dock lists the variants
  void whatIfFailed(const QString& message);
  void comparisonFailed(const QString& message);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;
  void moveEvent(QMoveEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  // The Analyze dialog over the current settings and the document's symbolic dims; nothing when
  // cancelled. `settingsOnly`: it saves instead of analysing.
  std::optional<AnalysisSettings> askAnalysisSettings(bool settingsOnly);
  void createActions();
  void createMenus();
  void createToolBar();
  void createDocks();
  void retranslate();
  void onDocumentChanged(std::shared_ptr<const ModelDocument> doc, bool edited);
  void onAnalysisFinished();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void setIdle(const QString& message = {});
  QString documentSummary() const;
  void updateBlockActions();
  void readSettings();
  void writeSettings();
  void applyInitialGeometry();
  // An action whose texts follow the UI language: `texts` is called now and on every change.
  QAction* action(const std::function<void(QAction*)>& texts, const QIcon& icon = {});

  EditController* m_edit = nullptr;
  GraphWidget* m_graph = nullptr;
  AnalysisWorkspace* m_analysis = nullptr;
  DocumentLoader* m_loader = nullptr;
  HeatmapChooser* m_heat = nullptr;
  TaskStatus* m_status = nullptr;
  AnalysisSettings m_analysisSettings;
  std::shared_ptr<LayoutCache> m_cache;
  std::vector<QDockWidget*> m_docks;
  std::vector<DockSpec> m_dockSpecs;  // what m_docks were made from (dockTable() at creation)
  std::vector<std::pair<QPointer<QAction>, std::function<void(QAction*)>>> m_texts;
  bool m_interactive = true;
  bool m_persistent = true;
  bool m_docksShown = false;  // the analysis docks appeared once (their first size is set then)
  QTimer* m_saveGeometry = nullptr;  // the size and place are kept as they change, not only at a clean exit

  QAction* m_compareAct = nullptr;
  QAction* m_whatIfAct = nullptr;
  QString m_openedProfile;  // File ▸ Open Profile's path, named by the title and the canvas
  QAction *m_openAct, *m_openProfileAct, *m_importProfileAct, *m_quitAct, *m_findAct, *m_zoomInAct, *m_zoomOutAct,
      *m_fitAct, *m_actualAct, *m_analyzeAct, *m_settingsAct;
  QAction *m_shapesAct, *m_expandAct, *m_collapseAct, *m_expandAllAct, *m_collapseAllAct, *m_defaultCollapseAct, *m_aboutAct;
  QMenu *m_fileMenu = nullptr, *m_editMenu = nullptr, *m_viewMenu = nullptr, *m_analyzeMenu = nullptr, *m_helpMenu = nullptr;
  QMenu *m_recentMenu = nullptr, *m_panelsMenu = nullptr;
  QToolBar* m_toolBar = nullptr;
  QLabel* m_heatLabel = nullptr;
  QLabel *m_layoutText = nullptr, *m_zoomText = nullptr;
  std::function<void()> m_layoutTexts;  // the last layout's status text, again in a new language
};

}  // namespace msa::ui
