#include "edit/edit_controller.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include "analysis/analysis_workspace.h"
#include "edit/exporter.h"
#include "file_dialog.h"
#include "graph/graph_scene.h"
#include "graph/graph_widget.h"
#include "i18n/language.h"
#include "report/report_format.h"
#include "mainwindow_icons.h"
#include "task_status.h"
#include "rules/texts.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The file name with `suffix` when the user typed none.
QString withSuffix(QString path, const QString& filter) {
  if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
  const int star = filter.indexOf(QLatin1String("*."));
  if (star < 0) return path;
  const int end = filter.indexOf(QRegularExpression(QStringLiteral("[ );]")), star);
  return path + filter.mid(star + 1, end < 0 ? -1 : end - star - 1);
}

}  // namespace

EditController::EditController(const EditContext& context, const EditPlacement& where, QObject* parent)
    : QObject(parent), m_workspace(context.document), m_graph(context.graph), m_status(context.status),
      m_dialogParent(context.dialogParent), m_session(context.document->edits()), m_verify(new VerifyJob(this)) {
  createActions();
  placeActions(where);
  // Another document: a new history (the hub started it), nothing verified or chosen in it.
  connect(m_workspace, &AnalysisWorkspace::documentChanged, this, [this](std::shared_ptr<const ModelDocument>, bool edited) {
    if (edited) return;
    m_verify->cancel();
    m_lastVerify.reset();
    m_currentFinding.clear();
  });
  connect(m_session, &EditSession::stateChanged, this, &EditController::onStateChanged);
  // The stack's index moves after the command's redo() announced the state: the "[*]" follows it.
  auto updateModified = [this] { emit modifiedChanged(hasUnsavedEdits()); };
  connect(m_session->undoStack(), &QUndoStack::indexChanged, this, updateModified);
  connect(m_session->undoStack(), &QUndoStack::cleanChanged, this, updateModified);
  connect(m_session, &EditSession::busyChanged, this, [this](bool busy) {
    if (busy) setBusy(tr("Applying fixes…"));
    updateActions();
  });
  connect(m_session, &EditSession::progressChanged, this, &EditController::setProgress);
  connect(m_session, &EditSession::applyFinished, this, [this](const QStringList& applied, const QStringList& skipped) {
    QString msg = tr("Applied %n fix(es)", nullptr, static_cast<int>(applied.size()));
    if (!skipped.isEmpty())
      msg += tr("; %n safe finding(s) left, not applicable to the result (select one: Apply's tooltip says why)", nullptr,
                static_cast<int>(skipped.size()));
    if (const auto s = m_session->current(); s && !s->reportError.isEmpty()) msg += tr("; re-analysis failed: %1").arg(s->reportError);
    setIdle(msg);
  });
  connect(m_session, &EditSession::applyFailed, this, [this](const QString& message) {
    setIdle(tr("Apply failed"));
    showError(tr("Cannot apply the fix"), message);
  });
  connect(m_session, &EditSession::applyCancelled, this, [this] { setIdle(tr("Apply cancelled")); });
  connect(m_verify, &VerifyJob::progressChanged, this, &EditController::setProgress);
  connect(m_verify, &VerifyJob::finished, this, [this](const VerifyOutcome& o) {
    m_lastVerify = o;
    const bool ok = o.verification.passed;
    // Outputs that could not have failed are not a match; a speedup within noise is not a result.
    const QString speedup = o.latency ? qs(report::speedupText(o.latency->speedupAll(), o.latency->speedupAllNoise, coreLanguage()))
                                      : QString();
    setIdle(!ok                         ? tr("Verification failed: %1").arg(qs(o.verification.failure))
            : o.verification.inconclusive ? tr("Not verified: %1").arg(qs(inconclusiveText(o.verification, coreLanguage())))
            : o.latency                 ? tr("Verified: outputs match within tolerance; measured speedup %1 as deployed").arg(speedup)
                                        : tr("Verified: outputs match within tolerance"));
    if (interactive()) {
      QMessageBox box(ok ? QMessageBox::Information : QMessageBox::Warning, tr("Verification"),
                      describeVerifyOutcome(o), QMessageBox::Ok, m_dialogParent);
      box.setTextFormat(Qt::RichText);
      box.exec();
    }
    emit verifyFinished(o);
  });
  connect(m_verify, &VerifyJob::failed, this, [this](const QString& message) {
    setIdle(tr("Verification could not run"));
    showError(tr("Cannot verify"), message);
    emit verifyFailed(message);
  });
  connect(m_verify, &VerifyJob::cancelled, this, [this] {
    setIdle(tr("Verification cancelled"));
    updateActions();
  });
  // The settings of the analysis on screen bind Verify's symbolic dims; the finding chosen in a
  // table is what Apply applies.
  connect(m_workspace, &AnalysisWorkspace::analysisChanged, this, [this](std::shared_ptr<const AnalysisResult> result) {
    if (result && result->document && result->document == m_session->currentDocument() && result->report)
      m_analysisSettings = result->settings;
  });
  connect(m_workspace, &AnalysisWorkspace::findingSelected, this, &EditController::setCurrentFinding);
  connect(m_graph, &GraphWidget::selectionChanged, this, &EditController::updateActions);
  updateActions();
}

