#include "analysis/whatif_panel.h"

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <cmath>

#include "graph/graph_overlays.h"
#include "util/units.h"
#include "analysis/analysis_workspace.h"
#include "analysis/child_profiler.h"
#include "file_dialog.h"
#include "heatmap_chooser.h"
#include "i18n/language.h"
#include "profile_process.h"
#include "whatif/accuracy.h"
#include "whatif/whatif_json.h"

namespace msa::ui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Whether Export can write the variant: measured, within the bound, a model of its own or
// settings for the original.
bool exportable(const Variant& v) { return v.measured && v.withinBound && v.error.empty(); }

}  // namespace

// --- the variants table

void WhatIfVariantsModel::setResult(std::shared_ptr<const WhatIfResult> r) {
  beginResetModel();
  m_r = std::move(r);
  endResetModel();
}

int WhatIfVariantsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_r ? 0 : static_cast<int>(m_r->variants.size());
}
int WhatIfVariantsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant WhatIfVariantsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_r || index.row() >= rowCount()) return {};
  const Variant& v = m_r->variants[static_cast<size_t>(index.row())];
  if (role == NameRole) return qs(v.name);
  if (role == Qt::TextAlignmentRole && index.column() != Name && index.column() != Bound)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::FontRole && m_r->best == v.name) {
    QFont f;
    f.setBold(true);
    return f;
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  const bool timed = v.measured || v.estimated;
  switch (index.column()) {
    case Name: return v.calibrationMethod.empty() ? qs(v.name) : QStringLiteral("%1 (%2)").arg(qs(v.name), qs(v.calibrationMethod));
    case Speedup: return timed ? ratioText(v.speedup) : QStringLiteral("–");
    case Predicted: return ratioText(v.predictedSpeedup);
    case Latency:
      if (!timed) return QStringLiteral("–");
      if (v.estimated) return figureText(v.latency.median);
      return QStringLiteral("%1 (%2–%3)").arg(figureText(v.latency.median), figureText(v.latency.p10), figureText(v.latency.p90));
    case Cosine: return v.accuracy ? QString::fromStdString(formatSimilarity(v.accuracy->cosine)) : QStringLiteral("–");
    case Top1: return v.accuracy && v.accuracy->top1 >= 0 ? percentText(v.accuracy->top1) : QStringLiteral("–");
    case Bound:
      if (v.estimated) return tr("estimated, accuracy not measured");
      if (!v.error.empty()) return role == Qt::ToolTipRole ? qs(v.error) : tr("the runtime cannot run it");
      if (!v.accuracy) return QStringLiteral("–");
      return v.withinBound ? tr("within the bound") : tr("outside the bound");
  }
  return {};
}

QVariant WhatIfVariantsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  switch (section) {
    case Name: return tr("Variant");
    case Speedup: return tr("Speedup");
    case Predicted: return tr("Predicted");
    case Latency: return tr("Latency ms (p10–p90)");
    case Cosine: return tr("Cosine");
    case Top1: return tr("Top-1");
    case Bound: return tr("Accuracy bound");
  }
  return {};
}

NodeMetric savedTimeMetric(const Variant& v) {
  NodeMetric m;
  m.name = QStringLiteral("Time saved by the variant");  // an English source text, translated when shown
  m.unit = QStringLiteral("ms");
  m.aggregate = NodeMetric::Aggregate::Sum;
  m.description = QStringLiteral("predicted per layer, %1");
  m.where = qs(v.name);
  for (const LayerEffect& l : v.layers) m.values.insert(qs(l.node), l.savedMs);
  return m;
}

NodeMetric accuracyCostMetric(const Variant& v) {
  NodeMetric m;
  m.name = QStringLiteral("Accuracy cost of quantizing");
  m.unit = QStringLiteral("%");
  // The worst layer of a collapsed block is what the user would keep in float.
  m.aggregate = NodeMetric::Aggregate::Max;
  m.description = QStringLiteral("relative RMS error each int8 layer adds alone, %1");
  m.where = qs(v.name);
  // The sensitivity is a relative squared error; its root reads as a percentage of the output.
  for (const LayerEffect& l : v.layers)
    if (l.int8 && l.accuracyCost >= 0) m.values.insert(qs(l.node), 100 * std::sqrt(l.accuracyCost));
  return m;
}

// --- the panel

