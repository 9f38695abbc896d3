#pragma once
// The Properties panel: for one selected node its op type, scope, attributes, and the dtype and
// shape of every input and output (weights marked as such); for several, a summary by op type.
#include <QTreeWidget>
#include <memory>

#include "graph/graph_overlays.h"
#include "graph/model_document.h"

namespace msa::ui {

class NodeProperties : public QTreeWidget {
  Q_OBJECT
 public:
  explicit NodeProperties(QWidget* parent = nullptr);

  void setDocument(std::shared_ptr<const ModelDocument> doc);
  void setMetrics(const QList<NodeMetric>& metrics);  // values listed per node when present

 public slots:
  void showNodes(const QStringList& names);

 private:
  QTreeWidgetItem* section(const QString& title);
  void row(QTreeWidgetItem* parent, const QString& key, const QString& value, const QString& tip = {});
  void showModel();
  void showOne(const QString& name);

  std::shared_ptr<const ModelDocument> m_doc;
  QList<NodeMetric> m_metrics;
};

// "[1, 64, 3, 3]"-style texts for attributes, shortened past a few dozen values.
QString formatAttribute(const Attribute& a);

}  // namespace msa::ui
