#pragma once
// File ▸ Compare With…: the open model and its analysis side by side with a second model or a
// saved analysis/profile, through core's compare (core/report/compare.h, the engine of
// `msadvisor-cli compare`). The graph is coloured by the per-node delta (a diverging heatmap:
// green faster, red slower); the dock lists the largest deltas and the nodes added, removed or
// changed; Export writes the comparison as the CLI's JSON.
#include <QAbstractTableModel>
#include <QWidget>
#include <memory>
#include <nlohmann/json.hpp>

#include "graph/graph_overlays.h"
#include "job.h"
#include "model/graph.h"
#include "report/compare.h"
#include "report/run_compare.h"
#include "util/error.h"
#include "util/progress.h"

class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;

namespace msa {
struct Report;
}

namespace msa::ui {

struct Comparison {
  QString labelA, labelB;  // file names
  bool againstModel = false;  // B is a model: node diff, both timed by the same estimate
  ModelDiff diff;
  size_t nodesA = 0, nodesB = 0;
  TimingComparison timing;
  double threshold = 0.10;  // relative change counted as a regression or an improvement
  QString timingSource;     // how the times were taken: "measured" or the estimate's device
  // Two device runs (an open profile and another profile or job): step, phases, kernel types,
  // ranks; `timing` is its per-kernel part. Null otherwise.
  std::shared_ptr<const RunComparison> runs;
  nlohmann::json json;      // what Export writes: `msadvisor-cli compare --json`'s document
};

// On a worker. `pathB` is an .onnx model (node diff; A and B timed by the roofline estimate on
// A's analysis device, else ascend910b), a JSON analysis/profile (`analyze --json`, `profile
// --json`: per-node deltas against A's analysis, which must exist), or a run a device wrote (a
// profiler folder, a trace, a kernel table), analysed as File ▸ Open Profile does: beside an
// open profile the two runs as a whole (report/run_compare.h), beside a model per node. Errors
// name the file.
Result<Comparison> compareWith(std::shared_ptr<const Model> modelA, std::shared_ptr<const Report> reportA,
                               const QString& labelA, const QString& pathB, const Progress& progress = Progress::none());

// The signed per-node delta B − A in ms for the graph (a diverging heatmap): nodes of A only
// (removed in B) count their whole time as saved.
NodeMetric deltaMetric(const Comparison& c);

// The largest per-node deltas, by |delta|: Node, A, B, Delta, B/A, Change.
class CompareDeltaModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Node, TimeA, TimeB, Delta, Ratio, Verdict, ColumnCount };
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int NameRole = Qt::UserRole + 2;
  explicit CompareDeltaModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setComparison(std::shared_ptr<const Comparison> c);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const Comparison> m_c;
};

// Nodes added, removed or changed between two models: Node, Change.
class CompareNodesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Node, Change, ColumnCount };
  static constexpr int NameRole = Qt::UserRole + 2;
  explicit CompareNodesModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setComparison(std::shared_ptr<const Comparison> c);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString name;
    int kind;  // 0 added, 1 removed, 2 changed
  };
  std::vector<Row> m_rows;
};

// One of a run comparison's tables: its step phases and ranks, or its kernel types: Name, A, B,
// Change, B/A, Verdict.
class RunDeltaModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class Table { StepAndRanks, KernelTypes };
  enum Column { Name, TimeA, TimeB, Delta, Ratio, Verdict, ColumnCount };
  static constexpr int SortRole = Qt::UserRole + 1;
  RunDeltaModel(Table table, QObject* parent = nullptr) : QAbstractTableModel(parent), m_table(table) {}
  void setComparison(std::shared_ptr<const Comparison> c);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString name;
    RunDelta d;
  };
  Table m_table;
  double m_threshold = 0.10;
  std::vector<Row> m_rows;
};

class AnalysisWorkspace;
class HeatmapChooser;

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  // Compares what `workspace` shows; the delta goes to `heatmap` (may be null) as a metric.
  ComparePanel(AnalysisWorkspace* workspace, HeatmapChooser* heatmap, QWidget* parent = nullptr);
  ~ComparePanel() override;
  // Starts a comparison of the document on screen (and its analysis) with `path` (a model, or a
  // saved analysis/profile) off the GUI thread; comparisonReady or comparisonFailed follows.
  void compareWith(const QString& path);
  bool running() const;
  void setComparison(std::shared_ptr<const Comparison> c);
  void clear();
  std::shared_ptr<const Comparison> comparison() const { return m_c; }
  QString summaryText() const;
  CompareDeltaModel* deltaModel() const { return m_deltas; }
  CompareNodesModel* nodesModel() const { return m_nodes; }
  RunDeltaModel* stepModel() const { return m_steps; }
  RunDeltaModel* kernelTypeModel() const { return m_types; }
  // Writes the comparison's JSON (the CLI's); an empty string on success, else the error.
  QString exportTo(const QString& path) const;

 signals:
  void nodeActivated(const QString& name);
  void comparisonReady();
  void comparisonFailed(const QString& message);

 private:
  void retranslate();
  void render();
  void exportDialog();

  std::shared_ptr<const Comparison> m_c;
  AnalysisWorkspace* m_workspace = nullptr;
  HeatmapChooser* m_heatmap = nullptr;
  std::unique_ptr<Job<Comparison>> m_job;
  QLabel* m_summary = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTableView *m_deltaView = nullptr, *m_nodesView = nullptr, *m_stepView = nullptr, *m_typesView = nullptr;
  QPushButton* m_export = nullptr;
  CompareDeltaModel* m_deltas = nullptr;
  CompareNodesModel* m_nodes = nullptr;
  RunDeltaModel *m_steps = nullptr, *m_types = nullptr;
};

}  // namespace msa::ui
