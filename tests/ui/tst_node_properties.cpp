// The Properties panel on ResNet-18: a node's cost rows are core's computeCosts figures, its
// roofline time and bound the estimate's; with a Report, the analysis rows (roofline position,
// findings naming the node) appear and follow the report's device.
#include <QTest>
#include <QTreeWidget>
#include <cmath>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "graph/model_document.h"
#include "graph/node_properties.h"
#include "i18n/language.h"
#include "model/onnx_io.h"
#include "model/graph_index.h"
#include "model/shape_inference.h"
#include "rules/ge_fusion.h"
#include "measured_report.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

namespace {

// The row `key` under section `title`; null when absent.
QTreeWidgetItem* findRow(const QTreeWidget& t, const QString& title, const QString& key) {
  for (int i = 0; i < t.topLevelItemCount(); ++i) {
    QTreeWidgetItem* s = t.topLevelItem(i);
    if (s->text(0) != title) continue;
    for (int j = 0; j < s->childCount(); ++j)
      if (s->child(j)->text(0) == key) return s->child(j);
  }
  return nullptr;
}

using test::measuredReport;

QStringList sections(const QTreeWidget& t) {
  QStringList out;
  for (int i = 0; i < t.topLevelItemCount(); ++i) out << t.topLevelItem(i)->text(0);
  return out;
}

}  // namespace

class TstNodeProperties : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void costIsCoreCost_data();
  void costIsCoreCost();
  void analysisRows();
  void findingsNameTheNode();
  void measuredRows();
  void nodeCountSaysWhatIsNotDrawn();
  void stringListAttribute();

 private:
  std::shared_ptr<const ModelDocument> m_doc;
  std::shared_ptr<const Report> m_report;
};

void TstNodeProperties::initTestCase() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  auto m = loadModel(test::corpusModel("resnet18.onnx"));
  QVERIFY(m);
  QVERIFY(inferShapes(*m));
  auto model = std::make_shared<const Model>(std::move(*m));
  m_doc = std::make_shared<const ModelDocument>(makeDocument(model, QStringLiteral("resnet18.onnx")));
  auto dev = loadDevice("ascend310p");
  QVERIFY(dev);
  auto r = analyze(*model, *dev, {}, {});
  QVERIFY(r);
  m_report = std::make_shared<const Report>(std::move(*r));
}

void TstNodeProperties::costIsCoreCost_data() {
  QTest::addColumn<QString>("node");
  QTest::newRow("stem conv") << QStringLiteral("/conv1/Conv");
  QTest::newRow("block conv") << QStringLiteral("/layer2/layer2.0/conv1/Conv");
  QTest::newRow("relu") << QStringLiteral("/relu/Relu");
  QTest::newRow("gemm") << QStringLiteral("/fc/Gemm");
}

void TstNodeProperties::costIsCoreCost() {
  QFETCH(QString, node);
  const Graph& g = m_doc->model->graph;
  const GraphCost cost = computeCosts(g);
  // The default device is an Ascend one: the estimate of the graph ATC compiles (Conv+ReLU one kernel).
  const GraphIndex index(g);
  const RooflineEstimate est =
      compiledRoofline(*m_doc->model, index, cost, *loadDevice(kDefaultEstimateDevice), {}, nullptr, nullptr);
  size_t i = 0;
  while (i < g.nodes.size() && g.nodes[i].name != node.toStdString()) ++i;
  QVERIFY(i < g.nodes.size());
  QVERIFY(cost.nodes[i].flops > 0);

  NodeProperties p;
  p.setDocument(m_doc);
  p.showNodes({node});
  QVERIFY2(sections(p).contains(QStringLiteral("Cost")), qPrintable(sections(p).join(u',')));
  auto value = [&](const QString& key) {
    QTreeWidgetItem* row = findRow(p, QStringLiteral("Cost"), key);
    return row ? row->data(1, NodeProperties::kValueRole).toDouble() : -1.0;
  };
  QCOMPARE(value(QStringLiteral("FLOPs")), cost.nodes[i].flops);
  QCOMPARE(value(QStringLiteral("bytes read")), cost.nodes[i].bytesRead);
  QCOMPARE(value(QStringLiteral("bytes written")), cost.nodes[i].bytesWritten);
  QCOMPARE(value(QStringLiteral("roofline time")), est.nodes[i].seconds * 1e3);
  QTreeWidgetItem* bound = findRow(p, QStringLiteral("Cost"), QStringLiteral("bound"));
  QVERIFY(bound);
  QVERIFY2(bound->text(1).contains(QString::fromLatin1(boundName(est.nodes[i].bound).data())), qPrintable(bound->text(1)));
  // Which fused kernel runs it: the stem ReLU runs inside the stem convolution's kernel.
  QTreeWidgetItem* kernel = findRow(p, QStringLiteral("Cost"), QStringLiteral("compiled kernel"));
  QCOMPARE(kernel != nullptr, est.nodes[i].kernelAnchor >= 0);
  if (node == QLatin1String("/relu/Relu")) {
    QVERIFY(kernel);
    QVERIFY2(kernel->text(1).contains(QStringLiteral("/conv1/Conv")), qPrintable(kernel->text(1)));
  }
  if (node == QLatin1String("/conv1/Conv")) {
    QVERIFY(kernel);
    QVERIFY2(kernel->text(1).contains(QStringLiteral("launches")), qPrintable(kernel->text(1)));
  }
  if (node.endsWith(QLatin1String("Conv")) || node.endsWith(QLatin1String("Gemm"))) {
    // Parameters: the weight (and bias) elements.
    double params = 0;
    for (const std::string& in : g.nodes[i].inputs)
      for (const Tensor& t : g.initializers)
        if (t.name == in) params += static_cast<double>(t.numElements());
    QVERIFY(params > 0);
    QCOMPARE(value(QStringLiteral("parameters")), params);
  }
  // No report yet: no analysis section.
  QVERIFY(!sections(p).contains(QStringLiteral("Analysis")));
}