void EditController::createActions() {
  // Our own actions, not QUndoStack's: theirs say "Undo"/"Redo" in every language (qtbase's
  // Chinese catalogue has no entry for them) and keep the words they were created with.
  QUndoStack* stack = m_session->undoStack();
  m_undoAct = new QAction(this);
  m_undoAct->setShortcut(QKeySequence::Undo);
  m_undoAct->setIcon(QIcon::fromTheme(QStringLiteral("edit-undo"), icons::undo()));
  connect(m_undoAct, &QAction::triggered, stack, &QUndoStack::undo);
  m_redoAct = new QAction(this);
  m_redoAct->setShortcut(QKeySequence::Redo);
  m_redoAct->setIcon(QIcon::fromTheme(QStringLiteral("edit-redo"), icons::redo()));
  connect(m_redoAct, &QAction::triggered, stack, &QUndoStack::redo);
  connect(stack, &QUndoStack::indexChanged, this, &EditController::updateUndoTexts);
  connect(stack, &QUndoStack::indexChanged, this, &EditController::updateActions);

  m_applyAct = new QAction(this);
  m_applyAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  connect(m_applyAct, &QAction::triggered, this, &EditController::applyCurrent);
  m_applyAllAct = new QAction(this);
  connect(m_applyAllAct, &QAction::triggered, this, &EditController::applyAllSafe);
  m_verifyAct = new QAction(this);
  connect(m_verifyAct, &QAction::triggered, this, &EditController::verify);

  m_exportModelAct = new QAction(this);
  m_exportModelAct->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  connect(m_exportModelAct, &QAction::triggered, this, &EditController::exportModel);
  m_exportReportAct = new QAction(this);
  connect(m_exportReportAct, &QAction::triggered, this, &EditController::exportReport);
  m_exportImageAct = new QAction(this);
  connect(m_exportImageAct, &QAction::triggered, this, &EditController::exportImage);
  retranslate();
  connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, this, &EditController::retranslate);
}

void EditController::retranslate() {
  m_applyAct->setText(tr("&Apply Fix"));
  m_applyAllAct->setText(tr("Apply All &Safe Fixes"));
  m_verifyAct->setText(tr("&Verify"));
  m_verifyAct->setToolTip(tr("Compare the edited model's outputs with the original's and measure both"));
  m_exportModelAct->setText(tr("Export Optimized &ONNX…"));
  m_exportReportAct->setText(tr("Export &Report…"));
  m_exportImageAct->setText(tr("Export &Graph Image…"));
  m_session->retranslateCommands();
  updateUndoTexts();
  updateActions();  // the tooltips
}

// "Undo Fuse Conv→BatchNormalization→Relu at …": what the step undoes or redoes, in the
// language in use.
void EditController::updateUndoTexts() {
  const QUndoStack* stack = m_session->undoStack();
  const QString undo = stack->undoText(), redo = stack->redoText();
  m_undoAct->setText(undo.isEmpty() ? tr("Undo") : tr("Undo %1").arg(undo));
  m_redoAct->setText(redo.isEmpty() ? tr("Redo") : tr("Redo %1").arg(redo));
}

void EditController::placeActions(const EditPlacement& where) {
  if (where.file) {
    where.file->insertActions(where.beforeInFile, {m_exportModelAct, m_exportReportAct, m_exportImageAct});
    where.file->insertSeparator(where.beforeInFile);
  }
  if (where.edit) {
    where.edit->insertActions(where.beforeInEdit, {m_undoAct, m_redoAct});
    where.edit->insertSeparator(where.beforeInEdit);
  }
  if (where.analyze) {
    if (!where.analyze->isEmpty()) where.analyze->addSeparator();
    where.analyze->addActions({m_applyAct, m_applyAllAct, m_verifyAct});
  }
  if (where.toolBar) {
    where.toolBar->addSeparator();
    where.toolBar->addActions({m_undoAct, m_applyAct, m_applyAllAct, m_verifyAct});
    // "Undo Fuse Conv→BatchNormalization→SiLU at /model.22/cv3/conv" would push Verify into
    // the overflow: the tool bar shows the icon, the tooltip and Edit ▸ Undo say what it undoes.
    if (auto* b = qobject_cast<QToolButton*>(where.toolBar->widgetForAction(m_undoAct))) b->setToolButtonStyle(Qt::ToolButtonIconOnly);
  }
}

