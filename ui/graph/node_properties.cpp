#include "graph/node_properties.h"

#include <QCoreApplication>
#include <QSet>

#include <QHeaderView>
#include <QMap>
#include <algorithm>

#include "graph/graph_overlays.h"
#include "advisor/advisor.h"
#include "cost/roofline.h"
#include "i18n/language.h"
#include "model/graph_index.h"
#include "report/report_format.h"
#include "rules/ge_fusion.h"

namespace msa::ui {
namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// An efficiency above 100 % is not a figure: the run beat the roofline the device figures give
// (cache effects, or figures that are wrong for this machine). Flagged, not printed.
QString efficiencyText(double efficiency) {
  if (efficiency > 1.0)
    return QCoreApplication::translate("msa::ui::NodeProperties",
                                       "above 100 %: faster than the device figures allow (cache effects or calibration)");
  return percentText(efficiency);
}

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
    case AttrType::Strings: return list(a.strings, [](const std::string& v) -> QString { return QLatin1Char('"') + qs(v) + QLatin1Char('"'); });
    case AttrType::Tensor: return a.tensors.empty() ? QStringLiteral("tensor") : QStringLiteral("tensor ") + tensorText(a.tensors.front());
    case AttrType::Graph:
      return a.graphs.empty() ? QStringLiteral("graph") : QStringLiteral("subgraph, %1 nodes").arg(a.graphs.front().nodes.size());
    case AttrType::Graphs: return QStringLiteral("%1 subgraphs").arg(a.graphs.size());
    case AttrType::Tensors: return QStringLiteral("%1 tensors").arg(a.tensors.size());
    default: break;
  }
  return QStringLiteral("(%1)").arg(static_cast<int>(a.type));
}

NodeProperties::~NodeProperties() = default;

