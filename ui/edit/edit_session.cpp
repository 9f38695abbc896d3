#include "edit/edit_session.h"

#include <QHash>
#include <QSet>

#include "edit/edit_command.h"
#include "edit/reanalysis.h"
#include "i18n/language.h"
#include "model/shape_inference.h"
#include "optimize/optimizer.h"
#include "rules/texts.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The undo step's text: what the pass does and where — "Fold BatchNormalization into Conv at
// /conv1/Conv" (QUndoStack prefixes "Undo"/"Redo"). The finding's title names the whole pattern
// (Conv→BN→ReLU) while the pass may fix only part of it.
QString commandText(const Finding& f) {
  static const QHash<QString, QString> words = {
      {QStringLiteral("bn"), QStringLiteral("BatchNormalization")}, {QStringLiteral("conv"), QStringLiteral("Conv")},
      {QStringLiteral("gemm"), QStringLiteral("Gemm")}, {QStringLiteral("matmul"), QStringLiteral("MatMul")},
      {QStringLiteral("layernorm"), QStringLiteral("LayerNormalization")}, {QStringLiteral("gelu"), QStringLiteral("GELU")},
      {QStringLiteral("softmax"), QStringLiteral("Softmax")}, {QStringLiteral("nop"), QStringLiteral("no-op")},
      {QStringLiteral("cast"), QStringLiteral("Cast")}, {QStringLiteral("pad"), QStringLiteral("Pad")},
      {QStringLiteral("expand"), QStringLiteral("Expand")}, {QStringLiteral("reshape"), QStringLiteral("Reshape")},
      {QStringLiteral("reshapes"), QStringLiteral("Reshapes")}, {QStringLiteral("transposes"), QStringLiteral("Transposes")},
      {QStringLiteral("transpose"), QStringLiteral("Transpose")}, {QStringLiteral("identity"), QStringLiteral("Identity")},
      {QStringLiteral("add"), QStringLiteral("Add")}, {QStringLiteral("ort"), QStringLiteral("ONNX Runtime")},
      {QStringLiteral("roundtrip"), QStringLiteral("round trip")}};
  QStringList parts = qs(f.fixPass).split(QLatin1Char('_'), Qt::SkipEmptyParts);
  for (QString& p : parts) p = words.value(p, p);
  if (!parts.isEmpty()) parts.front()[0] = parts.front()[0].toUpper();
  QString text = parts.join(QLatin1Char(' '));
  if (!f.nodes.empty()) text += QStringLiteral(" at ") + qs(f.nodes.front());
  return text;
}


// Apply All Safe Fixes repeats until nothing more applies: a fix can expose another (a folded
// constant makes two Transposes adjacent) that only the re-derived analysis lists.
constexpr int kMaxSafeRounds = 8;

QString idOf(const Finding& f) { return qs(f.id); }

