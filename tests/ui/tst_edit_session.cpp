// The editing session on ResNet-18 (estimate analysis, no profiling): Apply one Conv→BN finding,
// undo, redo, Apply All Safe, then the exports — an ONNX file that loads and verifies against
// the original in ONNX Runtime, reports that parse, and the profile remapping re-analysis uses.
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <nlohmann/json.hpp>
#include <cmath>
#include <filesystem>
#include <set>

#include "edit/edit_session.h"
#include "i18n/language.h"
#include "rules/texts.h"
#include "edit/exporter.h"
#include "edit/reanalysis.h"
#include "edit/verify_job.h"
#include "profile/profile_remap.h"
#include "model/onnx_io.h"
#include "optimize/verify.h"
#include "pass_check.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;
using msa::test::countOp;

namespace {

std::set<std::string> nodeNames(const Model& m) {
  std::set<std::string> out;
  for (const Node& n : m.graph.nodes) out.insert(n.name);
  return out;
}

// Waits for the session's Apply to end; true when it succeeded.
bool waitApplied(EditSession& s, QStringList* applied = nullptr, QStringList* skipped = nullptr, QString* error = nullptr) {
  QSignalSpy done(&s, &EditSession::applyFinished);
  QSignalSpy failed(&s, &EditSession::applyFailed);
  QSignalSpy cancelled(&s, &EditSession::applyCancelled);
  if (!QTest::qWaitFor([&] { return !done.isEmpty() || !failed.isEmpty() || !cancelled.isEmpty(); }, 120000)) return false;
  if (!failed.isEmpty() && error) *error = failed.front().front().toString();
  if (done.isEmpty()) return false;
  if (applied) *applied = done.front().at(0).toStringList();
  if (skipped) *skipped = done.front().at(1).toStringList();
  return true;
}

}  // namespace

class TstEditSession : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void applyUndoRedo();
  void foldTheEngineLeavesLowersTheEstimate();
  void applyAllSafeRemovesEveryBatchNorm();
  void applyRejectsWhatDoesNotApply();
  void exportModelVerifies();
  void exportRefusesTheOpenedFile();
  void exportNeverLandsOnWhatTheDocumentReads();
  void exportReport_data();
  void exportReport();
  void verifyJobMeasures();
  void remapProfileSavesRemovedNodes();
  void applyAllSafeOnCorpus_data();
  void applyAllSafeOnCorpus();

 private:
  std::shared_ptr<const ModelDocument> m_doc;
  std::shared_ptr<const Report> m_report;
  QString m_path;
  std::unique_ptr<test::TempDir> m_tmp;
  EditStatePtr m_allSafe;  // the state after Apply All Safe
};

void TstEditSession::initTestCase() {
  if (!test::hasCorpus()) QSKIP("no model corpus");
  m_path = QString::fromStdString(test::corpusModel("resnet18.onnx").string());
  auto doc = loadDocument(m_path);
  QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().describe().c_str());
  m_doc = std::make_shared<const ModelDocument>(std::move(*doc));
  auto report = analyzeEstimate(m_doc->model, "ascend910b");
  QVERIFY2(report.ok(), report.ok() ? "" : report.error().describe().c_str());
  m_report = std::make_shared<const Report>(std::move(*report));
  m_tmp = std::make_unique<test::TempDir>("edit_session");
  QVERIFY(countOp(*m_doc->model, "BatchNormalization") > 1);
}

