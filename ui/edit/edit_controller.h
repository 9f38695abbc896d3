#pragma once
// The editing actions: Edit > Undo/Redo, Analyze > Apply / Apply All Safe / Verify, File >
// Export…, the toolbar buttons and the task status (progress and Cancel) for these jobs. It
// observes the document (AnalysisWorkspace, which owns the edit history and publishes every
// state) and the graph's selection; it knows nothing of the window: the window places its
// actions (EditPlacement) and listens to modifiedChanged.
//
// setReport() hands the document an analysis directly (tests); setCurrentFinding() chooses
// what Apply applies (without it, the best-ranked applicable finding naming a selected node).
#include <QObject>
#include <QPointer>
#include <functional>
#include <memory>
#include <optional>

#include "analysis/analysis_settings.h"
#include "edit/edit_session.h"
#include "edit/verify_job.h"

class QAction;
class QMenu;
class QToolBar;
class QWidget;

namespace msa::ui {

class AnalysisWorkspace;
class GraphWidget;
class TaskStatus;

// What the controller observes and uses: the document, the graph (its selection; Export Graph
// Image draws its scene), the status bar's task area, the parent of its dialogs.
struct EditContext {
  AnalysisWorkspace* document = nullptr;
  GraphWidget* graph = nullptr;
  TaskStatus* status = nullptr;
  QWidget* dialogParent = nullptr;
};

// Where the editing actions go in the window: export before `beforeInFile` in File, undo/redo
// before `beforeInEdit` in Edit, Apply/Apply All/Verify at the end of Analyze and the tool bar.
struct EditPlacement {
  QMenu* file = nullptr;
  QAction* beforeInFile = nullptr;
  QMenu* edit = nullptr;
  QAction* beforeInEdit = nullptr;
  QMenu* analyze = nullptr;
  QToolBar* toolBar = nullptr;
};

class EditController : public QObject {
  Q_OBJECT
 public:
  EditController(const EditContext& context, const EditPlacement& where, QObject* parent);

  EditSession* session() const { return m_session; }
  VerifyJob* verifyJob() const { return m_verify; }
  QAction* undoAction() const { return m_undoAct; }
  QAction* redoAction() const { return m_redoAct; }
  QAction* applyAction() const { return m_applyAct; }
  QAction* applyAllSafeAction() const { return m_applyAllAct; }
  QAction* verifyAction() const { return m_verifyAct; }
  QAction* exportModelAction() const { return m_exportModelAct; }
  QAction* exportReportAction() const { return m_exportReportAct; }
  QAction* exportImageAction() const { return m_exportImageAct; }

  // The finding Apply applies: the selected finding (setCurrentFinding) when it is applicable —
  // never another one when it is not (advice only, not legal: Apply is then disabled and its
  // tooltip says why) — and with no finding selected, the best-ranked applicable finding
  // naming a selected node. Empty when none.
  QString currentFinding() const;

  // What to do when Export follows a failed Verify, and when unsaved fixes would be lost (close,
  // quit, open another model). Interactive windows ask with a message box; tests and scripts
  // set the answer here (without one, a scripted window goes on).
  enum class ExportChoice { ExportAnyway, Undo, Cancel };
  enum class DiscardChoice { Export, Discard, Cancel };
  void setExportConfirmation(std::function<ExportChoice(const VerifyOutcome&)> ask) { m_askExport = std::move(ask); }
  void setDiscardConfirmation(std::function<DiscardChoice()> ask) { m_askDiscard = std::move(ask); }
  // Fixes applied since the model was opened or last exported.
  bool hasUnsavedEdits() const;
  // Before the window closes or another model opens: true to go on (nothing unsaved, exported,
  // or discarded on purpose); false to stay.
  bool confirmDiscard();
  // Errors go to a message box when interactive, else to the status bar (scripts, tests).
  void setInteractive(bool interactive) { m_interactive = interactive; }
  // Verify's tolerance instead of the applied passes' level (tests).
  void setVerifyTolerance(std::optional<Tolerance> t) { m_verifyTolerance = t; }
  std::optional<VerifyOutcome> lastVerification() const { return m_lastVerify; }
  // Verify's timing (fewer runs in tests).
  void setLatencyOptions(const LatencyOptions& o) { m_latency = o; }

  // Export without a dialog (tests, scripts); the error message, empty on success.
  QString exportModelTo(const QString& path);
  QString exportReportTo(const QString& path);
  QString exportImageTo(const QString& path);

 public slots:
  void setReport(std::shared_ptr<const msa::Report> report);
  void setCurrentFinding(const QString& id);
  void applyCurrent();
  void applyAllSafe();
  void verify();
  void exportModel();
  void exportReport();
  void exportImage();
  void cancel();

 signals:
  void reportChanged(std::shared_ptr<const msa::Report> report);  // the current model's analysis (null: none)
  void verifyFinished(const msa::ui::VerifyOutcome& outcome);
  void verifyFailed(const QString& message);
  void exported(const QString& path);
  void errorShown(const QString& title, const QString& message);  // also when not interactive
  void modifiedChanged(bool modified);  // fixes applied since the model was opened or last exported

 private:
  void createActions();
  void retranslate();
  void updateUndoTexts();
  void placeActions(const EditPlacement& where);
  void onStateChanged();
  void rememberSelection();  // before an Apply: what the graph selects in the state it leaves
  void restoreSelection();   // the state is one an Apply left: its selection back
  void updateActions();
  void setBusy(const QString& what);
  void setProgress(const QString& phase, double fraction);
  void setIdle(const QString& message);
  void showError(const QString& title, const QString& message);
  QString openedPath() const;
  // Export after a failed Verify asks first; false: do not export (cancelled, or undone).
  bool confirmExport();
  QString writeModel(const QString& path);
  bool interactive() const;

  AnalysisWorkspace* m_workspace;
  GraphWidget* m_graph;
  TaskStatus* m_status;
  QWidget* m_dialogParent;
  EditSession* m_session;
  bool m_interactive = true;
  VerifyJob* m_verify;
  QString m_currentFinding;
  // The graph's selection when an Apply left each state, restored when Undo returns to it.
  std::vector<std::pair<std::weak_ptr<const EditState>, QStringList>> m_selectionBefore;
  QString m_busyWhat;
  std::optional<VerifyOutcome> m_lastVerify;
  LatencyOptions m_latency;
  std::optional<Tolerance> m_verifyTolerance;
  std::function<ExportChoice(const VerifyOutcome&)> m_askExport;
  std::function<DiscardChoice()> m_askDiscard;
  AnalysisSettings m_analysisSettings;  // of the last analysis handed over by the docks
  QAction *m_undoAct, *m_redoAct, *m_applyAct, *m_applyAllAct, *m_verifyAct, *m_exportModelAct, *m_exportReportAct,
      *m_exportImageAct;
};

}  // namespace msa::ui