// The hub publishes the state (its document and analysis) to every view; here only the actions.
void EditController::onStateChanged() {
  emit modifiedChanged(hasUnsavedEdits());
  m_lastVerify.reset();  // it was about another state
  m_currentFinding.clear();  // the docks show a new analysis, nothing selected in it
  emit reportChanged(m_session->currentReport());
  // Back to a state an Apply left (Undo): the nodes selected then, not those the fix kept.
  restoreSelection();
  updateActions();
}

QString EditController::currentFinding() const {
  if (!m_currentFinding.isEmpty()) return m_session->applicableFinding(m_currentFinding) ? m_currentFinding : QString();
  const auto report = m_session->currentReport();
  if (!report) return {};
  const QStringList selected = m_graph->selectedNodes();
  if (selected.isEmpty()) return {};
  const QSet<QString> sel(selected.begin(), selected.end());
  for (const Finding& f : report->findings)
    if (m_session->applicableFinding(qs(f.id)))
      for (const std::string& n : f.nodes)
        if (sel.contains(qs(n))) return qs(f.id);
  return {};
}

void EditController::setCurrentFinding(const QString& id) {
  m_currentFinding = id;
  updateActions();
}

void EditController::updateActions() {
  const bool busy = m_session->busy() || m_verify->running();
  const bool doc = m_session->hasDocument();
  const QString id = busy ? QString() : currentFinding();
  m_applyAct->setEnabled(!id.isEmpty());
  const auto report = m_session->currentReport();
  if (const Finding* f = id.isEmpty() ? nullptr : m_session->applicableFinding(id)) {
    QString tip = tr("Apply: %1").arg(qs(renderFinding(*f, coreLanguage()).title));
    // Said before Apply: the fixed model then runs on ONNX Runtime only.
    if (const QString ops = m_session->runtimeOperators(*f); !ops.isEmpty())
      tip += QLatin1Char('\n') + tr("This fix writes %1: only ONNX Runtime runs the fixed model.").arg(ops);
    m_applyAct->setToolTip(tip);
  } else if (!m_currentFinding.isEmpty() && !busy) {
    const Finding* sel = report ? report->finding(m_currentFinding.toStdString()) : nullptr;
    m_applyAct->setToolTip(tr("Cannot apply “%1”: %2")
                               .arg(sel ? qs(renderFinding(*sel, coreLanguage()).title) : m_currentFinding,
                                    m_session->whyNotApplicable(m_currentFinding)));
  } else {
    m_applyAct->setToolTip(tr("Select a finding (or its nodes) that has an automatic fix"));
  }
  const size_t safe = m_session->safeFindings().size();
  m_applyAllAct->setEnabled(!busy && safe > 0);
  m_applyAllAct->setToolTip(safe ? tr("Apply %n safe fix(es) as one undo step", nullptr, static_cast<int>(safe))
                                 : tr("The current analysis has no safe automatic fix"));
  m_verifyAct->setEnabled(!busy && m_session->isModified());
  m_exportModelAct->setEnabled(doc && !busy);
  m_exportReportAct->setEnabled(m_session->currentReport() != nullptr);
  m_exportImageAct->setEnabled(doc);
  // Undo/redo while a job runs would change the state under it.
  m_session->undoStack()->setActive(!busy);
  m_undoAct->setEnabled(!busy && m_session->undoStack()->canUndo());
  m_redoAct->setEnabled(!busy && m_session->undoStack()->canRedo());
}

void EditController::setReport(std::shared_ptr<const Report> report) { m_session->setReport(std::move(report)); }

void EditController::applyCurrent() {
  const QString id = currentFinding();
  if (id.isEmpty()) {
    if (!m_currentFinding.isEmpty()) showError(tr("Apply"), m_applyAct->toolTip());
    else showError(tr("Apply"), tr("Select a finding (or its nodes) that has an automatic fix."));
    return;
  }
  rememberSelection();
  m_session->apply(id);
}

void EditController::applyAllSafe() {
  rememberSelection();
  m_session->applyAllSafe();
}

