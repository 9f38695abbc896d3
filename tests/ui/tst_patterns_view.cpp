// Named patterns on the graph and runtime-specific fixes said before Apply (issue 11.6). Written
// first against what a tuner saw: fusion outlines labelled "Mul + Pow + … (8)" instead of the
// pattern's name, and a ConvNeXt fix that writes com.microsoft BiasGelu offered on an Ascend
// analysis, said only deep in Verify.
#include <QAction>
#include <QSignalSpy>
#include <QTest>

#include "edit/edit_controller.h"
#include "edit/edit_session.h"
#include "graph/graph_widget.h"
#include "i18n/language.h"
#include "mainwindow.h"
#include "model/shape_inference.h"
#include "model_presets.h"
#include "main_window_support.h"

using namespace msa;
using namespace msa::ui;

namespace {

using test::documentOf;

std::unique_ptr<MainWindow> analysed(Model m, const QString& device) {
  auto w = std::make_unique<MainWindow>(nullptr, false);
  w->setInteractive(false);
  w->resize(1400, 900);
  w->show();
  w->showDocument(documentOf(std::move(m), QStringLiteral("block.onnx")));
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  s.deviceProfile = device;
  QSignalSpy done(w.get(), &MainWindow::analysisFinished);
  w->runAnalysis(s);
  if (!done.wait(120000)) return nullptr;
  return w;
}

QStringList groupLabels(const MainWindow& w) {
  QStringList out;
  for (const NodeGroup& g : w.graphWidget()->groups()) out << g.label;
  return out;
}

}  // namespace

class TstPatternsView : public QObject {
  Q_OBJECT
 private slots:
  void cleanup() { installTranslators(QStringLiteral("en")); }
  void patternsAreNamedOnTheGraph();
  void runtimeSpecificFixIsSaidAndRefusedForAscend();
};

void TstPatternsView::patternsAreNamedOnTheGraph() {
  auto w = analysed(test::presets::llamaBlock().model, QStringLiteral("cpu-host"));
  QVERIFY(w);
  const QStringList labels = groupLabels(*w);
  for (const QString& name : {QStringLiteral("rotary embedding"), QStringLiteral("RMSNorm"), QStringLiteral("SwiGLU"),
                             QStringLiteral("attention")})
    QVERIFY2(labels.contains(name), qPrintable(labels.join(QStringLiteral(" | "))));
  auto g = analysed(test::presets::gptBlock().model, QStringLiteral("cpu-host"));
  QVERIFY(g);
  QVERIFY2(groupLabels(*g).contains(QStringLiteral("GELU(tanh)")), qPrintable(groupLabels(*g).join(QStringLiteral(" | "))));
  // In Chinese the names a tuner reads in Chinese are translated.
  installTranslators(QStringLiteral("zh_CN"));
  auto z = analysed(test::presets::llamaBlock().model, QStringLiteral("cpu-host"));
  QVERIFY(z);
  QVERIFY2(groupLabels(*z).contains(QStringLiteral("旋转位置编码")), qPrintable(groupLabels(*z).join(QStringLiteral(" | "))));
}

// MatMul → Add → exact GELU: its fix is ONNX Runtime's com.microsoft BiasGelu.
void TstPatternsView::runtimeSpecificFixIsSaidAndRefusedForAscend() {
  for (const QString& device : {QStringLiteral("cpu-host"), QStringLiteral("ascend910b")}) {
    auto w = analysed(test::presets::matmulAddGelu().model, device);
    QVERIFY(w);
    const auto r = w->report();
    const Finding* f = nullptr;
    for (const Finding& x : r->findings)
      if (x.fixPass == "fuse_matmul_bias_activation") f = &x;
    QVERIFY2(f, qPrintable(device));
    EditController* edit = w->editController();
    edit->setCurrentFinding(QString::fromStdString(f->id));
    const QString tip = edit->applyAction()->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("com.microsoft BiasGelu")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("ONNX Runtime")), qPrintable(tip));
    const bool ascend = device.startsWith(QStringLiteral("ascend"));
    QCOMPARE(edit->applyAction()->isEnabled(), !ascend);
    if (ascend) QVERIFY2(tip.contains(QStringLiteral("Ascend")), qPrintable(tip));
  }
}

QTEST_MAIN(TstPatternsView)
#include "tst_patterns_view.moc"
