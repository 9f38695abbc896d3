// The paths that change the user's model do exactly what they say (issue 11.1), in the main
// window offscreen. Each test was written first against the code that misbehaved:
//  - Apply Fix on an advice-only finding applied an unrelated fix naming one of its nodes;
//  - Apply All Safe Fixes needed a click per newly exposed fix and left fixes it could apply;
//  - a "safe" fix copied a tied embedding (parameters and file grew);
//  - Verify's text said "match" beside errors above both tolerances; a failed Verify did not
//    stop a silent Export;
//  - applied fixes were discarded without asking on close and on opening another model;
//  - Analyze after an edit profiled the file on disk, not the edited model.
#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>
#include <set>

#include "analysis/analysis_workspace.h"
#include "edit/edit_controller.h"
#include "edit/reanalysis.h"
#include "example_models.h"
#include "graph/graph_widget.h"
#include "mainwindow.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "optimize/optimizer.h"
#include "pass_check.h"
#include "test_paths.h"
#include "main_window_support.h"

using namespace msa;
using namespace msa::ui;
using msa::test::countOp;

namespace {

// A GPT-like decoder head with tied weights: the token embedding is also the output projection
// (Gather(W) … MatMul(h, Transpose(W))), with the exporter's shape arithmetic in between.
Model tiedDecoder() {
  test::ModelBuilder b("tied_decoder", 17);
  const std::string ids = b.input("input_ids", {1, 16}, DType::Int64);
  std::string table;
  std::string h;
  {
    test::ModelBuilder::Scope s(b, "transformer");
    table = b.weight("transformer.wte.weight", {256, 48}, 0.5);
    h = b.gather(table, ids);
    for (int layer = 0; layer < 2; ++layer) {
      test::ModelBuilder::Scope l(b, "h." + std::to_string(layer));
      std::string x = b.layerNormDecomposed(h);
      x = b.reshapeFromShape(b.linear(x, 48), 2, {4, 12});  // heads through Shape→…→Reshape
      x = b.reshapeFromShape(x, 2, {48});
      h = b.add(h, b.linear(b.gelu(b.linear(x, 96)), 48));
    }
  }
  b.output(b.matmul(h, b.transpose(table, {1, 0})), "logits");
  return b.build();
}

using test::documentOf;

Model fixture(const QString& name) {
  if (name == QLatin1String("tiny_yolo")) return test::examples::tinyYolo();
  if (name == QLatin1String("tiny_transformer")) return test::examples::tinyTransformer();
  return tiedDecoder();
}

int64_t weightElements(const Model& m) {
  int64_t n = 0;
  for (const Tensor& t : m.graph.initializers)
    if (isFloating(t.dtype)) n += t.numElements();
  return n;
}

bool waitApplied(EditSession* s, QStringList* skipped = nullptr) {
  QSignalSpy done(s, &EditSession::applyFinished);
  QSignalSpy failed(s, &EditSession::applyFailed);
  if (!QTest::qWaitFor([&] { return !done.isEmpty() || !failed.isEmpty(); }, 300000)) return false;
  if (done.isEmpty()) qWarning("apply failed: %s", qPrintable(failed.front().front().toString()));
  if (!done.isEmpty() && skipped) *skipped = done.front().at(1).toStringList();
  return !done.isEmpty();
}

const Finding* firstFixable(const Report& r, const char* pass) {
  for (const Finding& f : r.findings)
    if (f.hasFix() && f.fixPass == pass) return &f;
  return nullptr;
}

}  // namespace

class TstFixPaths : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup();
  void adviceOnlyFindingDisablesApply();
  void applyAllSafeReachesTheFixedPoint_data();
  void applyAllSafeReachesTheFixedPoint();
  void tiedWeightsStayTied();
  void verifyUsesTheLevelsTolerance();
  void verifyTextSaysMatchOnlyWithinTolerance();
  void failedVerifyMakesExportAsk();
  void unsavedFixesAreNotDiscardedSilently();
  void analyzeAfterAnEditProfilesTheEditedModel();

 private:
  // Shows `m` in a fresh window with an estimate analysis on `device` handed to the editor.
  void show(Model m, const char* device = "ascend910b");
  // Saves `m` to `path`, opens it as a user would (File ▸ Open) and hands an Ascend estimate to the editor.
  bool openEstimated(const Model& m, const std::filesystem::path& path);
  bool applyFix(const char* pass);

  std::unique_ptr<MainWindow> m_w;
  EditController* m_edit = nullptr;
  std::shared_ptr<const Report> m_report;
  std::unique_ptr<test::TempDir> m_tmp;
};

