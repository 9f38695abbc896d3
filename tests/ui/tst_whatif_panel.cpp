// Analyze ▸ What If… (issue 25 item 3): the variants of the model on screen built and measured by
// a `msadvisor-cli what-if` child, listed in the What If dock as the CLI lists them, the graph
// coloured by the time a variant saves, Export writing the variant measured (and its session
// settings) never over anything the user has; a bad bound is an error naming the term.
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/whatif_panel.h"
#include "graph/graph_widget.h"
#include "heatmap_chooser.h"
#include "main_window_support.h"
#include "mainwindow.h"
#include "model/onnx_io.h"
#include "model_presets.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

class TstWhatIfPanel : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup() { m_w.reset(); }
  void variantsListedMeasuredAndExported();
  void aBadBoundSaysWhich();
  void theGraphOffersEachInt8LayersAccuracyCost();

 private:
  WhatIfPanel* panel() const { return m_w->dock(QStringLiteral("whatIfDock"))->findChild<WhatIfPanel*>(); }
  std::unique_ptr<MainWindow> m_w;
  test::presets::PatternModel m_model = test::presets::convBnRelu();
};

void TstWhatIfPanel::init() {
  m_w = std::make_unique<MainWindow>(nullptr, false);
  m_w->setInteractive(false);
  m_w->resize(1400, 900);
  m_w->show();
  // A document not on disk (as after an edit): the panel writes it for the child.
  m_w->showDocument(test::documentOf(m_model.model, QStringLiteral("conv_bn_relu.onnx")));
}

void TstWhatIfPanel::variantsListedMeasuredAndExported() {
  WhatIfPanel* p = panel();
  QVERIFY(p);
  QVERIFY(!m_w->dock(QStringLiteral("whatIfDock"))->isVisible());  // on demand
  p->setExtraArguments({QStringLiteral("--only"), QStringLiteral("threads_1,spinning_off"), QStringLiteral("--budget"), QStringLiteral("2")});
  QSignalSpy done(m_w.get(), &MainWindow::whatIfFinished);
  QSignalSpy failed(m_w.get(), &MainWindow::whatIfFailed);
  m_w->whatIf();
  QVERIFY(p->running());
  QVERIFY2(done.wait(180000), failed.isEmpty() ? "no answer" : qPrintable(failed.first().first().toString()));
  QVERIFY(m_w->dock(QStringLiteral("whatIfDock"))->isVisible());
  QAbstractItemModelTester tester(p->variants(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  const auto r = p->result();
  QVERIFY(r);
  QVERIFY(r->baseline.median > 0);
  QStringList names;
  for (int row = 0; row < p->variants()->rowCount(); ++row)
    names << p->variants()->index(row, WhatIfVariantsModel::Name).data(WhatIfVariantsModel::NameRole).toString();
  QCOMPARE(names, (QStringList{QStringLiteral("threads_1"), QStringLiteral("spinning_off")}));
  // Session settings run the original model: measured, its outputs exactly, within the bound.
  const Variant* t = findVariant(*r, "threads_1");
  QVERIFY(t && t->measured && t->speedup > 0 && t->withinBound);
  QCOMPARE(p->variants()->index(0, WhatIfVariantsModel::Bound).data().toString(), QStringLiteral("within the bound"));
  QVERIFY2(p->summaryText().contains(QStringLiteral("Original as deployed")), qPrintable(p->summaryText()));
  QVERIFY2(p->summaryText().contains(QStringLiteral("random inputs")), qPrintable(p->summaryText()));
  // Selecting it: Export is offered; the graph shows the time it saves where it predicts any.
  p->selectVariant(0);
  QVERIFY(p->findChild<QPushButton*>(QStringLiteral("whatIfExport"))->isEnabled());
  if (!t->layers.empty()) {
    const auto metric = m_w->graphWidget()->metric();
    QVERIFY(metric && metric->name == QStringLiteral("Time saved by the variant"));
  }
  // Export: the variant's model and its settings, beside each other.
  test::TempDir dir("whatif_panel");
  const QString out = QString::fromStdString((dir / "threads_1.onnx").string());
  QSignalSpy exported(p, &WhatIfPanel::exported);
  QSignalSpy exportFailed(p, &WhatIfPanel::failed);
  p->exportVariant(QStringLiteral("threads_1"), out);
  QVERIFY2(exported.wait(180000), exportFailed.isEmpty() ? "no answer" : qPrintable(exportFailed.first().first().toString()));
  QVERIFY(loadModel(out.toStdString()));
  std::ifstream settings(out.toStdString() + ".session.json");
  const auto j = nlohmann::json::parse(settings, nullptr, false);
  QVERIFY(!j.is_discarded());
  QVERIFY2(j.dump().find("intra_op_num_threads") != std::string::npos, j.dump().c_str());
  QVERIFY2(p->summaryText().contains(QStringLiteral("Wrote")), qPrintable(p->summaryText()));
}

void TstWhatIfPanel::aBadBoundSaysWhich() {
  WhatIfPanel* p = panel();
  p->findChild<QLineEdit*>(QStringLiteral("whatIfBound"))->setText(QStringLiteral("cosine=lots"));
  QSignalSpy failed(m_w.get(), &MainWindow::whatIfFailed);
  m_w->whatIf();
  QVERIFY(failed.wait(60000));
  QVERIFY2(failed.first().first().toString().contains(QStringLiteral("cosine")), qPrintable(failed.first().first().toString()));
  QVERIFY(!p->result());
}

// A quantized variant's layers carry the error each adds alone (its sensitivity, a relative
// squared error): selecting the variant shows the time it saves and offers that cost, as a
// relative RMS error in %; a variant that quantizes nothing withdraws it.
void TstWhatIfPanel::theGraphOffersEachInt8LayersAccuracyCost() {
  WhatIfPanel* p = panel();
  const std::string conv = m_model.model.graph.nodes.front().name, last = m_model.model.graph.nodes.back().name;
  auto r = std::make_shared<WhatIfResult>();
  r->baseline = Stats::of({1.0, 1.0, 1.0});
  Variant q;
  q.name = "int8_static";
  q.kind = VariantKind::Int8Static;
  q.layers = {{conv, 0.4, 4e-4, true}, {last, 0.1, -1, false}};
  Variant t;
  t.name = "threads_1";
  t.layers = {{conv, 0.2, -1, false}};
  r->variants = {q, t};
  p->setResult(r);
  p->selectVariant(0);
  auto offered = [&](const QString& name) -> const NodeMetric* {
    for (const NodeMetric& m : m_w->heatmap()->metrics())
      if (m.name == name) return &m;
    return nullptr;
  };
  const QString costName = QStringLiteral("Accuracy cost of quantizing");
  QCOMPARE(m_w->heatmap()->currentName(), QStringLiteral("Time saved by the variant"));
  const NodeMetric* cost = offered(costName);
  QVERIFY(cost);
  QCOMPARE(cost->values.size(), 1);  // the int8 layer only: the float one costs nothing
  QVERIFY(std::abs(cost->values.value(QString::fromStdString(conv)) - 2.0) < 1e-9);  // √4e-4 = 2 %
  QVERIFY(m_w->heatmap()->select(costName));
  QCOMPARE(m_w->graphWidget()->metric()->name, costName);
  p->selectVariant(1);
  QVERIFY(!offered(costName));
  QCOMPARE(m_w->heatmap()->currentName(), QStringLiteral("Time saved by the variant"));
}

QTEST_MAIN(TstWhatIfPanel)
#include "tst_whatif_panel.moc"
