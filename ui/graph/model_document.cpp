#include "graph/model_document.h"

#include <QElapsedTimer>

#include "model/graph_index.h"
#include "model/onnx_io.h"

namespace msa::ui {
namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

NodeMetric outputBytesMetric(const Model& model) {
  NodeMetric m;
  m.name = QStringLiteral("Output size");
  m.unit = QStringLiteral("B");
  const Graph& g = model.graph;
  GraphIndex index(g);
  for (const Node& n : g.nodes) {
    if (n.is("Constant")) continue;
    double bytes = 0;
    bool known = false;
    for (const std::string& out : n.outputs) {
      const Shape* s = out.empty() ? nullptr : index.shape(out);
      const int size = dtypeSize(index.dtype(out));
      if (!s || !s->fullyKnown() || size == 0) continue;
      bytes += static_cast<double>(s->numElements()) * size;
      known = true;
    }
    if (known) m.values.insert(qs(n.name), bytes);
  }
  return m;
}

NodeMetric parametersMetric(const Model& model) {
  NodeMetric m;
  m.name = QStringLiteral("Parameters");
  m.unit = QString();
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

ModelDocument makeDocument(std::shared_ptr<const Model> model, QString label) {
  ModelDocument d;
  d.path = std::move(label);
  d.graph = std::make_shared<const ViewGraph>(ViewGraph::build(model->graph));
  for (const Tensor& t : model->graph.initializers) d.parameters += t.numElements();
  for (const Node& n : model->graph.nodes)  // exporters such as paddle2onnx keep weights in Constants
    if (n.is("Constant") && n.inputs.empty())
      if (const Attribute* a = n.attr("value"); a && !a->tensors.empty()) d.parameters += a->tensors.front().numElements();
  d.metrics = {outputBytesMetric(*model), parametersMetric(*model)};
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
  ModelDocument d = makeDocument(std::move(model), path);
  d.shapes = std::move(shapes);
  d.loadSeconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  return d;
}

}  // namespace msa::ui