void TstFixPaths::init() {
  m_tmp = std::make_unique<test::TempDir>("fix_paths");
  m_w = std::make_unique<MainWindow>(nullptr, false);
  m_w->setInteractive(false);
  m_w->resize(1280, 800);
  m_w->show();
  m_edit = m_w->editController();
}

void TstFixPaths::cleanup() {
  m_edit->setDiscardConfirmation({});  // nothing asks while the window goes
  m_w.reset();
  m_tmp.reset();
}

void TstFixPaths::show(Model m, const char* device) {
  m_w->showDocument(documentOf(std::move(m)));
  auto r = analyzeEstimate(m_w->document()->model, device);
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
  m_report = std::make_shared<const Report>(std::move(*r));
  m_edit->setReport(m_report);
  QCOMPARE(m_w->report(), m_report);
}

bool TstFixPaths::openEstimated(const Model& m, const std::filesystem::path& path) {
  if (!saveModel(m, path).ok()) return false;
  QSignalSpy ready(m_w.get(), &MainWindow::ready);
  m_w->openFile(QString::fromStdString(path.string()));
  if (!ready.wait(60000)) return false;
  auto r = analyzeEstimate(m_w->document()->model, "ascend910b");
  if (!r) return false;
  m_edit->setReport(std::make_shared<const Report>(std::move(*r)));
  return true;
}

bool TstFixPaths::applyFix(const char* pass) {
  const Finding* f = firstFixable(*m_edit->session()->currentReport(), pass);
  if (!f) return false;
  m_w->selectFinding(QString::fromStdString(f->id));
  if (!m_edit->applyAction()->isEnabled()) return false;
  m_edit->applyAction()->trigger();
  return waitApplied(m_edit->session());
}

void TstFixPaths::adviceOnlyFindingDisablesApply() {
  show(test::examples::tinyYolo());
  // An advice-only finding (alignment: channel widths that are not multiples of 16) names a
  // Conv that a fixable finding (its BatchNormalization fold) names too.
  const Finding* advice = nullptr;
  const Finding* fixable = nullptr;
  for (const Finding& a : m_report->findings) {
    if (!a.fixPass.empty() || advice) continue;
    const std::set<std::string> nodes(a.nodes.begin(), a.nodes.end());
    for (const Finding& f : m_report->findings)
      if (f.hasFix() && std::any_of(f.nodes.begin(), f.nodes.end(), [&](const std::string& n) { return nodes.count(n) != 0; })) {
        advice = &a;
        fixable = &f;
        break;
      }
  }
  QVERIFY2(advice && fixable, "tiny YOLO has an advice-only finding sharing a node with a fixable one");
  QVERIFY(m_w->selectFinding(QString::fromStdString(advice->id)));
  QCOMPARE(m_w->selectedFinding(), QString::fromStdString(advice->id));
  QVERIFY2(!m_edit->applyAction()->isEnabled(), qPrintable("Apply enabled for " + QString::fromStdString(advice->id)));
  QVERIFY(m_edit->currentFinding().isEmpty());
  QVERIFY2(m_edit->applyAction()->toolTip().contains(QStringLiteral("advice only")), qPrintable(m_edit->applyAction()->toolTip()));
  // Triggered anyway (a shortcut), it changes nothing.
  const auto before = m_w->document();
  m_edit->applyAction()->trigger();
  QTest::qWait(50);
  QVERIFY(!m_edit->session()->busy());
  QCOMPARE(m_w->document(), before);
  // The fixable finding is applicable, and Apply applies exactly it.
  QVERIFY(m_w->selectFinding(QString::fromStdString(fixable->id)));
  QVERIFY(m_edit->applyAction()->isEnabled());
  QCOMPARE(m_edit->currentFinding(), QString::fromStdString(fixable->id));
  m_edit->applyAction()->trigger();
  QVERIFY(waitApplied(m_edit->session()));
  for (const Rewrite& r : m_edit->session()->appliedRewrites()) QCOMPARE(r.finding, fixable->id);
}