void TstEditSession::applyUndoRedo() {
  EditSession s;
  QSignalSpy changed(&s, &EditSession::stateChanged);
  s.setDocument(m_doc);
  s.setReport(m_report);
  QCOMPARE(changed.size(), 2);
  QVERIFY(!s.isModified());
  // The best-ranked applicable finding whose fix folds a BatchNormalization into its Conv.
  const Finding* bn = nullptr;
  for (const Finding& f : m_report->findings)
    if (f.hasFix() && f.fixPass == "fold_bn_into_conv") {
      bn = &f;
      break;
    }
  QVERIFY2(bn, "ResNet-18 has a Conv→BatchNormalization finding with a fix");
  QVERIFY(s.canApply(QString::fromStdString(bn->id)));
  const int bnBefore = countOp(*m_doc->model, "BatchNormalization");
  const auto namesBefore = nodeNames(*m_doc->model);

  s.apply(QString::fromStdString(bn->id));
  QVERIFY(s.busy());
  QStringList applied;
  QString error;
  QVERIFY2(waitApplied(s, &applied, nullptr, &error), qPrintable(error));
  QCOMPARE(applied, QStringList{QString::fromStdString(bn->id)});
  QVERIFY(s.isModified());
  QCOMPARE(countOp(*s.currentModel(), "BatchNormalization"), bnBefore - 1);
  QCOMPARE(countOp(*s.currentDocument()->model, "BatchNormalization"), bnBefore - 1);
  QCOMPARE(s.currentDocument()->graph->nodes().size() + 1, m_doc->graph->nodes().size());
  // The rewrite is recorded with the finding it resolves; the finding is gone from the new analysis.
  QCOMPARE(s.appliedRewrites().size(), size_t(1));
  QCOMPARE(s.appliedRewrites().front().pass, std::string("fold_bn_into_conv"));
  QVERIFY(s.currentReport());
  QVERIFY(!s.currentReport()->finding(bn->id));
  // The Ascend graph engine already folds this BN into its Conv when it compiles the model, and
  // the estimate prices the compiled graph: folding it in the file changes nothing the chip runs
  // but the bias the fold writes into the Conv (read once: its bytes over the memory bandwidth).
  QCOMPARE(QString::fromStdString(bn->appliedBy), QStringLiteral("ascend-ge"));
  const Node* bnNode = nullptr;
  for (const std::string& n : bn->nodes)
    if (const Node* node = m_doc->model->graph.findNodeByName(n); node && node->opType == "BatchNormalization") bnNode = node;
  QVERIFY(bnNode);
  const Tensor* shift = m_doc->model->graph.findInitializer(bnNode->input(2));
  QVERIFY(shift && m_report->bandwidthBytesPerSecond > 0);
  const double biasMs = 1e3 * static_cast<double>(shift->byteSize()) / m_report->bandwidthBytesPerSecond;
  qInfo("estimate %.9f -> %.9f ms (the bias read: %.9f ms)", m_report->latencyMs, s.currentReport()->latencyMs, biasMs);
  // Known since the L2 memory model (DeviceProfile::memorySeconds, issue 27 item 8) prices a fused
  // kernel's bytes together: the folded graph reads 2.7 ns more (0.060871547 -> 0.060874270 ms)
  // where only the 0.2 ns bias read should differ. Open; the check stays and must start passing.
  QEXPECT_FAIL("", "issue 27.8: the compiled graph's estimate moves by more than the bias read after a fold", Continue);
  QVERIFY2(std::abs(s.currentReport()->latencyMs - m_report->latencyMs) <= biasMs,
           "a fold the graph engine applies itself changes nothing the chip runs");
  // Undo text names the finding the fix answers, in the UI language.
  QCOMPARE(s.undoStack()->undoText(), QString::fromStdString(renderFinding(*bn, coreLanguage()).title));
  QVERIFY(s.undoStack()->canUndo());
  qInfo("undo text: %s", qPrintable(s.undoStack()->undoText()));

  const EditStatePtr applyState = s.current();
  s.undoStack()->undo();
  QVERIFY(!s.isModified());
  QCOMPARE(countOp(*s.currentModel(), "BatchNormalization"), bnBefore);
  QVERIFY(nodeNames(*s.currentModel()) == namesBefore);
  QCOMPARE(s.currentReport(), m_report);  // the original analysis, not a re-run
  QCOMPARE(s.currentDocument(), m_doc);   // the same document: its cached layout comes back

  s.undoStack()->redo();
  QCOMPARE(s.current(), applyState);  // redo swaps states, it does not re-run the pass
  QCOMPARE(countOp(*s.currentModel(), "BatchNormalization"), bnBefore - 1);
  // The original model was never touched.
  QCOMPARE(countOp(*m_doc->model, "BatchNormalization"), bnBefore);
}

