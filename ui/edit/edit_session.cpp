#include "edit/edit_session.h"

#include <functional>
#include <map>
#include <set>

#include "edit/edit_command.h"
#include "edit/reanalysis.h"
#include "i18n/language.h"
#include "model/shape_inference.h"
#include "optimize/optimizer.h"
#include "rules/texts.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Apply All Safe Fixes can take several rounds: a fix can expose a finding of another pass (a
// folded constant makes two Transposes adjacent) that only the re-derived analysis lists.
constexpr int kMaxSafeRounds = 8;

QString idOf(const Finding& f) { return qs(f.id); }

// The safe findings of `report` with a fix, in rank order.
std::vector<Finding> safeOf(const Report& report) {
  std::vector<Finding> out;
  for (const Finding& f : report.findings)
    if (f.safeFix && f.hasFix()) out.push_back(f);
  return out;
}

// The new state made of `work`: its document, the rewrites of the step and its analysis —
// `derived` when it describes `work` already, else re-derived from the state it came from.
Result<EditStatePtr> makeState(const EditStatePtr& from, Model work, std::vector<Rewrite> rewrites,
                               std::shared_ptr<const Report> derived, const std::function<void(std::string_view, double)>& report,
                               const Progress& progress) {
  report("shapes", 0.65);
  ShapeReport shapes;
  if (auto s = inferShapes(work)) shapes = std::move(*s);
  else shapes.warnings.push_back(s.error().describe());
  auto state = std::make_shared<EditState>();
  state->model = std::make_shared<const Model>(std::move(work));
  ModelDocument doc = makeDocument(state->model, from->document->path, std::move(shapes));
  state->document = std::make_shared<const ModelDocument>(std::move(doc));
  state->rewrites = std::move(rewrites);
  state->previous = from;
  if (derived) {
    state->report = std::move(derived);
  } else if (from->report) {
    const Progress stage([&report](std::string_view phase, double f) { report(phase, 0.7 + 0.3 * f); }, progress.cancelFlag());
    auto r = reanalyze(state->model, *from->report, stage);
    if (r) state->report = std::make_shared<const Report>(std::move(*r));
    else if (r.error().kind == ErrorKind::Cancelled) return r.error();
    else state->reportError = qs(r.error().describe());
  }
  return EditStatePtr(std::move(state));
}

// Runs on a worker, on a copy: a fix that fails halfway leaves nothing.
// Apply: the finding's own fix pass anchored at its nodes (core's applyFinding).
Result<ApplyOutcome> runApplyOne(EditStatePtr from, const Finding& finding, const Progress& progress) {
  double reached = 0;  // the bar only moves forward
  auto report = [&](std::string_view phase, double f) {
    reached = std::max(reached, f);
    progress.report(phase, reached);
  };
  report("applying", 0);
  Model work = *from->model;
  auto r = applyFinding(work, finding, Progress(nullptr, progress.cancelFlag()));
  if (!r) return r.error();
  auto state = makeState(from, std::move(work), std::move(*r), nullptr, report, progress);
  if (!state) return state.error();
  ApplyOutcome out;
  out.applied << idOf(finding);
  out.state = std::move(*state);
  return out;
}