void EditController::rememberSelection() {
  const EditStatePtr state = m_session->current();
  if (!state) return;
  std::erase_if(m_selectionBefore, [&](const auto& e) { return e.first.expired() || e.first.lock() == state; });
  m_selectionBefore.emplace_back(state, m_graph->selectedNodes());
}

void EditController::restoreSelection() {
  const EditStatePtr state = m_session->current();
  const auto it = std::find_if(m_selectionBefore.begin(), m_selectionBefore.end(),
                               [&](const auto& e) { return !e.first.expired() && e.first.lock() == state; });
  if (!state || it == m_selectionBefore.end() || !state->document || !state->document->graph) return;
  // Once the views have the state's document (they hear stateChanged too, in any order).
  QTimer::singleShot(0, this, [this, state, names = it->second] {
    if (m_session->current() != state) return;
    QSet<QString> present;
    for (const ViewNode& n : state->document->graph->nodes()) present.insert(n.id);
    QStringList kept;
    for (const QString& n : names)
      if (present.contains(n)) kept << n;
    m_graph->selectNodes(kept);
  });
}

void EditController::verify() {
  if (!m_session->isModified()) {
    showError(tr("Verify"), tr("Nothing to verify: no fix has been applied to the model."));
    return;
  }
  VerifyJob::Options o;
  const std::vector<Rewrite> rewrites = m_session->appliedRewrites();
  o.verify.tolerance = m_verifyTolerance.value_or(toleranceForRewrites(rewrites));
  o.latency = m_latency;
  const auto before = m_session->originalState()->report;
  const auto after = m_session->currentReport();
  if (before && after && after->latencyMs > 0) o.estimatedSpeedup = before->latencyMs / after->latencyMs;
  // Symbolic dims as the analysis bound them (a dynamic batch or sequence cannot run unbound).
  if (before) o.verify.inputs.dims = inputDimsFromReport(*before, *m_session->originalModel());
  for (auto it = m_analysisSettings.dims.cbegin(); it != m_analysisSettings.dims.cend(); ++it)
    o.verify.inputs.dims.emplace(it.key().toStdString(), it.value());
  setBusy(tr("Verifying against the original…"));
  m_verify->start(m_session->originalModel(), m_session->currentModel(), o);
  updateActions();
}

QString EditController::openedPath() const {
  const auto s = m_session->originalState();
  return s && s->document ? s->document->path : QString();
}

bool EditController::interactive() const { return m_interactive; }

bool EditController::hasUnsavedEdits() const { return m_session->isModified() && !m_session->undoStack()->isClean(); }

bool EditController::confirmDiscard() {
  if (!hasUnsavedEdits() || m_session->busy()) return true;
  DiscardChoice choice = DiscardChoice::Discard;
  if (m_askDiscard) {
    choice = m_askDiscard();
  } else if (interactive()) {
    QMessageBox box(QMessageBox::Warning, tr("Unsaved fixes"),
                    tr("%n fix(es) applied to %1 have not been exported. Export the optimized model first?", nullptr,
                       static_cast<int>(m_session->appliedRewrites().size()))
                        .arg(QFileInfo(openedPath()).fileName()),
                    QMessageBox::NoButton, m_dialogParent);
    QPushButton* exportButton = box.addButton(tr("Export…"), QMessageBox::AcceptRole);
    box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
    QPushButton* cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(exportButton);
    box.exec();
    choice = box.clickedButton() == exportButton ? DiscardChoice::Export
             : box.clickedButton() == cancel     ? DiscardChoice::Cancel
                                                 : DiscardChoice::Discard;
  }
  switch (choice) {
    case DiscardChoice::Discard: return true;
    case DiscardChoice::Cancel: return false;
    case DiscardChoice::Export: exportModel(); return !hasUnsavedEdits();
  }
  return false;
}

bool EditController::confirmExport() {
  if (!m_lastVerify || m_lastVerify->verification.passed) return true;
  ExportChoice choice = ExportChoice::ExportAnyway;
  if (m_askExport) {
    choice = m_askExport(*m_lastVerify);
  } else if (interactive()) {
    QMessageBox box(QMessageBox::Warning, tr("Verification failed"),
                    tr("The edited model's outputs differ from the original's:<br>%1<br><br>Export it anyway?")
                        .arg(qs(m_lastVerify->verification.failure).toHtmlEscaped()),
                    QMessageBox::NoButton, m_dialogParent);
    box.setTextFormat(Qt::RichText);
    QPushButton* anyway = box.addButton(tr("Export Anyway"), QMessageBox::DestructiveRole);
    QPushButton* undo = box.addButton(tr("Undo the Last Fix"), QMessageBox::ActionRole);
    QPushButton* cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    choice = box.clickedButton() == anyway ? ExportChoice::ExportAnyway
             : box.clickedButton() == undo ? ExportChoice::Undo
                                           : ExportChoice::Cancel;
  }
  if (choice == ExportChoice::Undo) m_session->undoStack()->undo();
  return choice == ExportChoice::ExportAnyway;
}

