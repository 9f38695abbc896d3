#include "edit/edit_session.h"

#include <QFutureWatcher>
#include <QHash>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include "edit/edit_command.h"
#include "edit/reanalysis.h"
#include "model/shape_inference.h"
#include "optimize/optimizer.h"

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

struct ApplyOutcome {
  std::optional<Error> error;
  EditStatePtr state;
  QStringList applied, skipped;
};
using OutcomePtr = std::shared_ptr<ApplyOutcome>;

// Runs on a worker. Every finding is tried on a copy, so one that fails halfway leaves nothing.
void runApply(QPromise<OutcomePtr>& promise, EditStatePtr from, std::vector<Finding> findings, bool allSafe,
              std::shared_ptr<std::atomic<bool>> cancel) {
  auto out = std::make_shared<ApplyOutcome>();
  promise.setProgressRange(0, 1000);  // values only ever grow: a later stage's smaller value is dropped
  auto report = [&promise](std::string_view phase, double f) {
    promise.setProgressValueAndText(static_cast<int>(std::clamp(f, 0.0, 1.0) * 1000), QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size())));
  };
  const Progress quiet(nullptr, cancel.get());
  Model work = *from->model;
  std::vector<Rewrite> rewrites;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (cancel->load()) {
      out->error = Error::cancelled();
      promise.addResult(out);
      return;
    }
    report("applying", 0.6 * static_cast<double>(i) / static_cast<double>(findings.size()));
    const Finding& f = findings[i];
    Model trial = work;
    auto r = applyFinding(trial, f, quiet);
    if (!r) {
      if (r.error().kind == ErrorKind::Cancelled) {
        out->error = r.error();
        promise.addResult(out);
        return;
      }
      if (!allSafe) {
        out->error = r.error();
        promise.addResult(out);
        return;
      }
      out->skipped << qs(f.id) + QStringLiteral(": ") + qs(r.error().message);
      continue;
    }
    work = std::move(trial);
    for (Rewrite& w : *r) rewrites.push_back(std::move(w));
    out->applied << qs(f.id);
    // The next pass reads shapes of values this one rewrote.
    if (allSafe && i + 1 < findings.size()) (void)inferShapes(work);
  }
  if (out->applied.isEmpty()) {
    out->error = Error::usage("nothing to apply: every safe fix no longer matches the model");
    promise.addResult(out);
    return;
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
  if (from->report) {
    const Progress progress([&report](std::string_view phase, double f) { report(phase, 0.7 + 0.3 * f); }, cancel.get());
    auto r = reanalyze(state->model, *from->report, progress);
    if (r) state->report = std::make_shared<const Report>(std::move(*r));
    else if (r.error().kind == ErrorKind::Cancelled) out->error = r.error();
    else state->reportError = qs(r.error().describe());
  }
  out->state = std::move(state);
  promise.addResult(out);
}

}  // namespace

EditSession::EditSession(QObject* parent) : QObject(parent), m_stack(new QUndoStack(this)) {}

EditSession::~EditSession() {
  if (m_cancel) m_cancel->store(true);
}

void EditSession::setDocument(std::shared_ptr<const ModelDocument> document) {
  cancel();
  ++m_generation;
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
  const EditStatePtr old = m_current;
  if (m_original == old) m_original = state;
  for (int i = 0; i < m_stack->count(); ++i)
    if (auto* c = dynamic_cast<EditCommand*>(const_cast<QUndoCommand*>(m_stack->command(i)))) c->replaceState(old, state);
  m_current = state;
  emit stateChanged();
}

void EditSession::clear() {
  cancel();
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

const Finding* EditSession::applicableFinding(const QString& id) const {
  const auto report = currentReport();
  if (!report) return nullptr;
  const Finding* f = report->finding(id.toStdString());
  return f && f->hasFix() ? f : nullptr;
}

std::vector<const Finding*> EditSession::safeFindings() const {
  std::vector<const Finding*> out;
  if (const auto report = currentReport())
    for (const Finding& f : report->findings)  // ranked, highest score first
      if (f.safeFix && f.hasFix()) out.push_back(&f);
  return out;
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
  const quint64 gen = ++m_generation;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  setBusy(true);
  const size_t count = findings.size();
  auto* watcher = new QFutureWatcher<OutcomePtr>(this);
  connect(watcher, &QFutureWatcher<OutcomePtr>::progressValueChanged, this, [this, watcher, gen](int value) {
    if (gen == m_generation) emit progressChanged(watcher->progressText(), value / 1000.0);
  });
  connect(watcher, &QFutureWatcher<OutcomePtr>::finished, this, [this, watcher, gen, allSafe, text, count] {
    watcher->deleteLater();
    if (gen != m_generation) return;  // superseded by a new document
    setBusy(false);
    const OutcomePtr out = watcher->future().resultCount() ? watcher->result() : nullptr;
    if (!out || (out->error && out->error->kind == ErrorKind::Cancelled)) {
      emit applyCancelled();
      return;
    }
    if (out->error) {
      emit applyFailed(qs(out->error->describe()));
      return;
    }
    const QString label = allSafe ? tr("Apply %n Safe Fix(es)", nullptr, static_cast<int>(out->applied.size())) : text;
    Q_UNUSED(count);
    m_stack->push(new EditCommand(this, m_current, out->state, label));
    emit applyFinished(out->applied, out->skipped);
  });
  watcher->setFuture(QtConcurrent::run(runApply, m_current, std::move(findings), allSafe, m_cancel));
}

void EditSession::cancel() {
  if (m_cancel) m_cancel->store(true);
}

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
