#pragma once
// Analyze ▸ What If…: the variants ONNX Runtime does not make by itself (int8 dynamic, static and
// mixed, session settings, bf16) built, checked for accuracy against the original and measured
// beside it as deployed — `msadvisor-cli what-if` run as a child (core's runWhatIf: a runtime that
// crashes on a variant takes the child down, never the window), its JSON read back with
// whatIfFromJson. The list is ranked as the CLI lists it; selecting a variant colours the graph
// by the time it saves per layer (and offers its per-layer accuracy cost); Export writes it as `what-if --export` does (measured again,
// within the bound, never over the original) with its session settings beside it.
#include <QAbstractTableModel>
#include <QWidget>
#include <memory>

#include "graph/graph_overlays.h"
#include "job.h"
#include "whatif/whatif.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace msa::ui {

class AnalysisWorkspace;
class HeatmapChooser;

// Variant, Speedup, Predicted, Latency, Cosine, Top-1, Bound.
class WhatIfVariantsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Speedup, Predicted, Latency, Cosine, Top1, Bound, ColumnCount };
  static constexpr int NameRole = Qt::UserRole + 2;
  explicit WhatIfVariantsModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setResult(std::shared_ptr<const WhatIfResult> r);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const WhatIfResult> m_r;
};

// The time a variant saves per layer (predicted), for the graph.
NodeMetric savedTimeMetric(const Variant& v);
// What each int8 layer alone costs in accuracy (its measured sensitivity as a relative RMS
// error, %), for the graph; empty when the variant quantizes nothing.
NodeMetric accuracyCostMetric(const Variant& v);

class WhatIfPanel : public QWidget {
  Q_OBJECT
 public:
  WhatIfPanel(AnalysisWorkspace* workspace, HeatmapChooser* heatmap, QWidget* parent = nullptr);
  ~WhatIfPanel() override;
  // Builds and measures the variants of the document on screen (its file, or the edited model
  // written to a temporary file); resultReady or failed follows, nothing when cancelled.
  void run();
  void cancel();
  bool running() const;
  void setResult(std::shared_ptr<const WhatIfResult> r);
  std::shared_ptr<const WhatIfResult> result() const { return m_r; }
  QString summaryText() const;
  WhatIfVariantsModel* variants() const { return m_model; }
  // Colours the graph by the time the variant in `row` saves per layer; enables Export for a
  // measured variant within the bound.
  void selectVariant(int row);
  // Writes the variant as `what-if --export NAME -o PATH` does; exported or failed follows.
  void exportVariant(const QString& name, const QString& path);
  // Extra arguments for the child (tests: --only, --budget).
  void setExtraArguments(const QStringList& a) { m_extra = a; }

 signals:
  void resultReady();
  void exported(const QString& path);
  void failed(const QString& message);
  void cancelled();
  void progressChanged(const QString& phase, double fraction);

 private:
  void retranslate();
  void render();
  void exportDialog();
  QStringList boundArguments() const;  // --bound and the field, or nothing when it is empty
  void startChild(QStringList arguments, bool exporting, const QString& path);

  AnalysisWorkspace* m_workspace = nullptr;
  HeatmapChooser* m_heatmap = nullptr;
  std::shared_ptr<const WhatIfResult> m_r;
  std::unique_ptr<Job<nlohmann::json>> m_job;
  QStringList m_extra;
  QString m_message;  // the last export's outcome, shown under the summary
  QLabel* m_summary = nullptr;
  QLineEdit* m_bound = nullptr;
  QPushButton *m_run = nullptr, *m_export = nullptr;
  QTableView* m_view = nullptr;
  WhatIfVariantsModel* m_model = nullptr;
};

}  // namespace msa::ui
