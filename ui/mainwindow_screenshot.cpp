#include "mainwindow_screenshot.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QImage>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

#include "advisor/advisor.h"
#include "graph/graph_widget.h"
#include "mainwindow.h"
#include "profile/profile_import.h"

namespace msa::ui {

int runScreenshot(const ScreenshotOptions& o) {
  MainWindow window(nullptr, /*persistent=*/false);
  window.setInteractive(false);
  window.resize(o.size);
  window.show();
  QEventLoop loop;
  int rc = -1;
  QString error;
  bool expanded = !o.expandAll;
  QObject::connect(&window, &MainWindow::loadFailed, &loop, [&](const QString&, const QString& msg) {
    error = msg;
    rc = 2;
    loop.quit();
  });
  QObject::connect(window.graphWidget(), &GraphWidget::layoutFailed, &loop, [&](const QString& msg) {
    error = msg;
    rc = 3;
    loop.quit();
  });
  bool analysisStarted = false, analysed = false;
  auto concludeIfSettled = [&] {
    if (window.graphWidget()->layoutRunning()) return;  // framing a selection may relayout
    rc = 0;
    loop.quit();
  };
  // A profile (a run's folder, a trace): no graph to lay out, its analysis is the picture.
  const bool profile = isProfilePath(o.model.toStdString());
  QObject::connect(&window, &MainWindow::ready, &loop, [&] {
    if (profile) return;
    if (!expanded) {  // one more layout with every block open
      expanded = true;
      window.graphWidget()->expandAll();
      return;
    }
    if (o.analyze && !analysisStarted) {
      analysisStarted = true;
      window.runAnalysis(o.analysis);
      return;
    }
    if (o.analyze && !analysed) return;
    concludeIfSettled();
  });
  QObject::connect(&window, &MainWindow::analysisFailed, &loop, [&](const QString& msg) {
    error = QStringLiteral("analysis failed: ") + msg;
    rc = 3;
    loop.quit();
  });
  QObject::connect(&window, &MainWindow::analysisFinished, &loop, [&] {
    analysed = true;
    if (!o.select.isEmpty() && !window.selectFinding(o.select)) {
      const Report& r = *window.report();
      // A rank into an empty TOP list is a result to explain, not a typo.
      error = r.bottlenecks.empty()
                  ? QStringLiteral("no finding '%1': the TOP list is empty (%2 finding(s), %3 applied by the runtime at load, "
                                   "none left with a measurable share of the run); select a finding by its id")
                        .arg(o.select)
                        .arg(r.findings.size())
                        .arg(r.appliedByRuntime)
                  : QStringLiteral("no finding '%1' (an id, or a rank 1..%2)").arg(o.select).arg(r.bottlenecks.size());
      rc = 1;
      loop.quit();
      return;
    }
    concludeIfSettled();
  });
  bool timedOut = false;
  QTimer::singleShot(o.timeoutSeconds * 1000, &loop, [&] {
    error = QStringLiteral("timed out after %1 s").arg(o.timeoutSeconds);
    rc = 3;
    timedOut = true;
    loop.quit();
  });
  if (!o.heatmap.isEmpty()) window.selectHeatmap(o.heatmap);
  window.setShowShapes(o.showShapes);
  window.openFile(o.model);
  loop.exec();
  if (rc != 0) {
    std::fprintf(stderr, "msadvisor: %s\n", qPrintable(error));
    // Work still running past the timeout (a stuck runtime, a load that never returns) would hold
    // the window's destructor, which waits for it: a batch run ends with the error instead.
    if (timedOut) {
      std::fflush(nullptr);
      std::_Exit(rc);
    }
    return rc;
  }
  if (!o.heatmap.isEmpty() && !window.selectHeatmap(o.heatmap)) {
    std::fprintf(stderr, "msadvisor: no heatmap metric named '%s'\n", qPrintable(o.heatmap));
    return 1;
  }
  QEventLoop settle;  // let queued updates (minimap, legend, table sizes) land before grabbing
  QTimer::singleShot(o.analyze ? 400 : 150, &settle, &QEventLoop::quit);
  settle.exec();
  const QImage image = window.grab().toImage();
  if (image.isNull() || !image.save(o.output, "PNG")) {
    std::fprintf(stderr, "msadvisor: cannot write %s\n", qPrintable(o.output));
    return 3;
  }
  std::fprintf(stderr, "msadvisor: wrote %s (%dx%d)\n", qPrintable(QFileInfo(o.output).absoluteFilePath()), image.width(),
               image.height());
  return 0;
}

}  // namespace msa::ui
