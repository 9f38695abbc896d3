#include "edit/verify_job.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <QStringList>

#include "graph/graph_overlays.h"
#include "util/units.h"
#include "i18n/language.h"
#include "report/report_format.h"

namespace msa::ui {
namespace {

// Each output is compared once per runtime setting (optimizer off, then on): counted once.
int distinctOutputs(const VerifyResult& v) {
  std::set<std::string> names;
  for (const OutputError& e : v.outputs) names.insert(e.name);
  return static_cast<int>(names.size());
}

Result<VerifyOutcome> runVerify(std::shared_ptr<const Model> original, std::shared_ptr<const Model> edited,
                                VerifyJob::Options options, const Progress& progress) {
  VerifyOutcome out;
  auto stage = [&progress](double from, double to) {
    return Progress([&progress, from, to](std::string_view phase, double f) { progress.report(phase, from + (to - from) * f); },
                    progress.cancelFlag());
  };
  const double verifyEnd = options.measure ? 0.3 : 1.0;
  auto verifier = Verifier::create(*original, options.verify, stage(0, verifyEnd * 0.5));
  if (!verifier) return verifier.error();
  if (progress.cancelled()) return Error::cancelled();
  progress.report("comparing outputs", verifyEnd * 0.5);
  out.verification = verifier->check(*edited);
  out.inputsSource = verifier->inputsSource();
  out.estimatedSpeedup = options.estimatedSpeedup;
  if (options.measure && out.verification.passed && !progress.cancelled()) {
    auto lat = compareLatency(*original, *edited, verifier->inputs(), options.latency, stage(verifyEnd, 1.0));
    if (lat) out.latency = std::move(*lat);
    else if (lat.error().kind == ErrorKind::Cancelled) return lat.error();
    else out.latencyError = QString::fromStdString(lat.error().describe());
  }
  if (progress.cancelled()) return Error::cancelled();
  return out;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

Tolerance toleranceForRewrites(std::span<const Rewrite> rewrites) {
  OptLevel level = OptLevel::Conservative;
  for (const Rewrite& r : rewrites)
    if (const Pass* p = findPass(r.pass)) level = std::max(level, p->info().level);
  return toleranceFor(level);
}

std::map<std::string, int64_t, std::less<>> inputDimsFromReport(const Report& report, const Model& original) {
  std::map<std::string, int64_t, std::less<>> dims;
  for (const ValueInfo& in : original.graph.inputs) {
    if (original.graph.findInitializer(in.name) || !in.type.shape) continue;
    const Shape& declared = *in.type.shape;
    if (declared.fullyKnown()) continue;
    std::string text;
    if (report.profile)
      if (auto it = report.profile->inputShapes.find(in.name); it != report.profile->inputShapes.end()) text = it->second;
    if (text.empty())
      if (auto it = report.inputs.find(in.name); it != report.inputs.end()) text = it->second;
    // "[1,128]": numbers where the analysis had them; "?" or a name where it did not.
    const QStringList parts = QString::fromStdString(text).remove(QLatin1Char('[')).remove(QLatin1Char(']')).split(QLatin1Char(','));
    if (static_cast<size_t>(parts.size()) != declared.rank()) continue;
    for (size_t axis = 0; axis < declared.rank(); ++axis) {
      bool ok = false;
      const qlonglong v = parts[static_cast<qsizetype>(axis)].trimmed().toLongLong(&ok);
      if (!declared.dims[axis].known() && ok && v > 0) dims[in.name + ":" + std::to_string(axis)] = v;
    }
  }
  return dims;
}

QString describeVerifyOutcome(const VerifyOutcome& o) {
  const VerifyResult& v = o.verification;
  const QString atol = v.tolerance.scaleAtol ? QObject::tr("%1 × the output's scale").arg(v.tolerance.atol, 0, 'g', 2)
                                             : QString::number(v.tolerance.atol, 'g', 2);
  QString html;
  if (v.passed && v.inconclusive) {
    // Outputs that could not have failed (all zero, far below atol, constant, not finite) prove
    // nothing: never "match".
    html += QObject::tr("<p><b style='color:#b45309'>Not verified:</b> %1</p>")
                .arg(QString::fromStdString(inconclusiveText(v, coreLanguage())).toHtmlEscaped());
  } else if (v.passed) {
    // "Match" means every element is within its tolerance; the maxima alone would mislead (the
    // largest absolute and relative differences sit on different elements).
    html += QObject::tr("<p><b style='color:#15803d'>Outputs match within tolerance</b> (%n output(s)): every element is "
                        "within atol %1 or rtol %2 of the original's; the closest came to %3 of its tolerance. "
                        "Largest differences: %4 absolute, %5 relative (not on the same element).</p>",
                        nullptr, distinctOutputs(v))
                .arg(atol)
                .arg(v.tolerance.rtol, 0, 'g', 2)
                .arg(percentText(std::min(1.0, v.worstToleranceRatio)))
                .arg(v.maxAbsError, 0, 'g', 3)
                .arg(v.maxRelError, 0, 'g', 3);
  } else {
    html += QObject::tr("<p><b style='color:#b91c1c'>Verification failed:</b> %1</p>").arg(QString::fromStdString(v.failure).toHtmlEscaped());
    html += QObject::tr("<p>Tolerance: atol %1, rtol %2 (an element fails where both are exceeded).</p>").arg(atol).arg(v.tolerance.rtol, 0, 'g', 2);
    html += QStringLiteral("<table cellspacing='6'><tr><th align='left'>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
                .arg(QObject::tr("output"), QObject::tr("runtime"), QObject::tr("max abs"), QObject::tr("max rel"), QObject::tr("beyond tolerance"));
    for (const OutputError& e : v.outputs)
      html += QStringLiteral("<tr><td>%1%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>")
                  .arg(QString::fromStdString(e.name).toHtmlEscaped(), e.passed ? QString() : QStringLiteral(" ✗"),
                       QString::fromStdString(e.runtime))
                  .arg(e.maxAbsError, 0, 'g', 3)
                  .arg(e.maxRelError, 0, 'g', 3)
                  .arg(e.mismatches);
    html += QStringLiteral("</table>");
  }
  if (!v.outputs.empty()) {
    // Relative to the outputs' magnitude, which the element tolerances alone do not see.
    double toMagnitude = 0, cosine = 1, top1 = -1;
    for (const OutputError& e : v.outputs) {
      toMagnitude = std::max(toMagnitude, e.maxErrorToMagnitude);
      cosine = std::isnan(e.cosine) || std::isnan(cosine) ? std::nan("") : std::min(cosine, e.cosine);
      if (e.top1Agreement >= 0) top1 = top1 < 0 ? e.top1Agreement : std::min(top1, e.top1Agreement);
    }
    html += QObject::tr("<p>Relative to the outputs' magnitude: largest difference %1 of the largest reference value, "
                        "cosine similarity %2%3.</p>")
                .arg(toMagnitude, 0, 'g', 3)
                .arg(QString::fromStdString(formatSimilarity(cosine)))
                .arg(top1 < 0 ? QString() : QObject::tr(", top-1 class agreement %1").arg(percentText(top1)));
  }
  if (v.checker.ran && !v.checker.passed)
    html += QObject::tr("<p>ONNX checker: %1</p>").arg(QString::fromStdString(v.checker.message).toHtmlEscaped());
  for (const std::string& s : v.checker.skipped)
    html += QObject::tr("<p>Not checked: %1</p>").arg(QString::fromStdString(s).toHtmlEscaped());
  if (o.latency) {
    // The deployed configuration first: ONNX Runtime with its optimizer on, as InferenceSession
    // runs by default; the run with it disabled shows what the rewrite does by itself.
    // A speedup whose interval holds 1 is "within noise (±x %)", never a result in bold.
    const LatencyComparison& l = *o.latency;
    const Lang lang = coreLanguage();
    if (l.measurement.contended)
      html += QStringLiteral("<p><b style='color:#b45309'>%1</b></p>").arg(qs(report::busyText(l.measurement, lang)).toHtmlEscaped());
    html += QObject::tr("<p>Measured on this CPU (ONNX Runtime, median of %1 runs; %2):<br>"
                        "<b>as deployed (runtime optimizer on): %3 → %4, speedup %5</b><br>"
                        "runtime optimizer disabled: %6 → %7, speedup %8</p>")
                .arg(l.iterations)
                .arg(qs(report::measurementText(l.measurement, lang)).toHtmlEscaped())
                .arg(durationText(l.originalAll.median), durationText(l.optimizedAll.median))
                .arg(qs(report::speedupText(l.speedupAll(), l.speedupAllNoise, lang)))
                .arg(durationText(l.originalDisabled.median), durationText(l.optimizedDisabled.median))
                .arg(qs(report::speedupText(l.speedupDisabled(), l.speedupDisabledNoise, lang)));
  } else if (!o.latencyError.isEmpty()) {
    html += QObject::tr("<p>Latency not measured: %1</p>").arg(o.latencyError.toHtmlEscaped());
  }
  if (o.estimatedSpeedup > 0) {
    html += QObject::tr("<p>Advisor's estimate: speedup %1").arg(ratioText(o.estimatedSpeedup));
    if (o.latency && o.measuredSpeedup() > 0 && !o.latency->allWithinNoise())
      html += QObject::tr(" (measured %1, error %2)")
                  .arg(ratioText(o.measuredSpeedup()))
                  .arg(percentText((o.estimatedSpeedup - o.measuredSpeedup()) / o.measuredSpeedup()));
    html += QStringLiteral("</p>");
  }
  return html;
}

VerifyJob::VerifyJob(QObject* parent) : QObject(parent) {}

VerifyJob::~VerifyJob() = default;  // a running check is dropped (its flag set)

void VerifyJob::start(std::shared_ptr<const Model> original, std::shared_ptr<const Model> edited, const Options& options) {
  m_job.start([original = std::move(original), edited = std::move(edited), options](const Progress& p) {
    return runVerify(original, edited, options, p);
  },
              {.done = [this](VerifyOutcome o) { emit finished(o); },
               .failed = [this](const Error& e) { emit failed(QString::fromStdString(e.describe())); },
               .cancelled = [this] { emit cancelled(); },
               .progress = [this](const QString& phase, double f) { emit progressChanged(phase, f); }});
}

void VerifyJob::cancel() { m_job.cancel(); }

}  // namespace msa::ui
