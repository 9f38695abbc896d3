#include "graph/node_properties.h"

#include <QHeaderView>
#include <QMap>

#include "model/graph_index.h"

namespace msa::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

template <typename T, typename F>
QString list(const std::vector<T>& v, F fmt, size_t limit = 24) {
  QStringList parts;
  for (size_t i = 0; i < v.size() && i < limit; ++i) parts << fmt(v[i]);
  if (v.size() > limit) parts << QStringLiteral("… (%1 values)").arg(v.size());
  return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QString tensorText(const Tensor& t) {
  QStringList dims;
  for (int64_t d : t.dims) dims << QString::number(d);
  return qs(dtypeName(t.dtype)) + QStringLiteral(" [") + dims.join(QChar(0x00D7)) + QLatin1Char(']');
}

}  // namespace

QString formatAttribute(const Attribute& a) {
  switch (a.type) {
    case AttrType::Int: return QString::number(a.i);
    case AttrType::Float: return QString::number(static_cast<double>(a.f), 'g', 6);
    case AttrType::String: return QLatin1Char('"') + qs(a.s) + QLatin1Char('"');
    case AttrType::Ints: return list(a.ints, [](int64_t v) { return QString::number(v); });
    case AttrType::Floats: return list(a.floats, [](float v) { return QString::number(static_cast<double>(v), 'g', 5); });
    case AttrType::Strings: return list(a.strings, [](const std::string& v) { return QLatin1Char('"') + qs(v) + QLatin1Char('"'); });
    case AttrType::Tensor: return a.tensors.empty() ? QStringLiteral("tensor") : QStringLiteral("tensor ") + tensorText(a.tensors.front());
    case AttrType::Graph:
      return a.graphs.empty() ? QStringLiteral("graph") : QStringLiteral("subgraph, %1 nodes").arg(a.graphs.front().nodes.size());
    case AttrType::Graphs: return QStringLiteral("%1 subgraphs").arg(a.graphs.size());
    case AttrType::Tensors: return QStringLiteral("%1 tensors").arg(a.tensors.size());
    default: break;
  }
  return QStringLiteral("(%1)").arg(static_cast<int>(a.type));
}

NodeProperties::NodeProperties(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
  setHeaderLabels({tr("Property"), tr("Value")});
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(true);
  setRootIsDecorated(false);
  setHeaderHidden(true);
  setIndentation(12);
  setAlternatingRowColors(true);
  setUniformRowHeights(true);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  setWordWrap(false);
  setTextElideMode(Qt::ElideRight);
}

void NodeProperties::setDocument(std::shared_ptr<const ModelDocument> doc) {
  m_doc = std::move(doc);
  showNodes({});
}

void NodeProperties::setMetrics(const QList<NodeMetric>& metrics) { m_metrics = metrics; }

QTreeWidgetItem* NodeProperties::section(const QString& title) {
  auto* item = new QTreeWidgetItem(this, {title});
  QFont f = font();
  f.setBold(true);
  item->setFont(0, f);
  item->setFirstColumnSpanned(true);
  item->setExpanded(true);
  item->setFlags(Qt::ItemIsEnabled);
  return item;
}

void NodeProperties::row(QTreeWidgetItem* parent, const QString& key, const QString& value, const QString& tip) {
  auto* item = new QTreeWidgetItem(parent, {key, value});
  item->setToolTip(1, tip.isEmpty() ? value : tip);
}

void NodeProperties::showNodes(const QStringList& names) {
  clear();
  if (!m_doc) return;
  if (names.isEmpty()) {
    showModel();
  } else if (names.size() == 1) {
    showOne(names.front());
  } else {
    QMap<QString, int> histogram;
    const ViewGraph& g = *m_doc->graph;
    for (const QString& n : names) {
      const int i = g.nodeIndex(n);
      if (i >= 0) ++histogram[g.nodes()[static_cast<size_t>(i)].opType];
    }
    auto* s = section(tr("%1 nodes selected").arg(names.size()));
    for (auto it = histogram.cbegin(); it != histogram.cend(); ++it) row(s, it.key(), QString::number(it.value()));
    for (const NodeMetric& m : m_metrics) {
      double sum = 0;
      int count = 0;
      for (const QString& n : names)
        if (auto v = m.values.constFind(n); v != m.values.constEnd()) sum += *v, ++count;
      if (count) row(section(m.name), tr("total"), formatMetric(sum, m.unit));
    }
  }
  resizeColumnToContents(0);
}

