#include "analysis/analysis_controller.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "advisor/run_analysis.h"
#include "model/onnx_io.h"
#include "profile/acl_profiler.h"
#include "profile_process.h"

namespace msa::ui {
namespace {

// Where each stage sits on the one progress bar.
constexpr double kDisabledEnd = 0.45, kAllEnd = 0.9;

using WorkerResult = std::shared_ptr<Result<AnalysisResult>>;

Result<AnalysisResult> analyzeOnWorker(std::shared_ptr<const ModelDocument> doc, AnalysisSettings s,
                                       std::optional<ProfileData> disabled, std::optional<ProfileData> runtime,
                                       const Progress& progress) {
  AnalysisRequest request;
  // CPU: priced on this host; otherwise (and for an imported profile not taken on a CPU) on the
  // device profile chosen in the dialog.
  const bool cpu = s.importedProfile.isEmpty() && s.device == AnalysisSettings::Device::Cpu;
  request.device = cpu ? std::string("cpu") : s.deviceProfile.toStdString();
  request.calibration = CalibrationPolicy::Cached;
  for (auto it = s.dims.cbegin(); it != s.dims.cend(); ++it) request.dims[it.key().toStdString()] = it.value();
  request.inferShapes = !s.dims.isEmpty();  // the document's shapes are inferred already
  request.options.goal = s.goal;
  request.options.scenario = s.scenario;
  request.options.topN = s.topN;
  if (!s.importedProfile.isEmpty()) request.profilePath = s.importedProfile.toStdString();
  else if (disabled || runtime) request.profiles = MeasuredProfiles{std::move(disabled), std::move(runtime)};
  auto outcome = runAnalysis(doc->model, request, progress);
  if (!outcome) return outcome.error();
  AnalysisResult r;
  r.report = std::make_shared<const Report>(std::move(outcome->report));
  r.document = std::move(doc);
  r.model = std::move(outcome->model);
  r.settings = std::move(s);
  return r;
}

}  // namespace

AnalysisController::AnalysisController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<msa::ui::AnalysisResult>();
  m_profiler = new ProfileProcess(this);
  m_poll.setInterval(100);
  connect(&m_poll, &QTimer::timeout, this, &AnalysisController::pollProgress);
  connect(m_profiler, &ProfileProcess::progressChanged, this, [this](const QString& phase, double f) {
    const double lo = m_stage == Stage::ProfileAll ? kDisabledEnd : 0.0;
    const double hi = m_stage == Stage::ProfileDisabled ? kDisabledEnd : kAllEnd;
    emitProgress(stageText(m_stage, phase), lo + (hi - lo) * f);
  });
  connect(m_profiler, &ProfileProcess::finished, this, [this](const ProfileData& p) {
    switch (m_stage) {
      case Stage::ProfileDisabled:
        m_disabled = p;
        startProfile(Stage::ProfileAll);
        break;
      case Stage::ProfileAll:
        m_runtime = p;
        startAnalyze();
        break;
      case Stage::ProfileAcl:  // one device profile: per IR node and the runtime's own view
        m_disabled = p;
        m_runtime = p;
        startAnalyze();
        break;
      default: break;
    }
  });
  connect(m_profiler, &ProfileProcess::failed, this, [this](const QString& msg) {
    finish();
    emit failed(msg);
  });
  connect(m_profiler, &ProfileProcess::cancelled, this, [this] {
    finish();
    emit cancelled();
  });
}

AnalysisController::~AnalysisController() {
  if (m_cancel) m_cancel->store(true);
}

QString AnalysisController::defaultCliProgram() {
  const QDir here(QCoreApplication::applicationDirPath());
  const QString name = QStringLiteral("msadvisor-cli");
  // Installed side by side; in the build tree the GUI is app/gui and the CLI app/cli.
  for (const QString& candidate : {here.filePath(name), here.filePath(QStringLiteral("../cli/") + name),
                                   here.filePath(QStringLiteral("../../app/cli/") + name)})
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  const QString onPath = QStandardPaths::findExecutable(name);
  return onPath.isEmpty() ? name : onPath;
}

QString AnalysisController::deviceUnavailableReason(AnalysisSettings::Device device) {
  if (device != AnalysisSettings::Device::Ascend) return {};
  return ProfileProcess::deviceUnavailableReason(QStringLiteral("acl"));
}