void TstFixPaths::applyAllSafeReachesTheFixedPoint_data() {
  QTest::addColumn<QString>("model");
  QTest::newRow("tiny_yolo") << QStringLiteral("tiny_yolo");
  QTest::newRow("tiny_transformer") << QStringLiteral("tiny_transformer");
  QTest::newRow("tied_decoder") << QStringLiteral("tied_decoder");
}

void TstFixPaths::applyAllSafeReachesTheFixedPoint() {
  QFETCH(QString, model);
  show(fixture(model));
  QVERIFY(m_edit->applyAllSafeAction()->isEnabled());
  QStringList left;
  m_edit->applyAllSafeAction()->trigger();
  QVERIFY(waitApplied(m_edit->session(), &left));
  QCOMPARE(m_edit->session()->undoStack()->count(), 1);
  // One click reached the fixed point: no safe fix of the re-derived analysis is left to try,
  // and each safe finding still listed says why it was not applied.
  const auto report = m_edit->session()->currentReport();
  QVERIFY(report);
  const auto leftToTry = m_edit->session()->safeFindings();
  QVERIFY2(leftToTry.empty(), leftToTry.empty() ? "" : leftToTry.front()->id.c_str());
  QVERIFY(!m_edit->applyAllSafeAction()->isEnabled());
  for (const Finding& f : report->findings)
    if (f.safeFix && f.hasFix()) {
      const QString why = m_edit->session()->whyNotApplicable(QString::fromStdString(f.id));
      QVERIFY2(!why.isEmpty(), f.id.c_str());
      QVERIFY(std::any_of(left.cbegin(), left.cend(), [&](const QString& l) { return l.startsWith(QString::fromStdString(f.id)); }));
    }
  // Proof by trying: none of the findings left applies to the result either.
  for (const Finding& f : report->findings)
    if (f.safeFix && f.hasFix()) {
      Model trial = *m_edit->session()->currentModel();
      QVERIFY2(!applyFinding(trial, f).ok(), f.id.c_str());
    }
}

void TstFixPaths::tiedWeightsStayTied() {
  const Model m = tiedDecoder();
  const auto path = *m_tmp / "tied.onnx";
  QVERIFY(openEstimated(m, path));
  const qint64 fileBefore = QFileInfo(QString::fromStdString(path.string())).size();
  const qint64 paramsBefore = m_w->document()->parameters;
  m_edit->applyAllSafeAction()->trigger();
  QVERIFY(waitApplied(m_edit->session()));
  QVERIFY(m_edit->session()->isModified());
  QVERIFY2(m_w->document()->parameters <= paramsBefore,
           qPrintable(QStringLiteral("%1 -> %2 parameters").arg(paramsBefore).arg(m_w->document()->parameters)));
  QVERIFY(weightElements(*m_edit->session()->currentModel()) <= weightElements(m));
  // The embedding is still one tensor, read by the Gather and (transposed) by the head.
  const Tensor* w = m_edit->session()->currentModel()->graph.findInitializer("transformer.wte.weight");
  QVERIFY(w);
  const QString out = QString::fromStdString((*m_tmp / "tied.optimized.onnx").string());
  QCOMPARE(m_edit->exportModelTo(out), QString());
  QVERIFY2(QFileInfo(out).size() <= fileBefore, qPrintable(QStringLiteral("%1 -> %2 bytes").arg(fileBefore).arg(QFileInfo(out).size())));
}

