#include "analysis/compare_panel.h"

#include <QColor>
#include <QDir>
#include <QHBoxLayout>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <fstream>

#include "graph/graph_overlays.h"
#include "advisor/advisor.h"
#include "advisor/run_analysis.h"
#include "analysis/analysis_workspace.h"
#include "file_dialog.h"
#include "heatmap_chooser.h"
#include "edit/reanalysis.h"
#include "i18n/language.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/profile_import.h"
#include "report/report_json.h"
#include "util/units.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
// A signed difference: "+0.123", "−0.0456" (the minus sign, as percentages have it).
QString signedFigure(double v) { return (v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("−") : QString()) + figureText(std::fabs(v)); }

bool looksLikeJson(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{' || c == '[';
  return false;
}

TimingTable tableOf(const Report& r, const QString& label) { return timingTableOf(r, label.toStdString()); }

// An analysis of a device's run (File ▸ Open Profile's), not of a model.
bool isRunAnalysis(const Report& r) { return r.profileOnly || r.step || r.job; }

QString sourceOf(const Report& r) {
  return r.latencySource == "measured" ? QObject::tr("measured") : deviceTitle(r);
}

}  // namespace

Result<Comparison> compareWith(std::shared_ptr<const Model> modelA, std::shared_ptr<const Report> reportA,
                               const QString& labelA, const QString& pathB, const Progress& progress) {
  Comparison c;
  c.labelA = labelA;
  c.labelB = QFileInfo(pathB).fileName();
  const std::filesystem::path fileB(pathB.toStdString());
  if (!checkTimingTableFile(fileB) && isProfilePath(fileB)) {
    if (!reportA) return Error::usage("a run a device wrote is compared with this model's analysis: run Analyze first");
    // B analysed as File ▸ Open Profile analyses a run: on the chip its profile tells.
    AnalysisRequest request;
    request.device.clear();
    request.profilePath = fileB;
    auto b = runAnalysis(nullptr, request, progress);
    if (!b) return b.error();
    if (isRunAnalysis(*reportA)) {
      // Two runs' folders often share a name (rank0_ascend_pt): each then with its parent's.
      if (c.labelB == labelA && !reportA->profilePath.empty()) {
        const auto withParent = [](const QString& path) -> QString {  // not a QStringBuilder of temporaries
          const QFileInfo f(path);
          return f.dir().dirName() + QLatin1Char('/') + f.fileName();
        };
        c.labelA = withParent(qs(reportA->profilePath));
        c.labelB = withParent(pathB);
      }
      auto runs = std::make_shared<RunComparison>(
          compareRuns(*reportA, b->report, c.labelA.toStdString(), c.labelB.toStdString(), c.threshold));
      c.timing = runs->kernels;
      c.timingSource = QObject::tr("per kernel as the devices measured them");
      c.json = toJson(*runs);
      c.runs = std::move(runs);
      return c;
    }
    // Beside a model: its nodes against the run's kernels of the same names.
    c.timing = compareTimings(tableOf(*reportA, labelA), tableOf(b->report, c.labelB), c.threshold);
    c.timingSource = sourceOf(*reportA);
    c.json = toJson(c.timing);
    return c;
  }
  if (!QFileInfo(pathB).isFile()) return Error::model("cannot open", pathB.toStdString());
  if (looksLikeJson(pathB)) {
    if (!reportA)
      return Error::usage("a saved analysis or profile is compared with this model's analysis: run Analyze first");
    std::ifstream in(pathB.toStdString(), std::ios::binary);
    auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return Error::model("not valid JSON", pathB.toStdString());
    auto b = timingTableFromJson(j, c.labelB.toStdString());
    if (!b) return b.error();
    c.timing = compareTimings(tableOf(*reportA, labelA), *b, c.threshold);
    c.timingSource = sourceOf(*reportA);
    c.json = toJson(c.timing);
    return c;
  }
  if (!modelA) return Error::usage("open a model to compare another one with");
  auto loaded = loadModel(pathB.toStdString());
  if (!loaded) return loaded.error();
  auto b = std::make_shared<Model>(std::move(*loaded));
  progress.report("compare-shapes", 0.1);
  (void)inferShapes(*b);  // unknown shapes only leave some costs unknown
  c.againstModel = true;
  c.diff = diffModels(*modelA, *b);
  c.nodesA = modelA->graph.nodes.size();
  c.nodesB = b->graph.nodes.size();
  // Two models are timed alike: the roofline estimate on A's analysis device (a measurement of
  // one against an estimate of the other would compare methods, not models).
  const std::string device = reportA ? reportA->device : std::string("ascend910b");
  auto ea = analyzeEstimate(modelA, device, {}, progress);
  if (!ea) return ea.error();
  progress.report("compare-estimate", 0.6);
  auto eb = analyzeEstimate(b, device, {}, progress);
  if (!eb) return eb.error();
  c.timing = compareTimings(tableOf(*ea, labelA), tableOf(*eb, c.labelB), c.threshold);
  // On a device whose compiler fuses the graph (Ascend: ATC), both sides are priced as compiled:
  // a rewrite the compiler already does (a BN fold) changes nothing there, and the summary says so.
  c.timingSource = ea->compiled ? QObject::tr("estimated on %1, each graph as ATC compiles it").arg(deviceTitle(*ea))
                                : QObject::tr("estimated on %1").arg(deviceTitle(*ea));
  c.json = toJson(c.diff);
  c.json["nodes"] = {{"a", c.nodesA}, {"b", c.nodesB}};
  c.json["timing"] = toJson(c.timing);
  c.json["timing"]["source"] = "estimate:" + device;
  c.json["timing"]["compiled"] = ea->compiled.has_value();
  return c;
}

NodeMetric deltaMetric(const Comparison& c) {
  NodeMetric m;
  m.name = QStringLiteral("Time change");  // an English source text, translated when shown
  m.unit = QStringLiteral("ms");
  m.aggregate = NodeMetric::Aggregate::Sum;
  m.description = QStringLiteral("B − A per node, %1");
  m.where = c.timingSource;
  m.diverging = true;
  for (const NodeDelta& d : c.timing.nodes)
    if (d.inA) m.values.insert(qs(d.name), d.deltaMs);
  return m;
}

// --- the deltas table

void CompareDeltaModel::setComparison(std::shared_ptr<const Comparison> c) {
  beginResetModel();
  m_c = std::move(c);
  endResetModel();
}

int CompareDeltaModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_c ? 0 : static_cast<int>(m_c->timing.nodes.size());
}
int CompareDeltaModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareDeltaModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_c || index.row() >= rowCount()) return {};
  const NodeDelta& d = m_c->timing.nodes[static_cast<size_t>(index.row())];
  const bool beyond = std::fabs(d.deltaMs) > 0.01 && std::fabs(d.deltaMs) > m_c->threshold * d.aMs;
  if (role == NameRole) return qs(d.name);
  if (role == Qt::TextAlignmentRole && index.column() != Node && index.column() != Verdict)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == Delta && beyond)
    return d.deltaMs > 0 ? QColor(0xb9, 0x1c, 0x1c) : QColor(0x15, 0x80, 0x3d);
  const auto fmt = [](double v, bool present) { return present ? figureText(v) : QStringLiteral("–"); };
  if (role == SortRole) {
    switch (index.column()) {
      case Node: return qs(d.name);
      case TimeA: return d.aMs;
      case TimeB: return d.bMs;
      case Delta: return std::fabs(d.deltaMs);
      case Ratio: return d.ratio;
      case Verdict: return beyond ? (d.deltaMs > 0 ? 2 : 1) : 0;
    }
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case Node: return qs(d.name);
    case TimeA: return fmt(d.aMs, d.inA);
    case TimeB: return fmt(d.bMs, d.inB);
    case Delta: return signedFigure(d.deltaMs);
    case Ratio: return d.inA && d.aMs > 0 && d.inB ? ratioText(d.ratio) : QStringLiteral("–");
    case Verdict:
      if (!d.inB) return tr("removed");
      if (!d.inA) return tr("added");
      return beyond ? (d.deltaMs > 0 ? tr("slower") : tr("faster")) : tr("within noise");
  }
  return {};
}

