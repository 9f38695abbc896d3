// File ▸ Compare With… (issue 11.5): the open model beside a second model or a saved analysis;
// the graph coloured by the per-node change, the tables of changes and of nodes added/removed/
// changed, the same figures as `msadvisor-cli compare` (core/report/compare is the engine), and
// an Export of the comparison. Written first: the window had no way to compare at all.
#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <fstream>

#include "analysis/compare_panel.h"
#include "i18n/language.h"
#include "graph/graph_widget.h"
#include "graph/heat_legend.h"
#include "mainwindow.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_presets.h"
#include "optimize/optimizer.h"
#include "report/report_json.h"
#include "test_paths.h"
#include "util/units.h"
#include "main_window_support.h"

using namespace msa;
using namespace msa::ui;

namespace {

using test::documentOf;

nlohmann::json cliCompare(const std::filesystem::path& a, const std::filesystem::path& b, const std::filesystem::path& out) {
  QProcess cli;
  cli.start(QString::fromStdString(test::cliPath().string()),
            {QStringLiteral("compare"), QString::fromStdString(a.string()), QString::fromStdString(b.string()),
             QStringLiteral("--json"), QString::fromStdString(out.string())});
  if (!cli.waitForFinished(120000) || cli.exitCode() != 0) return {};
  std::ifstream in(out);
  return nlohmann::json::parse(in, nullptr, false);
}

nlohmann::json readJson(const QString& path) {
  std::ifstream in(path.toStdString());
  return nlohmann::json::parse(in, nullptr, false);
}

}  // namespace

class TstCompareView : public QObject {
  Q_OBJECT
 private slots:
  void init();
  void cleanup() { m_w.reset(); }
  void againstAnOptimizedModel();
  void againstASavedAnalysis();
  void aSavedAnalysisNeedsAnAnalysis();
  void twoDeviceRuns();
  void aRunAgainstItself();

 private:
  ComparePanel* panel() const { return m_w->dock(QStringLiteral("compareDock"))->findChild<ComparePanel*>(); }
  bool compare(const QString& path);
  std::unique_ptr<MainWindow> m_w;
  test::presets::PatternModel m_model = test::presets::convBnRelu();
};

void TstCompareView::init() {
  m_w = std::make_unique<MainWindow>(nullptr, false);
  m_w->setInteractive(false);
  m_w->resize(1400, 900);
  m_w->show();
  m_w->showDocument(documentOf(m_model.model, QStringLiteral("conv_bn_relu.onnx")));
}

bool TstCompareView::compare(const QString& path) {
  QSignalSpy done(m_w.get(), &MainWindow::comparisonFinished);
  QSignalSpy failed(m_w.get(), &MainWindow::comparisonFailed);
  m_w->compareWith(path);
  if (!done.wait(60000)) {
    qWarning("%s", failed.isEmpty() ? "no answer" : qPrintable(failed.first().first().toString()));
    return false;
  }
  return true;
}

