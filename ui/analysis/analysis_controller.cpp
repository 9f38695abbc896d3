#include "analysis/analysis_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>

#include "advisor/run_analysis.h"
#include "analysis/child_profiler.h"
#include "i18n/language.h"
#include "profile_process.h"

namespace msa::ui {
namespace {

MeasureOptions measureOptions(const AnalysisSettings& s) {
  MeasureOptions m;
  m.iterations = s.iterations;
  m.warmup = s.warmup;
  m.threads = s.threads;
  return m;
}

ChildProfileOptions childOptions(const AnalysisSettings& s) {
  ChildProfileOptions o;
  o.program = s.cliProgram.isEmpty() ? AnalysisController::defaultCliProgram() : s.cliProgram;
  o.timeoutMs = s.timeoutSeconds * 1000;
  o.extra = s.dimArguments();
  return o;
}

// On the worker. The request is the dialog's choices in runAnalysis's terms.
Result<AnalysisResult> analyzeOnWorker(std::shared_ptr<const ModelDocument> doc, const AnalysisSettings& s, const Progress& progress) {
  QElapsedTimer timer;
  timer.start();
  AnalysisRequest request;
  const bool imported = !s.importedProfile.isEmpty();
  const bool cpu = !imported && s.device == AnalysisSettings::Device::Cpu;
  // A profile alone is priced on the chip it tells, as the CLI decides it: the dialog's device is
  // for estimating a model (it priced the Qwen3 rank as a 910B3 where the kernels say a 910B4).
  request.device = cpu ? std::string("cpu") : imported && !doc ? std::string() : s.deviceProfile.toStdString();
  // The first measured analysis calibrates this host (with progress); later ones use the cache.
  request.calibration = cpu ? CalibrationPolicy::Auto : CalibrationPolicy::Cached;
  for (auto it = s.dims.cbegin(); it != s.dims.cend(); ++it) request.dims[it.key().toStdString()] = it.value();
  request.inferShapes = doc && !s.dims.isEmpty();  // the document's shapes are inferred already
  request.options.goal = s.goal;
  request.options.scenario = s.scenario;
  request.options.topN = s.topN;
  request.measure = measureOptions(s);
  // Values the user gave for inputs: a folder the profiler children read (`--inputs`), the
  // others seeded random as they would be.
  QTemporaryDir inputsDir;
  if (cpu && doc && !s.inputValues.isEmpty()) {
    auto given = s.givenInputs();
    if (!given) return given.error();
    if (!given->empty()) {
      if (!inputsDir.isValid()) return Error::device("cannot create a temporary folder for the input values");
      InputOptions io;
      for (const auto& [name, value] : request.dims) io.dims[name] = value;
      const std::filesystem::path dir = inputsDir.path().toStdString();
      if (const Status w = writeInputFolder(*doc->model, *given, io, dir); !w) return w.error();
      request.measure.inputsDir = dir;
    }
  }
  if (imported) {
    request.profilePath = s.importedProfile.toStdString();
  } else if (cpu) {
    request.measurer = childCpuMeasurer(doc, childOptions(s));
  } else if (s.device == AnalysisSettings::Device::Ascend) {
    // One device profile: per IR node and the runtime's own view (fusions, TransData).
    QTemporaryDir dir;
    auto file = profiledModelFile(*doc, *doc->model, dir.path(), progress);
    if (!file) return file.error();
    const std::atomic<bool>* cancel = progress.cancelFlag();
    auto p = profileInChild(*file,
                            {QStringLiteral("--device"), QStringLiteral("acl"), QStringLiteral("--iterations"),
                             QString::number(s.iterations), QStringLiteral("--warmup"), QString::number(s.warmup)},
                            childOptions(s), QStringLiteral("profile-acl"),
                            Progress([&progress](std::string_view ph, double f) { progress.report(ph, 0.85 * f); }, cancel));
    if (!p) return p.error();
    request.profiles = MeasuredProfiles{*p, *p};
  }
  auto outcome = runAnalysis(doc ? doc->model : nullptr, request, progress);
  if (!outcome) return outcome.error();
  AnalysisResult r;
  r.report = std::make_shared<const Report>(std::move(outcome->report));
  r.document = std::move(doc);
  r.model = std::move(outcome->model);
  r.settings = s;
  r.overlays = std::make_shared<const AnalysisOverlays>(buildOverlays(*r.report));
  r.overlaysOf = r.report;
  r.seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  return r;
}

}  // namespace

AnalysisController::AnalysisController(QObject* parent) : QObject(parent) { qRegisterMetaType<msa::ui::AnalysisResult>(); }

AnalysisController::~AnalysisController() = default;  // the Job's flag stops the worker and its child

QString AnalysisController::defaultCliProgram() { return ProfileProcess::defaultProgram(); }

QString AnalysisController::deviceUnavailableReason(AnalysisSettings::Device device) {
  if (device != AnalysisSettings::Device::Ascend) return {};
  return ProfileProcess::deviceUnavailableReason(QStringLiteral("acl"));
}

// "<key>|<the child's stage>" or a stage of core's, in the words of progressStageTitle (the one
// table of stage names): "Profiling on the CPU (per operator) · timing end to end".
QString AnalysisController::phaseText(const QString& phase) {
  const QString what = progressStageTitle(phase.section(QLatin1Char('|'), 0, 0));
  if (what.isEmpty()) return tr("Analysing…");
  const QString title = what.left(1).toUpper() + what.mid(1);
  const QString stage = progressStageTitle(phase.section(QLatin1Char('|'), 1));
  return stage.isEmpty() ? QString(title + QStringLiteral("…")) : QString(title + QStringLiteral(" · ") + stage);
}

bool AnalysisController::start(std::shared_ptr<const ModelDocument> doc, const AnalysisSettings& settings) {
  const bool profileOnly = !doc && !settings.importedProfile.isEmpty();
  if (isRunning() || (!profileOnly && (!doc || !doc->model))) return false;
  m_fraction = 0;
  // Symbolic dims must be bound before anything is measured; say which.
  const bool measures = doc && settings.device != AnalysisSettings::Device::Estimate && settings.importedProfile.isEmpty();
  QStringList unbound;
  if (measures)
    for (const std::string& d : doc->shapes.unboundDims)
      if (!settings.dims.contains(QString::fromStdString(d))) unbound << QString::fromStdString(d);
  const QString unboundMessage = tr("Bind the symbolic input dims to profile: %1 (Analyze ▸ Run…, Symbolic dims).")
                                     .arg(unbound.join(QStringLiteral(", ")));
  m_job.start(
      [doc, settings, unbound, unboundMessage](const Progress& progress) -> Result<AnalysisResult> {
        if (!unbound.isEmpty()) return Error::usage(unboundMessage.toStdString());
        return analyzeOnWorker(doc, settings, progress);
      },
      {.done = [this](AnalysisResult r) { emit finished(r); },
       .failed = [this, unboundMessage, bound = unbound.isEmpty()](const Error& e) {
         emit failed(bound ? tr("The analysis failed: %1").arg(QString::fromStdString(e.describe())) : unboundMessage);
       },
       .cancelled = [this] { emit cancelled(); },
       .progress = [this](const QString& phase, double f) {
         m_fraction = std::max(m_fraction, f);  // stages each run from 0 to 1: the bar only moves forward
         emit progressChanged(phaseText(phase), m_fraction);
       }});
  return true;
}

void AnalysisController::cancel() { m_job.cancel(); }

}  // namespace msa::ui