QVariant CompareDeltaModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  switch (section) {
    case Node: return tr("Node");
    case TimeA: return tr("A (ms)");
    case TimeB: return tr("B (ms)");
    case Delta: return tr("Change (ms)");
    case Ratio: return tr("B / A");
    case Verdict: return tr("Verdict");
  }
  return {};
}

// --- the nodes table

void CompareNodesModel::setComparison(std::shared_ptr<const Comparison> c) {
  beginResetModel();
  m_rows.clear();
  if (c && c->againstModel) {
    for (const auto& n : c->diff.added) m_rows.push_back({qs(n), 0});
    for (const auto& n : c->diff.removed) m_rows.push_back({qs(n), 1});
    for (const auto& n : c->diff.changed) m_rows.push_back({qs(n), 2});
  }
  endResetModel();
}

int CompareNodesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int CompareNodesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareNodesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = m_rows[static_cast<size_t>(index.row())];
  if (role == NameRole) return r.name;
  if (role != Qt::DisplayRole) return {};
  if (index.column() == Node) return r.name;
  return r.kind == 0 ? tr("added in B") : r.kind == 1 ? tr("removed in B") : tr("changed (op, inputs or attributes)");
}

QVariant CompareNodesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  return section == Node ? tr("Node") : tr("Change");
}

