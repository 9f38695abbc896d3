#pragma once
// Runs one analysis for the GUI, in stages that never block the window:
//   CPU: `msadvisor-cli profile` twice as a child process (ProfileProcess) — ONNX Runtime
//        optimizations disabled (one entry per IR node), then `all` (the runtime's fusions and
//        NCHWc reorders, which the format rules read) — then core analyze() on a worker thread;
//   estimate-only device: analyze() on the roofline alone;
//   Ascend (builds with CANN): `profile --device acl`, then analyze() on the chosen profile.
// Every run ends in exactly one of finished / failed / cancelled. A crashing or hanging child
// is a failure with the profiler's message; the window keeps working.
#include <QObject>
#include <QTemporaryDir>
#include <QTimer>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "analysis/analysis_settings.h"
#include "advisor/advisor.h"
#include "graph/model_document.h"

namespace msa::ui {

class ProfileProcess;

struct AnalysisResult {
  std::shared_ptr<const Report> report;
  std::shared_ptr<const ModelDocument> document;  // what was analysed, as the window showed it
  std::shared_ptr<const Model> model;             // the analysed IR (symbolic dims bound)
  AnalysisSettings settings;
  double seconds = 0;  // wall time of the whole run
};

class AnalysisController : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisController(QObject* parent = nullptr);
  ~AnalysisController() override;  // cancels: the child is killed, a worker's result dropped

  // Starts a run; false (and nothing emitted) while another runs or without a document.
  bool start(std::shared_ptr<const ModelDocument> document, const AnalysisSettings& settings);
  void cancel();
  bool isRunning() const { return m_running; }

  // msadvisor-cli beside this executable, in the build tree's app/cli, then on PATH.
  static QString defaultCliProgram();
  // Empty when the device can be used here; otherwise why not (shown in the dialog).
  static QString deviceUnavailableReason(AnalysisSettings::Device device);

 signals:
  void progressChanged(const QString& phase, double fraction);
  void finished(const msa::ui::AnalysisResult& result);
  void failed(const QString& message);
  void cancelled();

 private:
  enum class Stage { Idle, WriteModel, ProfileDisabled, ProfileAll, ProfileAcl, Analyze };
  void startProfile(Stage stage);
  // An edited model is not the file at its path: the profiler gets it written to a temporary
  // file first (on a worker), then `next` starts.
  void writeModelThen(Stage next);
  void startAnalyze();
  void finish();
  void pollProgress();
  void emitProgress(const QString& text, double fraction);
  QString stageText(Stage s, const QString& phase) const;

  ProfileProcess* m_profiler = nullptr;
  std::shared_ptr<const ModelDocument> m_doc;
  AnalysisSettings m_settings;
  Stage m_stage = Stage::Idle;
  bool m_running = false;
  quint64 m_generation = 0;
  qint64 m_startedMs = 0;
  double m_fraction = 0;
  std::optional<ProfileData> m_disabled, m_runtime;
  std::unique_ptr<QTemporaryDir> m_modelDir;  // holds the edited model while it is profiled
  QString m_modelPath;                        // the file the profiler reads
  std::shared_ptr<std::atomic<bool>> m_cancel;

  // The worker's progress, polled on the GUI thread (the worker never touches this object).
  struct WorkerProgress {
    std::mutex mutex;
    QString phase;
    double fraction = 0;
    bool fresh = false;
  };
  std::shared_ptr<WorkerProgress> m_workerProgress;
  QTimer m_poll;
};

}  // namespace msa::ui

Q_DECLARE_METATYPE(msa::ui::AnalysisResult)