// MobileNetV2 on the same chip: the graph engine leaves the depthwise Conv→BN pairs unfused, so
// folding one in the file lowers the estimate, by what the finding said it would save.
void TstEditSession::foldTheEngineLeavesLowersTheEstimate() {
  auto doc = loadDocument(QString::fromStdString(test::corpusModel("mobilenet_v2.onnx").string()));
  QVERIFY(doc.ok());
  auto mobile = std::make_shared<const ModelDocument>(std::move(*doc));
  auto analysed = analyzeEstimate(mobile->model, "ascend910b");
  QVERIFY(analysed.ok());
  auto report = std::make_shared<const Report>(std::move(*analysed));
  const Finding* bn = nullptr;
  for (const Finding& f : report->findings)
    if (f.hasFix() && f.fixPass == "fold_bn_into_conv" && f.appliedBy.empty()) {
      bn = &f;
      break;
    }
  QVERIFY2(bn, "MobileNetV2 has a Conv→BatchNormalization finding the graph engine does not apply");
  QVERIFY(bn->impact.ms > 0);
  EditSession s;
  s.setDocument(mobile);
  s.setReport(report);
  s.apply(QString::fromStdString(bn->id));
  QString error;
  QVERIFY2(waitApplied(s, nullptr, nullptr, &error), qPrintable(error));
  const double drop = report->latencyMs - s.currentReport()->latencyMs;
  qInfo("estimate %.6f -> %.6f ms (drop %.6f ms, the finding's impact %.6f ms)", report->latencyMs,
        s.currentReport()->latencyMs, drop, bn->impact.ms);
  QVERIFY2(drop > 0, "the estimate drops once the BN is folded");
  // Known since the L2 memory model: the finding's saving (its rule prices the pair as written)
  // and the compiled graph's estimate (fused kernels' bytes priced together) disagree — 2.99 µs
  // said, 4.57 µs dropped. Open (issue 27.8); the check stays and must start passing.
  QEXPECT_FAIL("", "issue 27.8: a finding's saving and the compiled estimate's drop disagree under the L2 memory model", Continue);
  QVERIFY2(std::abs(drop - bn->impact.ms) <= 0.1 * bn->impact.ms, "the saving is what the finding said");
}

void TstEditSession::applyAllSafeRemovesEveryBatchNorm() {
  EditSession s;
  s.setDocument(m_doc);
  s.setReport(m_report);
  const auto safe = s.safeFindings();
  QVERIFY(!safe.empty());
  for (size_t i = 1; i < safe.size(); ++i)  // rank order
    QVERIFY(m_report->assessment(safe[i - 1]->id)->rank < m_report->assessment(safe[i]->id)->rank);
  QVERIFY(s.canApplyAllSafe());
  s.applyAllSafe();
  QStringList applied, skipped;
  QString error;
  QVERIFY2(waitApplied(s, &applied, &skipped, &error), qPrintable(error));
  QCOMPARE(countOp(*s.currentModel(), "BatchNormalization"), 0);
  QCOMPARE(applied.size() + skipped.size(), static_cast<qsizetype>(safe.size()));
  QCOMPARE(s.undoStack()->count(), 1);  // one undo step
  qInfo("Apply All Safe: %lld applied, %lld skipped, %zu rewrites; nodes %zu -> %zu; estimate %.3f -> %.3f ms",
        static_cast<long long>(applied.size()), static_cast<long long>(skipped.size()), s.appliedRewrites().size(),
        m_doc->model->graph.nodes.size(), s.currentModel()->graph.nodes.size(), m_report->latencyMs,
        s.currentReport()->latencyMs);
  for (const QString& k : skipped) qInfo("  skipped %s", qPrintable(k));
  // Nothing safe is left to apply.
  QVERIFY(!s.canApplyAllSafe() || s.safeFindings().size() < safe.size());
  s.undoStack()->undo();
  QCOMPARE(countOp(*s.currentModel(), "BatchNormalization"), countOp(*m_doc->model, "BatchNormalization"));
  s.undoStack()->redo();
  m_allSafe = s.current();
}

