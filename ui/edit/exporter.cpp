#include "edit/exporter.h"

#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>
#include <unordered_set>

#include "model/onnx_io.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "util/run_files.h"

namespace msa::ui {
namespace {

bool samePath(const QString& a, const QString& b) {
  if (a.isEmpty() || b.isEmpty()) return false;
  const QFileInfo fa(a), fb(b);
  if (fa.exists() && fb.exists()) return fa.canonicalFilePath() == fb.canonicalFilePath();
  return fa.absoluteFilePath() == fb.absoluteFilePath();
}

// Nothing the document reads is written over: the opened file, and every file the model reads
// (its external data), however the output path reaches it (core's ReadFiles: symlinks, hard links).
QString refuseReads(const QString& out, const QString& opened, const Model* model) {
  if (samePath(out, opened))
    return QObject::tr("Refusing to write over the opened model %1: choose another file name.").arg(QFileInfo(opened).absoluteFilePath());
  ReadFiles reads;
  if (!opened.isEmpty()) reads.add(opened.toStdString(), "the opened file");
  if (model) addModelFiles(reads, *model);
  if (Status s = reads.checkOutput(out.toStdString(), "the export"); !s)
    return QObject::tr("Refusing to write over a file the document reads (%1): choose another file name.")
        .arg(QString::fromStdString(s.error().describe()));
  return {};
}

QString writeAtomically(const QString& out, const QByteArray& bytes) {
  QSaveFile f(out);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(out, f.errorString());
  if (f.write(bytes) != bytes.size()) {
    f.cancelWriting();
    return QObject::tr("Cannot write %1: %2").arg(out, f.errorString());
  }
  if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(out, f.errorString());
  return {};
}

// Value info the file itself declares (the GUI inferred the rest to draw shapes).
void keepDeclaredValueInfo(Model& model, const QString& source) {
  if (!QFileInfo::exists(source)) return;
  auto src = loadModel(source.toStdString());
  if (!src) return;  // keep everything rather than guess
  std::unordered_set<std::string> declared;
  for (const ValueInfo& v : src->graph.valueInfo) declared.insert(v.name);
  std::erase_if(model.graph.valueInfo, [&](const ValueInfo& v) { return !declared.count(v.name); });
}

}  // namespace

QString exportModel(const Model& model, const QString& out, const QString& openedPath) {
  if (QString e = refuseReads(out, openedPath, &model); !e.isEmpty()) return e;
  if (QFileInfo(out).isDir()) return QObject::tr("Cannot write %1: it is a folder.").arg(out);
  Model copy = model;  // weights are shared, not copied
  keepDeclaredValueInfo(copy, openedPath);
  if (Status s = saveModel(copy, out.toStdString()); !s)
    return QObject::tr("Cannot export %1: %2").arg(out, QString::fromStdString(s.error().describe()));
  return {};
}

std::optional<ReportFormat> reportFormatFor(const QString& path) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == QLatin1String("html") || ext == QLatin1String("htm")) return ReportFormat::Html;
  if (ext == QLatin1String("json")) return ReportFormat::Json;
  if (ext == QLatin1String("md") || ext == QLatin1String("markdown")) return ReportFormat::Markdown;
  return std::nullopt;
}

QString exportReport(const Report& report, const QString& out, const QString& openedPath, const ReportOptions& options,
                     const Model* model) {
  if (QString e = refuseReads(out, openedPath, model); !e.isEmpty()) return e;
  const auto format = reportFormatFor(out);
  if (!format) return QObject::tr("Cannot export %1: the report is written as .html, .json or .md.").arg(out);
  std::string text;
  switch (*format) {
    case ReportFormat::Html: text = reportToHtml(report, options); break;
    case ReportFormat::Json: text = reportToJson(report, options).dump(2) + "\n"; break;
    case ReportFormat::Markdown: text = reportToMarkdown(report, options); break;
  }
  return writeAtomically(out, QByteArray::fromStdString(text));
}

QString exportGraphImage(QGraphicsScene* scene, const QString& out, const QString& openedPath, double scale,
                         const Model* model) {
  if (QString e = refuseReads(out, openedPath, model); !e.isEmpty()) return e;
  if (!scene || scene->items().isEmpty()) return QObject::tr("Cannot export %1: no graph is shown.").arg(out);
  const QString ext = QFileInfo(out).suffix().toLower();
  const QRectF source = scene->itemsBoundingRect().adjusted(-16, -16, 16, 16);
  QString error;
  if (ext == QLatin1String("svg")) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    svg.setTitle(QFileInfo(openedPath).fileName());
    svg.setDescription(QStringLiteral("msadvisor graph"));
    {
      QPainter p(&svg);
      p.fillRect(QRectF(QPointF(0, 0), source.size()), Qt::white);
      scene->render(&p, QRectF(QPointF(0, 0), source.size()), source);
    }
    buffer.close();
    error = writeAtomically(out, buffer.data());
  } else if (ext == QLatin1String("png")) {
    const double side = std::max(source.width(), source.height());
    double s = std::min(scale, kMaxImageSide / std::max(side, 1.0));
    s = std::min(s, std::sqrt(kMaxImagePixels / std::max(source.width() * source.height(), 1.0)));
    const QSize size(std::max(1, qRound(source.width() * s)), std::max(1, qRound(source.height() * s)));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) {
      error = QObject::tr("Cannot export %1: not enough memory for a %2 × %3 image.").arg(out).arg(size.width()).arg(size.height());
    } else {
      image.fill(Qt::white);
      {
        QPainter p(&image);
        p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
        scene->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), source);
      }
      QBuffer buffer;
      buffer.open(QIODevice::WriteOnly);
      if (!image.save(&buffer, "PNG")) error = QObject::tr("Cannot export %1: PNG encoding failed.").arg(out);
      else error = writeAtomically(out, buffer.data());
    }
  } else {
    error = QObject::tr("Cannot export %1: the graph is written as .svg or .png.").arg(out);
  }
  return error;
}

}  // namespace msa::ui
