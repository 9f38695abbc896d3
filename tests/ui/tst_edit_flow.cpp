// Issue 6's end-to-end flow in the main window (offscreen, fixed DPI), on ResNet-18:
// open → Analyze on CPU (msadvisor-cli profile child processes) → the bottleneck table lists none of
// the folds ONNX Runtime applies → clicking a fusion row selects its graph nodes → Apply removes a
// BatchNormalization (the unoptimized run drops, the deployed one is unchanged) → Undo restores it →
// Export writes an ONNX file that loads and verifies against the original.
#include <QAction>
#include <QDockWidget>
#include <QSortFilterProxyModel>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

#include "analysis/analysis_workspace.h"
#include "analysis/findings_model.h"
#include "analysis/findings_panel.h"
#include "edit/edit_controller.h"
#include "graph/graph_scene.h"
#include "graph/graph_widget.h"
#include "mainwindow.h"
#include "model/onnx_io.h"
#include "optimize/verify.h"
#include "pass_check.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;
using msa::test::countOp;

namespace {

QSet<QString> setOf(const QStringList& l) { return QSet<QString>(l.cbegin(), l.cend()); }

}  // namespace

class TstEditFlow : public QObject {
  Q_OBJECT
 private slots:
  void openAnalyzeApplyUndoExport();
};

