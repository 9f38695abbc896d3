#pragma once
// Runs the profiler out of process, so a runtime that crashes or hangs cannot take the window
// down:
//   msadvisor-cli profile MODEL [extra arguments] --progress json --json <temp>/profile.json
// through core's runChild (its own process group; SIGTERM on cancel or timeout, SIGKILL after
// the grace). JSON progress lines on the child's stderr become progress; the result file becomes
// the ProfileData. Every run ends in exactly one of finished / failed / cancelled:
//  - cancel: the CLI stops cooperatively on SIGTERM (exit 5), SIGKILL after the grace; the
//    outcome is cancelled, never a failure, and comes once the child is gone;
//  - timeout: the same, reported as failed("… did not finish within N s …");
//  - a crash (killed by a signal) or a non-zero exit: failed with the error record the CLI
//    wrote ({"error": {"message": …}} in the JSON file) or else its last stderr line;
//  - exit 0 with a missing or unreadable result file: failed, never a half-read profile.
// `run()` is the synchronous runner for worker threads (the analysis's Measurer); the object is
// the same run as a Job (ui/job.h) for the GUI thread. QtCore only.
#include <QObject>
#include <QStringList>

#include <atomic>
#include <memory>

#include <nlohmann/json.hpp>

#include "job.h"
#include "profile/profile_data.h"

Q_DECLARE_METATYPE(msa::ProfileData)

namespace msa::ui {

class ProfileProcess : public QObject {
  Q_OBJECT
 public:
  struct Request {
    QString program;        // msadvisor-cli; empty: next to this executable, then on PATH
    QString verb = QStringLiteral("profile");  // or another verb that writes --json (what-if)
    QString model;          // the ONNX file
    QStringList arguments;  // e.g. {"--device", "cpu", "--iterations", "50"}
    int timeoutMs = 30 * 60 * 1000;
    int killGraceMs = 3000;  // between SIGTERM and SIGKILL
  };

  explicit ProfileProcess(QObject* parent = nullptr);
  ~ProfileProcess() override;  // stops a running child (SIGKILL) and waits for it, emitting nothing

  // Starts a run; returns false (and emits nothing) while another is still running.
  bool start(const Request& request);
  void cancel();
  bool isRunning() const { return m_job.running(); }
  qint64 processId() const;  // 0 when not running
  QStringList commandLine() const { return m_commandLine; }

  // One run on the calling thread: progress and cancel through `progress` (its phases are the
  // child's own), the child's pid into `pid` while it runs. Errors: Cancelled, or Device with the
  // sentence to show.
  static Result<ProfileData> run(const Request& request, const Progress& progress, std::atomic<long>* pid = nullptr);
  // The same run for any verb: its --json document, with the same outcomes and messages.
  static Result<nlohmann::json> runJson(const Request& request, const Progress& progress, std::atomic<long>* pid = nullptr);
  static QStringList commandLine(const Request& request, const QString& resultPath);

  static QString defaultProgram();
  // Empty when this build can profile on `device` ("cpu", "acl"); otherwise the sentence to
  // show instead of offering it (no CANN in this build, an unknown device).
  static QString deviceUnavailableReason(const QString& device);

 signals:
  void started();
  void progressChanged(const QString& phase, double fraction);
  void finished(const msa::ProfileData& profile);
  void failed(const QString& message);
  void cancelled();

 private:
  struct Running;  // what the worker shares with this object: the pid, and whether it ended
  std::shared_ptr<Running> m_running;
  QStringList m_commandLine;
  Job<ProfileData> m_job{this};
};

}  // namespace msa::ui