void TstNodeProperties::analysisRows() {
  NodeProperties p;
  p.setDocument(m_doc);
  p.showNodes({QStringLiteral("/conv1/Conv")});
  p.setReport(m_report);  // refreshes what is shown
  QCOMPARE(p.shownNodes(), QStringList{QStringLiteral("/conv1/Conv")});
  QVERIFY2(sections(p).contains(QStringLiteral("Analysis")), qPrintable(sections(p).join(u',')));
  const NodeReport* nr = nullptr;
  for (const NodeReport& n : m_report->nodes)
    if (n.name == "/conv1/Conv") nr = &n;
  QVERIFY(nr);
  // The roofline time now comes from the report's device (Ascend 310P, not the default 910B).
  QTreeWidgetItem* t = findRow(p, QStringLiteral("Cost"), QStringLiteral("roofline time"));
  QVERIFY(t);
  QCOMPARE(t->data(1, NodeProperties::kValueRole).toDouble(), nr->estimatedMs);
  QVERIFY(t->toolTip(1).contains(QString::fromStdString(m_report->deviceName)));
  QTreeWidgetItem* pos = findRow(p, QStringLiteral("Analysis"), QStringLiteral("roofline position"));
  QVERIFY(pos);
  QVERIFY2(pos->text(1).contains(QStringLiteral("FLOP/s")) && pos->text(1).contains(QStringLiteral("% of the roof")), qPrintable(pos->text(1)));
  QVERIFY(pos->toolTip(1).contains(QStringLiteral("ridge")));
  // Not profiled: says so rather than a number.
  QTreeWidgetItem* time = findRow(p, QStringLiteral("Analysis"), QStringLiteral("time"));
  QVERIFY(time);
  QCOMPARE(time->text(1), QStringLiteral("not profiled"));
  p.setReport(nullptr);
  QVERIFY(!sections(p).contains(QStringLiteral("Analysis")));
}

void TstNodeProperties::findingsNameTheNode() {
  // A node some finding names (ResNet-18 on Ascend: Conv+Relu fusions, alignment…).
  const NodeReport* nr = nullptr;
  for (const NodeReport& n : m_report->nodes)
    if (!n.findings.empty() && !nr) nr = &n;
  QVERIFY(nr);
  NodeProperties p;
  p.setDocument(m_doc);
  p.setReport(m_report);
  p.showNodes({QString::fromStdString(nr->name)});
  QVERIFY2(sections(p).contains(QStringLiteral("Findings")), qPrintable(sections(p).join(u',')));
  QStringList ids;
  for (int i = 0; i < p.topLevelItemCount(); ++i)
    if (p.topLevelItem(i)->text(0) == QStringLiteral("Findings"))
      for (int j = 0; j < p.topLevelItem(i)->childCount(); ++j) {
        QTreeWidgetItem* row = p.topLevelItem(i)->child(j);
        ids << row->data(0, NodeProperties::kValueRole).toString();
        const Finding* f = m_report->finding(ids.back().toStdString());
        QVERIFY(f);
        QCOMPARE(row->text(0), QString::fromLatin1(priorityName(f->priority).data()));
        QVERIFY(!row->text(1).isEmpty());
      }
  QCOMPARE(ids.size(), static_cast<qsizetype>(nr->findings.size()));
  if (const QString dir = qEnvironmentVariable("MSA_SCREENSHOT_DIR"); !dir.isEmpty()) {
    p.resize(420, 760);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    QVERIFY(p.grab().save(dir + QStringLiteral("/properties.png")));
  }
}

