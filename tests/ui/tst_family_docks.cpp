// A rule family described as data alone gets its findings dock, its category title and its texts
// in the window, in both languages, without a line of UI code (rules/family_registry.h, docks.h).
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QTest>

#include <limits>

#include "analysis/analysis_workspace.h"
#include "analysis/findings_model.h"
#include "analysis/findings_panel.h"
#include "example_models.h"
#include "i18n/language.h"
#include "mainwindow.h"
#include "profile_file_dialog.h"
#include "test_paths.h"
#include "model/shape_inference.h"
#include "rules/family_registry.h"
#include "rules/texts.h"

using namespace msa;
using namespace msa::ui;

namespace {

constexpr const char* kFamily = R"({
  "_family": {"id": "spill_test", "kind": "graph",
              "categories": {"spill_test": {"order": 95, "colour": "#123456", "dock": "spill_test",
                                            "title": {"en": "Memory spills", "zh": "内存溢出"},
                                            "short": {"en": "Spills", "zh": "溢出"}}}},
  "_docks": {"spill_test": {"order": 40, "title": {"en": "Memory", "zh": "内存"},
                            "empty": {"en": "Spills appear here after Analyze.", "zh": "运行分析后，此处显示内存溢出。"}}},
  "spill_test.spill": {
    "en": {"title": "{node} spills to device memory", "suggestion": "Keep it on chip.", "hazard": "h", "mitigation": "m", "help": "x"},
    "zh": {"title": "{node} 溢出到设备内存", "suggestion": "让它留在片上。", "hazard": "h", "mitigation": "m", "help": "x"}}
})";

}  // namespace

