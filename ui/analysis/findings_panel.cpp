#include "analysis/findings_panel.h"

#include <map>

#include "rules/family_registry.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <QApplication>
#include <algorithm>

#include "graph/graph_overlays.h"
#include "i18n/language.h"

namespace msa::ui {
namespace {

// Texts cut where they are least useful: a title at its end (it starts with what to do), a node
// name at its start (its end names the operator), never in the middle of either.
class ElidingDelegate : public QStyledItemDelegate {
 public:
  ElidingDelegate(Qt::TextElideMode mode, QObject* parent) : QStyledItemDelegate(parent), m_mode(mode) {}

 protected:
  void initStyleOption(QStyleOptionViewItem* o, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(o, index);
    o->textElideMode = m_mode;
  }

 private:
  Qt::TextElideMode m_mode;
};

// The priority as a coloured pill: P0 red, P1 orange, P2 blue.
class PriorityDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyleOptionViewItem o = option;
    initStyleOption(&o, index);
    const QString text = o.text;
    o.text.clear();
    (o.widget ? o.widget->style() : QApplication::style())->drawControl(QStyle::CE_ItemViewItem, &o, p, o.widget);  // background, selection
    const QVariant pr = index.data(FindingsModel::PriorityRole);
    if (!pr.isValid()) return;
    const QColor c = FindingsModel::priorityColor(static_cast<Priority>(pr.toInt()));
    QFont f = o.font;
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 0.9);
    const QFontMetricsF fm(f);
    const double w = fm.horizontalAdvance(text) + 14, h = fm.height() + 2;
    const QRectF pill(o.rect.center().x() - w / 2, o.rect.center().y() - h / 2, w, h);
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(Qt::NoPen);
    p->setBrush(c);
    p->drawRoundedRect(pill, h / 2, h / 2);
    p->setPen(Qt::white);
    p->setFont(f);
    p->drawText(pill, Qt::AlignCenter, text);
    p->restore();
  }
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    return QSize(std::max(s.width(), 58), s.height());
  }
};

}  // namespace

FindingsPanel::FindingsPanel(FindingsModel::Filter filter, const QString& emptyText, QWidget* parent)
    : QWidget(parent), m_emptyText(emptyText) {
  m_model = new FindingsModel(std::move(filter), this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(FindingsModel::SortRole);
  m_proxy->setSortCaseSensitivity(Qt::CaseInsensitive);

  m_view = new QTableView(this);
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(FindingsModel::Rank, Qt::AscendingOrder);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setAlternatingRowColors(true);
  m_view->setShowGrid(false);
  m_view->setWordWrap(false);
  m_view->setTextElideMode(Qt::ElideMiddle);
  m_view->verticalHeader()->hide();
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 10);
  m_view->setItemDelegateForColumn(FindingsModel::PriorityCol, new PriorityDelegate(m_view));
  m_view->setItemDelegateForColumn(FindingsModel::Title, new ElidingDelegate(Qt::ElideRight, m_view));
  m_view->setItemDelegateForColumn(FindingsModel::Location, new ElidingDelegate(Qt::ElideLeft, m_view));
  QHeaderView* h = m_view->horizontalHeader();
  h->setHighlightSections(false);
  h->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  h->setSectionResizeMode(QHeaderView::Interactive);
  h->setStretchLastSection(false);
  h->setSectionResizeMode(FindingsModel::Title, QHeaderView::Stretch);
  const int cw = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  const std::pair<int, int> widths[] = {{FindingsModel::Rank, 4},       {FindingsModel::PriorityCol, 9},
                                        {FindingsModel::CategoryCol, 11}, {FindingsModel::Location, 30},
                                        {FindingsModel::Impact, 10},    {FindingsModel::LocalSpeedup, 8},
                                        {FindingsModel::GlobalShare, 8}, {FindingsModel::Fix, 11}};
  for (auto [col, chars] : widths) h->resizeSection(col, cw * chars + 16);
  m_locationWidth = h->sectionSize(FindingsModel::Location);
  m_view->viewport()->installEventFilter(this);
  m_view->setStyleSheet(QStringLiteral(
      "QTableView { border: none; selection-background-color: #dbe8fd; selection-color: #111827; "
      "alternate-background-color: #f8f9fb; }"
      "QHeaderView::section { background: #f3f4f6; color: #4b5563; border: none; border-bottom: 1px solid #e5e7eb; "
      "padding: 4px 6px; font-weight: 600; }"));

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("findingsSummary"));
  m_summary->setStyleSheet(QStringLiteral("color: #4b5563; padding: 4px 8px;"));
  m_detail = new QLabel(this);
  m_detail->setObjectName(QStringLiteral("findingDetail"));
  m_detail->setWordWrap(true);
  m_detail->setTextFormat(Qt::RichText);
  m_detail->setStyleSheet(QStringLiteral("background: #f8fafc; border-top: 1px solid #e5e7eb; padding: 6px 8px; color: #1f2937;"));
  m_detail->hide();
  m_empty = new QLabel(emptyText, this);
  m_empty->setObjectName(QStringLiteral("emptyText"));
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setWordWrap(true);
  m_empty->setMargin(16);
  m_empty->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_empty);
  auto* tablePage = new QWidget(this);
  auto* tl = new QVBoxLayout(tablePage);
  tl->setContentsMargins(0, 0, 0, 0);
  tl->setSpacing(0);
  tl->addWidget(m_summary);
  tl->addWidget(m_view, 1);
  tl->addWidget(m_detail);
  m_stack->addWidget(tablePage);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_stack);

  connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) { activateProxyRow(i.row()); });
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    // Only a row the user moved to (keys select it): a table getting focus back (a dialog
    // closed, a model reset) sets a current row without selecting it, and must not jump there.
    // A press moves the current row too: the click (above) activates it, once.
    if (!m_syncing && cur.isValid() && QApplication::mouseButtons() == Qt::NoButton &&
        m_view->selectionModel()->isRowSelected(cur.row(), cur.parent()))
      activateProxyRow(cur.row());
  });
}