QString EditController::writeModel(const QString& path) {
  const auto model = m_session->currentModel();
  if (!model) return tr("No model is open.");
  const QString err = ui::exportModel(*model, path, openedPath());
  if (err.isEmpty()) {
    m_session->undoStack()->setClean();  // what is on screen is now saved
    emit modifiedChanged(false);
    emit exported(path);
  }
  return err;
}

QString EditController::exportModelTo(const QString& path) {
  if (!m_session->currentModel()) return tr("No model is open.");
  if (!confirmExport()) return tr("Not exported: the last verification failed.");
  return writeModel(path);
}

QString EditController::exportReportTo(const QString& path) {
  const auto report = m_session->currentReport();
  if (!report) return tr("Nothing to export: analyse the model first.");
  ReportOptions o;
  o.generator = "msadvisor " + QCoreApplication::applicationVersion().toStdString();
  const QString err = ui::exportReport(*report, path, openedPath(), o, m_session->currentModel().get());
  if (err.isEmpty()) emit exported(path);
  return err;
}

QString EditController::exportImageTo(const QString& path) {
  const QString err = exportGraphImage(m_graph->scene(), path, openedPath(), 2.0, m_session->currentModel().get());
  if (err.isEmpty()) emit exported(path);
  return err;
}

void EditController::exportModel() {
  if (!confirmExport()) return;
  const QFileInfo src(openedPath());
  const QString proposal = src.absolutePath() + QLatin1Char('/') + src.completeBaseName() + QStringLiteral(".optimized.onnx");
  QString filter;
  QString path = askSaveFile(m_dialogParent, tr("Export optimized ONNX"), proposal, tr("ONNX models (*.onnx)"), &filter);
  path = withSuffix(path, filter);
  if (path.isEmpty()) return;
  if (const QString err = writeModel(path); !err.isEmpty()) showError(tr("Export failed"), err);
  else setIdle(tr("Exported %1").arg(QFileInfo(path).fileName()));
}

void EditController::exportReport() {
  const QFileInfo src(openedPath());
  QString filter;
  QString path = askSaveFile(m_dialogParent, tr("Export report"),
                                              src.absolutePath() + QLatin1Char('/') + src.completeBaseName() + QStringLiteral(".report.html"),
                                              tr("HTML report (*.html);;JSON report (*.json);;Markdown report (*.md)"), &filter);
  path = withSuffix(path, filter);
  if (path.isEmpty()) return;
  if (const QString err = exportReportTo(path); !err.isEmpty()) showError(tr("Export failed"), err);
  else setIdle(tr("Exported %1").arg(QFileInfo(path).fileName()));
}

void EditController::exportImage() {
  const QFileInfo src(openedPath());
  QString filter;
  QString path = askSaveFile(m_dialogParent, tr("Export graph image"),
                                              src.absolutePath() + QLatin1Char('/') + src.completeBaseName() + QStringLiteral(".svg"),
                                              tr("SVG image (*.svg);;PNG image (*.png)"), &filter);
  path = withSuffix(path, filter);
  if (path.isEmpty()) return;
  if (const QString err = exportImageTo(path); !err.isEmpty()) showError(tr("Export failed"), err);
  else setIdle(tr("Exported %1").arg(QFileInfo(path).fileName()));
}

void EditController::cancel() {
  m_session->cancel();
  m_verify->cancel();
}

void EditController::setBusy(const QString& what) {
  m_busyWhat = what;
  m_status->begin(what, [this] { cancel(); });
}

void EditController::setProgress(const QString& phase, double fraction) {
  if (!m_session->busy() && !m_verify->running()) return;
  const QString stage = progressStageTitle(phase);
  m_status->setProgress(stage.isEmpty() ? m_busyWhat : m_busyWhat + QStringLiteral(" (") + stage + QLatin1Char(')'), fraction);
}

void EditController::setIdle(const QString& message) {
  m_status->end(message);
  updateActions();
}

void EditController::showError(const QString& title, const QString& message) {
  emit errorShown(title, message);
  if (interactive()) QMessageBox::warning(m_dialogParent, title, message);
  else m_status->setMessage(message);
}

}  // namespace msa::ui
