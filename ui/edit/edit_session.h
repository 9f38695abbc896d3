#pragma once
// The editing session behind Apply / Apply All Safe / Undo / Redo: the original model, the
// current state (model, document, analysis) and a QUndoStack of EditCommands. No widgets: the
// main window shows what `stateChanged` hands it, the tests drive it directly.
//
// Apply runs in a worker: a copy of the current model, core applyFinding per finding (in rank
// order for Apply All Safe, skipping what no longer matches), shape inference, a new
// ModelDocument, and the analysis re-derived (reanalysis.h: same device and settings, profiles
// mapped onto the surviving nodes). Only then is one command pushed, so the graph, the findings
// and the estimate change together, and undo/redo just swap states.
#include <QObject>
#include <QUndoStack>
#include <atomic>
#include <memory>

#include "edit/edit_state.h"
#include "job.h"

namespace msa::ui {

// What an Apply produced: the new state, the findings applied, and (Apply All Safe) the safe
// findings left with their reason ("id: why").
struct ApplyOutcome {
  EditStatePtr state;
  QStringList applied, skipped;
};

class EditSession : public QObject {
  Q_OBJECT
 public:
  explicit EditSession(QObject* parent = nullptr);
  ~EditSession() override;

  // A newly opened model: the original and the current state; the undo stack is cleared and a
  // running Apply is dropped.
  void setDocument(std::shared_ptr<const ModelDocument> document);
  // The analysis of the current model (from the Analyze controller, or analyzeEstimate). When no
  // edit was made yet it is also the original's analysis, which Verify's estimate refers to.
  void setReport(std::shared_ptr<const Report> report);
  void clear();

  bool hasDocument() const { return m_current != nullptr; }
  EditStatePtr originalState() const { return m_original; }
  EditStatePtr current() const { return m_current; }
  std::shared_ptr<const Model> originalModel() const;
  std::shared_ptr<const Model> currentModel() const;
  std::shared_ptr<const ModelDocument> currentDocument() const;
  std::shared_ptr<const Report> currentReport() const;
  bool isModified() const { return m_current && m_original && m_current->model != m_original->model; }
  // Every rewrite from the original to the current state, in order.
  std::vector<Rewrite> appliedRewrites() const;
  QUndoStack* undoStack() const { return m_stack; }

  // Findings of the current analysis that Apply accepts (a legal fix pass, not refused by Apply
  // All Safe on this model) and the safe ones Apply All Safe applies, in rank order.
  const Finding* applicableFinding(const QString& id) const;
  std::vector<const Finding*> safeFindings() const;
  // Why Apply cannot apply the finding (advice only, not legal and its blockers, refused on this
  // model and why, not in the analysis), in the UI language; empty when it can.
  QString whyNotApplicable(const QString& id) const;
  // The operators outside the ONNX standard the finding's fix writes ("com.microsoft BiasGelu"),
  // empty when portable; such a fix is refused when the analysis targets another runtime.
  QString runtimeOperators(const Finding& f) const;
  bool canApply(const QString& id) const { return !busy() && applicableFinding(id) != nullptr; }
  bool canApplyAllSafe() const { return !busy() && !safeFindings().empty(); }

  bool busy() const { return m_busy; }
  // Applies one finding of the current analysis (asynchronous: applyFinished or applyFailed).
  void apply(const QString& findingId);
  // Every safe auto-fixable finding as one undo step.
  void applyAllSafe();
  // The undo stack's texts in the UI language now (after a language switch).
  void retranslateCommands();
  void cancel();

  // Used by EditCommand: makes `state` current and announces it.
  void restore(EditStatePtr state);

 signals:
  void stateChanged();  // current() changed: new model, document and analysis (apply, undo, redo)
  void busyChanged(bool busy);
  void progressChanged(const QString& phase, double fraction);
  // `applied`: finding ids; `skipped`: "id: why" for the safe findings Apply All Safe left (the
  // fixed point it reached: they did not apply, or were not reached).
  void applyFinished(const QStringList& applied, const QStringList& skipped);
  void applyFailed(const QString& message);
  void applyCancelled();

 private:
  void start(std::vector<Finding> findings, bool allSafe);
  void setBusy(bool busy);

  QUndoStack* m_stack;
  EditStatePtr m_original, m_current;
  bool m_busy = false;
  Job<ApplyOutcome> m_job{this};
};

}  // namespace msa::ui
