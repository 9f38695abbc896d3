#pragma once
// What colours the graph: the toolbar's metric and scale boxes, View ▸ Heatmap and View ▸
// Heatmap Scale, kept in step, and the metrics a document offers (the cost model's at load,
// the analysis's once measured). Applies the choice to the GraphWidget.
#include <QList>
#include <QObject>

#include "graph/graph_overlays.h"

class QAction;
class QActionGroup;
class QComboBox;
class QMenu;

namespace msa::ui {

class GraphWidget;

class HeatmapChooser : public QObject {
  Q_OBJECT
 public:
  HeatmapChooser(GraphWidget* graph, QWidget* parent);

  QComboBox* metricBox() const { return m_metricBox; }
  QComboBox* scaleBox() const { return m_scaleBox; }
  QMenu* menu() const { return m_menu; }
  QMenu* scaleMenu() const { return m_scaleMenu; }

  // A new document's metrics. `edited`: the same model after an edit — the metric looked at
  // stays chosen (its values are the new document's); otherwise the first metric (the
  // estimate), or the one select() asked for before any document.
  void setDocumentMetrics(const QList<NodeMetric>& metrics, bool edited);
  // Offers another metric (or replaces the one of that name) and optionally shows it.
  void addMetric(const NodeMetric& metric, bool show);
  // Withdraws a metric that no longer applies; when it was shown, the first metric is.
  void removeMetric(const QString& name);
  // An analysis's metrics: they replace those of the previous analysis (a CPU run's Measured
  // time is not offered beside an Ascend estimate); the first is shown when `show`.
  void setAnalysisMetrics(const QList<NodeMetric>& metrics, bool show);
  // By metric name ("Estimated time", "FLOPs", …); empty or "none" = op categories. Before a
  // document it is remembered for it. False when there is no such metric.
  bool select(const QString& name);
  const QList<NodeMetric>& metrics() const { return m_metrics; }
  QString currentName() const;  // the metric's name, empty for op categories
  bool logScale() const;
  void setLogScale(bool log);
  void retranslate();

 signals:
  void metricsChanged(const QList<msa::ui::NodeMetric>& metrics);

 private:
  void rebuild();
  void apply(int index);

  GraphWidget* m_graph;
  QComboBox *m_metricBox, *m_scaleBox;
  QMenu *m_menu, *m_scaleMenu;
  QActionGroup* m_group = nullptr;
  QAction *m_linearAct, *m_logAct;
  QList<NodeMetric> m_metrics;
  QStringList m_analysisMetrics;  // names of the metrics the last analysis added
  bool m_hasDocument = false;
  QString m_pending;
  bool m_chosen = false;  // select() was called before the document arrived
};

}  // namespace msa::ui
