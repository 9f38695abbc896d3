// A first view worth showing (issue 11.3) and an Overview that says what its figures compare
// (issue 12): written first against what a new user saw — a profile without its model read
// "130 ms · optimum 3.56 ms · gap 2.4×" with nothing saying the gap is the priced kernels'.
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <filesystem>

#include "advisor/advisor.h"
#include "advisor/profile_only.h"
#include "analysis/analysis_workspace.h"
#include "i18n/language.h"
#include "mainwindow.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

class TstFirstView : public QObject {
  Q_OBJECT
 private slots:
  void cleanup() { installTranslators(QStringLiteral("en")); }
  void profileGapSaysItIsTheKernels();
};

// File ▸ Open Profile on a torch_npu training profile: the Overview's gap is the priced kernels'
// time against their rooflines, and the note under it must say so (the CLI's
// report.gap_text_kernels), in English and in Chinese.
void TstFirstView::profileGapSaysItIsTheKernels() {
  const auto dir = test::realProfilesDir() / "ascend" / "torch_npu_alexnet_train_level2";
  if (!std::filesystem::exists(dir)) QSKIP("no real profiles beside the source tree (../shared/real-profiles)");
  for (const QString lang : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    installTranslators(lang);
    MainWindow w(nullptr, false);
    w.setInteractive(false);
    w.resize(1400, 900);
    w.show();
    QSignalSpy done(&w, &MainWindow::analysisFinished);
    QSignalSpy failed(&w, &MainWindow::analysisFailed);
    w.openProfile(QString::fromStdString(dir.string()));
    QVERIFY2(done.wait(120000), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    const auto r = w.report();
    QVERIFY(r && r->profileOnly && r->gapRatio > 0);
    auto* note = w.panel(MainWindow::Panel::Overview)->findChild<QLabel*>(QStringLiteral("gapNote"));
    QVERIFY(note);
    const QString text = note->text();
    // The priced kernels' own time is named, and it is not the step latency shown beside it.
    const QString priced = QString::number(r->profileOnly->pricedMs, 'f', 1);
    QVERIFY2(text.contains(priced.left(priced.indexOf(QLatin1Char('.')))), qPrintable(text));
    if (lang == QStringLiteral("en"))
      QVERIFY2(text.contains(QStringLiteral("kernel")) && text.contains(QStringLiteral("step")), qPrintable(text));
    else
      QVERIFY2(text.contains(QStringLiteral("内核")), qPrintable(text));
  }
}

QTEST_MAIN(TstFirstView)
#include "tst_first_view.moc"