void TstFixPaths::verifyUsesTheLevelsTolerance() {
  show(test::examples::tinyYolo());
  QVERIFY(applyFix("fold_bn_into_conv"));
  LatencyOptions quick;
  quick.iterations = 2;
  quick.warmup = 1;
  m_edit->setLatencyOptions(quick);
  QSignalSpy verified(m_edit, &EditController::verifyFinished);
  m_edit->verifyAction()->trigger();
  QVERIFY(verified.wait(300000));
  QVERIFY(m_edit->lastVerification());
  const VerifyOutcome o = *m_edit->lastVerification();
  // The tolerance `optimize` holds a conservative rewrite to, nothing looser or tighter.
  const Tolerance t = toleranceFor(OptLevel::Conservative);
  QCOMPARE(o.verification.tolerance.atol, t.atol);
  QCOMPARE(o.verification.tolerance.rtol, t.rtol);
  QCOMPARE(o.verification.tolerance.scaleAtol, t.scaleAtol);
  QVERIFY2(o.verification.passed, o.verification.failure.c_str());
}

void TstFixPaths::verifyTextSaysMatchOnlyWithinTolerance() {
  VerifyOutcome o;
  o.verification.passed = true;
  o.verification.tolerance = toleranceFor(OptLevel::Conservative);
  // Polygraphy's check: the largest absolute error sits where the relative one is small and the
  // reverse, so both maxima exceed their tolerance while every element is within one of them.
  o.verification.maxAbsError = 3e-5;
  o.verification.maxRelError = 2e-4;
  o.verification.worstToleranceRatio = 0.6;
  OutputError e;
  e.name = "output0";
  e.maxAbsError = 3e-5;
  e.maxRelError = 2e-4;
  e.worstToleranceRatio = 0.6;
  o.verification.outputs.push_back(e);
  const QString text = describeVerifyOutcome(o);
  QVERIFY2(text.contains(QStringLiteral("within")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("60.0%")), qPrintable(text));
  // A fold's re-rounding: a fraction of a percent, not "0%".
  o.verification.worstToleranceRatio = 0.0041;
  QVERIFY2(describeVerifyOutcome(o).contains(QStringLiteral("to 0.4% of")), qPrintable(describeVerifyOutcome(o)));
  // Failed: never "match".
  o.verification.passed = false;
  o.verification.failure = "output0: 12 element(s) beyond tolerance";
  o.verification.worstToleranceRatio = 4;
  QVERIFY(!describeVerifyOutcome(o).contains(QStringLiteral("match"), Qt::CaseInsensitive));
}

void TstFixPaths::failedVerifyMakesExportAsk() {
  show(test::examples::tinyYolo());
  QVERIFY(applyFix("fold_bn_into_conv"));
  // A tolerance of zero: the fold's re-rounded weights differ in the last bits, so it fails.
  Tolerance zero = toleranceFor(OptLevel::Conservative);
  zero.atol = zero.rtol = 0;
  zero.scaleAtol = false;
  m_edit->setVerifyTolerance(zero);
  QSignalSpy verified(m_edit, &EditController::verifyFinished);
  m_edit->verifyAction()->trigger();
  QVERIFY(verified.wait(300000));
  QVERIFY(m_edit->lastVerification() && !m_edit->lastVerification()->verification.passed);
  int asked = 0;
  EditController::ExportChoice choice = EditController::ExportChoice::Cancel;
  m_edit->setExportConfirmation([&](const VerifyOutcome& o) {
    ++asked;
    [&] { QVERIFY(!o.verification.passed); }();
    return choice;
  });
  const QString out = QString::fromStdString((*m_tmp / "failed.onnx").string());
  QVERIFY(!m_edit->exportModelTo(out).isEmpty());  // cancelled
  QCOMPARE(asked, 1);
  QVERIFY(!QFile::exists(out));
  choice = EditController::ExportChoice::ExportAnyway;
  QCOMPARE(m_edit->exportModelTo(out), QString());
  QCOMPARE(asked, 2);
  QVERIFY(QFile::exists(out));
  QFile::remove(out);
  choice = EditController::ExportChoice::Undo;
  QVERIFY(!m_edit->exportModelTo(out).isEmpty());
  QCOMPARE(asked, 3);
  QVERIFY(!QFile::exists(out));
  QVERIFY(!m_edit->session()->isModified());  // the fix was undone
}

