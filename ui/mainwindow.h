#pragma once
// The main window shell: menus, toolbar, status bar with progress and Cancel, the graph in the
// middle and docks around it. Loading and layout run off the GUI thread; results come back
// as values and a generation counter drops superseded ones.
#include <QMainWindow>
#include <QPointer>
#include <memory>
#include <optional>

#include "analysis/analysis_settings.h"
#include "graph/model_document.h"

namespace msa {
struct Report;
}

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;

namespace msa::ui {

class ChartsPanel;
class EditController;
class AnalysisWorkspace;
class GraphWidget;
class NodeProperties;
class LayoutCache;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Docks the analysis wave fills; each exists from the start (for saved window state).
  // Object names (saveState) are stable: propertiesDock, overviewDock, bottlenecksDock,
  // fusionDock, formatDock, kernelDock.
  enum class Panel { Properties, Overview, Bottlenecks, Fusion, Format, Kernel };
  static constexpr int kPanelCount = 6;

  // A persistent window reads and writes QSettings (geometry, recent files, view options);
  // scripted ones (--screenshot, tests) start from defaults and leave no trace.
  explicit MainWindow(QWidget* parent = nullptr, bool persistent = true);
  ~MainWindow() override;

  // Errors go to a message box unless the window is driven by a script (--screenshot, tests).
  void setInteractive(bool interactive) { m_interactive = interactive; }
  bool interactive() const { return m_interactive; }
  GraphWidget* graphWidget() const { return m_graph; }
  ChartsPanel* charts() const { return m_charts; }
  NodeProperties* properties() const { return m_properties; }
  QDockWidget* panel(Panel p) const;
  std::shared_ptr<const ModelDocument> document() const { return m_doc; }
  bool busy() const;
  // Chooses a heatmap by metric name ("Estimated time", "FLOPs", "Memory traffic",
  // "Parameters"); empty or "none" = op categories. Before a document is open the choice is kept
  // for it; otherwise a document opens with its first metric (the estimated time).
  bool selectHeatmap(const QString& metricName);
  // Offers another heatmap metric (e.g. estimated time once analysed) and optionally shows it.
  void addHeatmapMetric(const NodeMetric& metric, bool show);
  void setShowShapes(bool show);
  // Apply/Undo/Verify/Export (ui/edit): the editing session and its actions.
  EditController* editController() const { return m_edit; }

  // The analysis (ui/analysis): the last report, what produced it, the selected finding.
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
  // File ▸ Import Profile: analyse a profile taken elsewhere instead of measuring here.
  void importProfileDialog();
  void showAnalyzeDialog();
  void showAnalysisSettings();

 signals:
  void documentLoaded(const QString& path);
  void loadFailed(const QString& path, const QString& message);
  void ready();  // the document's graph is drawn (after load and layout)
  void analysisFinished();  // report() holds the new report; docks and overlays show it
  void analysisFailed(const QString& message);  // also when it could not start; cancel is silent

 protected:
  void closeEvent(QCloseEvent* e) override;
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
  void createStatusBar();
  void setDocument(std::shared_ptr<const ModelDocument> doc, bool edited = false);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void rebuildHeatmapChoices();
  void applyHeatmapChoice(int index);
  void setBusy(const QString& what, bool cancellable);
  void setIdle(const QString& message = {});
  void updateBlockActions();
  void readSettings();
  void writeSettings();

  friend class EditController;  // drives the status bar's progress and Cancel
  EditController* m_edit = nullptr;
  GraphWidget* m_graph = nullptr;
  NodeProperties* m_properties = nullptr;
  QDockWidget* m_panels[kPanelCount] = {};
  AnalysisWorkspace* m_analysis = nullptr;
  AnalysisSettings m_analysisSettings;
  QAction* m_analyzeAct = nullptr;
  ChartsPanel* m_charts = nullptr;
  std::shared_ptr<LayoutCache> m_cache;
  std::shared_ptr<const ModelDocument> m_doc;
  quint64 m_loadGeneration = 0;
  std::shared_ptr<std::atomic<bool>> m_loadCancel;
  bool m_loading = false;
  bool m_interactive = true;
  bool m_persistent = true;
  QString m_pendingHeatmap;
  bool m_heatmapChosen = false;  // selectHeatmap() was called before the document arrived
  QList<NodeMetric> m_metrics;  // heatmap choices after "None"

  QAction *m_openAct, *m_quitAct, *m_findAct, *m_zoomInAct, *m_zoomOutAct, *m_fitAct, *m_actualAct;
  QAction *m_shapesAct, *m_linearAct, *m_logAct, *m_expandAct, *m_collapseAct, *m_expandAllAct, *m_collapseAllAct,
      *m_defaultCollapseAct, *m_aboutAct;
  QActionGroup* m_heatGroup = nullptr;
  QMenu *m_recentMenu = nullptr, *m_heatMenu = nullptr, *m_panelsMenu = nullptr;
  QComboBox* m_heatCombo = nullptr;
  QComboBox* m_scaleCombo = nullptr;
  QLabel *m_statusText = nullptr, *m_layoutText = nullptr, *m_zoomText = nullptr;
  QProgressBar* m_progress = nullptr;
  QToolButton* m_cancel = nullptr;
};

}  // namespace msa::ui