void TstEditSession::applyRejectsWhatDoesNotApply() {
  EditSession s;
  s.setDocument(m_doc);
  QVERIFY(!s.canApplyAllSafe());  // not analysed
  s.setReport(m_report);
  QSignalSpy failed(&s, &EditSession::applyFailed);
  s.apply(QStringLiteral("no.such_rule@nowhere"));
  QCOMPARE(failed.size(), 1);
  QVERIFY(failed.front().front().toString().contains(QStringLiteral("no.such_rule@nowhere")));
  // An advice-only finding has no Apply.
  for (const Finding& f : m_report->findings)
    if (f.fixPass.empty()) {
      QVERIFY(!s.canApply(QString::fromStdString(f.id)));
      break;
    }
  QCOMPARE(s.undoStack()->count(), 0);
}

void TstEditSession::exportModelVerifies() {
  if (!m_allSafe) applyAllSafeRemovesEveryBatchNorm();  // when run alone
  QVERIFY(m_allSafe);
  const QString out = QString::fromStdString((*m_tmp / "resnet18.optimized.onnx").string());
  QCOMPARE(exportModel(*m_allSafe->model, out, m_path), QString());
  auto loaded = loadModel(out.toStdString());
  QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().describe().c_str());
  QCOMPARE(countOp(*loaded, "BatchNormalization"), 0);
  QCOMPARE(loaded->graph.nodes.size(), m_allSafe->model->graph.nodes.size());
  // Only what the source declared: the shapes inferred for drawing stay out of the file.
  auto source = loadModel(m_path.toStdString());
  QVERIFY(source.ok());
  QVERIFY(loaded->graph.valueInfo.size() <= source->graph.valueInfo.size());
  const VerifyOptions defaults;  // a named object: GCC 12 misreads a temporary map as uninitialised
  auto verifier = Verifier::create(*source, defaults);
  QVERIFY2(verifier.ok(), verifier.ok() ? "" : verifier.error().describe().c_str());
  const VerifyResult v = verifier->check(*loaded);
  QVERIFY2(v.passed, v.failure.c_str());
  QVERIFY(v.checker.ran && v.checker.passed);
  qInfo("exported model verifies: max abs %.3g, max rel %.3g", v.maxAbsError, v.maxRelError);
}

void TstEditSession::exportRefusesTheOpenedFile() {
  if (!m_allSafe) applyAllSafeRemovesEveryBatchNorm();  // when run alone
  QVERIFY(m_allSafe);
  const QByteArray before = [&] {
    QFile f(m_path);
    f.open(QIODevice::ReadOnly);
    return f.readAll().left(4096);
  }();
  const QString err = exportModel(*m_allSafe->model, m_path, m_path);
  QVERIFY2(err.contains(QStringLiteral("Refusing to write over the opened model")), qPrintable(err));
  // The same file through another spelling of its path.
  const QString other = QFileInfo(m_path).absolutePath() + QStringLiteral("/./") + QFileInfo(m_path).fileName();
  QVERIFY(exportModel(*m_allSafe->model, other, m_path).contains(QStringLiteral("Refusing")));
  QVERIFY(ui::exportReport(*m_report, m_path, m_path).contains(QStringLiteral("Refusing")));
  QFile f(m_path);
  QVERIFY(f.open(QIODevice::ReadOnly));
  QCOMPARE(f.readAll().left(4096), before);
  // A folder is no file name.
  QVERIFY(!exportModel(*m_allSafe->model, QString::fromStdString(m_tmp->path().string()), m_path).isEmpty());
  QVERIFY(ui::exportReport(*m_report, QString::fromStdString((*m_tmp / "r.txt").string()), m_path).contains(QStringLiteral(".json")));
}