NodeProperties::NodeProperties(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(2);
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

void NodeProperties::setDocument(std::shared_ptr<const ModelDocument> doc, bool edited) {
  m_doc = std::move(doc);
  m_cost.reset();
  m_estimate.reset();
  m_report.reset();
  QStringList keep;
  if (edited && m_doc)
    for (const QString& n : m_shown)
      if (m_doc->graph->nodeIndex(n) >= 0) keep << n;
  showNodes(keep);
}

void NodeProperties::setReport(std::shared_ptr<const Report> report) {
  m_report = std::move(report);
  showNodes(m_shown);
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

QTreeWidgetItem* NodeProperties::row(QTreeWidgetItem* parent, const QString& key, const QString& value, const QString& tip) {
  auto* item = new QTreeWidgetItem(parent, {key, value});
  item->setToolTip(1, tip.isEmpty() ? value : tip);
  return item;
}

void NodeProperties::showNodes(const QStringList& names) {
  clear();
  setHeaderLabels({tr("Property"), tr("Value")});  // in the language of the moment
  m_shown = names;
  if (!m_doc && m_report && m_report->profileOnly) {  // a device's run without its model
    showKernels(names);
    resizeColumnToContents(0);
    return;
  }
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
      if (m.aggregate == NodeMetric::Aggregate::Mean) continue;  // a ratio (efficiency): below, from its terms
      // The load-time roofline time is another device's (the default estimate device) once an
      // analysis prices this one: its total is not shown beside the analysis's figures.
      const bool loadTimeEstimate = m.unit == QStringLiteral("ms") &&
                                    std::any_of(m_doc->metrics.cbegin(), m_doc->metrics.cend(),
                                                [&](const NodeMetric& d) { return d.name == m.name; });
      if (m_report && loadTimeEstimate && m.where != qs(m_report->deviceName)) continue;
      double acc = 0;
      int count = 0;
      for (const QString& n : names)
        if (auto v = m.values.constFind(n); v != m.values.constEnd()) {
          acc = count == 0 || m.aggregate == NodeMetric::Aggregate::Sum ? (count == 0 ? *v : acc + *v) : std::max(acc, *v);
          ++count;
        }
      if (count)
        row(section(metricTitle(m.name)), m.aggregate == NodeMetric::Aggregate::Max ? tr("largest") : tr("total"),
            formatMetric(acc, m.unit));
    }
    // The selection's efficiency, the one way a node's is computed: roofline time over measured
    // time in the same (unoptimized) run, summed over the measured nodes — never an average or a
    // sum of percentages.
    if (m_report) {
      const QSet<QString> selected(names.cbegin(), names.cend());
      double roofline = 0, measured = 0;
      int count = 0;
      for (const NodeReport& n : m_report->nodes)
        if (n.measuredMs > 0 && selected.contains(qs(n.name))) {
          roofline += n.estimatedMs;
          measured += n.measuredMs;
          ++count;
        }
      if (measured > 0)
        row(section(tr("Efficiency")), tr("%n measured nodes", nullptr, count), efficiencyText(roofline / measured),
            tr("roofline time / measured time, summed over the selection"));
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
  const QString nodes = QString::number(m.graph.nodes.size());
  const int hidden = g.hiddenNodeCount();
  row(s, tr("nodes"), hidden ? tr("%1 (%n constant(s) not drawn)", nullptr, hidden).arg(nodes) : nodes);
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
  const Node* ir = irNodeOf(graph, vn);
  if (!ir) return;
  const Node& node = *ir;
  const bool inBody = !vn.bodyPath.empty();  // inside an If/Loop/Scan body: its cost is its owner's
  GraphIndex index(graph);
  auto* s = section(tr("Node"));
  row(s, tr("name"), vn.id);
  row(s, tr("op type"), vn.opType + (vn.domain.isEmpty() ? QString() : QStringLiteral("  (") + vn.domain + QLatin1Char(')')));
  row(s, tr("category"), opCategoryTitle(vn.category));
  if (vn.block >= 0) row(s, tr("scope"), g.blocks()[static_cast<size_t>(vn.block)].path);
  for (const NodeMetric& m : m_metrics) {
    const bool builtin = std::any_of(m_doc->metrics.cbegin(), m_doc->metrics.cend(), [&](const NodeMetric& d) { return d.name == m.name; });
    if (builtin) continue;  // in the Cost section
    if (auto v = m.values.constFind(name); v != m.values.constEnd()) row(s, metricTitle(m.name), formatMetric(*v, m.unit));
  }
  if (m_report) showAnalysis(name);
  if (!inBody) showCost(static_cast<size_t>(vn.irIndex));
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

namespace {


QString boundText(std::string_view bound) {
  if (bound == "compute") return NodeProperties::tr("compute-bound");
  if (bound == "memory") return NodeProperties::tr("memory-bound");
  if (bound == "overhead") return NodeProperties::tr("launch-overhead-bound");
  return NodeProperties::tr("unknown");
}

// The kernel ATC's graph engine fuses a node into (an Ascend estimate prices the compiled graph).
QString compiledKernelText(const QString& anchor, bool launches) {
  return launches ? NodeProperties::tr("launches a kernel fused by ATC's graph engine")
                  : NodeProperties::tr("inside %1's kernel (fused by ATC's graph engine)").arg(anchor);
}

}  // namespace

void NodeProperties::ensureCosts() {
  if (m_cost || !m_doc) return;
  const Graph& g = m_doc->model->graph;
  auto cost = std::make_shared<GraphCost>(computeCosts(g));
  if (auto device = loadDevice(kDefaultEstimateDevice)) {
    const GraphIndex index(g);
    m_estimate = std::make_shared<const RooflineEstimate>(
        compiledRoofline(*m_doc->model, index, *cost, *device, {}, nullptr, nullptr));
    m_estimateDevice = deviceTitle(*device);
  }
  m_cost = std::move(cost);
}

void NodeProperties::showCost(size_t irIndex) {
  ensureCosts();
  if (!m_cost || irIndex >= m_cost->nodes.size()) return;
  const OpCost& c = m_cost->nodes[irIndex];
  auto* s = section(tr("Cost"));
  auto number = [&](const QString& key, double v, const QString& unit, const QString& exact) {
    QTreeWidgetItem* item = row(s, key, formatMetric(v, unit), exact);
    item->setData(1, kValueRole, v);
  };
  if (!c.known) row(s, tr("cost"), tr("unknown: %1").arg(qs(c.reason)));
  number(tr("FLOPs"), c.flops, QStringLiteral("FLOP"), QString::number(c.flops, 'f', 0) + tr(" FLOP (a multiply-add counts 2)"));
  if (c.macs > 0) number(tr("MACs"), c.macs, QString(), QString::number(c.macs, 'f', 0));
  number(tr("bytes read"), c.bytesRead, QStringLiteral("B"), QString::number(c.bytesRead, 'f', 0) + tr(" bytes, weights included"));
  number(tr("bytes written"), c.bytesWritten, QStringLiteral("B"), QString::number(c.bytesWritten, 'f', 0) + tr(" bytes"));
  if (c.paramBytes > 0) number(tr("weight bytes"), c.paramBytes, QStringLiteral("B"), QString::number(c.paramBytes, 'f', 0) + tr(" bytes"));
  for (const NodeMetric& m : m_doc->metrics)
    if (m.unit.isEmpty())  // parameters
      if (auto v = m.values.constFind(qs(m_doc->model->graph.nodes[irIndex].name)); v != m.values.constEnd())
        number(tr("parameters"), *v, QString(), QString::number(*v, 'f', 0));
  if (c.bytes() > 0) row(s, tr("intensity"), tr("%1 FLOP/byte").arg(c.intensity(), 0, 'g', 3));
  // The roofline on the analysed device once there is a report, else on the default device.
  const NodeReport* nr = nullptr;
  if (m_report)
    for (const NodeReport& n : m_report->nodes)
      if (n.name == m_doc->model->graph.nodes[irIndex].name) nr = &n;
  if (nr) {
    const QString dev = deviceTitle(*m_report);
    number(tr("roofline time"), nr->estimatedMs, QStringLiteral("ms"), tr("roofline estimate on %1, launch included").arg(dev));
    row(s, tr("bound"), boundText(nr->bound));
    if (!nr->kernel.empty()) row(s, tr("compiled kernel"), compiledKernelText(qs(nr->kernel), nr->name == nr->kernel));
  } else if (m_estimate && irIndex < m_estimate->nodes.size()) {
    const NodeEstimate& e = m_estimate->nodes[irIndex];
    number(tr("roofline time"), e.seconds * 1e3, QStringLiteral("ms"), tr("roofline estimate on %1, launch included").arg(m_estimateDevice));
    row(s, tr("bound"), e.elided ? tr("elided by the compiler") : boundText(boundName(e.bound)));
    if (e.kernelAnchor >= 0) {
      const size_t anchor = static_cast<size_t>(e.kernelAnchor);
      row(s, tr("compiled kernel"), compiledKernelText(qs(m_doc->model->graph.nodes[anchor].name), anchor == irIndex));
    }
  }
}

void NodeProperties::showAnalysis(const QString& name) {
  const Report& r = *m_report;
  const std::string id = name.toStdString();
  const NodeReport* nr = nullptr;
  for (const NodeReport& n : r.nodes)
    if (n.name == id) nr = &n;
  if (!nr) return;
  auto* s = section(r.latencySource == "measured" ? tr("Measured") : tr("Analysis"));
  auto number = [&](QTreeWidgetItem* sec, const QString& key, double v, const QString& text, const QString& tip = {}) {
    QTreeWidgetItem* item = row(sec, key, text, tip);
    item->setData(1, kValueRole, v);
  };
  // The profile entry that ran this node (a fused entry covers several IR nodes).
  auto entryOf = [&](const std::optional<ProfileData>& p) -> const NodeProfile* {
    if (!p) return nullptr;
    for (const NodeProfile& e : p->nodes)
      if (std::find(e.irNodes.begin(), e.irNodes.end(), id) != e.irNodes.end()) return &e;
    return nullptr;
  };
  if (nr->measuredMs >= 0) {
    number(s, tr("time"), nr->measuredMs, durationText(nr->measuredMs), tr("median per run; a fused entry's time is split over its nodes"));
    if (const NodeProfile* e = entryOf(r.profile)) {
      // A control-flow node's profiled span holds the profiler's cost for its body's events; the
      // time above is capped at what the unprofiled run leaves it (core's analysis_state).
      const bool controlFlow = nr->opType == "If" || nr->opType == "Loop" || nr->opType == "Scan";
      if (controlFlow && e->timeMs.median > nr->measuredMs * 1.01)
        number(s, tr("profiled span"), e->timeMs.median, durationText(e->timeMs.median),
               tr("Includes the profiler's own cost for every node of its body; the time above is what the run "
                  "without the profiler leaves it, never more than the latency."));
      else
        number(s, tr("median / p10 / p90"), e->timeMs.median,
               QStringLiteral("%1 / %2 / %3").arg(durationText(e->timeMs.median), durationText(e->timeMs.p10), durationText(e->timeMs.p90)),
               tr("%1 runs of %2").arg(e->timeMs.count).arg(qs(e->name)));
      QString kernel = qs(e->opType);
      if (!e->kernel.empty()) kernel += QStringLiteral("  ·  ") + qs(e->kernel);
      row(s, tr("kernel"), kernel);
      if (e->irNodes.size() > 1) row(s, tr("runs with"), tr("%n nodes in one kernel", nullptr, static_cast<int>(e->irNodes.size())));
    }
    if (const NodeProfile* e = entryOf(r.runtimeProfile)) {
      QString text = qs(e->opType) + QStringLiteral("  ·  ") + durationText(e->timeMs.median);
      if (e->irNodes.size() > 1) text += QStringLiteral("  ·  ") + tr("fused with %n other nodes", nullptr, static_cast<int>(e->irNodes.size() - 1));
      row(s, tr("optimized runtime"), text, qs(e->name));
    }
    row(s, tr("share of time"), percentText(nr->share));
  } else {
    row(s, tr("time"), r.latencySource == "measured" ? tr("not run (folded or removed by the runtime)") : tr("not profiled"));
  }
  if (nr->efficiency >= 0) {
    number(s, tr("efficiency"), nr->efficiency, efficiencyText(nr->efficiency), tr("roofline time / measured time"));
  }
  // Position against the roofs: which side of the ridge and how far below the roof.
  double peak = 0;
  for (const Report::Roof& roof : r.roofs) peak = std::max(peak, roof.flopsPerSecond);
  const double bw = r.bandwidthBytesPerSecond;
  if (nr->flops > 0 && nr->bytes > 0 && peak > 0 && bw > 0) {
    const double intensity = nr->flops / nr->bytes, ridge = peak / bw;
    const double roofAt = std::min(peak, bw * intensity);
    const double t = nr->measuredMs > 0 ? nr->measuredMs : nr->estimatedMs;
    const double achieved = t > 0 ? nr->flops / (t * 1e-3) : 0;
    const QString side = intensity < ridge ? tr("left of the ridge (%1 FLOP/byte): under the memory slope").arg(ridge, 0, 'g', 3)
                                           : tr("right of the ridge (%1 FLOP/byte): under the compute ceiling").arg(ridge, 0, 'g', 3);
    row(s, tr("roofline position"),
        tr("%1, %2 of the roof (%3)")
            .arg(formatMetric(achieved, QStringLiteral("FLOP/s")))
            .arg(percentText(roofAt > 0 ? achieved / roofAt : 0))
            .arg(formatMetric(roofAt, QStringLiteral("FLOP/s"))),
        side);
  }
  if (!nr->findings.empty()) {
    auto* f = section(tr("Findings"));
    for (const std::string& fid : nr->findings) {
      const Finding* finding = r.finding(fid);
      if (!finding) continue;
      const FindingText text = renderFinding(*finding, coreLanguage());
      QTreeWidgetItem* item = row(f, qs(std::string(priorityName(finding->priority))), qs(text.title) + QStringLiteral("  ·  ") + durationText(finding->impact.ms),
                                  qs(text.suggestion));
      item->setData(0, kValueRole, QString::fromStdString(fid));
    }
  }
}

// A profile without its model: the run, or the kernels a finding names (the report's kernel rows).
void NodeProperties::showKernels(const QStringList& requested) {
  const Report& r = *m_report;
  // A job's finding names ranks or links, not kernels: those show the run.
  QStringList names;
  for (const QString& n : requested)
    if (std::any_of(r.nodes.begin(), r.nodes.end(), [&](const NodeReport& k) { return k.name == n.toStdString(); })) names << n;
  if (names.isEmpty()) {
    auto* s = section(tr("Run"));
    row(s, tr("profile"), qs(r.profilePath));
    row(s, tr("device"), qs(report::deviceDetail(r, coreLanguage())));
    row(s, tr("kernels"), QString::number(r.nodes.size()));
    row(s, tr("step"), durationText(r.latencyMs));
    row(s, tr("selection"), tr("Click a finding to see its kernels here."));
    return;
  }
  if (names.size() == 1) {
    for (const NodeReport& n : r.nodes)
      if (n.name == names.front().toStdString()) {
        auto* s = section(tr("Kernel"));
        row(s, tr("name"), names.front());
        row(s, tr("type"), qs(n.opType));
        if (n.estimatedMs > 0) row(s, tr("roofline"), durationText(n.estimatedMs), qs(n.bound));
        if (n.predictedMs > 0) row(s, tr("predicted"), durationText(n.predictedMs), tr("the roofline scaled by the efficiency fitted on real kernels of its class"));
        break;
      }
    showAnalysis(names.front());
    return;
  }
  QMap<QString, int> byType;
  double measured = 0;
  const QSet<QString> selected(names.cbegin(), names.cend());
  for (const NodeReport& n : r.nodes)
    if (selected.contains(qs(n.name))) {
      ++byType[qs(n.opType)];
      measured += std::max(0.0, n.measuredMs);
    }
  auto* s = section(tr("%n kernel(s) selected", nullptr, static_cast<int>(names.size())));
  for (auto it = byType.cbegin(); it != byType.cend(); ++it) row(s, it.key(), QString::number(it.value()));
  row(section(tr("Measured")), tr("total"), durationText(measured), tr("per step"));
}

}  // namespace msa::ui
