#include "analysis/analysis_workspace.h"

#include <QLocale>

#include "analysis/findings_panel.h"
#include "analysis/overview_panel.h"
#include "graph/graph_widget.h"

namespace msa::ui {

AnalysisWorkspace::AnalysisWorkspace(GraphWidget* graph, QWidget* parentWidget) : QObject(parentWidget), m_graph(graph) {
  qRegisterMetaType<QList<msa::ui::NodeMetric>>();
  m_controller = new AnalysisController(this);
  m_overview = new OverviewPanel(parentWidget);
  m_overview->setObjectName(QStringLiteral("overviewPanel"));
  const struct {
    Table table;
    FindingsModel::Filter filter;
    QString empty, name;
  } specs[] = {
      {Table::Bottlenecks, {true, {}}, tr("The ranked list of what to fix appears here after Analyze."),
       QStringLiteral("bottlenecksPanel")},
      {Table::Fusion, {false, {Category::Fusion}}, tr("Fusion opportunities appear here after Analyze."),
       QStringLiteral("fusionPanel")},
      {Table::Format, {false, {Category::Format}},
       tr("Layout conversions (inverse Transposes, NCHWc reorders, TransData) appear here after Analyze."),
       QStringLiteral("formatPanel")},
      {Table::Kernel, {false, {Category::Kernel, Category::Alignment, Category::SmallOps, Category::Precision, Category::Graph}},
       tr("Slow kernels, misaligned shapes, tiny operators and precision appear here after Analyze."),
       QStringLiteral("kernelPanel")},
  };
  for (const auto& s : specs) {
    auto* panel = new FindingsPanel(s.filter, s.empty, parentWidget);
    panel->setObjectName(s.name);
    m_tables[static_cast<int>(s.table)] = panel;
    connect(panel, &FindingsPanel::findingActivated, this,
            [this, panel](const QString& id, const QStringList& nodes) { activate(id, nodes, panel); });
  }
  connect(m_graph, &GraphWidget::selectionChanged, this, &AnalysisWorkspace::onGraphSelection);
  connect(m_controller, &AnalysisController::progressChanged, this, &AnalysisWorkspace::progressChanged);
  connect(m_controller, &AnalysisController::failed, this, &AnalysisWorkspace::failed);
  connect(m_controller, &AnalysisController::cancelled, this, &AnalysisWorkspace::cancelled);
  connect(m_controller, &AnalysisController::finished, this, [this](const AnalysisResult& r) {
    setResult(r);
    emit finished();
  });
}

AnalysisWorkspace::~AnalysisWorkspace() = default;

bool AnalysisWorkspace::run(std::shared_ptr<const ModelDocument> doc, const AnalysisSettings& settings) {
  return m_controller->start(std::move(doc), settings);
}

void AnalysisWorkspace::cancel() { m_controller->cancel(); }
bool AnalysisWorkspace::running() const { return m_controller->isRunning(); }

void AnalysisWorkspace::setResult(const AnalysisResult& result) {
  m_result = result;
  m_selected.clear();
  m_overlays = buildOverlays(*result.report);
  m_overview->setReport(result.report, result.seconds);
  for (FindingsPanel* p : m_tables) p->setReport(result.report);
  refreshOverlays();
  emit metricsReady(m_overlays.metrics, true);
}

void AnalysisWorkspace::clear() {
  m_result.reset();
  m_overlays = {};
  m_selected.clear();
  m_overview->setReport(nullptr);
  for (FindingsPanel* p : m_tables) p->setReport(nullptr);
  m_graph->setGroups({});
  m_graph->setMarks({});
  m_graph->setEmphasizedGroup({});
}

void AnalysisWorkspace::documentChanged(const std::shared_ptr<const ModelDocument>& doc) {
  if (!m_result) return;
  if (!doc || !m_result->document || doc->path != m_result->document->path) {
    clear();
    return;
  }
  refreshOverlays();
  // The analysis view stays (nodes the rewrite added have no measurement and draw neutral).
  emit metricsReady(m_overlays.metrics, true);
}

void AnalysisWorkspace::refreshOverlays() {
  m_graph->setGroups(m_overlays.groups);
  m_graph->setMarks(m_overlays.marks);
  m_graph->setEmphasizedGroup(m_selected);
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
  for (FindingsPanel* p : m_tables)
    if (p != source) p->showFinding(id);
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
  for (FindingsPanel* p : m_tables) p->highlightNodes(nodes);
}

}  // namespace msa::ui