// Profiled: median/p10/p90 and the kernel of the runtime entry, the optimized runtime's
// (fused) entry, the efficiency of the report.
void TstNodeProperties::measuredRows() {
  const std::shared_ptr<const Report> r = std::make_shared<const Report>(measuredReport(*m_doc->model));
  QCOMPARE(r->latencySource, std::string("measured"));
  const std::string conv = "/layer1/layer1.0/conv1/Conv";
  const NodeReport* nr = nullptr;
  for (const NodeReport& n : r->nodes)
    if (n.name == conv) nr = &n;
  QVERIFY(nr && nr->measuredMs > 0 && nr->efficiency > 0);
  const NodeProfile* entry = nullptr;
  for (const NodeProfile& e : r->profile->nodes)
    if (std::find(e.irNodes.begin(), e.irNodes.end(), conv) != e.irNodes.end()) entry = &e;
  QVERIFY(entry);
  NodeProperties p;
  p.setDocument(m_doc);
  p.setReport(r);
  p.showNodes({QString::fromStdString(conv)});
  QVERIFY2(sections(p).contains(QStringLiteral("Measured")), qPrintable(sections(p).join(u',')));
  auto row = [&](const char* key) { return findRow(p, QStringLiteral("Measured"), QString::fromLatin1(key)); };
  QVERIFY(row("time"));
  QCOMPARE(row("time")->data(1, NodeProperties::kValueRole).toDouble(), nr->measuredMs);
  QVERIFY(row("median / p10 / p90"));
  QCOMPARE(row("median / p10 / p90")->data(1, NodeProperties::kValueRole).toDouble(), entry->timeMs.median);
  QVERIFY(row("kernel"));
  QVERIFY2(row("kernel")->text(1).contains(QStringLiteral("CPUExecutionProvider")), qPrintable(row("kernel")->text(1)));
  QVERIFY(row("efficiency"));
  QCOMPARE(row("efficiency")->data(1, NodeProperties::kValueRole).toDouble(), nr->efficiency);
  // ONNX Runtime `all` fuses the Conv with its Relu.
  QVERIFY(row("optimized runtime"));
  QVERIFY2(row("optimized runtime")->text(1).contains(QStringLiteral("Conv")), qPrintable(row("optimized runtime")->text(1)));
  QVERIFY(row("roofline position"));
  if (const QString dir = qEnvironmentVariable("MSA_SCREENSHOT_DIR"); !dir.isEmpty()) {
    p.resize(420, 760);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    QVERIFY(p.grab().save(dir + QStringLiteral("/properties_measured.png")));
  }
}

// The model's node count names the Constant nodes the canvas leaves out, and only when there are.
void TstNodeProperties::nodeCountSaysWhatIsNotDrawn() {
  QVERIFY(installTranslators(QStringLiteral("en")));
  auto countRow = [](const std::shared_ptr<const ModelDocument>& doc) {
    NodeProperties p;
    p.setDocument(doc);
    p.showNodes({});
    QTreeWidgetItem* r = findRow(p, QStringLiteral("Model"), QStringLiteral("nodes"));
    return r ? r->text(1) : QStringLiteral("(no row)");
  };
  QCOMPARE(m_doc->graph->hiddenNodeCount(), 0);  // ResNet-18 keeps its weights as initializers
  QCOMPARE(countRow(m_doc), QString::number(m_doc->model->graph.nodes.size()));

  auto withConstant = [](int constants) {
    const std::vector<int64_t> dims{1, 4};
    Model m;
    m.opsets.push_back({"", 17});
    m.graph.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape::of(dims)), {}, {}});
    std::string last = "x";
    for (int i = 0; i < constants; ++i) {
      const std::string k = std::to_string(i);
      Node c;
      c.opType = "Constant";
      c.outputs = {"c" + k};
      c.attributes.push_back(Attribute::makeTensor("value", Tensor::fromValues("", DType::Float, {1, 4}, std::vector<float>(4, 1.0f))));
      m.graph.addNode(std::move(c));
      Node add;
      add.opType = "Add";
      add.inputs = {last, "c" + k};
      add.outputs = {"sum" + k};
      m.graph.addNode(std::move(add));
      last = "sum" + k;
    }
    m.graph.outputs.push_back({last, TypeInfo::tensor(DType::Float, Shape::of(dims)), {}, {}});
    return std::make_shared<const ModelDocument>(
        makeDocument(std::make_shared<const Model>(std::move(m)), QStringLiteral("constants.onnx")));
  };
  QCOMPARE(countRow(withConstant(1)), QStringLiteral("2 (1 constant not drawn)"));
  QCOMPARE(countRow(withConstant(3)), QStringLiteral("6 (3 constants not drawn)"));
}

// A strings attribute (a Resize's, a custom op's) lists its values quoted: the per-value
// formatter returned a QStringBuilder over a destroyed temporary.
void TstNodeProperties::stringListAttribute() {
  Attribute a;
  a.name = "modes";
  a.type = AttrType::Strings;
  a.strings = {"linear", std::string(40, 'x'), "cubic"};
  QCOMPARE(formatAttribute(a), QStringLiteral("[\"linear\", \"%1\", \"cubic\"]").arg(QString(40, QLatin1Char('x'))));
}

QTEST_MAIN(TstNodeProperties)
#include "tst_node_properties.moc"