void FindingsPanel::setReport(std::shared_ptr<const Report> report) {
  const bool has = report != nullptr;
  m_model->setReport(std::move(report), coreLanguage());  // finding titles in the UI language
  m_detail->hide();
  if (!has) {
    m_empty->setText(m_emptyText);
    m_stack->setCurrentIndex(0);
    return;
  }
  if (m_model->rowCount() == 0) {
    m_empty->setText(emptyReportText());
    m_stack->setCurrentIndex(0);
    return;
  }
  m_stack->setCurrentIndex(1);
  const double latency = m_model->report()->latencyMs;
  const double impact = m_model->totalImpactMs();
  m_summary->setText(tr("%n finding(s) · %1 to gain (%2 of the run)", nullptr, m_model->rowCount())
                         .arg(durationText(impact))
                         .arg(percentText(latency > 0 ? impact / latency : 0.0)));
}

// An empty TOP list with findings in the report is a result, not an absence: say why.
QString FindingsPanel::emptyReportText() const {
  const Report& r = *m_model->report();
  if (r.findings.empty()) return tr("Nothing to report here for this model on this device.");
  if (!m_model->filter().bottlenecks) {
    // Another kind of analysis files its findings elsewhere (a profile's fusible sequences are
    // kernel findings): say where they are rather than only that there is nothing here.
    std::map<std::string, int> perDock;
    for (const Finding& f : r.findings) ++perDock[categoryInfo(f.category).dock];
    QStringList where;
    for (const FindingDock& d : findingDocks())
      if (const auto it = perDock.find(d.id); it != perDock.end())
        where << tr("%1 (%2)").arg(QString::fromStdString(d.title.in(coreLanguage()))).arg(it->second);
    if (where.isEmpty()) return tr("Nothing to report here for this model on this device.");
    return tr("Nothing of this kind in this analysis. Its %n finding(s) are under: %1.", nullptr, static_cast<int>(r.findings.size()))
        .arg(where.join(QStringLiteral(", ")));
  }
  if (r.appliedByRuntime > 0)
    return tr("No bottleneck left to fix: the runtime already applies %n of the findings when it loads the model, and "
              "the others have no measurable share of the run. The category tables list every finding.",
              nullptr, r.appliedByRuntime);
  return tr("No bottleneck left to fix: no finding has a measurable share of the run. The category tables list every finding.");
}