// B = A with its BatchNormalization folded (the conservative optimizer): the BN is removed, the
// Conv changed; both are priced on A's analysis device. Estimated on the host CPU (the graph as
// written) the graph shows the BN's time as saved (green); on Ascend, where ATC's graph engine
// folds the BN itself, the fold saves nothing and the summary says each graph is priced as ATC
// compiles it. The tables list the changes, and the export carries the CLI's model diff.
void TstCompareView::againstAnOptimizedModel() {
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  s.deviceProfile = QStringLiteral("cpu-host");
  QSignalSpy analysed(m_w.get(), &MainWindow::analysisFinished);
  m_w->runAnalysis(s);
  QVERIFY(analysed.wait(120000));
  test::TempDir dir("compare_model");
  OptimizeOptions o;
  o.verify = false;
  auto opt = optimize(m_model.model, o);
  QVERIFY(opt);
  const auto a = dir / "a.onnx", b = dir / "b.onnx";
  QVERIFY(saveModel(m_model.model, a));
  QVERIFY(saveModel(opt->model, b));
  QVERIFY(compare(QString::fromStdString(b.string())));
  QVERIFY(m_w->dock(QStringLiteral("compareDock"))->isVisible());
  ComparePanel* p = panel();
  QAbstractItemModelTester t1(p->deltaModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t2(p->nodesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  const std::string bn = m_model.nodes[1];
  QStringList removed;
  for (int r = 0; r < p->nodesModel()->rowCount(); ++r)
    if (p->nodesModel()->index(r, CompareNodesModel::Change).data().toString().startsWith(QStringLiteral("removed")))
      removed << p->nodesModel()->index(r, 0).data().toString();
  QVERIFY2(removed.contains(QString::fromStdString(bn)), qPrintable(removed.join(QStringLiteral(", "))));
  // The graph: a diverging metric, the BN's whole time saved (negative), the legend says so.
  const auto metric = m_w->graphWidget()->metric();
  QVERIFY(metric && metric->diverging);
  QVERIFY(metric->values.value(QString::fromStdString(bn), 0) < 0);
  QVERIFY(m_w->graphWidget()->legend()->lowText().startsWith(QLatin1Char('-')) ||
          m_w->graphWidget()->legend()->lowText().startsWith(QChar(0x2212)));
  QVERIFY2(!p->summaryText().contains(QStringLiteral("ATC")), qPrintable(p->summaryText()));
  // Export = the CLI's document for the same two models (its keys and lists).
  const QString out = QString::fromStdString((dir / "gui.json").string());
  QCOMPARE(p->exportTo(out), QString());
  const auto gui = readJson(out);
  const auto cli = cliCompare(a, b, dir / "cli.json");
  QVERIFY(!cli.is_null() && !cli.is_discarded());
  for (const char* key : {"added", "removed", "changed", "nodes"}) QCOMPARE(gui[key].dump(), cli[key].dump());
  QVERIFY(gui.contains("timing"));
  QCOMPARE(gui["timing"].value("compiled", true), false);
  // The same two models with A analysed on Ascend: ATC folds the BN into the Conv's kernel, so A
  // runs it for nothing and B's fold gains nothing; the BN is still listed as removed.
  s.deviceProfile = QStringLiteral("ascend910b");
  m_w->runAnalysis(s);
  QVERIFY(analysed.wait(120000));
  QVERIFY(compare(QString::fromStdString(b.string())));
  const auto ascend = m_w->graphWidget()->metric();
  QVERIFY(ascend && ascend->values.contains(QString::fromStdString(bn)));
  QCOMPARE(ascend->values.value(QString::fromStdString(bn)), 0.0);
  QVERIFY2(p->summaryText().contains(QStringLiteral("as ATC compiles it")), qPrintable(p->summaryText()));
  QCOMPARE(p->exportTo(out), QString());
  QCOMPARE(readJson(out)["timing"].value("compiled", false), true);
}

// B = the same model estimated on another device, saved as `analyze --json` writes it: the
// per-node deltas are the CLI's for A's and B's reports.
void TstCompareView::againstASavedAnalysis() {
  test::TempDir dir("compare_report");
  AnalysisSettings s;
  s.device = AnalysisSettings::Device::Estimate;
  s.deviceProfile = QStringLiteral("cpu-host");
  QSignalSpy analysed(m_w.get(), &MainWindow::analysisFinished);
  m_w->runAnalysis(s);
  QVERIFY(analysed.wait(120000));
  const auto reportB = m_w->report();
  const auto b = dir / "b.json";
  std::ofstream(b) << reportToJson(*reportB).dump();
  s.deviceProfile = QStringLiteral("ascend910b");
  m_w->runAnalysis(s);
  QVERIFY(analysed.wait(120000));
  const auto a = dir / "a.json";
  std::ofstream(a) << reportToJson(*m_w->report()).dump();
  QVERIFY(compare(QString::fromStdString(b.string())));
  ComparePanel* p = panel();
  QAbstractItemModelTester t1(p->deltaModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(p->deltaModel()->rowCount() >= 3);
  QVERIFY2(!p->nodesModel()->rowCount(), "two runs of one model: no node diff");
  const QString out = QString::fromStdString((dir / "gui.json").string());
  QCOMPARE(p->exportTo(out), QString());
  const auto gui = readJson(out);
  const auto cli = cliCompare(a, b, dir / "cli.json");
  QVERIFY(!cli.is_null() && !cli.is_discarded());
  QCOMPARE(gui["nodes"].size(), cli["nodes"].size());
  for (size_t i = 0; i < cli["nodes"].size(); ++i) {
    QCOMPARE(QString::fromStdString(gui["nodes"][i]["name"].get<std::string>()),
             QString::fromStdString(cli["nodes"][i]["name"].get<std::string>()));
    QCOMPARE(gui["nodes"][i]["delta_ms"].get<double>(), cli["nodes"][i]["delta_ms"].get<double>());
  }
  QCOMPARE(gui["regressions"].dump(), cli["regressions"].dump());
  QCOMPARE(gui["improvements"].dump(), cli["improvements"].dump());
  // Another model leaves nothing of the comparison behind.
  m_w->showDocument(documentOf(test::presets::gemmHead().model, QStringLiteral("gemm.onnx")));
  QVERIFY(!p->comparison());
  QCOMPARE(p->deltaModel()->rowCount(), 0);
}

void TstCompareView::aSavedAnalysisNeedsAnAnalysis() {
  test::TempDir dir("compare_noanalysis");
  const auto b = dir / "b.json";
  std::ofstream(b) << R"({"latency_ms": 1.0, "nodes": [{"name": "x", "median_ms": 1.0}]})";
  QSignalSpy failed(m_w.get(), &MainWindow::comparisonFailed);
  m_w->compareWith(QString::fromStdString(b.string()));
  QVERIFY(failed.wait(60000));
  QVERIFY2(failed.first().first().toString().contains(QStringLiteral("Analyze")), qPrintable(failed.first().first().toString()));
  // A file that is neither names itself.
  const auto bad = dir / "bad.onnx";
  std::ofstream(bad) << "not a model";
  m_w->compareWith(QString::fromStdString(bad.string()));
  QVERIFY(failed.wait(60000));
  QVERIFY2(failed.last().first().toString().contains(QStringLiteral("bad.onnx")), qPrintable(failed.last().first().toString()));
}

// File ▸ Open Profile on one run, Compare With another run's folder (issue 27.9): it was refused
// ("no 'nodes' array"; a folder "cannot open"). The step, its phases and the kernel types go to
// their tabs, the summary names both chips, and the export is the CLI's document.
void TstCompareView::twoDeviceRuns() {
  const auto ascend = test::realProfilesDir() / "ascend";
  if (!std::filesystem::exists(ascend)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  const auto a = ascend / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt";
  const auto b = ascend / "torch_npu_qwen3_pp2dp2_level2";
  QSignalSpy analysed(m_w.get(), &MainWindow::analysisFinished);
  m_w->openProfile(QString::fromStdString(a.string()));
  QVERIFY(analysed.wait(120000));
  QVERIFY(compare(QString::fromStdString(b.string())));
  ComparePanel* p = panel();
  QVERIFY(p->comparison() && p->comparison()->runs);
  QAbstractItemModelTester t1(p->stepModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t2(p->kernelTypeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
  // Step, computing, communication not overlapped, overlapped, free; then rank 2 (only in B).
  QVERIFY2(p->stepModel()->rowCount() >= 5, qPrintable(QString::number(p->stepModel()->rowCount())));
  QVERIFY(p->kernelTypeModel()->rowCount() > 10);
  const QString summary = p->summaryText();
  QVERIFY2(summary.contains(QStringLiteral("910B2")) && summary.contains(QStringLiteral("910B4")), qPrintable(summary));
  test::TempDir dir("compare_runs");
  const QString out = QString::fromStdString((dir / "gui.json").string());
  QCOMPARE(p->exportTo(out), QString());
  const auto gui = readJson(out);
  const auto cli = cliCompare(a, b, dir / "cli.json");
  QVERIFY(!cli.is_null() && !cli.is_discarded());
  QCOMPARE(QString::fromStdString(cli["kind"].get<std::string>()), QStringLiteral("runs"));
  QCOMPARE(gui["step_delta_ms"].get<double>(), cli["step_delta_ms"].get<double>());
  QCOMPARE(gui["phases"].dump(), cli["phases"].dump());
  QCOMPARE(gui["kernel_types"].dump(), cli["kernel_types"].dump());
  QCOMPARE(gui["ranks"].dump(), cli["ranks"].dump());
  // The step row is the two runs' steps.
  const QModelIndex stepA = p->stepModel()->index(0, RunDeltaModel::TimeA);
  QCOMPARE(stepA.data().toString(), QString::fromStdString(formatSignificant(cli["a"]["step_ms"].get<double>())));
  // In Chinese the chips are named in Chinese, the measured clock too (the walk: "Huawei Ascend
  // 910B4 (…) at 1650 MHz (measured; peaks scaled from 1500 MHz)" in a Chinese window).
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  const QString zh = p->summaryText();
  installTranslators(QStringLiteral("en"));
  QVERIFY2(zh.contains(QStringLiteral("华为昇腾 910B2")) && zh.contains(QStringLiteral("华为昇腾 910B4")) && !zh.contains(QStringLiteral("Huawei")) &&
               !zh.contains(QStringLiteral("measured")),
           qPrintable(zh));
}

// A run compared with its own folder (the walk: "std::bad_alloc"): every delta is zero.
void TstCompareView::aRunAgainstItself() {
  const auto ascend = test::realProfilesDir() / "ascend";
  if (!std::filesystem::exists(ascend)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  const auto a = ascend / "torch_npu_qwen3_pp2dp2_level2";
  QSignalSpy analysed(m_w.get(), &MainWindow::analysisFinished);
  m_w->openProfile(QString::fromStdString(a.string()));
  QVERIFY(analysed.wait(120000));
  QVERIFY(compare(QString::fromStdString(a.string())));
  ComparePanel* p = panel();
  QVERIFY(p->comparison() && p->comparison()->runs);
  QVERIFY(p->kernelTypeModel()->rowCount() > 10);
}

QTEST_MAIN(TstCompareView)
#include "tst_compare_view.moc"
