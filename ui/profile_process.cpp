#include "profile_process.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "profile/acl_profiler.h"

namespace msa::ui {

namespace {

constexpr int kTailLines = 20;
constexpr qsizetype kMaxLine = 1 << 20;         // a "line" longer than this is garbage
constexpr qint64 kMaxResultBytes = 256 << 20;  // a profile JSON larger than this is not ours

QString fromUtf8(const QByteArray& b) { return QString::fromUtf8(b).trimmed(); }

}  // namespace

ProfileProcess::ProfileProcess(QObject* parent) : QObject(parent) {
  qRegisterMetaType<msa::ProfileData>();
  m_timeout.setSingleShot(true);
  m_kill.setSingleShot(true);
  connect(&m_timeout, &QTimer::timeout, this, [this] {
    m_timedOut = true;
    stop();
  });
  connect(&m_kill, &QTimer::timeout, this, [this] {
    if (m_process) m_process->kill();
  });
}

ProfileProcess::~ProfileProcess() {
  if (m_process) {
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
      m_process->kill();
      m_process->waitForFinished(3000);
    }
  }
}

QString ProfileProcess::defaultProgram() {
  const QString besideUs = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("msadvisor-cli"));
  if (QFileInfo(besideUs).isExecutable()) return besideUs;
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("msadvisor-cli"));
  return onPath.isEmpty() ? QStringLiteral("msadvisor-cli") : onPath;
}

QString ProfileProcess::deviceUnavailableReason(const QString& device) {
  if (device == QLatin1String("cpu")) return {};
  if (device == QLatin1String("acl")) return msa::aclBackendAvailable() ? QString() : QString::fromUtf8(msa::aclUnavailableMessage());
  return tr("Unknown device '%1' (this build profiles on cpu%2).")
      .arg(device, msa::aclBackendAvailable() ? QStringLiteral(" and acl") : QString());
}

bool ProfileProcess::isRunning() const { return !m_done; }

qint64 ProfileProcess::processId() const { return m_process ? m_process->processId() : 0; }

bool ProfileProcess::start(const Request& request) {
  if (isRunning()) return false;
  m_request = request;
  m_cancelRequested = m_timedOut = false;
  m_stderrBuffer.clear();
  m_stderrTail.clear();
  m_done = false;
  m_dir = std::make_unique<QTemporaryDir>();
  if (!m_dir->isValid()) {
    const QString why = m_dir->errorString();
    conclude();
    emit failed(tr("Cannot create a temporary folder for the profile: %1").arg(why));
    return true;
  }
  m_resultPath = m_dir->filePath(QStringLiteral("profile.json"));
  const QString program = request.program.isEmpty() ? defaultProgram() : request.program;
  QStringList args{QStringLiteral("profile"), request.model};
  args << request.arguments << QStringLiteral("--progress") << QStringLiteral("json") << QStringLiteral("--json")
       << m_resultPath;
  m_commandLine = QStringList{program} + args;

  m_process = new QProcess(this);
  m_process->setProgram(program);
  m_process->setArguments(args);
  m_process->setStandardOutputFile(QProcess::nullDevice());
  connect(m_process, &QProcess::readyReadStandardError, this, &ProfileProcess::onStderr);
  connect(m_process, &QProcess::finished, this, &ProfileProcess::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, &ProfileProcess::onError);
  m_timeout.start(request.timeoutMs);
  m_process->start();
  if (m_process && m_process->state() != QProcess::NotRunning) emit started();
  return true;
}

void ProfileProcess::cancel() {
  if (!isRunning() || !m_process) return;
  m_cancelRequested = true;
  stop();
}

void ProfileProcess::stop() {
  if (!m_process || m_process->state() == QProcess::NotRunning) return;
  m_process->terminate();  // SIGTERM: the CLI cancels cooperatively
  if (!m_kill.isActive()) m_kill.start(m_request.killGraceMs);
}

void ProfileProcess::onStderr() {
  if (!m_process) return;
  m_stderrBuffer += m_process->readAllStandardError();
  qsizetype nl;
  while ((nl = m_stderrBuffer.indexOf('\n')) >= 0) {
    handleLine(m_stderrBuffer.left(nl));
    m_stderrBuffer.remove(0, nl + 1);
  }
  if (m_stderrBuffer.size() > kMaxLine) m_stderrBuffer.clear();  // no newline in sight: not ours
}

