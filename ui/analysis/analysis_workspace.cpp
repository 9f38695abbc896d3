#include "analysis/analysis_workspace.h"

#include <QTimer>

#include "analysis/findings_panel.h"
#include "analysis/overview_panel.h"
#include "edit/edit_session.h"
#include "graph/graph_widget.h"

namespace msa::ui {

QString tableId(AnalysisWorkspace::Table t) {
  switch (t) {
    case AnalysisWorkspace::Table::Bottlenecks: return QStringLiteral("bottlenecksPanel");
    case AnalysisWorkspace::Table::Fusion: return QStringLiteral("fusionPanel");
    case AnalysisWorkspace::Table::Format: return QStringLiteral("formatPanel");
    case AnalysisWorkspace::Table::Kernel: return QStringLiteral("kernelPanel");
  }
  return {};
}

AnalysisWorkspace::AnalysisWorkspace(GraphWidget* graph, QObject* parent) : QObject(parent), m_graph(graph) {
  qRegisterMetaType<QList<msa::ui::NodeMetric>>();
  m_controller = new AnalysisController(this);
  m_edits = new EditSession(this);
  connect(m_edits, &EditSession::stateChanged, this, &AnalysisWorkspace::onEditState);
  connect(m_graph, &GraphWidget::selectionChanged, this, &AnalysisWorkspace::onGraphSelection);
  connect(m_controller, &AnalysisController::progressChanged, this, &AnalysisWorkspace::progressChanged);
  connect(m_controller, &AnalysisController::failed, this, &AnalysisWorkspace::failed);
  connect(m_controller, &AnalysisController::cancelled, this, &AnalysisWorkspace::cancelled);
  connect(m_controller, &AnalysisController::finished, this, [this](const AnalysisResult& r) {
    if (r.document != m_document) return;  // the document changed while it ran
    deliver(std::make_shared<const AnalysisResult>(r));
  });
}

AnalysisWorkspace::~AnalysisWorkspace() = default;

OverviewPanel* AnalysisWorkspace::createOverview(QWidget* parent) {
  m_overview = new OverviewPanel(parent);
  m_overview->setObjectName(QStringLiteral("overviewPanel"));
  connect(this, &AnalysisWorkspace::analysisChanged, m_overview, [o = m_overview.data()](std::shared_ptr<const AnalysisResult> r) {
    o->setReport(r ? r->report : nullptr, r ? r->seconds : 0);
  });
  return m_overview;
}

FindingsPanel* AnalysisWorkspace::createFindingsPanel(const QString& id, FindingsModel::Filter filter, const QString& emptyText,
                                                     QWidget* parent) {
  auto* panel = new FindingsPanel(std::move(filter), emptyText, parent);
  panel->setObjectName(id);
  m_tables.push_back(panel);
  connect(panel, &FindingsPanel::findingActivated, this,
          [this, panel](const QString& fid, const QStringList& nodes) { activate(fid, nodes, panel); });
  connect(this, &AnalysisWorkspace::analysisChanged, panel,
          [panel](std::shared_ptr<const AnalysisResult> r) { panel->setReport(r ? r->report : nullptr); });
  panel->setReport(report());
  return panel;
}

OverviewPanel* AnalysisWorkspace::overview() const { return m_overview.data(); }

FindingsPanel* AnalysisWorkspace::table(const QString& id) const {
  for (const auto& p : m_tables)
    if (p && p->objectName() == id) return p;
  return nullptr;
}

FindingsPanel* AnalysisWorkspace::table(Table t) const { return table(tableId(t)); }

bool AnalysisWorkspace::run(const AnalysisSettings& settings) { return m_controller->start(m_document, settings); }
void AnalysisWorkspace::cancel() { m_controller->cancel(); }
bool AnalysisWorkspace::running() const { return m_controller->isRunning(); }

void AnalysisWorkspace::setDocument(std::shared_ptr<const ModelDocument> document, bool edited) {
  if (!edited && m_controller->isRunning()) m_controller->cancel();  // it measured the previous document
  m_document = std::move(document);
  if (!edited) {
    adopt(nullptr);
    // A new history (its state is this document: nothing to publish); the same document shown
    // again keeps its history.
    if (m_document != m_edits->currentDocument()) m_edits->setDocument(m_document);
  }
  emit documentChanged(m_document, edited);
  if (!edited) {
    refreshOverlays();
    emit analysisChanged(nullptr);
  } else if (m_result) {
    // The analysis view stays until the edited model's arrives (nodes the rewrite added have no
    // measurement and draw neutral).
    refreshOverlays();
    emit metricsReady(m_overlays.metrics, true);
  }
}

void AnalysisWorkspace::adopt(std::shared_ptr<const AnalysisResult> result) {
  ++m_delivery;
  m_result = std::move(result);
  m_selected.clear();
  m_overlays = !m_result || !m_result->report ? AnalysisOverlays{}
               : m_result->overlays && m_result->overlaysOf == m_result->report ? *m_result->overlays
                                                : buildOverlays(*m_result->report);
}

void AnalysisWorkspace::setAnalysis(std::shared_ptr<const AnalysisResult> result) {
  adopt(std::move(result));
  giveEditsTheReport();
  refreshOverlays();
  emit analysisChanged(m_result);
  if (m_result) emit metricsReady(m_overlays.metrics, true);
}

// A finished run is shown in three events — the graph's outlines; the tables and panels; the
// marks and the heatmap — so that the event loop keeps ticking on a large graph: on a
// 10,000-node model the three together held it 30-83 ms, above the 50 ms a fluid window allows.
// finished() comes after the last.
void AnalysisWorkspace::deliver(std::shared_ptr<const AnalysisResult> result) {
  adopt(std::move(result));
  giveEditsTheReport();
  const quint64 delivery = m_delivery;
  m_graph->setGroups(m_overlays.groups);
  QTimer::singleShot(0, this, [this, delivery] {
    if (delivery != m_delivery) return;
    emit analysisChanged(m_result);
    QTimer::singleShot(0, this, [this, delivery] {
      if (delivery != m_delivery) return;
      showMarks();
      if (m_result) emit metricsReady(m_overlays.metrics, true);
      emit finished();
    });
  });
}

void AnalysisWorkspace::giveEditsTheReport() {
  if (!m_result || !m_result->report || !m_result->document || m_result->document != m_edits->currentDocument()) return;
  if (m_result->report != m_edits->currentReport()) m_edits->setReport(m_result->report);  // comes back to onEditState: nothing new
}

void AnalysisWorkspace::onEditState() {
  const auto doc = m_edits->currentDocument();
  if (doc && doc != m_document) {
    m_document = doc;
    emit documentChanged(m_document, /*edited*/ true);
    if (m_result) {
      refreshOverlays();
      emit metricsReady(m_overlays.metrics, true);
    }
  }
  // The state's analysis (re-derived after an Apply, the earlier one after an Undo). Without
  // one (re-deriving failed) the previous analysis stays, no longer current.
  const auto report = m_edits->currentReport();
  if (!doc || !report || this->report() == report) return;
  auto r = std::make_shared<AnalysisResult>();
  r->report = report;
  r->document = doc;
  r->model = m_edits->currentModel();
  if (m_result) r->settings = m_result->settings;
  setAnalysis(std::move(r));
}

void AnalysisWorkspace::refreshOverlays() {
  m_graph->setGroups(m_overlays.groups);
  showMarks();
}

void AnalysisWorkspace::showMarks() {
  m_graph->setMarks(m_overlays.marks);
  m_graph->setEmphasizedGroup(m_selected);
}

void AnalysisWorkspace::retranslate() {
  for (const auto& p : m_tables)
    if (p) p->setReport(report());
  if (m_overview) m_overview->setReport(report(), m_result ? m_result->seconds : 0);
  if (m_result) emit metricsReady(m_overlays.metrics, false);  // their titles
}

bool AnalysisWorkspace::selectFinding(const QString& idOrRank) {
  const auto report = this->report();
  if (!report) return false;
  QString id = idOrRank;
  bool isNumber = false;
  const int rank = idOrRank.toInt(&isNumber);
  if (isNumber) {
    if (rank < 1 || static_cast<size_t>(rank) > report->bottlenecks.size()) return false;
    id = QString::fromStdString(report->bottlenecks[static_cast<size_t>(rank - 1)]);
  }
  const Finding* f = report->finding(id.toStdString());
  if (!f) return false;
  QStringList nodes;
  for (const std::string& n : f->nodes) nodes << QString::fromStdString(n);
  activate(id, nodes, nullptr);
  return true;
}

void AnalysisWorkspace::activate(const QString& id, const QStringList& nodes, FindingsPanel* source) {
  m_selected = id;
  m_activating = true;
  for (const auto& p : m_tables)
    if (p && p != source) p->showFinding(id);
  m_graph->setEmphasizedGroup(id);
  m_graph->selectNodes(nodes);
  m_graph->frameNodes(nodes);
  m_activating = false;
  emit findingSelected(id);
}

void AnalysisWorkspace::onGraphSelection(const QStringList& nodes) {
  if (m_activating || !m_result) return;
  if (!m_selected.isEmpty()) {  // the user picked nodes: no finding is selected any more
    m_selected.clear();
    m_graph->setEmphasizedGroup({});
    emit findingSelected({});
  }
  for (const auto& p : m_tables)
    if (p) p->highlightNodes(nodes);
}

}  // namespace msa::ui