// --- a run comparison's tables

void RunDeltaModel::setComparison(std::shared_ptr<const Comparison> c) {
  beginResetModel();
  m_rows.clear();
  const RunComparison* runs = c ? c->runs.get() : nullptr;
  if (runs) {
    m_threshold = runs->threshold;
    if (m_table == Table::KernelTypes) {
      for (const RunDelta& d : runs->kernelTypes) m_rows.push_back({qs(d.key), d});
    } else {
      const std::map<std::string, QString> phases = {
          {"computing", tr("Computing")},
          {"communication_not_overlapped", tr("Communication not overlapped")},
          {"overlapped", tr("Communication overlapped")},
          {"free", tr("Free")},
          {"compute", tr("Compute")},
          {"collective_exposed", tr("Collectives exposed")},
          {"p2p_exposed", tr("Point-to-point exposed")},
          {"data_loading", tr("Data loading")},
          {"idle", tr("Idle")}};
      RunDelta step{"step", runs->a.stepMs, runs->b.stepMs, 0, 0, true, true};
      m_rows.push_back({tr("Step"), step});
      for (const RunDelta& d : runs->phases) m_rows.push_back({QStringLiteral("  ") + phases.at(d.key), d});
      for (const RunComparison::Rank& r : runs->ranks) {
        const QString rank = r.stage >= 0 ? tr("Rank %1 (stage %2)").arg(r.rank).arg(r.stage + 1) : tr("Rank %1").arg(r.rank);
        m_rows.push_back({rank + QStringLiteral(": ") + tr("step"), r.step});
        m_rows.push_back({rank + QStringLiteral(": ") + tr("compute"), r.compute});
        m_rows.push_back({rank + QStringLiteral(": ") + tr("idle"), r.idle});
      }
    }
  }
  endResetModel();
}

int RunDeltaModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int RunDeltaModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunDeltaModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& r = m_rows[static_cast<size_t>(index.row())];
  const RunDelta& d = r.d;
  const bool both = d.inA && d.inB, beyond = beyondNoise(d, m_threshold);
  if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Verdict)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == Delta && beyond)
    return d.deltaMs() > 0 ? QColor(0xb9, 0x1c, 0x1c) : QColor(0x15, 0x80, 0x3d);
  if (role == SortRole) {
    switch (index.column()) {
      case Name: return index.row();  // the tables' own order: phases, then ranks
      case TimeA: return d.aMs;
      case TimeB: return d.bMs;
      case Delta: return std::fabs(d.deltaMs());
      case Ratio: return both && d.aMs > 0 ? d.bMs / d.aMs : 0.0;
      case Verdict: return beyond ? (d.deltaMs() > 0 ? 2 : 1) : 0;
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Name && (d.countA > 0 || d.countB > 0))
    return tr("Launches per step: %1 in A, %2 in B").arg(d.countA, 0, 'f', 0).arg(d.countB, 0, 'f', 0);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const auto ms = [](double v, bool present) { return present ? figureText(v) : QStringLiteral("–"); };
  switch (index.column()) {
    case Name: return r.name;
    case TimeA: return ms(d.aMs, d.inA);
    case TimeB: return ms(d.bMs, d.inB);
    case Delta: return both ? signedFigure(d.deltaMs()) : QStringLiteral("–");
    case Ratio: return both && d.aMs > 0 ? ratioText(d.bMs / d.aMs) : QStringLiteral("–");
    case Verdict:
      if (!d.inB) return tr("only in A");
      if (!d.inA) return tr("only in B");
      return beyond ? (d.deltaMs() > 0 ? tr("slower") : tr("faster")) : tr("within noise");
  }
  return {};
}

QVariant RunDeltaModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  switch (section) {
    case Name: return m_table == Table::KernelTypes ? tr("Kernel type") : tr("Per step");
    case TimeA: return tr("A (ms)");
    case TimeB: return tr("B (ms)");
    case Delta: return tr("Change (ms)");
    case Ratio: return tr("B / A");
    case Verdict: return tr("Verdict");
  }
  return {};
}

// --- the panel

