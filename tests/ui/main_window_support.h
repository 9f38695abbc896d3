#pragma once
// What the main-window tests do alike: a document from an IR model, a corpus model's path, a
// window opened on a model, a CPU analysis through the real msadvisor-cli child process.
#include <QSignalSpy>
#include <QSize>
#include <QString>
#include <QTest>
#include <memory>

#include "analysis/analysis_settings.h"
#include "graph/model_document.h"
#include "mainwindow.h"
#include "model/shape_inference.h"
#include "test_paths.h"

namespace msa::test {

inline QString corpusPath(const char* file) { return QString::fromStdString(corpusModel(file).string()); }

// A document as the loader makes it, shapes inferred and kept.
inline std::shared_ptr<const ui::ModelDocument> documentOf(Model m, const QString& name = QStringLiteral("fixture.onnx")) {
  auto model = std::make_shared<Model>(std::move(m));
  ShapeReport shapes;
  if (auto r = inferShapes(*model)) shapes = std::move(*r);
  auto d = std::make_shared<ui::ModelDocument>(ui::makeDocument(std::move(model), name));
  d->shapes = std::move(shapes);
  return d;
}

// A short CPU measurement by the built msadvisor-cli.
inline ui::AnalysisSettings cpuAnalysisSettings() {
  ui::AnalysisSettings s;
  s.iterations = 3;
  s.warmup = 1;
  s.cliProgram = QString::fromStdString(cliPath().string());
  return s;
}

// A shown, non-interactive window with `path` opened and drawn; null when it never got ready.
inline std::unique_ptr<ui::MainWindow> openWindow(const QString& path, QSize size = {1500, 950}) {
  auto w = std::make_unique<ui::MainWindow>(nullptr, false);
  w->setInteractive(false);
  w->resize(size);
  w->show();
  QSignalSpy ready(w.get(), &ui::MainWindow::ready);
  w->openFile(path);
  if (!ready.wait(120000)) return nullptr;
  return w;
}

// Runs an analysis to its end (five minutes at most); the failure's text in `error`.
inline bool analyse(ui::MainWindow& w, const ui::AnalysisSettings& s, QString* error = nullptr) {
  QSignalSpy done(&w, &ui::MainWindow::analysisFinished);
  QSignalSpy failed(&w, &ui::MainWindow::analysisFailed);
  w.runAnalysis(s);
  for (int i = 0; i < 600 && done.isEmpty() && failed.isEmpty(); ++i) QTest::qWait(500);
  if (!failed.isEmpty() && error) *error = failed.first().first().toString();
  return !done.isEmpty();
}

}  // namespace msa::test
