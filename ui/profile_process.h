#pragma once
// Runs the profiler out of process for the GUI, so a runtime that crashes or hangs cannot take
// the window down:
//   msadvisor-cli profile MODEL [extra arguments] --progress json --json <temp>/profile.json
// JSON progress lines on the child's stderr become progressChanged(); the result file becomes
// finished(ProfileData). Every run ends in exactly one of finished / failed / cancelled:
//  - cancel(): SIGTERM (the CLI stops cooperatively and exits 5), SIGKILL after the grace;
//  - timeout: the same, reported as failed("… did not finish within N s …");
//  - a crash (killed by a signal) or a non-zero exit: failed() with the error record the CLI
//    wrote ({"error": {"message": …}} in the JSON file) or else its last stderr line;
//  - exit 0 with a missing or unreadable result file: failed(), never a half-read profile.
// QtCore only.
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <memory>

#include "profile/profile_data.h"

class QTemporaryDir;

Q_DECLARE_METATYPE(msa::ProfileData)

namespace msa::ui {

class ProfileProcess : public QObject {
  Q_OBJECT
 public:
  struct Request {
    QString program;        // msadvisor-cli; empty: next to this executable, then on PATH
    QString model;          // the ONNX file
    QStringList arguments;  // e.g. {"--device", "cpu", "--iterations", "50"}
    int timeoutMs = 30 * 60 * 1000;
    int killGraceMs = 3000;  // between SIGTERM and SIGKILL
  };

  explicit ProfileProcess(QObject* parent = nullptr);
  ~ProfileProcess() override;  // stops a running child (SIGKILL) and reaps it, emitting nothing

  // Starts a run; returns false (and emits nothing) while another is still running.
  bool start(const Request& request);
  void cancel();
  bool isRunning() const;
  qint64 processId() const;  // 0 when not running
  QStringList commandLine() const { return m_commandLine; }

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
  void onStderr();
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);
  void stop();  // SIGTERM now, SIGKILL after the grace
  void handleLine(const QByteArray& line);
  QString errorRecord() const;  // from the result file or stderr
  void conclude();

  QProcess* m_process = nullptr;
  std::unique_ptr<QTemporaryDir> m_dir;
  QString m_resultPath;
  QStringList m_commandLine;
  QByteArray m_stderrBuffer;
  QStringList m_stderrTail;  // last non-progress lines, for error messages
  QTimer m_timeout, m_kill;
  Request m_request;
  bool m_cancelRequested = false;
  bool m_timedOut = false;
  bool m_done = true;
};

}  // namespace msa::ui
