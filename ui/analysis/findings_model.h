#pragma once
// The findings of a report as a table: the bottleneck TOP-N, or every finding of some
// categories (a findings dock's, as the rule families describe them: rules/family_registry.h). Display text is formatted here, sorting
// goes through SortRole (numbers, not strings), and each row carries its finding's id and the
// node names it touches for selection sync with the graph.
#include <QAbstractTableModel>
#include <QColor>
#include <QList>
#include <QSet>
#include <QStringList>
#include <memory>
#include <vector>

#include "advisor/advisor.h"
#include "rules/texts.h"

namespace msa::ui {

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, PriorityCol, CategoryCol, Title, Location, Impact, LocalSpeedup, GlobalShare, Fix, ColumnCount };
  enum Role {
    SortRole = Qt::UserRole + 1,  // numbers for numeric columns, text otherwise
    IdRole,                       // the finding id
    NodesRole,                    // QStringList of IR node names
    PriorityRole,                 // 0 = P0 … 2 = P2
    SuggestionRole,               // what to do, one paragraph
    KindRole,                     // "P1 · Fusion": its priority and category, in words
    FullTitleRole,                // the title with the place it names (the Title column drops it)
    AlikeRole,                    // the same problem elsewhere, one sentence (TOP list only; empty otherwise)
  };
  // Which findings: the report's TOP-N bottlenecks (ranked), or every finding of `categories`.
  struct Filter {
    bool bottlenecks = false;
    QList<Category> categories;
  };

  explicit FindingsModel(Filter filter, QObject* parent = nullptr);

  void setReport(std::shared_ptr<const Report> report, Lang lang = Lang::En);
  std::shared_ptr<const Report> report() const { return m_report; }
  const Filter& filter() const { return m_filter; }
  QString findingId(int row) const;
  int rowOfFinding(const QString& id) const;  // -1 when not listed
  // Rows whose finding names at least one of the nodes.
  QList<int> rowsMentioning(const QSet<QString>& nodes) const;
  double totalImpactMs() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static QColor priorityColor(Priority p);

 private:
  struct Row {
    const Finding* finding = nullptr;
    const Assessment* assessment = nullptr;
    int rank = 0;  // in the TOP list, or in the whole report
    QString title, suggestion, location;
    QString shortTitle;  // the title without its place (titleWithoutPlace): the Location column shows it
    QString applied;  // "applied by ONNX Runtime at load" / "left for you", in the report's language
    QString spread;   // the impact's p10–p90, empty for an estimate
    QString alike;    // the same problem elsewhere (report::alikeText), in the TOP list only
    QStringList nodes;
  };
  Filter m_filter;
  Lang m_lang = Lang::En;
  std::shared_ptr<const Report> m_report;
  std::vector<Row> m_rows;
};

}  // namespace msa::ui