// Issue 28: not only the opened file — its external data, and the opened file through a hard link
// (core's ReadFiles: device and inode), for every export.
void TstEditSession::exportNeverLandsOnWhatTheDocumentReads() {
  QVERIFY(m_report);
  test::TempDir dir("export-reads");
  auto m = loadModel(m_path.toStdString());
  QVERIFY(m);
  SaveOptions so;
  so.external = SaveOptions::External::Always;
  so.externalFileName = "weights.bin";
  const std::filesystem::path model = dir / "model.onnx";
  QVERIFY(saveModel(*m, model, so));
  auto ext = loadModel(model);
  QVERIFY(ext);
  std::filesystem::create_hard_link(model, dir / "hard.json");
  const QString opened = QString::fromStdString(model.string());
  const QByteArray weights = [&] {
    QFile f(QString::fromStdString((dir / "weights.bin").string()));
    f.open(QIODevice::ReadOnly);
    return f.readAll();
  }();
  for (const char* target : {"weights.bin", "hard.json"}) {
    const QString out = QString::fromStdString((dir / target).string());
    const QString e1 = ui::exportReport(*m_report, out, opened, {}, &*ext);
    QVERIFY2(e1.contains(QStringLiteral("Refusing")), qPrintable(e1));
    const QString e2 = exportModel(*ext, out, opened);
    QVERIFY2(e2.contains(QStringLiteral("Refusing")), qPrintable(e2));
    const QString e3 = exportGraphImage(nullptr, out, opened, 1.0, &*ext);
    QVERIFY2(e3.contains(QStringLiteral("Refusing")), qPrintable(e3));
  }
  QFile f(QString::fromStdString((dir / "weights.bin").string()));
  QVERIFY(f.open(QIODevice::ReadOnly));
  QCOMPARE(f.readAll(), weights);
  QVERIFY(loadModel(model));
}

void TstEditSession::exportReport_data() {
  QTest::addColumn<QString>("file");
  QTest::newRow("json") << "report.json";
  QTest::newRow("html") << "report.html";
  QTest::newRow("markdown") << "report.md";
}

void TstEditSession::exportReport() {
  QFETCH(QString, file);
  QVERIFY(m_allSafe && m_allSafe->report);
  const QString out = QString::fromStdString((*m_tmp / file.toStdString()).string());
  QCOMPARE(ui::exportReport(*m_allSafe->report, out, m_path), QString());
  QFile f(out);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray bytes = f.readAll();
  QVERIFY(bytes.size() > 200);
  switch (*reportFormatFor(out)) {
    case ReportFormat::Json: {
      const auto j = nlohmann::json::parse(bytes.toStdString(), nullptr, false);
      QVERIFY(!j.is_discarded());
      QCOMPARE(j.at("schema_version").get<int>(), Report::kSchemaVersion);
      QCOMPARE(j.at("findings").size(), m_allSafe->report->findings.size());
      QCOMPARE(j.at("latency_ms").get<double>(), m_allSafe->report->latencyMs);
      break;
    }
    case ReportFormat::Html:
      QVERIFY(bytes.startsWith("<!DOCTYPE html>") || bytes.startsWith("<!doctype html>"));
      QVERIFY(bytes.trimmed().endsWith("</html>"));
      break;
    case ReportFormat::Markdown: QVERIFY(bytes.startsWith("#")); break;
  }
}