class TstFamilyDocks : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(registerRuleFamily(kFamily, "spill_test.json")); }

  // File ▸ Open Profile takes a profiler's folder as the answer (a torch_npu job here) and a file
  // of a run; a folder no importer claims is entered, not returned. Filters come from the registry.
  void profileDialogTakesARunFolderOrFile() {
    const auto dir = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level1";
    if (!std::filesystem::exists(dir)) QSKIP("no real profiles here");
    const QString job = QString::fromStdString(dir.string());
    QVERIFY(ProfileFileDialog::isProfileFolder(job));
    QVERIFY(!ProfileFileDialog::isProfileFolder(QDir::tempPath()));
    const QStringList filters = ProfileFileDialog::profileNameFilters();
    QVERIFY2(filters.front().contains(QLatin1String("*.csv")) && filters.front().contains(QLatin1String("*.json.gz")),
             qPrintable(filters.front()));
    ProfileFileDialog dialog(nullptr, QStringLiteral("Open Profile"), QString::fromStdString(dir.parent_path().string()));
    dialog.selectFile(job);
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(QFileInfo(dialog.chosen()).canonicalFilePath(), QFileInfo(job).canonicalFilePath());
  }

  // The findings lists say what the reports say: a part the fix takes away is "removed" (the
  // list showed "∞"), and a finding with nothing to gain has no Local or Global speedup.
  void speedupColumnsInTheReportsWords() {
    auto report = std::make_shared<Report>();
    report->latencyMs = 2;
    Finding gone;
    gone.id = "spill_test.spill@a";
    gone.rule = "spill_test.spill";
    gone.category = Category::named("spill_test");
    gone.nodes = {"a"};
    gone.impact.ms = 0.5;
    gone.speedupLocal = std::numeric_limits<double>::infinity();
    gone.speedupGlobal = 0.25;
    Finding nothing = gone;
    nothing.id = "spill_test.spill@b";
    nothing.nodes = {"b"};
    nothing.impact.ms = 0;
    nothing.speedupLocal = 10;
    nothing.speedupGlobal = 0;
    report->findings = {gone, nothing};
    FindingsModel m(FindingsModel::Filter{false, {Category::named("spill_test")}});
    auto text = [&m](int row, int col) { return m.data(m.index(row, col)).toString(); };
    for (Lang lang : {Lang::En, Lang::Zh}) {
      m.setReport(report, lang);
      QCOMPARE(m.rowCount(), 2);
      QCOMPARE(text(0, FindingsModel::LocalSpeedup), QString::fromStdString(uiText("finding.removed", lang)));
      QVERIFY2(text(0, FindingsModel::GlobalShare).contains(QLatin1String("25")), qPrintable(text(0, FindingsModel::GlobalShare)));
      QCOMPARE(text(1, FindingsModel::LocalSpeedup), QStringLiteral("–"));
      QCOMPARE(text(1, FindingsModel::GlobalShare), QStringLiteral("–"));
    }
  }

  void dataFamilyGetsItsDock() {
    installTranslators(QStringLiteral("en"));
    MainWindow w(nullptr, false);
    QDockWidget* dock = w.dock(QStringLiteral("spill_testDock"));
    QVERIFY(dock);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Memory"));
    FindingsPanel* panel = w.analysis()->table(QStringLiteral("spill_testPanel"));
    QVERIFY(panel);

    // A report with one finding of the new category shows it in that dock, and only there.
    auto model = std::make_shared<Model>(test::examples::tinyYolo());
    (void)inferShapes(*model);
    const std::string node = model->graph.nodes.front().name;
    auto doc = std::make_shared<const ModelDocument>(makeDocument(model, QStringLiteral("tiny_yolo.onnx")));
    auto report = std::make_shared<Report>();
    report->latencyMs = 1;
    Finding f;
    f.id = "spill_test.spill@" + node;
    f.rule = "spill_test.spill";
    f.category = Category::named("spill_test");
    f.nodes = {node};
    f.impact.ms = 0.5;
    report->findings.push_back(f);
    report->assessments.push_back(Assessment{});
    summarizeFindings(*report);
    w.analysis()->setDocument(doc);
    auto result = std::make_shared<AnalysisResult>();
    result->report = report;
    result->document = doc;
    w.analysis()->setAnalysis(result);
    QCOMPARE(panel->model()->rowCount(), 1);
    QCOMPARE(panel->model()->index(0, FindingsModel::CategoryCol).data().toString(), QStringLiteral("Spills"));
    QVERIFY(panel->model()
                ->index(0, FindingsModel::Title)
                .data()
                .toString()
                .contains(QStringLiteral("spills to device memory")));
    QCOMPARE(w.analysis()->table(AnalysisWorkspace::Table::Fusion)->model()->rowCount(), 0);
    // Its detail names it in words (priority, category), never by its internal id, which stays
    // on hover for `--select`.
    QVERIFY(panel->showFinding(QString::fromStdString(f.id)));
    auto* detail = panel->findChild<QLabel*>(QStringLiteral("findingDetail"));
    QVERIFY(detail);
    QVERIFY2(!detail->text().contains(QStringLiteral("spill_test.")), qPrintable(detail->text()));
    QVERIFY2(detail->text().contains(QStringLiteral("P2")) && detail->text().contains(QStringLiteral("Spills")), qPrintable(detail->text()));
    QCOMPARE(detail->toolTip(), QString::fromStdString(f.id));

    // Chinese: the dock title, the category and the finding follow at once.
    QVERIFY(installTranslators(QStringLiteral("zh_CN")));
    QCOMPARE(dock->windowTitle(), QStringLiteral("内存"));
    QCOMPARE(panel->model()->index(0, FindingsModel::CategoryCol).data().toString(), QStringLiteral("溢出"));
    QVERIFY(
        panel->model()->index(0, FindingsModel::Title).data().toString().contains(QStringLiteral("溢出到设备内存")));
    QVERIFY(installTranslators(QStringLiteral("en")));
    QCOMPARE(dock->windowTitle(), QStringLiteral("Memory"));
  }

  // The built-in docks keep their ids (saved window states) and get their titles from the families.
  void builtInDocksComeFromTheFamilies() {
    installTranslators(QStringLiteral("en"));
    MainWindow w(nullptr, false);
    for (const FindingDock& d : findingDocks()) {
      QDockWidget* dock = w.dock(QString::fromStdString(d.id) + QStringLiteral("Dock"));
      QVERIFY2(dock, d.id.c_str());
      QCOMPARE(dock->windowTitle(), QString::fromStdString(d.title.en));
    }
    QCOMPARE(w.dock(QStringLiteral("kernelDock"))->windowTitle(), QStringLiteral("Kernels and Alignment"));
  }
};

QTEST_MAIN(TstFamilyDocks)
#include "tst_family_docks.moc"
