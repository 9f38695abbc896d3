#pragma once
// The document on screen, in one place: the model shown, its edit history (the EditSession and
// its QUndoStack), its analysis and whether that analysis describes the graph on screen. It runs
// analyses and tells everyone who shows any of it: the docks (Overview, the findings tables,
// Properties, Charts), the graph's overlays, the window and the edit controller subscribe to
// documentChanged / analysisChanged; nobody keeps a second copy in step, and no view pulls
// from the main window. An Apply, Undo or Redo changes the session's state, and the hub
// publishes the state's document and analysis; an analysis of the shown model becomes the
// session's. Also the selected finding and selection sync both ways (a row selects and frames
// its nodes; selecting graph nodes highlights the rows that mention them).
#include <QObject>
#include <QPointer>
#include <memory>
#include <vector>

#include "analysis/analysis_controller.h"
#include "analysis/analysis_overlays.h"
#include "analysis/findings_model.h"

namespace msa::ui {

class EditSession;
class FindingsPanel;
class GraphWidget;
class OverviewPanel;

class AnalysisWorkspace : public QObject {
  Q_OBJECT
 public:
  // The built-in findings docks, for tests and for "show the table listing this finding".
  enum class Table { Bottlenecks, Fusion, Format, Kernel };

  AnalysisWorkspace(GraphWidget* graph, QObject* parent);
  ~AnalysisWorkspace() override;

  // --- the hub
  // The document on screen (null: none, or a profile analysed without its model). `edited`:
  // the same model after an edit — the analysis stays until setAnalysis() brings the edited
  // model's; otherwise the analysis of the previous document is cleared.
  void setDocument(std::shared_ptr<const ModelDocument> document, bool edited = false);
  std::shared_ptr<const ModelDocument> document() const { return m_document; }
  // The analysis shown; null clears it.
  void setAnalysis(std::shared_ptr<const AnalysisResult> result);
  std::shared_ptr<const AnalysisResult> analysis() const { return m_result; }
  std::shared_ptr<const Report> report() const { return m_result ? m_result->report : nullptr; }
  const AnalysisOverlays& overlays() const { return m_overlays; }
  // Whether the analysis shown was made of the document on screen (false with none, after a
  // document was shown as edited without its analysis, or when re-deriving it after a fix failed).
  bool analysisIsCurrent() const { return m_result && m_document && m_result->document == m_document; }
  // The edit history of the document (Apply, Apply All Safe, Undo, Redo): a new document starts
  // a new one; its states' documents and analyses are what the hub shows.
  EditSession* edits() const { return m_edits; }

  // Analyses the current document (with `importedProfile` and no document: the profile alone).
  bool run(const AnalysisSettings& settings);
  void cancel();
  bool running() const;
  AnalysisController* controller() const { return m_controller; }

  // --- the views the docks hold (created by the dock table, owned by their docks)
  OverviewPanel* createOverview(QWidget* parent);
  FindingsPanel* createFindingsPanel(const QString& id, FindingsModel::Filter filter, const QString& emptyText, QWidget* parent);
  OverviewPanel* overview() const;
  FindingsPanel* table(Table t) const;
  FindingsPanel* table(const QString& id) const;
  const std::vector<QPointer<FindingsPanel>>& tables() const { return m_tables; }

  // Re-applies groups, marks and the emphasis to the graph (after the graph was replaced).
  void refreshOverlays();
  // Renders what depends on the language again (finding titles come from core's texts).
  void retranslate();

  // By finding id, or a 1-based rank in the TOP list ("1" = the top bottleneck). Selects the
  // row(s), selects and frames its nodes. False when there is no such finding.
  bool selectFinding(const QString& idOrRank);
  QString selectedFinding() const { return m_selected; }

 signals:
  void documentChanged(std::shared_ptr<const msa::ui::ModelDocument> document, bool edited);
  void analysisChanged(std::shared_ptr<const msa::ui::AnalysisResult> result);
  void progressChanged(const QString& phase, double fraction);
  void finished();  // a run ended with a result (analysisChanged and metricsReady came first)
  void failed(const QString& message);
  void cancelled();
  // Heatmap metrics from the analysis; the first is the one to show.
  void metricsReady(const QList<msa::ui::NodeMetric>& metrics, bool show);
  void findingSelected(const QString& id);

 private:
  void activate(const QString& id, const QStringList& nodes, FindingsPanel* source);
  void onGraphSelection(const QStringList& nodes);
  void adopt(std::shared_ptr<const AnalysisResult> result);  // the result and its overlays, nothing shown yet
  void showMarks();
  void deliver(std::shared_ptr<const AnalysisResult> result);
  void onEditState();        // an Apply, Undo or Redo: its document and analysis on screen
  void giveEditsTheReport();  // the analysis of the shown model becomes the edit state's


  GraphWidget* m_graph;
  AnalysisController* m_controller;
  EditSession* m_edits;
  QPointer<OverviewPanel> m_overview;
  std::vector<QPointer<FindingsPanel>> m_tables;
  std::shared_ptr<const ModelDocument> m_document;
  std::shared_ptr<const AnalysisResult> m_result;
  AnalysisOverlays m_overlays;
  QString m_selected;
  bool m_activating = false;
  quint64 m_delivery = 0;  // a new analysis or document abandons a delivery still in progress
};

// The object names of the built-in findings panels (Table order).
QString tableId(AnalysisWorkspace::Table t);

}  // namespace msa::ui