void NodeProperties::showModel() {
  const Model& m = *m_doc->model;
  const ViewGraph& g = *m_doc->graph;
  auto* s = section(tr("Model"));
  row(s, tr("file"), m_doc->path);
  row(s, tr("producer"), qs(m.producerName) + QLatin1Char(' ') + qs(m.producerVersion));
  QStringList opsets;
  for (const OpsetImport& o : m.opsets) opsets << (o.domain.empty() ? QStringLiteral("ai.onnx") : qs(o.domain)) + QLatin1Char(' ') + QString::number(o.version);
  row(s, tr("opsets"), opsets.join(QStringLiteral(", ")));
  row(s, tr("nodes"), tr("%1 (%2 constants not drawn)").arg(m.graph.nodes.size()).arg(g.hiddenNodeCount()));
  row(s, tr("parameters"), formatMetric(static_cast<double>(m_doc->parameters), QString()));
  row(s, tr("scope blocks"), QString::number(g.blocks().size()));
  auto* io = section(tr("Inputs and outputs"));
  for (const ViewNode& n : g.nodes())
    if (n.kind != ViewNode::Kind::Op) row(io, (n.kind == ViewNode::Kind::Input ? tr("in ") : tr("out ")) + n.label, n.detail);
  if (!m_doc->shapes.warnings.empty()) {
    auto* w = section(tr("Shape inference"));
    for (const std::string& msg : m_doc->shapes.warnings) row(w, tr("warning"), qs(msg));
  }
}

void NodeProperties::showOne(const QString& name) {
  const ViewGraph& g = *m_doc->graph;
  const int vi = g.nodeIndex(name);
  if (vi < 0) return;
  const ViewNode& vn = g.nodes()[static_cast<size_t>(vi)];
  const Graph& graph = m_doc->model->graph;
  if (vn.kind != ViewNode::Kind::Op) {
    auto* s = section(vn.kind == ViewNode::Kind::Input ? tr("Graph input") : tr("Graph output"));
    row(s, tr("name"), vn.label);
    row(s, tr("type"), vn.detail);
    return;
  }
  const Node& node = graph.nodes[static_cast<size_t>(vn.irIndex)];
  GraphIndex index(graph);
  auto* s = section(tr("Node"));
  row(s, tr("name"), vn.id);
  row(s, tr("op type"), vn.opType + (vn.domain.isEmpty() ? QString() : QStringLiteral("  (") + vn.domain + QLatin1Char(')')));
  row(s, tr("category"), opCategoryName(vn.category));
  if (vn.block >= 0) row(s, tr("scope"), g.blocks()[static_cast<size_t>(vn.block)].path);
  for (const NodeMetric& m : m_metrics)
    if (auto v = m.values.constFind(name); v != m.values.constEnd()) row(s, m.name.toLower(), formatMetric(*v, m.unit));
  auto value = [&](const std::string& v) -> QString {
    if (v.empty()) return tr("(omitted)");
    if (const Tensor* t = index.initializer(v)) return tr("weight ") + tensorText(*t);
    if (const Tensor* t = index.constant(v)) return tr("constant ") + tensorText(*t);
    const msa::Shape* shape = index.shape(v);
    const QString dims = shape ? QLatin1Char('[') + formatShape(shape) + QLatin1Char(']') : tr("[unknown shape]");
    return qs(dtypeName(index.dtype(v))) + QLatin1Char(' ') + dims;
  };
  // Operands by position; the tensor name follows the type (and is the tooltip), so long
  // exporter names do not push the types out of view.
  auto operand = [&](QTreeWidgetItem* sec, size_t i, const std::string& v) {
    const QString name = v.empty() ? QString() : qs(v);
    row(sec, QStringLiteral("#%1").arg(i), value(v) + (name.isEmpty() ? QString() : QStringLiteral("  ·  ") + name), name);
  };
  auto* in = section(tr("Inputs"));
  for (size_t i = 0; i < node.inputs.size(); ++i) operand(in, i, node.inputs[i]);
  auto* out = section(tr("Outputs"));
  for (size_t i = 0; i < node.outputs.size(); ++i) operand(out, i, node.outputs[i]);
  if (!node.attributes.empty()) {
    auto* at = section(tr("Attributes"));
    for (const Attribute& a : node.attributes) row(at, qs(a.name), formatAttribute(a));
  }
  if (!node.docString.empty()) row(section(tr("Documentation")), tr("doc"), qs(node.docString));
}

}  // namespace msa::ui