WhatIfPanel::WhatIfPanel(AnalysisWorkspace* workspace, HeatmapChooser* heatmap, QWidget* parent)
    : QWidget(parent), m_workspace(workspace), m_heatmap(heatmap), m_job(std::make_unique<Job<nlohmann::json>>(this)) {
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("whatIfSummary"));
  m_summary->setTextFormat(Qt::PlainText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_bound = new QLineEdit(this);
  m_bound->setObjectName(QStringLiteral("whatIfBound"));
  m_bound->setText(qs(boundText(AccuracyBound{})));
  m_run = new QPushButton(this);
  m_run->setObjectName(QStringLiteral("whatIfRun"));
  connect(m_run, &QPushButton::clicked, this, [this] { running() ? cancel() : run(); });
  m_export = new QPushButton(this);
  m_export->setObjectName(QStringLiteral("whatIfExport"));
  connect(m_export, &QPushButton::clicked, this, &WhatIfPanel::exportDialog);
  m_model = new WhatIfVariantsModel(this);
  m_view = new QTableView(this);
  m_view->setObjectName(QStringLiteral("whatIfVariants"));
  m_view->setModel(m_model);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->verticalHeader()->hide();
  m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_view->horizontalHeader()->setStretchLastSection(true);
  connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) { selectVariant(i.row()); });
  connect(m_view, &QTableView::activated, this, [this](const QModelIndex& i) { selectVariant(i.row()); });
  auto* top = new QHBoxLayout;
  top->addWidget(m_bound, 1);
  top->addWidget(m_run);
  top->addWidget(m_export);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(top);
  layout->addWidget(m_summary);
  layout->addWidget(m_view, 1);
  connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, this, [this] {
    retranslate();
    render();
  });
  retranslate();
  render();
  // Another model leaves nothing of the last variants behind.
  if (m_workspace)
    connect(m_workspace, &AnalysisWorkspace::documentChanged, this, [this](std::shared_ptr<const ModelDocument>, bool) {
      m_job->drop();
      m_message.clear();
      setResult(nullptr);
    });
}

WhatIfPanel::~WhatIfPanel() = default;

bool WhatIfPanel::running() const { return m_job->running(); }

void WhatIfPanel::cancel() { m_job->requestCancel(); }  // the child is gone when it is reaped

QStringList WhatIfPanel::boundArguments() const {
  const QString bound = m_bound->text().trimmed();
  return bound.isEmpty() ? QStringList{} : QStringList{QStringLiteral("--bound"), bound};
}

void WhatIfPanel::run() { startChild(boundArguments() + m_extra, false, {}); }

void WhatIfPanel::exportVariant(const QString& name, const QString& path) {
  startChild(QStringList{QStringLiteral("--export"), name, QStringLiteral("-o"), path} + boundArguments() + m_extra, true, path);
}

void WhatIfPanel::startChild(QStringList arguments, bool exporting, const QString& path) {
  const auto doc = m_workspace ? m_workspace->document() : nullptr;
  if (!doc || !doc->model) {
    emit failed(tr("Open a model first: What If builds its variants from the model on screen."));
    return;
  }
  m_message.clear();
  m_job->start(
      [doc, arguments](const Progress& p) -> Result<nlohmann::json> {
        QTemporaryDir dir;
        if (!dir.isValid()) return Error::device("cannot create a temporary folder for the edited model");
        auto file = profiledModelFile(*doc, *doc->model, dir.path(), p);
        if (!file) return file.error();
        ProfileProcess::Request r;
        r.verb = QStringLiteral("what-if");
        r.model = *file;
        r.arguments = arguments;
        return ProfileProcess::runJson(r, p);
      },
      {.done =
           [this, exporting, path](nlohmann::json j) {
             if (exporting) {
               m_message = tr("Wrote %1 and %1.session.json.").arg(path);
               render();
               emit exported(path);
               return;
             }
             auto r = whatIfFromJson(j);
             if (!r) {
               emit failed(qs(r.error().describe()));
               return;
             }
             setResult(std::make_shared<const WhatIfResult>(std::move(*r)));
             emit resultReady();
           },
       .failed =
           [this](const Error& e) {
             m_message = qs(e.message);
             render();
             emit failed(qs(e.message));
           },
       .cancelled =
           [this] {
             render();
             emit cancelled();
           },
       .progress = [this](const QString& phase, double f) { emit progressChanged(phase, f); }});
  render();
}