void TstFixPaths::unsavedFixesAreNotDiscardedSilently() {
  show(test::examples::tinyYolo());
  QVERIFY(applyFix("fold_bn_into_conv"));
  QVERIFY(m_edit->hasUnsavedEdits());
  int asked = 0;
  EditController::DiscardChoice choice = EditController::DiscardChoice::Cancel;
  m_edit->setDiscardConfirmation([&] {
    ++asked;
    return choice;
  });
  // Close (the window's button and File ▸ Quit both close the window): cancelled, it stays.
  QVERIFY(!m_w->close());
  QCOMPARE(asked, 1);
  QVERIFY(m_w->isVisible());
  // Open another model: cancelled, the edited document stays.
  const auto edited = m_w->document();
  const auto other = *m_tmp / "other.onnx";
  QVERIFY(saveModel(test::examples::tinyTransformer(), other).ok());
  m_w->openFile(QString::fromStdString(other.string()));
  QCOMPARE(asked, 2);
  QTest::qWait(100);
  QCOMPARE(m_w->document(), edited);
  QVERIFY(m_edit->session()->isModified());
  // Once exported, nothing is unsaved: no question.
  QCOMPARE(m_edit->exportModelTo(QString::fromStdString((*m_tmp / "saved.onnx").string())), QString());
  QVERIFY(!m_edit->hasUnsavedEdits());
  QSignalSpy loaded(m_w.get(), &MainWindow::documentLoaded);
  m_w->openFile(QString::fromStdString(other.string()));
  QVERIFY(loaded.wait(60000));
  QCOMPARE(asked, 2);
  // A new edit, then Discard: the window closes.
  m_edit->setReport(std::make_shared<const Report>(*analyzeEstimate(m_w->document()->model, "ascend910b")));
  m_edit->applyAllSafeAction()->trigger();
  QVERIFY(waitApplied(m_edit->session()));
  choice = EditController::DiscardChoice::Discard;
  QVERIFY(m_w->close());
  QCOMPARE(asked, 3);
}

void TstFixPaths::analyzeAfterAnEditProfilesTheEditedModel() {
  const auto path = *m_tmp / "yolo.onnx";
  QVERIFY(openEstimated(test::examples::tinyYolo(), path));
  m_edit->applyAllSafeAction()->trigger();
  QVERIFY(waitApplied(m_edit->session()));
  QCOMPARE(countOp(*m_w->document()->model, "BatchNormalization"), 0);
  // A profiler that keeps a copy of the model it was given, then profiles it for real.
  const auto seen = *m_tmp / "seen.onnx";
  const auto script = *m_tmp / "recording-cli";
  {
    QFile f(QString::fromStdString(script.string()));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("#!/bin/sh\ncp \"$2\" '%1'\nexec '%2' \"$@\"\n")
                .arg(QString::fromStdString(seen.string()), QString::fromStdString(test::cliPath().string()))
                .toUtf8());
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
  }
  AnalysisSettings s;
  s.iterations = 2;
  s.warmup = 1;
  s.cliProgram = QString::fromStdString(script.string());
  QSignalSpy done(m_w.get(), &MainWindow::analysisFinished);
  QSignalSpy failed(m_w.get(), &MainWindow::analysisFailed);
  m_w->runAnalysis(s);
  QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty() || !failed.isEmpty(); }, 300000));
  QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
  auto profiled = loadModel(seen);
  QVERIFY(profiled.ok());
  QCOMPARE(countOp(*profiled, "BatchNormalization"), 0);  // the edited model, not the file on disk
  QCOMPARE(countOp(*loadModel(path), "BatchNormalization"), countOp(test::examples::tinyYolo(), "BatchNormalization"));
  QCOMPARE(m_w->report()->latencySource, std::string("measured"));
  for (const Finding& f : m_w->report()->findings) QVERIFY(f.fixPass != "fold_bn_into_conv");
}

QTEST_MAIN(TstFixPaths)
#include "tst_fix_paths.moc"
