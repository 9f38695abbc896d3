#include "document_loader.h"

#include <QFileInfo>

namespace msa::ui {

void DocumentLoader::load(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  m_job.start(
      [abs](const Progress& progress) -> Result<std::shared_ptr<const ModelDocument>> {
        auto d = loadDocument(abs, progress.cancelFlag());
        if (!d) return d.error();
        return std::make_shared<const ModelDocument>(std::move(*d));
      },
      {.done = [this](std::shared_ptr<const ModelDocument> d) { emit loaded(std::move(d)); },
       .failed =
           [this, abs](const Error& e) {
             QString msg = QString::fromStdString(e.describe());
             if (!msg.contains(abs) && !msg.contains(QFileInfo(abs).fileName())) msg = abs + QStringLiteral(": ") + msg;
             emit failed(abs, msg);
           },
       .cancelled = [this] { emit cancelled(); }});
}

}  // namespace msa::ui