bool AnalysisController::start(std::shared_ptr<const ModelDocument> doc, const AnalysisSettings& settings) {
  if (m_running || !doc || !doc->model) return false;
  m_doc = std::move(doc);
  m_settings = settings;
  m_disabled.reset();
  m_runtime.reset();
  m_running = true;
  m_fraction = 0;
  ++m_generation;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_startedMs = QDateTime::currentMSecsSinceEpoch();

  // Symbolic dims must be bound before anything is measured; say which.
  const bool measures = settings.device != AnalysisSettings::Device::Estimate && settings.importedProfile.isEmpty();
  if (measures) {
    QStringList unbound;
    for (const std::string& d : m_doc->shapes.unboundDims)
      if (!settings.dims.contains(QString::fromStdString(d))) unbound << QString::fromStdString(d);
    if (!unbound.isEmpty()) {
      const QString msg = tr("Bind the symbolic input dims to profile: %1 (Analyze ▸ Run…, Symbolic dims).")
                              .arg(unbound.join(QStringLiteral(", ")));
      QTimer::singleShot(0, this, [this, msg, gen = m_generation] {
        if (gen != m_generation) return;
        finish();
        emit failed(msg);
      });
      return true;
    }
  }
  if (!measures) {
    QTimer::singleShot(0, this, [this, gen = m_generation] {
      if (gen == m_generation && m_running) startAnalyze();
    });
    return true;
  }
  const Stage first = settings.device == AnalysisSettings::Device::Ascend ? Stage::ProfileAcl : Stage::ProfileDisabled;
  m_modelPath = m_doc->path;
  if (!m_doc->onDisk && settings.device != AnalysisSettings::Device::Estimate) {
    writeModelThen(first);
    return true;
  }
  switch (settings.device) {
    case AnalysisSettings::Device::Cpu: startProfile(Stage::ProfileDisabled); break;
    case AnalysisSettings::Device::Ascend: startProfile(Stage::ProfileAcl); break;
    case AnalysisSettings::Device::Estimate:
      QTimer::singleShot(0, this, [this, gen = m_generation] {
        if (gen == m_generation && m_running) startAnalyze();
      });
      break;
  }
  return true;
}

void AnalysisController::writeModelThen(Stage next) {
  m_stage = Stage::WriteModel;
  emitProgress(stageText(Stage::WriteModel, QString()), 0.0);
  m_modelDir = std::make_unique<QTemporaryDir>();
  if (!m_modelDir->isValid()) {
    QTimer::singleShot(0, this, [this, gen = m_generation] {
      if (gen != m_generation) return;
      finish();
      emit failed(tr("Cannot create a temporary folder for the edited model."));
    });
    return;
  }
  m_modelPath = m_modelDir->filePath(QFileInfo(m_doc->path).completeBaseName() + QStringLiteral(".edited.onnx"));
  const quint64 gen = m_generation;
  auto* watcher = new QFutureWatcher<QString>(this);
  connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, gen, next] {
    watcher->deleteLater();
    if (gen != m_generation || !m_running) return;  // cancelled meanwhile
    if (const QString err = watcher->result(); !err.isEmpty()) {
      finish();
      emit failed(tr("Cannot write the edited model for the profiler: %1").arg(err));
      return;
    }
    startProfile(next);
  });
  watcher->setFuture(QtConcurrent::run([model = m_doc->model, path = m_modelPath.toStdString()]() -> QString {
    SaveOptions o;
    o.keepGeneratedNames = true;  // the profile names the nodes as the document does
    const Status s = saveModel(*model, path, o);
    return s ? QString() : QString::fromStdString(s.error().describe());
  }));
}

void AnalysisController::startProfile(Stage stage) {
  m_stage = stage;
  ProfileProcess::Request r;
  r.program = m_settings.cliProgram.isEmpty() ? defaultCliProgram() : m_settings.cliProgram;
  r.model = m_modelPath;
  r.timeoutMs = m_settings.timeoutSeconds * 1000;
  r.arguments << QStringLiteral("--device") << (stage == Stage::ProfileAcl ? QStringLiteral("acl") : QStringLiteral("cpu"))
              << QStringLiteral("--iterations") << QString::number(m_settings.iterations) << QStringLiteral("--warmup")
              << QString::number(m_settings.warmup);
  if (stage != Stage::ProfileAcl)
    r.arguments << QStringLiteral("--optimization")
                << (stage == Stage::ProfileAll ? QStringLiteral("all") : QStringLiteral("disabled"));
  if (m_settings.threads > 0) r.arguments << QStringLiteral("--threads") << QString::number(m_settings.threads);
  r.arguments << m_settings.dimArguments();
  emitProgress(stageText(stage, QString()), stage == Stage::ProfileAll ? kDisabledEnd : 0.0);
  m_profiler->start(r);
}

