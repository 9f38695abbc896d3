#pragma once
// File ▸ Open, off the GUI thread: the IR, shapes, the drawable graph and the cost metrics
// (loadDocument) as one Job. A new load supersedes the one running; Cancel is its own outcome.
#include <QObject>
#include <QString>
#include <memory>

#include "graph/model_document.h"
#include "job.h"

namespace msa::ui {

class DocumentLoader : public QObject {
  Q_OBJECT
 public:
  explicit DocumentLoader(QObject* parent = nullptr) : QObject(parent) {}

  void load(const QString& path);
  void cancel() { m_job.cancel(); }
  // Forgets a running load without a word (the window shows another document).
  void drop() { m_job.drop(); }
  bool loading() const { return m_job.running(); }

 signals:
  void loaded(std::shared_ptr<const msa::ui::ModelDocument> document);
  // `message` names the file (and the node when the error has one).
  void failed(const QString& path, const QString& message);
  void cancelled();

 private:
  Job<std::shared_ptr<const ModelDocument>> m_job{this};
};

}  // namespace msa::ui