// Runs on a worker. Every finding is tried on a copy, so one that fails halfway leaves nothing.
// One Apply: the finding given. All Safe: the safe findings given, then, round after round, the
// safe findings the re-derived analysis lists that were not tried yet — until a round applies
// nothing (the fixed point) or kMaxSafeRounds; what is left is recorded with its reason.
Result<ApplyOutcome> runApply(EditStatePtr from, std::vector<Finding> findings, bool allSafe, const Progress& progress) {
  ApplyOutcome result;
  ApplyOutcome* out = &result;
  double reached = 0;  // the bar only moves forward
  auto report = [&](std::string_view phase, double f) {
    reached = std::max(reached, f);
    progress.report(phase, reached);
  };
  auto fail = [](Error e) -> Result<ApplyOutcome> { return e; };
  const Progress quiet(nullptr, progress.cancelFlag());
  Model work = *from->model;
  std::vector<Rewrite> rewrites;
  QSet<QString> tried;
  QMap<QString, QString> refused;
  std::shared_ptr<const Report> derived;  // the analysis of `work` after the last round, when re-derived
  const int rounds = allSafe ? kMaxSafeRounds : 1;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0) {
      findings.clear();
      for (const Finding& f : derived->findings)
        if (f.safeFix && f.hasFix() && !tried.contains(idOf(f))) findings.push_back(f);
    }
    if (findings.empty()) break;
    bool appliedThisRound = false;
    for (size_t i = 0; i < findings.size(); ++i) {
      if (progress.cancelled()) return fail(Error::cancelled());
      const double done = (static_cast<double>(round) + static_cast<double>(i) / static_cast<double>(findings.size())) /
                          static_cast<double>(rounds);
      report("applying", 0.6 * done);
      const Finding& f = findings[i];
      tried.insert(idOf(f));
      Model trial = work;
      auto r = applyFinding(trial, f, quiet);
      if (!r) {
        if (r.error().kind == ErrorKind::Cancelled || !allSafe) return fail(r.error());
        refused.insert(idOf(f), qs(r.error().message));
        continue;
      }
      work = std::move(trial);
      for (Rewrite& w : *r) rewrites.push_back(std::move(w));
      out->applied << idOf(f);
      appliedThisRound = true;
      // The next pass reads shapes of values this one rewrote.
      if (allSafe) (void)inferShapes(work);
    }
    if (!appliedThisRound) break;  // the fixed point: `derived` (if any) still describes `work`
    if (!allSafe || !from->report || round + 1 == rounds) {
      derived.reset();  // `work` changed since: analysed below
      break;
    }
    report("re-analysing", 0.6 * static_cast<double>(round + 1) / static_cast<double>(rounds));
    auto again = reanalyze(std::make_shared<const Model>(work), *from->report, quiet);
    if (!again) {
      if (again.error().kind == ErrorKind::Cancelled) return fail(again.error());
      break;  // nothing more can be found; the final analysis below says what failed
    }
    derived = std::make_shared<const Report>(std::move(*again));
  }
  if (out->applied.isEmpty()) {
    QString why = allSafe ? QStringLiteral("nothing to apply: no safe fix matches the model")
                          : QStringLiteral("nothing to apply");
    if (!refused.isEmpty()) why += QStringLiteral(" (") + refused.first() + QLatin1Char(')');
    return fail(Error::usage(why.toStdString()));
  }
  report("shapes", 0.65);
  ShapeReport shapes;
  if (auto s = inferShapes(work)) shapes = std::move(*s);
  else shapes.warnings.push_back(s.error().describe());
  auto state = std::make_shared<EditState>();
  state->model = std::make_shared<const Model>(std::move(work));
  ModelDocument doc = makeDocument(state->model, from->document->path);
  doc.shapes = std::move(shapes);
  state->document = std::make_shared<const ModelDocument>(std::move(doc));
  state->rewrites = std::move(rewrites);
  state->previous = from;
  if (derived) {
    state->report = std::move(derived);
  } else if (from->report) {
    const Progress stage([&report](std::string_view phase, double f) { report(phase, 0.7 + 0.3 * f); }, progress.cancelFlag());
    auto r = reanalyze(state->model, *from->report, stage);
    if (r) state->report = std::make_shared<const Report>(std::move(*r));
    else if (r.error().kind == ErrorKind::Cancelled) return fail(r.error());
    else state->reportError = qs(r.error().describe());
  }
  // What is left of the safe fixes, and why: refused in a round, or never reached.
  if (allSafe && state->report)
    for (const Finding& f : state->report->findings) {
      if (!f.safeFix || !f.hasFix()) continue;
      const QString id = idOf(f);
      state->refused.insert(id, refused.contains(id) ? refused.value(id)
                                                     : QStringLiteral("not tried: Apply All Safe Fixes stops after %1 rounds").arg(rounds));
    }
  for (auto it = state->refused.cbegin(); it != state->refused.cend(); ++it) out->skipped << it.key() + QStringLiteral(": ") + it.value();
  out->state = std::move(state);
  return result;
}

}  // namespace

EditSession::EditSession(QObject* parent) : QObject(parent), m_stack(new QUndoStack(this)) {}

EditSession::~EditSession() = default;  // a running Apply is dropped (its flag set)

void EditSession::setDocument(std::shared_ptr<const ModelDocument> document) {
  m_job.drop();  // an Apply of the previous document: its result would not fit
  setBusy(false);
  m_stack->clear();
  auto state = std::make_shared<EditState>();
  state->model = document ? document->model : nullptr;
  state->document = std::move(document);
  m_original = state->document ? state : nullptr;
  m_current = m_original;
  emit stateChanged();
}

void EditSession::setReport(std::shared_ptr<const Report> report) {
  if (!m_current) return;
  // States are immutable: the current one is replaced by a copy holding the report, everywhere
  // it is referenced (the original, the undo steps), so undo and redo come back to it.
  auto state = std::make_shared<EditState>(*m_current);
  state->report = std::move(report);
  state->reportError.clear();
  state->refused.clear();  // about the findings of the analysis it replaces
  const EditStatePtr old = m_current;
  if (m_original == old) m_original = state;
  for (int i = 0; i < m_stack->count(); ++i)
    if (auto* c = dynamic_cast<EditCommand*>(const_cast<QUndoCommand*>(m_stack->command(i)))) c->replaceState(old, state);
  m_current = state;
  emit stateChanged();
}

void EditSession::clear() {
  m_job.drop();
  setBusy(false);
  m_stack->clear();
  m_original = m_current = nullptr;
  emit stateChanged();
}

std::shared_ptr<const Model> EditSession::originalModel() const { return m_original ? m_original->model : nullptr; }
std::shared_ptr<const Model> EditSession::currentModel() const { return m_current ? m_current->model : nullptr; }
std::shared_ptr<const ModelDocument> EditSession::currentDocument() const { return m_current ? m_current->document : nullptr; }
std::shared_ptr<const Report> EditSession::currentReport() const { return m_current ? m_current->report : nullptr; }

