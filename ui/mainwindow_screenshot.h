#pragma once
// `msadvisor --screenshot OUT.png [--analyze] [--select FINDING] MODEL`: the main window rendered
// offscreen once the model is loaded and laid out (and analysed, with a finding selected), at a
// fixed size, for documentation and tests.
#include <QSize>
#include <QString>

#include "analysis/analysis_settings.h"

namespace msa::ui {

struct ScreenshotOptions {
  QString model;  // a model, or a profile (a run's folder, a trace): opened as File ▸ Open Profile would
  QString output;
  QSize size{1600, 1000};
  QString heatmap;          // metric name; empty = the default (estimated time), "none" = categories
  bool showShapes = true;
  bool expandAll = false;
  int timeoutSeconds = 600;
  bool analyze = false;  // run the analysis (settings below; CPU by default) before capturing
  AnalysisSettings analysis;
  QString select;        // a finding id or a 1-based rank in the TOP list (needs analyze)
};

// Returns a process exit code: 0 written, 1 no such heatmap or finding, 2 model error, 3 layout,
// analysis or write failure.
int runScreenshot(const ScreenshotOptions& options);

}  // namespace msa::ui
