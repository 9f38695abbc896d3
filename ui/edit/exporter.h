#pragma once
// File > Export: the edited model as ONNX, the analysis as a report, the graph as an image.
// Each returns an error message naming the file (empty on success); none writes over a file the
// document reads — the opened file, the model's file and its external data (`model`, when given),
// through symlinks and hard links (core's util/run_files.h) — and every file is written whole or
// not at all (temporary file + rename).
#include <QString>

#include "advisor/advisor.h"
#include "model/graph.h"
#include "report/report_json.h"

class QGraphicsScene;

namespace msa::ui {

// Saves `model` to `out` through core saveModel (atomic; external data kept external when the
// source had it or the weights exceed 2 GB). `openedPath` is the file the user opened: refused,
// as is anything the model reads weights from. Value info the GUI inferred for drawing is left
// out: the file declares what the source declared.
QString exportModel(const Model& model, const QString& out, const QString& openedPath);

enum class ReportFormat { Html, Json, Markdown };
// By extension: .html/.htm, .json, .md/.markdown; nullopt otherwise.
std::optional<ReportFormat> reportFormatFor(const QString& path);
QString exportReport(const Report& report, const QString& out, const QString& openedPath,
                     const ReportOptions& options = {}, const Model* model = nullptr);

// SVG through QSvgGenerator, PNG at `scale` (2: sharp on high-DPI screens) with each side capped
// at kMaxImageSide pixels and the whole at kMaxImagePixels; by extension (.svg, .png). The scene's items as drawn, on white.
inline constexpr int kMaxImageSide = 16384;
inline constexpr double kMaxImagePixels = 64e6;  // 256 MB of ARGB
QString exportGraphImage(QGraphicsScene* scene, const QString& out, const QString& openedPath, double scale = 2.0,
                         const Model* model = nullptr);

}  // namespace msa::ui