ComparePanel::ComparePanel(AnalysisWorkspace* workspace, HeatmapChooser* heatmap, QWidget* parent)
    : QWidget(parent), m_workspace(workspace), m_heatmap(heatmap), m_job(std::make_unique<Job<Comparison>>(this)) {
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("compareSummary"));
  m_summary->setTextFormat(Qt::PlainText);  // file names are text, never markup
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_deltas = new CompareDeltaModel(this);
  m_nodes = new CompareNodesModel(this);
  auto* sorted = new QSortFilterProxyModel(this);
  sorted->setSourceModel(m_deltas);
  sorted->setSortRole(CompareDeltaModel::SortRole);
  auto table = [this](QAbstractItemModel* model, const QString& name) {
    auto* v = new QTableView(this);
    v->setObjectName(name);
    v->setModel(model);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->verticalHeader()->hide();
    v->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    v->setWordWrap(false);
    v->setTextElideMode(Qt::ElideLeft);  // node names differ at their end
    connect(v, &QTableView::activated, this, [this](const QModelIndex& i) { emit nodeActivated(i.data(CompareDeltaModel::NameRole).toString()); });
    connect(v, &QTableView::clicked, this, [this](const QModelIndex& i) { emit nodeActivated(i.data(CompareDeltaModel::NameRole).toString()); });
    return v;
  };
  m_deltaView = table(sorted, QStringLiteral("compareDeltas"));
  m_deltaView->setSortingEnabled(true);
  m_deltaView->sortByColumn(CompareDeltaModel::Delta, Qt::DescendingOrder);
  m_nodesView = table(m_nodes, QStringLiteral("compareNodes"));
  m_steps = new RunDeltaModel(RunDeltaModel::Table::StepAndRanks, this);
  m_types = new RunDeltaModel(RunDeltaModel::Table::KernelTypes, this);
  m_stepView = table(m_steps, QStringLiteral("compareSteps"));
  auto* sortedTypes = new QSortFilterProxyModel(this);
  sortedTypes->setSourceModel(m_types);
  sortedTypes->setSortRole(RunDeltaModel::SortRole);
  m_typesView = table(sortedTypes, QStringLiteral("compareKernelTypes"));
  m_typesView->setSortingEnabled(true);
  m_typesView->sortByColumn(RunDeltaModel::Delta, Qt::DescendingOrder);
  for (QTableView* v : {m_stepView, m_typesView}) v->setTextElideMode(Qt::ElideRight);
  m_tabs = new QTabWidget(this);
  m_tabs->addTab(m_stepView, QString());
  m_tabs->addTab(m_typesView, QString());
  m_tabs->addTab(m_deltaView, QString());
  m_tabs->addTab(m_nodesView, QString());
  m_export = new QPushButton(this);
  m_export->setObjectName(QStringLiteral("compareExport"));
  connect(m_export, &QPushButton::clicked, this, &ComparePanel::exportDialog);
  auto* top = new QHBoxLayout;
  top->addWidget(m_summary, 1);
  top->addWidget(m_export, 0, Qt::AlignTop);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(top);
  layout->addWidget(m_tabs, 1);
  connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, this, [this] {
    retranslate();
    render();
  });
  retranslate();
  render();
  // Another model leaves nothing of the last comparison behind; an edit of the same one keeps it.
  if (m_workspace)
    connect(m_workspace, &AnalysisWorkspace::documentChanged, this, [this](std::shared_ptr<const ModelDocument>, bool edited) {
      if (edited) return;
      m_job->drop();
      clear();
    });
}

ComparePanel::~ComparePanel() = default;

bool ComparePanel::running() const { return m_job->running(); }

void ComparePanel::compareWith(const QString& path) {
  const auto doc = m_workspace ? m_workspace->document() : nullptr;
  const auto report = m_workspace ? m_workspace->report() : nullptr;
  std::shared_ptr<const Model> model = doc ? doc->model : nullptr;
  // A run opened without its model is named by its folder or file.
  const QString label = doc ? QFileInfo(doc->path).fileName() : report && !report->profilePath.empty() ? QFileInfo(qs(report->profilePath)).fileName() : QStringLiteral("A");
  m_job->start([model, report, label, path](const Progress& p) { return msa::ui::compareWith(model, report, label, path, p); },
               {.done =
                    [this](Comparison c) {
                      setComparison(std::make_shared<const Comparison>(std::move(c)));
                      if (m_heatmap && !m_c->runs) m_heatmap->addMetric(deltaMetric(*m_c), true);  // two runs have no graph
                      emit comparisonReady();
                    },
                .failed = [this](const Error& e) { emit comparisonFailed(qs(e.describe())); }});
}

