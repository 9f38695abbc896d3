#include "graph/model_document.h"

#include <QElapsedTimer>

#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "rules/ge_fusion.h"

namespace msa::ui {
namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

QList<NodeMetric> costMetrics(const Model& model, const std::string& deviceId, QString* deviceName) {
  auto device = loadDevice(deviceId);
  if (!device) return {};
  const Graph& g = model.graph;
  const GraphIndex index(g);  // on an Ascend profile: the graph ATC compiles, fused kernels priced once
  const GraphCost cost = computeCosts(index);
  const RooflineEstimate est = compiledRoofline(model, index, cost, *device, {}, nullptr, nullptr);
  const QString dev = QString::fromStdString(device->displayName);
  if (deviceName) *deviceName = dev;
  NodeMetric time{QStringLiteral("Estimated time"), QStringLiteral("ms"), {}, NodeMetric::Aggregate::Sum,
                  QStringLiteral("roofline, %1"), dev, QString::fromStdString(device->displayNameZh)};
  NodeMetric flops{QStringLiteral("FLOPs"), QStringLiteral("FLOP"), {}, NodeMetric::Aggregate::Sum,
                   QStringLiteral("cost model; a multiply-add counts 2")};
  NodeMetric bytes{QStringLiteral("Memory traffic"), QStringLiteral("B"), {}, NodeMetric::Aggregate::Sum,
                   QStringLiteral("cost model: bytes read + written")};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.is("Constant")) continue;
    const QString name = qs(n.name);
    if (est.nodes[i].known) time.values.insert(name, est.nodes[i].seconds * 1e3);
    if (cost.nodes[i].known) {
      flops.values.insert(name, cost.nodes[i].flops);
      bytes.values.insert(name, cost.nodes[i].bytes());
    }
  }
  return {time, flops, bytes};
}

NodeMetric parametersMetric(const Model& model) {
  NodeMetric m;
  m.name = QStringLiteral("Parameters");
  m.unit = QString();
  m.description = QStringLiteral("weight elements each node reads");
  const Graph& g = model.graph;
  GraphIndex index(g);
  for (const Node& n : g.nodes) {
    double params = 0;
    for (const std::string& in : n.inputs)  // initializers, or weights stored as Constant nodes
      if (const Tensor* t = in.empty() ? nullptr : index.constant(in)) params += static_cast<double>(t->numElements());
    if (params > 0) m.values.insert(qs(n.name), params);
  }
  return m;
}

ModelDocument makeDocument(std::shared_ptr<const Model> model, QString label, ShapeReport shapes) {
  ModelDocument d;
  d.path = std::move(label);
  d.graph = std::make_shared<const ViewGraph>(ViewGraph::build(model->graph));
  for (const Tensor& t : model->graph.initializers) d.parameters += t.numElements();
  for (const Node& n : model->graph.nodes)  // exporters such as paddle2onnx keep weights in Constants
    if (n.is("Constant") && n.inputs.empty())
      if (const Attribute* a = n.attr("value"); a && !a->tensors.empty()) d.parameters += a->tensors.front().numElements();
  d.metrics = costMetrics(*model, kDefaultEstimateDevice, &d.estimateDevice);
  for (NodeMetric& m : d.metrics)
    for (const std::string& dim : shapes.unboundDims) m.unboundDims << qs(dim);
  d.shapes = std::move(shapes);
  d.metrics.push_back(parametersMetric(*model));
  d.model = std::move(model);
  return d;
}

Result<ModelDocument> loadDocument(const QString& path, const std::atomic<bool>* cancel) {
  QElapsedTimer timer;
  timer.start();
  auto loaded = loadModel(path.toStdString());
  if (!loaded) return loaded.error();
  if (cancel && cancel->load()) return Error::cancelled();
  auto model = std::make_shared<Model>(std::move(*loaded));
  ShapeReport shapes;
  if (auto r = inferShapes(*model)) shapes = std::move(*r);
  else shapes.warnings.push_back(r.error().describe());  // the graph still draws without shapes
  if (cancel && cancel->load()) return Error::cancelled();
  ModelDocument d = makeDocument(std::move(model), path, std::move(shapes));
  d.onDisk = true;
  d.loadSeconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  return d;
}

}  // namespace msa::ui