std::vector<Rewrite> EditSession::appliedRewrites() const {
  std::vector<const EditState*> chain;
  for (const EditState* s = m_current.get(); s; s = s->previous.get()) chain.push_back(s);
  std::vector<Rewrite> out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) out.insert(out.end(), (*it)->rewrites.begin(), (*it)->rewrites.end());
  return out;
}

namespace {
// An analysis for Ascend (an estimate on an Ascend device profile, or an Ascend profile) runs
// through CANN's graph engine, which does not take ONNX Runtime's contrib operators.
bool targetsAnotherRuntime(const Report& r) {
  return r.device.rfind("ascend", 0) == 0 || (r.runtimeProfile && r.runtimeProfile->caps.ascend) ||
         (r.profile && r.profile->caps.ascend);
}
}  // namespace

QString EditSession::runtimeOperators(const Finding& f) const {
  return m_current && m_current->model ? qs(runtimeOperatorsOfFix(f, *m_current->model)) : QString();
}

const Finding* EditSession::applicableFinding(const QString& id) const {
  const auto report = currentReport();
  if (!report || m_current->refused.contains(id)) return nullptr;
  const Finding* f = report->finding(id.toStdString());
  if (!f || !f->hasFix()) return nullptr;
  if (targetsAnotherRuntime(*report) && !runtimeOperators(*f).isEmpty()) return nullptr;
  return f;
}

std::vector<const Finding*> EditSession::safeFindings() const {
  std::vector<const Finding*> out;
  if (const auto report = currentReport())
    for (const Finding& f : report->findings)  // ranked, highest score first
      if (f.safeFix && f.hasFix() && !m_current->refused.contains(qs(f.id))) out.push_back(&f);
  return out;
}

QString EditSession::whyNotApplicable(const QString& id) const {
  const auto report = currentReport();
  const Finding* f = report ? report->finding(id.toStdString()) : nullptr;
  if (!f) return tr("it is not in the current analysis");
  if (f->fixPass.empty()) return tr("it is advice only: no automatic rewrite fixes it");
  if (!f->legal) {
    QStringList why;
    for (const std::string& b : f->blockers) why << qs(renderBlocker(b, coreLanguage()));
    return why.isEmpty() ? tr("its rewrite is not legal here") : tr("its rewrite is not legal here: %1").arg(why.join(QStringLiteral("; ")));
  }
  if (m_current->refused.contains(id)) return tr("it did not apply to this model: %1").arg(m_current->refused.value(id));
  if (const QString ops = runtimeOperators(*f); !ops.isEmpty() && targetsAnotherRuntime(*report))
    return tr("its fix writes %1, which only ONNX Runtime runs, and this analysis targets %2")
        .arg(ops, deviceTitle(*report));
  return {};
}

void EditSession::apply(const QString& findingId) {
  if (busy()) return;
  const Finding* f = applicableFinding(findingId);
  if (!f) {
    emit applyFailed(tr("The finding %1 has no automatic fix in the current analysis.").arg(findingId));
    return;
  }
  start({*f}, false, commandText(*f));
}

void EditSession::applyAllSafe() {
  if (busy()) return;
  std::vector<Finding> findings;
  for (const Finding* f : safeFindings()) findings.push_back(*f);
  if (findings.empty()) {
    emit applyFailed(tr("The current analysis has no safe automatic fix."));
    return;
  }
  start(std::move(findings), true, {});
}

void EditSession::start(std::vector<Finding> findings, bool allSafe, const QString& text) {
  setBusy(true);
  m_job.start([from = m_current, findings = std::move(findings), allSafe](const Progress& p) { return runApply(from, findings, allSafe, p); },
              {.done =
                   [this, allSafe, text](ApplyOutcome out) {
                     setBusy(false);
                     const QString label = allSafe ? tr("Apply %n Safe Fix(es)", nullptr, static_cast<int>(out.applied.size())) : text;
                     m_stack->push(new EditCommand(this, m_current, out.state, label));
                     emit applyFinished(out.applied, out.skipped);
                   },
               .failed =
                   [this](const Error& e) {
                     setBusy(false);
                     emit applyFailed(qs(e.describe()));
                   },
               .cancelled =
                   [this] {
                     setBusy(false);
                     emit applyCancelled();
                   },
               .progress = [this](const QString& phase, double f) { emit progressChanged(phase, f); }});
}

void EditSession::cancel() { m_job.cancel(); }

void EditSession::restore(EditStatePtr state) {
  if (state == m_current) return;
  m_current = std::move(state);
  emit stateChanged();
}

void EditSession::setBusy(bool busy) {
  if (busy == m_busy) return;
  m_busy = busy;
  emit busyChanged(busy);
}

}  // namespace msa::ui