void AnalysisController::startAnalyze() {
  m_stage = Stage::Analyze;
  const bool measured = m_settings.device != AnalysisSettings::Device::Estimate && m_settings.importedProfile.isEmpty();
  const double base = measured ? kAllEnd : 0.0;
  emitProgress(stageText(Stage::Analyze, QString()), base);
  auto progressState = std::make_shared<WorkerProgress>();
  m_workerProgress = progressState;
  m_poll.start();
  const quint64 gen = m_generation;
  auto* watcher = new QFutureWatcher<WorkerResult>(this);
  connect(watcher, &QFutureWatcher<WorkerResult>::finished, this, [this, watcher, gen] {
    watcher->deleteLater();
    if (gen != m_generation || !m_running) return;  // cancelled meanwhile
    const WorkerResult r = watcher->result();
    finish();
    if (!r->ok()) {
      if (r->error().kind == ErrorKind::Cancelled) emit cancelled();
      else emit failed(tr("The analysis failed: %1").arg(QString::fromStdString(r->error().describe())));
      return;
    }
    AnalysisResult result = std::move(r->value());
    result.seconds = static_cast<double>(QDateTime::currentMSecsSinceEpoch() - m_startedMs) / 1000.0;
    emit finished(result);
  });
  Progress progress(
      [progressState, base](std::string_view phase, double f) {
        std::lock_guard lock(progressState->mutex);
        progressState->phase = QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()));
        progressState->fraction = base + (1.0 - base) * std::clamp(f, 0.0, 1.0);
        progressState->fresh = true;
      },
      m_cancel.get());
  watcher->setFuture(QtConcurrent::run(
      [doc = m_doc, s = m_settings, d = std::move(m_disabled), rt = std::move(m_runtime), cancel = m_cancel,
       progress]() -> WorkerResult {
        return std::make_shared<Result<AnalysisResult>>(analyzeOnWorker(doc, s, d, rt, progress));
      }));
  m_disabled.reset();
  m_runtime.reset();
}

void AnalysisController::pollProgress() {
  if (!m_workerProgress) return;
  QString phase;
  double f = 0;
  {
    std::lock_guard lock(m_workerProgress->mutex);
    if (!m_workerProgress->fresh) return;
    m_workerProgress->fresh = false;
    phase = m_workerProgress->phase;
    f = m_workerProgress->fraction;
  }
  emitProgress(stageText(Stage::Analyze, phase), f);
}

void AnalysisController::emitProgress(const QString& text, double fraction) {
  // The CLI's phases each run from 0 to 1: the bar only moves forward.
  m_fraction = std::max(m_fraction, std::clamp(fraction, 0.0, 1.0));
  emit progressChanged(text, m_fraction);
}

QString AnalysisController::stageText(Stage s, const QString& phase) const {
  QString what;
  switch (s) {
    case Stage::ProfileDisabled: what = tr("Profiling on the CPU (per operator)"); break;
    case Stage::ProfileAll: what = tr("Profiling on the CPU (runtime optimizations on)"); break;
    case Stage::ProfileAcl: what = tr("Profiling on the Ascend NPU"); break;
    case Stage::Analyze: what = tr("Analysing"); break;
    case Stage::WriteModel: what = tr("Writing the edited model for the profiler"); break;
    case Stage::Idle: break;
  }
  return phase.isEmpty() ? QString(what + QStringLiteral("…")) : QString(what + QStringLiteral(" · ") + phase);
}

void AnalysisController::cancel() {
  if (!m_running) return;
  if (m_stage == Stage::Analyze || m_stage == Stage::Idle || m_stage == Stage::WriteModel) {
    if (m_cancel) m_cancel->store(true);
    ++m_generation;  // the worker's late result is dropped
    finish();
    emit cancelled();
    return;
  }
  m_profiler->cancel();  // ends in ProfileProcess::cancelled
}

void AnalysisController::finish() {
  m_running = false;
  m_modelDir.reset();  // the edited model's temporary file goes with the run
  m_stage = Stage::Idle;
  m_poll.stop();
  m_workerProgress.reset();
}

}  // namespace msa::ui