void TstEditSession::verifyJobMeasures() {
  if (!m_allSafe) applyAllSafeRemovesEveryBatchNorm();  // when run alone
  QVERIFY(m_allSafe);
  VerifyJob job;
  VerifyJob::Options o;
  o.verify.tolerance = toleranceForRewrites(m_allSafe->rewrites);
  o.latency.iterations = 10;
  o.latency.warmup = 2;
  o.latency.budgetSeconds = 3;
  o.estimatedSpeedup = m_report->latencyMs / m_allSafe->report->latencyMs;
  std::optional<VerifyOutcome> outcome;
  QString failure;
  connect(&job, &VerifyJob::finished, this, [&](const VerifyOutcome& r) { outcome = r; });
  connect(&job, &VerifyJob::failed, this, [&](const QString& m) { failure = m; });
  job.start(m_doc->model, m_allSafe->model, o);
  QVERIFY(job.running());
  QVERIFY(QTest::qWaitFor([&] { return !job.running(); }, 300000));
  QVERIFY2(outcome, qPrintable(failure));
  QVERIFY2(outcome->verification.passed, outcome->verification.failure.c_str());
  QVERIFY2(outcome->latency, qPrintable(outcome->latencyError));
  QVERIFY(outcome->measuredSpeedup() > 0);
  const QString text = describeVerifyOutcome(*outcome);
  QVERIFY(text.contains(QStringLiteral("Outputs match")));
  // ResNet-18 has one output, compared with the runtime's optimizer off and on: one output.
  QCOMPARE(outcome->verification.outputs.size(), size_t{2});
  QVERIFY2(text.contains(QStringLiteral("(1 output")), qPrintable(text));
  QVERIFY(text.contains(QStringLiteral("Advisor's estimate")));
  const LatencyComparison& l = *outcome->latency;
  qInfo("verify ResNet-18 (all safe fixes): ORT disabled %.2f -> %.2f ms (speedup %.3f), ORT all %.2f -> %.2f ms "
        "(%.3f); p10 speedup disabled %.3f; CPU share %.2f; advisor's estimate (ascend910b roofline) %.3f",
        l.originalDisabled.median, l.optimizedDisabled.median, l.speedupDisabled(), l.originalAll.median,
        l.optimizedAll.median, l.speedupAll(), l.speedupDisabled(true), l.measurement.cpuShare, outcome->estimatedSpeedup);

  // The same estimate on this CPU's roofline (calibrated when this host was), for comparison.
  if (auto cpu = analyzeEstimate(m_doc->model, "cpu-host"))
    if (auto after = reanalyze(m_allSafe->model, *cpu))
      qInfo("advisor's estimate on cpu-host: %.3f -> %.3f ms, speedup %.3f", cpu->latencyMs, after->latencyMs,
            cpu->latencyMs / after->latencyMs);

  // Cancel stops it and says so.
  VerifyJob again;
  QSignalSpy cancelled(&again, &VerifyJob::cancelled);
  again.start(m_doc->model, m_allSafe->model, o);
  again.cancel();
  QVERIFY(QTest::qWaitFor([&] { return !cancelled.isEmpty(); }, 120000));
}

void TstEditSession::remapProfileSavesRemovedNodes() {
  if (!m_allSafe) applyAllSafeRemovesEveryBatchNorm();  // when run alone
  QVERIFY(m_allSafe);
  // A profile of the original, one entry per node, 1 ms each, and one runtime-inserted reorder.
  ProfileData p;
  p.optimization = "disabled";
  for (const Node& n : m_doc->model->graph.nodes) {
    NodeProfile e;
    e.name = n.name;
    e.opType = n.opType;
    e.irNodes = {n.name};
    e.timeMs = Stats::of({1.0, 1.0, 1.0});
    p.nodes.push_back(e);
  }
  NodeProfile reorder;
  reorder.name = "ReorderInput_0";
  reorder.opType = "ReorderInput";
  reorder.inserted = true;
  reorder.timeMs = Stats::of({0.5});
  p.nodes.push_back(reorder);
  const double total = static_cast<double>(m_doc->model->graph.nodes.size()) + 0.5;
  p.latencyMs = Stats::of({total, total});
  const ProfileData q = remapProfile(p, m_allSafe->model->graph);
  const size_t removed = m_doc->model->graph.nodes.size() - m_allSafe->model->graph.nodes.size();
  QVERIFY(removed > 0);
  QCOMPARE(q.nodes.size(), p.nodes.size() - removed);
  QVERIFY(q.find("ReorderInput_0"));
  QCOMPARE(q.latencyMs.median, total - static_cast<double>(removed));
  for (const NodeProfile& e : q.nodes)
    for (const std::string& n : e.irNodes) QVERIFY(m_allSafe->model->graph.findNodeByName(n));
  // Re-analysis with it: measured, and the latency the removed nodes no longer take.
  Report measured = *m_report;
  measured.profile = p;
  auto r = reanalyze(m_allSafe->model, measured);
  QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
  QCOMPARE(r->latencySource, std::string("measured"));
  QCOMPARE(r->latencyMs, total - static_cast<double>(removed));
  QVERIFY(isRemapped(q));

  // The runtime's own run: one kernel per Conv covering its folded BatchNormalization. The fold
  // removes no kernel, so the time stays, but the run is still of another graph: an estimate.
  ProfileData fused;
  fused.optimization = "all";
  for (const Node& n : m_doc->model->graph.nodes) {
    if (n.is("BatchNormalization")) {
      fused.nodes.back().irNodes.push_back(n.name);
      continue;
    }
    NodeProfile e;
    e.name = "fused_" + n.name;
    e.opType = n.opType;
    e.irNodes = {n.name};
    e.timeMs = Stats::of({1.0});
    fused.nodes.push_back(e);
  }
  fused.latencyMs = Stats::of({10.0});
  const ProfileData kept = remapProfile(fused, m_allSafe->model->graph);
  QCOMPARE(kept.nodes.size(), fused.nodes.size());
  QCOMPARE(kept.latencyMs.median, 10.0);
  QVERIFY(isRemapped(kept));
  QVERIFY(!isRemapped(remapProfile(fused, m_doc->model->graph)));  // the same graph: as measured
}

