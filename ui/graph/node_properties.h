#pragma once
// The Properties panel: for one selected node its op type, scope, attributes, and the dtype and
// shape of every input and output (weights marked as such), its cost (FLOPs, bytes read and
// written, parameters) and roofline estimate; once a Report is set, what was measured (median,
// p10, p90, kernel and provider), its efficiency and position against the roofline, and the
// findings naming it. For several nodes, a summary by op type.
#include <QTreeWidget>
#include <memory>
#include <optional>

#include "graph/graph_overlays.h"
#include "graph/model_document.h"

namespace msa {
struct Report;
struct GraphCost;
struct RooflineEstimate;
}  // namespace msa

namespace msa::ui {

class NodeProperties : public QTreeWidget {
  Q_OBJECT
 public:
  explicit NodeProperties(QWidget* parent = nullptr);
  ~NodeProperties() override;

  // Raw numbers behind formatted values (FLOPs, bytes, ms) are in this role of column 1.
  static constexpr int kValueRole = Qt::UserRole + 1;

  // `edited`: the same model after an edit — the nodes shown that still exist stay shown.
  void setDocument(std::shared_ptr<const ModelDocument> doc, bool edited = false);
  void setMetrics(const QList<NodeMetric>& metrics);  // values listed per node when present
  // The analysis of the document's model (nodes matched by name); null clears it.
  void setReport(std::shared_ptr<const Report> report);
  QStringList shownNodes() const { return m_shown; }
  std::shared_ptr<const ModelDocument> document() const { return m_doc; }
  std::shared_ptr<const Report> report() const { return m_report; }

 public slots:
  void showNodes(const QStringList& names);

 private:
  QTreeWidgetItem* section(const QString& title);
  QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& key, const QString& value, const QString& tip = {});
  void showModel();
  void showKernels(const QStringList& names);
  void showOne(const QString& name);
  void showCost(size_t irIndex);
  void showAnalysis(const QString& name);
  void ensureCosts();

  std::shared_ptr<const ModelDocument> m_doc;
  std::shared_ptr<const Report> m_report;
  QList<NodeMetric> m_metrics;
  QStringList m_shown;
  // Computed on first use for the document: cost per node and the roofline on the default device.
  std::shared_ptr<const GraphCost> m_cost;
  std::shared_ptr<const RooflineEstimate> m_estimate;
  QString m_estimateDevice;
};

// "[1, 64, 3, 3]"-style texts for attributes, shortened past a few dozen values.
QString formatAttribute(const Attribute& a);

}  // namespace msa::ui
