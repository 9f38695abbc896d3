#pragma once
// An opened model as the UI holds it: the IR (read-only, shared), its drawable graph and the
// metrics the IR alone gives. Built on a worker thread by loadDocument(); the GUI thread only
// receives the finished value.
#include <QList>
#include <QString>
#include <atomic>
#include <memory>

#include "graph/graph_overlays.h"
#include "graph/view_graph.h"
#include "model/graph.h"
#include "model/shape_inference.h"
#include "util/error.h"

namespace msa::ui {

struct ModelDocument {
  QString path;
  std::shared_ptr<const Model> model;
  std::shared_ptr<const ViewGraph> graph;
  ShapeReport shapes;
  QList<NodeMetric> metrics;  // heatmap choices available without profiling
  qint64 parameters = 0;
  double loadSeconds = 0;
};

// Loads the file, infers shapes (a failure there is a warning: the graph still draws) and
// builds the view graph. `cancel` is checked between the stages.
Result<ModelDocument> loadDocument(const QString& path, const std::atomic<bool>* cancel = nullptr);
// The same for a model already in memory (tests, benchmarks, a model after a rewrite).
ModelDocument makeDocument(std::shared_ptr<const Model> model, QString label);

// Metrics from the IR and shapes: bytes written by each node, and parameters it reads.
NodeMetric outputBytesMetric(const Model& model);
NodeMetric parametersMetric(const Model& model);

}  // namespace msa::ui