void FindingsPanel::setEmptyText(const QString& text) {
  m_emptyText = text;
  if (!m_model->report()) m_empty->setText(text);
}

QList<int> FindingsPanel::selectedRows() const {
  QList<int> out;
  for (const QModelIndex& i : m_view->selectionModel()->selectedRows()) out << m_proxy->mapToSource(i).row();
  std::sort(out.begin(), out.end());
  return out;
}

bool FindingsPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::Resize) fitLocationColumn();
  return QWidget::eventFilter(watched, event);
}

void FindingsPanel::fitLocationColumn() {
  QHeaderView* h = m_view->horizontalHeader();
  if (h->sectionSize(FindingsModel::Location) != m_locationWidth) return;  // the user's width
  // A third of what the figure columns leave, between 14 and 30 characters: at 1024 px the
  // title kept 240 px beside a 30-character location.
  int figures = 0;
  for (int col = 0; col < FindingsModel::ColumnCount; ++col)
    if (col != FindingsModel::Title && col != FindingsModel::Location) figures += h->sectionSize(col);
  const int cw = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  m_locationWidth = std::clamp((m_view->viewport()->width() - figures) / 3, cw * 14 + 16, cw * 30 + 16);
  h->resizeSection(FindingsModel::Location, m_locationWidth);
}

void FindingsPanel::activateProxyRow(int proxyRow) {
  const QModelIndex src = m_proxy->mapToSource(m_proxy->index(proxyRow, 0));
  if (!src.isValid()) return;
  updateDetail(src.row());
  emit findingActivated(m_model->findingId(src.row()), src.data(FindingsModel::NodesRole).toStringList());
}

void FindingsPanel::updateDetail(int sourceRow) {
  const QModelIndex i = m_model->index(sourceRow, FindingsModel::Title);
  if (!i.isValid()) {
    m_detail->hide();
    return;
  }
  // The header names the finding in words; its id (what `--select` and the JSON use) on hover.
  const QString alike = i.data(FindingsModel::AlikeRole).toString();
  m_detail->setText(QStringLiteral("<b>%1</b> &nbsp;<span style='color:#6b7280'>%2</span><br>%3%4")
                        .arg(i.data(FindingsModel::FullTitleRole).toString().toHtmlEscaped(), i.data(FindingsModel::KindRole).toString().toHtmlEscaped(),
                             alike.isEmpty() ? QString() : QStringLiteral("<span style='color:#6b7280'>%1</span><br>").arg(alike.toHtmlEscaped()),
                             i.data(FindingsModel::SuggestionRole).toString().toHtmlEscaped()));
  m_detail->setToolTip(i.data(FindingsModel::IdRole).toString());
  m_detail->show();
}

bool FindingsPanel::showFinding(const QString& id) {
  const int row = m_model->rowOfFinding(id);
  if (row < 0) {
    m_syncing = true;
    m_view->clearSelection();
    m_syncing = false;
    return false;
  }
  const QModelIndex p = m_proxy->mapFromSource(m_model->index(row, 0));
  m_syncing = true;
  m_view->selectionModel()->setCurrentIndex(p, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_view->scrollTo(p);
  m_syncing = false;
  updateDetail(row);
  return true;
}

void FindingsPanel::highlightNodes(const QStringList& nodes) {
  const QSet<QString> set(nodes.cbegin(), nodes.cend());
  QItemSelection sel;
  for (int row : m_model->rowsMentioning(set)) {
    const QModelIndex p = m_proxy->mapFromSource(m_model->index(row, 0));
    sel.select(p, p.siblingAtColumn(FindingsModel::ColumnCount - 1));
  }
  m_syncing = true;
  m_view->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!sel.isEmpty()) {
    // The first highlighted row becomes the current one now: a table given focus later with no
    // current row makes its top row current, and a highlighted one would then be activated.
    m_view->selectionModel()->setCurrentIndex(sel.first().topLeft(), QItemSelectionModel::NoUpdate);
    m_view->scrollTo(sel.first().topLeft());
  }
  m_syncing = false;
}

}  // namespace msa::ui
