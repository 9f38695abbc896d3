#pragma once
// Everything the analysis adds to the main window, in one place so the window itself only
// forwards: the controller that runs it, the docks' contents (Overview; Bottlenecks, Fusion,
// Format conversions, Kernel and alignment tables), the overlays on the graph, the selected
// finding, and selection sync both ways (a row selects and frames its nodes; selecting graph
// nodes highlights the rows that mention them).
#include <QObject>
#include <memory>
#include <optional>

#include "analysis/analysis_controller.h"
#include "analysis/analysis_overlays.h"

namespace msa::ui {

class FindingsPanel;
class GraphWidget;
class OverviewPanel;

class AnalysisWorkspace : public QObject {
  Q_OBJECT
 public:
  enum class Table { Bottlenecks, Fusion, Format, Kernel };

  AnalysisWorkspace(GraphWidget* graph, QWidget* parentWidget);
  ~AnalysisWorkspace() override;

  OverviewPanel* overview() const { return m_overview; }
  FindingsPanel* table(Table t) const { return m_tables[static_cast<int>(t)]; }
  AnalysisController* controller() const { return m_controller; }

  bool run(std::shared_ptr<const ModelDocument> document, const AnalysisSettings& settings);
  void cancel();
  bool running() const;

  const std::optional<AnalysisResult>& result() const { return m_result; }
  std::shared_ptr<const Report> report() const { return m_result ? m_result->report : nullptr; }
  const AnalysisOverlays& overlays() const { return m_overlays; }
  // Shows a result: docks, overlays, heatmap metrics (metricsReady). Also the way to show a
  // report made elsewhere (e.g. re-estimated after a fix).
  void setResult(const AnalysisResult& result);
  void clear();
  // The window shows another document: a different file clears the analysis; the same file
  // (a rewritten model) keeps the report and re-applies its overlays to the new graph.
  void documentChanged(const std::shared_ptr<const ModelDocument>& doc);
  // Re-applies groups, marks and the emphasis to the graph (after the graph was replaced).
  void refreshOverlays();

  // By finding id, or a 1-based rank in the TOP list ("1" = the top bottleneck). Selects the
  // row(s), selects and frames its nodes. False when there is no such finding.
  bool selectFinding(const QString& idOrRank);
  QString selectedFinding() const { return m_selected; }

 signals:
  void progressChanged(const QString& phase, double fraction);
  void finished();
  void failed(const QString& message);
  void cancelled();
  // Heatmap metrics from the analysis; the first is the one to show.
  void metricsReady(const QList<msa::ui::NodeMetric>& metrics, bool show);
  void findingSelected(const QString& id);

 private:
  void activate(const QString& id, const QStringList& nodes, FindingsPanel* source);
  void onGraphSelection(const QStringList& nodes);

  GraphWidget* m_graph;
  AnalysisController* m_controller;
  OverviewPanel* m_overview;
  FindingsPanel* m_tables[4] = {};
  std::optional<AnalysisResult> m_result;
  AnalysisOverlays m_overlays;
  QString m_selected;
  bool m_activating = false;
};

}  // namespace msa::ui