// Apply All Safe Fixes: core's pass manager — the engine of `msadvisor-cli optimize` — limited
// to the fix passes of the safe findings, run to its fixed point without verification (Verify
// compares the edited model with the original). When the re-derived analysis lists a safe
// finding of a pass not run yet, the manager runs again with it, at most kMaxSafeRounds times.
// A safe finding still listed afterwards is recorded with the manager's reason.
Result<ApplyOutcome> runApplyAllSafe(EditStatePtr from, std::vector<Finding> findings, const Progress& progress) {
  double reached = 0;
  auto report = [&](std::string_view phase, double f) {
    reached = std::max(reached, f);
    progress.report(phase, reached);
  };
  const Progress quiet(nullptr, progress.cancelFlag());
  Model work = *from->model;
  std::vector<Rewrite> rewrites;
  std::set<std::string> ran;                   // passes at their fixed point on `work`
  std::map<std::string, std::string> reasons;  // finding id -> why the manager left it
  std::shared_ptr<const Report> derived;       // the analysis of `work`, when re-derived
  const std::vector<Finding> asked = findings;
  std::vector<Finding> current = std::move(findings);
  int round = 0;
  for (; round < kMaxSafeRounds; ++round) {
    OptimizeOptions o;
    o.verify = false;
    const size_t before = ran.size();
    for (const Finding& f : current)
      if (const Pass* p = findPass(f.fixPass)) {
        ran.insert(f.fixPass);
        o.level = std::max(o.level, p->info().level);
      }
    if (ran.size() == before && round > 0) break;  // nothing new to run: the fixed point
    for (const std::string& id : ran) {
      o.only.push_back(id);
      o.level = std::max(o.level, findPass(id)->info().level);
    }
    o.findings = current;
    const double lo = 0.6 * round / kMaxSafeRounds, width = 0.6 / kMaxSafeRounds;
    const Progress stage([&report, lo, width](std::string_view, double f) { report("applying", lo + width * f); }, progress.cancelFlag());
    auto res = optimize(work, o, stage);
    if (!res) return res.error();
    for (const Advice& a : res->advice) reasons[a.finding] = a.reason;
    if (res->applied.empty()) break;
    for (Rewrite& w : res->applied) rewrites.push_back(std::move(w));
    work = std::move(res->model);
    derived.reset();
    if (!from->report) break;
    report("re-analysing", lo + width);
    (void)inferShapes(work);
    auto again = reanalyze(std::make_shared<const Model>(work), *from->report, quiet);
    if (!again) {
      if (again.error().kind == ErrorKind::Cancelled) return again.error();
      break;  // the final analysis below says what failed
    }
    derived = std::make_shared<const Report>(std::move(*again));
    current = safeOf(*derived);
  }
  if (rewrites.empty()) {
    QString why = QStringLiteral("nothing to apply: no safe fix matches the model");
    if (!reasons.empty()) why += QStringLiteral(" (") + qs(reasons.begin()->second) + QLatin1Char(')');
    return Error::usage(why.toStdString());
  }
  auto made = makeState(from, std::move(work), std::move(rewrites), std::move(derived), report, progress);
  if (!made) return made.error();
  auto state = std::const_pointer_cast<EditState>(*made);
  ApplyOutcome out;
  // What is left of the safe fixes, and why; the safe findings of the start not left are applied.
  std::set<std::string> left;
  if (state->report)
    for (const Finding& f : safeOf(*state->report)) {
      left.insert(f.id);
      const auto why = reasons.find(f.id);
      state->refused.insert(idOf(f), why != reasons.end() ? qs(why->second)
                                     : ran.count(f.fixPass) ? QStringLiteral("its pass did not match here")
                                                            : QStringLiteral("not tried: Apply All Safe Fixes stops after %1 rounds").arg(round));
    }
  for (const Finding& f : asked)
    if (!left.count(f.id)) out.applied << idOf(f);
  for (auto it = state->refused.cbegin(); it != state->refused.cend(); ++it) out.skipped << it.key() + QStringLiteral(": ") + it.value();
  out.state = std::move(state);
  return out;
}

}  // namespace

EditSession::EditSession(QObject* parent) : QObject(parent), m_stack(new QUndoStack(this)) {}

// A running Apply is dropped (its flag set). The stack, deleted after this body, clears itself
// and says so: no view may hear that while the windows around it are half destroyed.
EditSession::~EditSession() { m_stack->disconnect(); }

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
  start({*f}, false);
}

void EditSession::retranslateCommands() {
  for (int i = 0; i < m_stack->count(); ++i)
    if (auto* c = dynamic_cast<EditCommand*>(const_cast<QUndoCommand*>(m_stack->command(i)))) c->retranslate();
}

void EditSession::applyAllSafe() {
  if (busy()) return;
  std::vector<Finding> findings;
  for (const Finding* f : safeFindings()) findings.push_back(*f);
  if (findings.empty()) {
    emit applyFailed(tr("The current analysis has no safe automatic fix."));
    return;
  }
  start(std::move(findings), true);
}

void EditSession::start(std::vector<Finding> findings, bool allSafe) {
  setBusy(true);
  // What Edit ▸ Undo says of it, in the language of the moment: the finding's own title (the
  // pass's English name read "撤销 Fold BatchNormalization into Conv at …" in Chinese).
  auto describe = [single = findings.front(), allSafe](const ApplyOutcome& out) {
    if (!allSafe) return std::function<QString()>([single] { return qs(renderFinding(single, coreLanguage()).title); });
    const int count = static_cast<int>(out.applied.size());
    return std::function<QString()>([count] { return tr("Apply %n Safe Fix(es)", nullptr, count); });
  };
  m_job.start([from = m_current, findings = std::move(findings), allSafe](const Progress& p) {
                return allSafe ? runApplyAllSafe(from, findings, p) : runApplyOne(from, findings.front(), p);
              },
              {.done =
                   [this, describe](ApplyOutcome out) {
                     setBusy(false);
                     m_stack->push(new EditCommand(this, m_current, out.state, describe(out)));
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
