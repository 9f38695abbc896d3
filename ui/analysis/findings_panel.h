#pragma once
// A dock's content: a sortable table of findings (FindingsModel behind a QSortFilterProxyModel),
// a one-line summary above it and the selected finding's suggestion below. Clicking a row
// reports the finding (findingActivated); highlightNodes() selects the rows that mention the
// graph's selection without reporting anything back.
#include <QWidget>
#include <memory>

#include "analysis/findings_model.h"

class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace msa::ui {

class FindingsPanel : public QWidget {
  Q_OBJECT
 public:
  FindingsPanel(FindingsModel::Filter filter, const QString& emptyText, QWidget* parent = nullptr);

  void setReport(std::shared_ptr<const Report> report);
  // What shows before an analysis (it follows the UI language).
  void setEmptyText(const QString& text);
  FindingsModel* model() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  QTableView* view() const { return m_view; }
  // Source rows currently selected in the view.
  QList<int> selectedRows() const;
  // Makes the finding the current row (no findingActivated); false when it is not listed here.
  bool showFinding(const QString& id);
  void highlightNodes(const QStringList& nodes);

 signals:
  void findingActivated(const QString& id, const QStringList& nodes);

 private:
  void activateProxyRow(int proxyRow);
  QString emptyReportText() const;
  void updateDetail(int sourceRow);
  bool eventFilter(QObject* watched, QEvent* event) override;
  // The Location column's width for the view's width: narrower in a narrow window, so that the
  // finding's title keeps the room (unless the user sized the column).
  void fitLocationColumn();

  FindingsModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_view;
  QLabel *m_summary, *m_detail, *m_empty;
  QStackedWidget* m_stack;
  QString m_emptyText;
  bool m_syncing = false;
  int m_locationWidth = 0;  // what fitLocationColumn set last; another width: the user's
};

}  // namespace msa::ui