void WhatIfPanel::setResult(std::shared_ptr<const WhatIfResult> r) {
  m_r = std::move(r);
  m_model->setResult(m_r);
  render();
}

void WhatIfPanel::selectVariant(int row) {
  if (!m_r || row < 0 || row >= static_cast<int>(m_r->variants.size())) return;
  m_view->selectRow(row);
  const Variant& v = m_r->variants[static_cast<size_t>(row)];
  if (m_heatmap && !v.layers.empty()) {
    // Offered beside the time saved (which is shown), so the user can see what each layer costs.
    // A variant that quantizes nothing withdraws the previous variant's.
    if (const NodeMetric cost = accuracyCostMetric(v); !cost.isEmpty()) m_heatmap->addMetric(cost, false);
    else m_heatmap->removeMetric(cost.name);
    m_heatmap->addMetric(savedTimeMetric(v), true);
  }
  render();
}

QString WhatIfPanel::summaryText() const { return m_summary->text(); }

void WhatIfPanel::retranslate() {
  m_bound->setToolTip(tr("Accuracy bound: cosine=MIN,top1=MIN[,max_rel=MAX]. A variant is within it when every output meets it on the same inputs."));
  m_export->setText(tr("Export…"));
  m_export->setToolTip(tr("Write the selected variant (measured again, within the bound) and its session settings, never over the original"));
}

void WhatIfPanel::render() {
  m_run->setText(running() ? tr("Cancel") : tr("Run What If"));
  const QModelIndex current = m_view->currentIndex();
  const bool selectable = m_r && current.isValid() && current.row() < static_cast<int>(m_r->variants.size());
  m_export->setEnabled(!running() && selectable && exportable(m_r->variants[static_cast<size_t>(current.row())]));
  QString s;
  if (running()) {
    s = tr("Building, checking and measuring the variants beside the original…");
  } else if (!m_r) {
    s = tr("What If builds int8, session-setting and bf16 variants of the model on screen, checks each against the original "
           "on the same inputs and measures it beside the original as deployed. Nothing changes until you export one.");
  } else {
    const QString ms = QStringLiteral("ms");
    s = m_r->estimated ? tr("Original, estimated on %1: %2").arg(qs(m_r->runtime), formatMetric(m_r->baseline.median, ms))
                       : tr("Original as deployed: %1 (p10 %2, p90 %3), %n thread(s)", nullptr, m_r->threads)
                             .arg(formatMetric(m_r->baseline.median, ms), formatMetric(m_r->baseline.p10, ms, m_r->baseline.median),
                                  formatMetric(m_r->baseline.p90, ms, m_r->baseline.median));
    if (const Variant* b = m_r->best.empty() ? nullptr : findVariant(*m_r, m_r->best))
      s += QLatin1Char('\n') + tr("Fastest within the bound: %1, %2 measured (%3 predicted)").arg(qs(b->name), ratioText(b->speedup), ratioText(b->predictedSpeedup));
    else if (!m_r->estimated)
      s += QLatin1Char('\n') + tr("No variant within the bound was measured faster than the original.");
    if (m_r->randomInputs && !m_r->estimated)
      s += QLatin1Char('\n') + tr("Accuracy on seeded random inputs: it says nothing about real data (msadvisor-cli what-if --inputs DIR).");
    if (!m_r->estimated && m_r->measurement.contended)
      s += QLatin1Char('\n') + tr("Measured on a busy machine: the runtime's threads got %1 of the CPU.").arg(percentText(m_r->measurement.cpuShare));
  }
  if (!m_message.isEmpty()) s += QLatin1Char('\n') + m_message;
  m_summary->setText(s);
}

void WhatIfPanel::exportDialog() {
  const QModelIndex current = m_view->currentIndex();
  if (!m_r || !current.isValid()) return;
  const QString name = current.data(WhatIfVariantsModel::NameRole).toString();
  const auto doc = m_workspace ? m_workspace->document() : nullptr;
  // Beside the model, named after it and the variant.
  const QFileInfo model(doc ? doc->path : QStringLiteral("model.onnx"));
  const QString suggested = model.absoluteDir().filePath(model.completeBaseName() + QLatin1Char('.') + name + QStringLiteral(".onnx"));
  const QString path = askSaveFile(this, tr("Export Variant"), suggested, tr("ONNX models (*.onnx)"));
  if (!path.isEmpty()) exportVariant(name, path);
}

}  // namespace msa::ui
