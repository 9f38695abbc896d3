#include "profile_process.h"

#include <signal.h>

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
#include <condition_variable>
#include <mutex>

#include <nlohmann/json.hpp>

#include "profile/acl_profiler.h"
#include "profile/child_process.h"

namespace msa::ui {

namespace {

constexpr int kTailLines = 20;
constexpr qint64 kMaxResultBytes = 256 << 20;  // a profile JSON larger than this is not ours

QString fromUtf8(const QByteArray& b) { return QString::fromUtf8(b).trimmed(); }

// The child's output lines: progress events are reported, the rest kept (the last ones) for
// the error message.
struct OutputLines {
  const Progress& progress;
  QStringList tail;

  void take(std::string_view raw) {
    const QByteArray line = QByteArray(raw.data(), static_cast<qsizetype>(raw.size())).trimmed();
    if (line.isEmpty()) return;
    if (line.startsWith('{')) {
      QJsonParseError err;
      const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
      if (err.error == QJsonParseError::NoError && doc.isObject()) {
        const QJsonObject o = doc.object();
        const QString event = o.value(QLatin1String("event")).toString();
        if (event == QLatin1String("progress")) {
          const QJsonValue f = o.value(QLatin1String("fraction"));
          const QByteArray phase = o.value(QLatin1String("phase")).toString().toUtf8();
          if (f.isDouble() && std::isfinite(f.toDouble()))
            progress.report(std::string_view(phase.constData(), static_cast<size_t>(phase.size())), std::clamp(f.toDouble(), 0.0, 1.0));
          return;
        }
        if (event == QLatin1String("error")) {
          tail << o.value(QLatin1String("message")).toString();
          return;
        }
      }
    }
    tail << fromUtf8(line.left(500));
    while (tail.size() > kTailLines) tail.removeFirst();
  }

