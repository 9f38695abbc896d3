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
  // The model is exactly the file at `path` (loadDocument). An edited model keeps the path it
  // came from but is not on disk: whatever needs a file (the out-of-process profiler) writes it.
  bool onDisk = false;
  std::shared_ptr<const Model> model;
  std::shared_ptr<const ViewGraph> graph;
  ShapeReport shapes;
  // Heatmap choices available without profiling: the cost model's estimated time, FLOPs and
  // memory traffic, and parameters. The first is the default heatmap.
  QList<NodeMetric> metrics;
  QString estimateDevice;  // display name of the device the time estimate is for
  qint64 parameters = 0;
  double loadSeconds = 0;
};

// The device estimates are made for until the user analyses: the CLI's default too.
inline constexpr const char* kDefaultEstimateDevice = "ascend910b";

// Loads the file, infers shapes (a failure there is a warning: the graph still draws) and
// builds the view graph. `cancel` is checked between the stages.
Result<ModelDocument> loadDocument(const QString& path, const std::atomic<bool>* cancel = nullptr);
// The same for a model already in memory (tests, benchmarks, a model after a rewrite), with
// the shapes inferred on it.
ModelDocument makeDocument(std::shared_ptr<const Model> model, QString label, ShapeReport shapes = {});

// Metrics from the cost model (core/cost) on `deviceId`: "Estimated time" (roofline, ms),
// "FLOPs", "Memory traffic" (bytes read + written). Nodes whose cost is unknown have no value.
// Fills `deviceName` with the device's display name; empty list when the device is unknown.
QList<NodeMetric> costMetrics(const Model& model, const std::string& deviceId, QString* deviceName = nullptr);
// Parameters each node reads (initializers and weights kept in Constant nodes).
NodeMetric parametersMetric(const Model& model);

}  // namespace msa::ui