void ComparePanel::retranslate() {
  m_tabs->setTabText(m_tabs->indexOf(m_stepView), tr("Step and ranks"));
  m_tabs->setTabText(m_tabs->indexOf(m_typesView), tr("Kernel types"));
  m_tabs->setTabText(m_tabs->indexOf(m_deltaView), tr("Largest changes"));
  m_tabs->setTabText(m_tabs->indexOf(m_nodesView), tr("Nodes added, removed, changed"));
  m_export->setText(tr("Export…"));
  m_export->setToolTip(tr("Write the comparison as JSON, the same document as msadvisor-cli compare --json"));
}

void ComparePanel::setComparison(std::shared_ptr<const Comparison> c) {
  m_c = std::move(c);
  m_deltas->setComparison(m_c);
  m_nodes->setComparison(m_c);
  m_steps->setComparison(m_c);
  m_types->setComparison(m_c);
  // Two runs open on their step; anything else on its largest per-node changes.
  m_tabs->setCurrentWidget(m_c && m_c->runs ? m_stepView : m_deltaView);
  render();
}

void ComparePanel::clear() { setComparison(nullptr); }

QString ComparePanel::summaryText() const { return m_summary->text(); }

void ComparePanel::render() {
  m_export->setEnabled(m_c != nullptr);
  const bool runs = m_c && m_c->runs;
  m_tabs->setTabVisible(m_tabs->indexOf(m_stepView), runs);
  m_tabs->setTabVisible(m_tabs->indexOf(m_typesView), runs);
  m_tabs->setTabVisible(m_tabs->indexOf(m_nodesView), !runs);
  m_tabs->setTabEnabled(m_tabs->indexOf(m_nodesView), m_c && m_c->againstModel);
  if (!m_c) {
    m_summary->setText(tr("File ▸ Compare With… puts a second model, a saved analysis, or another run the device wrote (a profiler folder or trace) beside this one."));
    return;
  }
  const TimingComparison& t = m_c->timing;
  QString s = tr("A: %1 · B: %2").arg(m_c->labelA, m_c->labelB);
  s += QLatin1Char('\n') + tr("total %1 → %2 (B/A %3), %4")
                               .arg(durationText(t.totalA), durationText(t.totalB),
                                    ratioText(t.totalA > 0 ? t.totalB / t.totalA : 0.0), m_c->timingSource);
  s += QLatin1Char('\n') + tr("%n node(s) slower, %1 faster (beyond %2)", nullptr, static_cast<int>(t.regressions.size()))
                               .arg(t.improvements.size())
                               .arg(percentText(m_c->threshold));
  if (runs) {
    const RunComparison& r = *m_c->runs;
    s = tr("A: %1 · %2").arg(m_c->labelA, qs(r.a.deviceNameIn(coreLanguage()))) + QLatin1Char('\n') +
        tr("B: %1 · %2").arg(m_c->labelB, qs(r.b.deviceNameIn(coreLanguage())));
    s += QLatin1Char('\n') + tr("step %1 → %2 (B/A %3)")
                                 .arg(durationText(r.a.stepMs), durationText(r.b.stepMs),
                                      ratioText(r.a.stepMs > 0 ? r.b.stepMs / r.a.stepMs : 0.0));
    s += QLatin1Char('\n') + tr("Kernels slower: %1, faster: %2 (beyond %3)")
                                 .arg(t.regressions.size())
                                 .arg(t.improvements.size())
                                 .arg(percentText(m_c->threshold));
    m_summary->setText(s);
    return;
  }
  if (m_c->againstModel)
    s += QLatin1Char('\n') + tr("%1 → %2 nodes: %3 added, %4 removed, %5 changed")
                                 .arg(m_c->nodesA)
                                 .arg(m_c->nodesB)
                                 .arg(m_c->diff.added.size())
                                 .arg(m_c->diff.removed.size())
                                 .arg(m_c->diff.changed.size());
  m_summary->setText(s);
}

QString ComparePanel::exportTo(const QString& path) const {
  if (!m_c) return tr("There is no comparison to export.");
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return tr("Cannot write %1: %2").arg(path, f.errorString());
  const std::string text = m_c->json.dump(2) + "\n";
  f.write(text.data(), static_cast<qint64>(text.size()));
  if (!f.commit()) return tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

void ComparePanel::exportDialog() {
  const QString path = askSaveFile(this, tr("Export Comparison"), QStringLiteral("comparison.json"), tr("JSON (*.json)"));
  if (path.isEmpty()) return;
  if (const QString e = exportTo(path); !e.isEmpty()) m_summary->setText(m_summary->text() + QLatin1Char('\n') + e);
}

}  // namespace msa::ui