void TstEditSession::applyAllSafeOnCorpus_data() {
  QTest::addColumn<QString>("file");
  for (const char* f : {"mobilenet_v2.onnx", "squeezenet1_1.onnx", "efficientnet_b0.onnx", "vit_ti_16.onnx",
                        "bert_like_encoder.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"})
    QTest::newRow(f) << QString::fromLatin1(f);
}

// Every safe fix of a model as one step, exported, and verified against the original with the
// tolerance of the highest level applied — what a user gets from Apply All Safe + Export.
void TstEditSession::applyAllSafeOnCorpus() {
  QFETCH(QString, file);
  const auto path = test::corpusModel(file.toStdString());
  if (!std::filesystem::exists(path)) QSKIP("not in the corpus");
  auto loaded = loadDocument(QString::fromStdString(path.string()));
  QVERIFY(loaded.ok());
  auto doc = std::make_shared<const ModelDocument>(std::move(*loaded));
  auto report = analyzeEstimate(doc->model, "ascend910b");
  QVERIFY2(report.ok(), report.ok() ? "" : report.error().describe().c_str());
  EditSession s;
  s.setDocument(doc);
  s.setReport(std::make_shared<const Report>(std::move(*report)));
  const size_t safe = s.safeFindings().size();
  if (safe == 0) {
    qInfo("%s: no safe fix", qPrintable(file));
    return;
  }
  s.applyAllSafe();
  QStringList applied, skipped;
  QString error;
  QVERIFY2(waitApplied(s, &applied, &skipped, &error), qPrintable(error));
  const QString out = QString::fromStdString((*m_tmp / (file.toStdString() + ".fixed.onnx")).string());
  QCOMPARE(exportModel(*s.currentModel(), out, QString::fromStdString(path.string())), QString());
  auto written = loadModel(out.toStdString());
  QVERIFY(written.ok());
  VerifyOptions vo;
  vo.tolerance = toleranceForRewrites(s.appliedRewrites());
  vo.inputs.dims = inputDimsFromReport(*s.originalState()->report, *s.originalModel());
  for (const std::string& d : doc->shapes.unboundDims) vo.inputs.dims.emplace(d, 1);  // nothing bound them: 1
  auto source = loadModel(path);
  QVERIFY(source.ok());
  auto verifier = Verifier::create(*source, vo);
  QVERIFY2(verifier.ok(), verifier.ok() ? "" : verifier.error().describe().c_str());
  const VerifyResult v = verifier->check(*written);
  std::map<std::string, int> byPass;
  for (const Rewrite& r : s.appliedRewrites()) ++byPass[r.pass];
  std::string passes;
  for (const auto& [p, n] : byPass) passes += " " + p + "×" + std::to_string(n);
  qInfo("%s: %zu safe findings, %lld applied, %lld skipped; nodes %zu -> %zu;%s; verify %s (max abs %.3g, rel %.3g)",
        qPrintable(file), safe, static_cast<long long>(applied.size()), static_cast<long long>(skipped.size()),
        doc->model->graph.nodes.size(), written->graph.nodes.size(), passes.c_str(), v.passed ? "passed" : v.failure.c_str(),
        v.maxAbsError, v.maxRelError);
  QVERIFY2(v.passed, v.failure.c_str());
  QVERIFY(written->graph.nodes.size() < doc->model->graph.nodes.size());
}

QTEST_MAIN(TstEditSession)
#include "tst_edit_session.moc"