  // The CLI's error record in the result file ({"error": {"message": …}} or {"error": "…"}),
  // else its last "msadvisor-cli: " line, else the last line.
  QString errorRecord(const QString& resultPath) const {
    QFile f(resultPath);
    if (f.size() > 0 && f.size() < kMaxResultBytes && f.open(QIODevice::ReadOnly)) {
      const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
      const QJsonValue e = doc.isObject() ? doc.object().value(QLatin1String("error")) : QJsonValue();
      if (e.isString() && !e.toString().isEmpty()) return e.toString();
      if (e.isObject() && !e.toObject().value(QLatin1String("message")).toString().isEmpty())
        return e.toObject().value(QLatin1String("message")).toString();
    }
    const QString prefix = QStringLiteral("msadvisor-cli: ");
    for (auto it = tail.crbegin(); it != tail.crend(); ++it)
      if (it->startsWith(prefix)) return it->mid(prefix.size());
    return tail.isEmpty() ? QString() : tail.last();
  }
};

Error failure(const QString& message) { return Error::device(message.toStdString()); }

}  // namespace

struct ProfileProcess::Running {
  std::atomic<long> pid{0};
  std::mutex mutex;
  std::condition_variable cv;
  bool ended = false;
};

ProfileProcess::ProfileProcess(QObject* parent) : QObject(parent) { qRegisterMetaType<msa::ProfileData>(); }

ProfileProcess::~ProfileProcess() {
  if (!m_running || !m_job.running()) return;
  // Nobody is left to hear from this run: the child goes now, and is reaped before we return.
  if (const long pid = m_running->pid.load(); pid > 0) ::kill(-static_cast<pid_t>(pid), SIGKILL);
  m_job.drop();
  std::unique_lock lock(m_running->mutex);
  m_running->cv.wait_for(lock, std::chrono::seconds(3), [r = m_running.get()] { return r->ended; });
}

QString ProfileProcess::defaultProgram() {
  const QDir here(QCoreApplication::applicationDirPath());
  const QString name = QStringLiteral("msadvisor-cli");
  // Installed side by side; in the build tree the GUI is app/gui, the CLI app/cli, tests tests/*.
  for (const QString& candidate : {here.filePath(name), here.filePath(QStringLiteral("../cli/") + name),
                                   here.filePath(QStringLiteral("../../app/cli/") + name)})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  const QString onPath = QStandardPaths::findExecutable(name);
  return onPath.isEmpty() ? name : onPath;
}

QString ProfileProcess::deviceUnavailableReason(const QString& device) {
  if (device == QLatin1String("cpu")) return {};
  if (device == QLatin1String("acl")) return msa::aclBackendAvailable() ? QString() : QString::fromUtf8(msa::aclUnavailableMessage());
  return tr("Unknown device '%1' (this build profiles on cpu%2).")
      .arg(device, msa::aclBackendAvailable() ? QStringLiteral(" and acl") : QString());
}

qint64 ProfileProcess::processId() const { return m_running && m_job.running() ? m_running->pid.load() : 0; }

QStringList ProfileProcess::commandLine(const Request& request, const QString& resultPath) {
  const QString program = request.program.isEmpty() ? defaultProgram() : request.program;
  return QStringList{program, request.verb, request.model} + request.arguments +
         QStringList{QStringLiteral("--progress"), QStringLiteral("json"), QStringLiteral("--json"), resultPath};
}

Result<ProfileData> ProfileProcess::run(const Request& request, const Progress& progress, std::atomic<long>* pid) {
  auto j = runJson(request, progress, pid);
  if (!j) return j.error();
  auto p = profileFromJson(*j, "profile.json");
  if (!p) return failure(tr("The profiler's result is not a profile: %1").arg(QString::fromStdString(p.error().message)));
  return std::move(*p);
}

Result<nlohmann::json> ProfileProcess::runJson(const Request& request, const Progress& progress, std::atomic<long>* pid) {
  QTemporaryDir dir;
  if (!dir.isValid()) return failure(tr("Cannot create a temporary folder for the profile: %1").arg(dir.errorString()));
  const QString resultPath = dir.filePath(QStringLiteral("profile.json"));
  const QStringList cmd = commandLine(request, resultPath);
  std::vector<std::string> argv;
  for (const QString& a : cmd) argv.push_back(a.toStdString());
  OutputLines lines{progress, {}};
  ChildOptions o;
  o.timeout = std::chrono::milliseconds(request.timeoutMs);
  o.killGrace = std::chrono::milliseconds(request.killGraceMs);
  o.onLine = [&lines](std::string_view line) { lines.take(line); };
  if (pid) o.onStarted = [pid](long p) { pid->store(p); };
  auto child = runChild(argv, o, progress);
  if (!child) return failure(tr("Cannot start the profiler (%1): %2").arg(cmd.front(), QString::fromStdString(child.error().message)));
  const QString record = lines.errorRecord(resultPath);
  const QString detail = record.isEmpty() ? QString() : QStringLiteral("\n") + record;
  if (child->cancelled) return Error::cancelled();
  if (child->timedOut)
    return failure(tr("The profiler did not finish within %1 s and was stopped.").arg(request.timeoutMs / 1000.0) + detail);
  if (child->signal != 0)
    return failure(tr("The profiler crashed (killed by signal %1); the model may be unsupported by the runtime.").arg(child->signal) + detail);
  if (child->exitCode != 0) {
    if (child->exitCode == 5 && record.isEmpty()) return failure(tr("The profiler was stopped from outside (exit code 5)."));
    return failure(record.isEmpty() ? tr("The profiler failed with exit code %1.").arg(child->exitCode) : record);
  }
  QFile f(resultPath);
  if (!f.exists()) return failure(tr("The profiler exited normally but wrote no result."));
  if (f.size() > kMaxResultBytes || !f.open(QIODevice::ReadOnly)) return failure(tr("The profiler's result cannot be read (%1).").arg(resultPath));
  const QByteArray bytes = f.readAll();
  nlohmann::json j = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
  if (j.is_discarded()) return failure(tr("The profiler's result is not valid JSON."));
  return j;
}

bool ProfileProcess::start(const Request& request) {
  if (isRunning()) return false;
  auto running = std::make_shared<Running>();
  m_running = running;
  m_commandLine = commandLine(request, QStringLiteral("<temp>/profile.json"));
  m_job.start(
      [request, running](const Progress& progress) {
        auto r = run(request, progress, &running->pid);
        {
          std::lock_guard lock(running->mutex);
          running->ended = true;
        }
        running->cv.notify_all();
        return r;
      },
      {.done = [this](ProfileData p) { emit finished(p); },
       .failed = [this](const Error& e) { emit failed(QString::fromStdString(e.message)); },
       .cancelled = [this] { emit cancelled(); },
       .progress = [this](const QString& phase, double f) { emit progressChanged(phase, f); }});
  emit started();
  return true;
}

// The child is asked to stop; the run ends as cancelled once it is gone.
void ProfileProcess::cancel() { m_job.requestCancel(); }

}  // namespace msa::ui