void ProfileProcess::handleLine(const QByteArray& raw) {
  const QByteArray line = raw.trimmed();
  if (line.isEmpty()) return;
  if (line.startsWith('{')) {
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    if (err.error == QJsonParseError::NoError && doc.isObject()) {
      const QJsonObject o = doc.object();
      const QString event = o.value(QLatin1String("event")).toString();
      if (event == QLatin1String("progress")) {
        const QJsonValue f = o.value(QLatin1String("fraction"));
        const QString phase = o.value(QLatin1String("phase")).toString();
        if (f.isDouble() && std::isfinite(f.toDouble())) emit progressChanged(phase, std::clamp(f.toDouble(), 0.0, 1.0));
        return;
      }
      if (event == QLatin1String("error")) {
        m_stderrTail << o.value(QLatin1String("message")).toString();
        return;
      }
    }
  }
  m_stderrTail << fromUtf8(line.left(500));
  while (m_stderrTail.size() > kTailLines) m_stderrTail.removeFirst();
}

QString ProfileProcess::errorRecord() const {
  // The CLI's error record in the result file: {"error": {"message": …}} or {"error": "…"}.
  QFile f(m_resultPath);
  if (f.size() > 0 && f.size() < kMaxResultBytes && f.open(QIODevice::ReadOnly)) {
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    const QJsonValue e = doc.isObject() ? doc.object().value(QLatin1String("error")) : QJsonValue();
    if (e.isString() && !e.toString().isEmpty()) return e.toString();
    if (e.isObject() && !e.toObject().value(QLatin1String("message")).toString().isEmpty())
      return e.toObject().value(QLatin1String("message")).toString();
  }
  const QString prefix = QStringLiteral("msadvisor-cli: ");
  for (auto it = m_stderrTail.crbegin(); it != m_stderrTail.crend(); ++it)
    if (it->startsWith(prefix)) return it->mid(prefix.size());
  return m_stderrTail.isEmpty() ? QString() : m_stderrTail.last();
}

void ProfileProcess::onError(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || !m_process) return;  // the rest ends in finished()
  const QString why = m_process->errorString();
  const QString program = m_process->program();
  conclude();
  emit failed(tr("Cannot start the profiler (%1): %2").arg(program, why));
}

void ProfileProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  if (!m_process) return;
  onStderr();
  if (!m_stderrBuffer.isEmpty()) handleLine(m_stderrBuffer);
  m_stderrBuffer.clear();

  enum class Outcome { Finished, Failed, Cancelled } outcome = Outcome::Failed;
  QString message;
  ProfileData profile;
  const QString record = errorRecord();
  const QString detail = record.isEmpty() ? QString() : QStringLiteral("\n") + record;
  if (m_cancelRequested) {
    outcome = Outcome::Cancelled;
  } else if (m_timedOut) {
    message = tr("The profiler did not finish within %1 s and was stopped.").arg(m_request.timeoutMs / 1000.0) + detail;
  } else if (status == QProcess::CrashExit) {
    message = tr("The profiler crashed (killed by signal %1); the model may be unsupported by the runtime.")
                  .arg(exitCode) + detail;
  } else if (exitCode != 0) {
    message = record.isEmpty() ? tr("The profiler failed with exit code %1.").arg(exitCode) : record;
    if (exitCode == 5 && record.isEmpty()) message = tr("The profiler was stopped from outside (exit code 5).");
  } else {
    QFile f(m_resultPath);
    if (!f.exists()) {
      message = tr("The profiler exited normally but wrote no result.");
    } else if (f.size() > kMaxResultBytes || !f.open(QIODevice::ReadOnly)) {
      message = tr("The profiler's result cannot be read (%1).").arg(m_resultPath);
    } else {
      const QByteArray bytes = f.readAll();
      nlohmann::json j = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
      if (j.is_discarded()) {
        message = tr("The profiler's result is not valid JSON.");
      } else if (auto p = profileFromJson(j, "profile.json"); !p.ok()) {
        message = tr("The profiler's result is not a profile: %1").arg(QString::fromStdString(p.error().message));
      } else {
        profile = std::move(*p);
        outcome = Outcome::Finished;
      }
    }
  }
  conclude();
  switch (outcome) {
    case Outcome::Finished: emit finished(profile); break;
    case Outcome::Cancelled: emit cancelled(); break;
    case Outcome::Failed: emit failed(message); break;
  }
}

void ProfileProcess::conclude() {
  // Reset before emitting, so a receiver may start the next run from its slot.
  m_timeout.stop();
  m_kill.stop();
  if (m_process) {
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
  }
  m_dir.reset();
  m_done = true;
}

}  // namespace msa::ui