void TstEditFlow::openAnalyzeApplyUndoExport() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  test::TempDir tmp("edit_flow");
  const QString path = QString::fromStdString(test::corpusModel("resnet18.onnx").string());
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(1500, 950);
  w.show();
  EditController* edit = w.editController();

  // Open.
  QSignalSpy ready(&w, &MainWindow::ready);
  w.openFile(path);
  QVERIFY(ready.wait(120000));
  const auto original = w.document();
  const int bnBefore = countOp(*original->model, "BatchNormalization");
  QVERIFY(bnBefore > 0);

  // Analyze on CPU.
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Cpu;
  s.iterations = 3;
  s.warmup = 1;
  s.cliProgram = QString::fromStdString(test::cliPath().string());
  QSignalSpy analysed(&w, &MainWindow::analysisFinished);
  QSignalSpy failed(&w, &MainWindow::analysisFailed);
  w.runAnalysis(s);
  QVERIFY(QTest::qWaitFor([&] { return !analysed.isEmpty() || !failed.isEmpty(); }, 600000));
  QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
  QCOMPARE(w.report()->latencySource, std::string("measured"));
  QCOMPARE(edit->session()->currentReport(), w.report());  // handed to the editing session
  QVERIFY(edit->applyAllSafeAction()->isEnabled());

  // The bottleneck table lists the TOP list, where none of the folds ONNX Runtime applies at load is.
  FindingsPanel* table = w.analysis()->table(AnalysisWorkspace::Table::Bottlenecks);
  QCOMPARE(static_cast<size_t>(table->proxy()->rowCount()), w.report()->bottlenecks.size());
  for (const std::string& id : w.report()->bottlenecks) QVERIFY2(w.report()->finding(id)->appliedBy.empty(), id.c_str());

  // The Fusion table lists every fusion finding; clicking one selects its nodes in the graph.
  FindingsPanel* fusion = w.analysis()->table(AnalysisWorkspace::Table::Fusion);
  w.panel(MainWindow::Panel::Fusion)->raise();
  QTest::qWait(50);
  QVERIFY(fusion->proxy()->rowCount() > 0);
  const QModelIndex first = fusion->proxy()->index(0, FindingsModel::Title);
  const QStringList firstNodes = first.data(FindingsModel::NodesRole).toStringList();
  QVERIFY(!firstNodes.isEmpty());
  QTest::mouseClick(fusion->view()->viewport(), Qt::LeftButton, {}, fusion->view()->visualRect(first).center());
  QCOMPARE(setOf(w.graphWidget()->selectedNodes()), setOf(firstNodes));

  // A Conv→BatchNormalization finding, chosen by clicking its row, is what Apply applies.
  QModelIndex bnRow;
  QString bnId;
  for (int r = 0; r < fusion->proxy()->rowCount() && !bnRow.isValid(); ++r) {
    const QModelIndex idx = fusion->proxy()->index(r, FindingsModel::Title);
    const Finding* f = w.report()->finding(idx.data(FindingsModel::IdRole).toString().toStdString());
    if (f && f->hasFix() && f->fixPass == "fold_bn_into_conv") {
      bnRow = idx;
      bnId = QString::fromStdString(f->id);
    }
  }
  QVERIFY(bnRow.isValid());
  fusion->view()->scrollTo(bnRow);
  QTest::mouseClick(fusion->view()->viewport(), Qt::LeftButton, {}, fusion->view()->visualRect(bnRow).center());
  QCOMPARE(w.selectedFinding(), bnId);
  QCOMPARE(edit->currentFinding(), bnId);
  QVERIFY(edit->applyAction()->isEnabled());

  // Apply removes a BatchNormalization; the docks show the re-derived analysis.
  QSignalSpy applied(edit->session(), &EditSession::applyFinished);
  edit->applyAction()->trigger();
  QVERIFY(applied.wait(120000));
  QCOMPARE(countOp(*w.document()->model, "BatchNormalization"), bnBefore - 1);
  QVERIFY(w.report() != nullptr && w.report() == edit->session()->currentReport());
  QVERIFY(!w.report()->finding(bnId.toStdString()));
  QCOMPARE(w.report()->latencySource, std::string("measured"));  // mapped, not re-measured
  {
    const auto& before = *edit->session()->originalState()->report;
    qInfo("after one fold: deployed %.4f -> %.4f ms, unoptimized %.4f -> %.4f ms", before.latencyMs, w.report()->latencyMs,
          before.unoptimizedLatencyMs, w.report()->unoptimizedLatencyMs);
    // ONNX Runtime folds this BN at load: the deployed run (the headline) is the same run, and
    // only the run with its optimizer disabled loses the BatchNormalization.
    QCOMPARE(QString::fromStdString(before.finding(bnId.toStdString())->appliedBy), QStringLiteral("onnxruntime"));
    QCOMPARE(w.report()->latencyMs, before.latencyMs);
    QVERIFY(before.unoptimizedLatencyMs > 0);
    QVERIFY(w.report()->unoptimizedLatencyMs < before.unoptimizedLatencyMs);
  }

  // Undo restores it, with the original analysis.
  edit->undoAction()->trigger();
  QCOMPARE(w.document(), original);
  QCOMPARE(countOp(*w.document()->model, "BatchNormalization"), bnBefore);
  QCOMPARE(w.report(), edit->session()->originalState()->report);
  QString bnNode;
  for (const std::string& n : w.report()->finding(bnId.toStdString())->nodes)
    if (original->model->graph.findNodeByName(n)->opType == "BatchNormalization") bnNode = QString::fromStdString(n);
  QVERIFY(!bnNode.isEmpty());
  QTRY_VERIFY_WITH_TIMEOUT(w.graphWidget()->scene()->boxOfNode(bnNode) != nullptr, 60000);

  // Redo, then Export writes an ONNX file that loads and verifies against the original.
  edit->redoAction()->trigger();
  const QString out = QString::fromStdString((tmp / "resnet18.optimized.onnx").string());
  QCOMPARE(edit->exportModelTo(out), QString());
  auto loaded = loadModel(out.toStdString());
  QVERIFY(loaded.ok());
  QCOMPARE(countOp(*loaded, "BatchNormalization"), bnBefore - 1);
  auto source = loadModel(path.toStdString());
  QVERIFY(source.ok());
  const VerifyOptions defaults;  // a named object: GCC 12 misreads a temporary map as uninitialised
  auto verifier = Verifier::create(*source, defaults);
  QVERIFY(verifier.ok());
  const VerifyResult v = verifier->check(*loaded);
  QVERIFY2(v.passed, v.failure.c_str());
  QVERIFY(edit->exportModelTo(path).contains(QStringLiteral("Refusing")));

  // Apply All Safe, then Verify: outputs match, and the measured speedup next to the advisor's
  // estimate from the CPU profile mapped onto the edited model.
  applied.clear();
  edit->applyAllSafeAction()->trigger();
  QVERIFY(applied.wait(120000));
  QCOMPARE(countOp(*w.document()->model, "BatchNormalization"), 0);
  LatencyOptions lo;
  lo.iterations = 10;
  lo.budgetSeconds = 2;
  edit->setLatencyOptions(lo);
  QSignalSpy verified(edit, &EditController::verifyFinished);
  edit->verifyAction()->trigger();
  QVERIFY(QTest::qWaitFor([&] { return !edit->verifyJob()->running(); }, 600000));
  QVERIFY(edit->lastVerification());
  const VerifyOutcome o = *edit->lastVerification();
  QVERIFY2(o.verification.passed, o.verification.failure.c_str());
  QVERIFY(o.latency);
  qInfo("ResNet-18, all safe fixes, CPU profile: estimated speedup %.3f (%.2f -> %.2f ms), measured %.3f "
        "(ORT disabled %.2f -> %.2f ms, contended %d), ORT all %.3f",
        o.estimatedSpeedup, edit->session()->originalState()->report->latencyMs, w.report()->latencyMs,
        o.measuredSpeedup(), o.latency->originalDisabled.median, o.latency->optimizedDisabled.median,
        o.latency->measurement.contended, o.latency->speedupAll());
}

QTEST_MAIN(TstEditFlow)
#include "tst_edit_flow.moc"
