#pragma once
// `msadvisor --screenshot OUT.png MODEL`: the main window rendered offscreen once the model is
// loaded and laid out, at a fixed size, for documentation and tests.
#include <QSize>
#include <QString>

namespace msa::ui {

struct ScreenshotOptions {
  QString model;
  QString output;
  QSize size{1600, 1000};
  QString heatmap;          // metric name; empty = the default (estimated time), "none" = categories
  bool showShapes = true;
  bool expandAll = false;
  int timeoutSeconds = 600;
};

// Returns a process exit code: 0 written, 2 model error, 3 layout or write failure.
int runScreenshot(const ScreenshotOptions& options);

}  // namespace msa::ui
