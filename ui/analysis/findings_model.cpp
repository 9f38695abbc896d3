#include "analysis/findings_model.h"

#include "graph/graph_overlays.h"
#include "report/report_format.h"
#include "rules/family_registry.h"
#include "rules/texts.h"

#include <cmath>

namespace msa::ui {
namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

FindingsModel::FindingsModel(Filter filter, QObject* parent) : QAbstractTableModel(parent), m_filter(std::move(filter)) {}

QColor FindingsModel::priorityColor(Priority p) {
  switch (p) {
    case Priority::P0: return QColor(0xd9, 0x30, 0x25);
    case Priority::P1: return QColor(0xe8, 0x71, 0x0a);
    case Priority::P2: break;
  }
  return QColor(0x1a, 0x73, 0xe8);
}

void FindingsModel::setReport(std::shared_ptr<const Report> report, Lang lang) {
  beginResetModel();
  m_lang = lang;
  m_report = std::move(report);
  m_rows.clear();
  if (m_report) {
    const Report& r = *m_report;
    auto add = [&](size_t i, int rank) {
      const Finding& f = r.findings[i];
      Row row;
      row.finding = &f;
      row.assessment = i < r.assessments.size() ? &r.assessments[i] : nullptr;
      row.rank = rank;
      const FindingText text = renderFinding(f, lang);
      row.title = qs(text.title);
      row.shortTitle = qs(titleWithoutPlace(f, lang));  // the Location column names the place
      row.suggestion = qs(text.suggestion);
      row.applied = qs(report::appliedLabel(f, lang));
      if (row.assessment && row.assessment->impactP90Ms > row.assessment->impactP10Ms)
        row.spread = qs(uiText("report.impact_spread", lang,
                               {{"lo", formatSignificant(row.assessment->impactP10Ms)}, {"hi", formatSignificant(row.assessment->impactP90Ms)}}));
      // In the TOP list a finding stands for the same problem elsewhere: said in its row.
      if (m_filter.bottlenecks && row.assessment) row.alike = qs(report::alikeText(r, *row.assessment, lang));
      for (const std::string& n : f.nodes) row.nodes << qs(n);
      if (!row.nodes.isEmpty())
        row.location = row.nodes.size() == 1 ? row.nodes.front() : tr("%1 +%2").arg(row.nodes.front()).arg(row.nodes.size() - 1);
      else if (!f.runtimeNodes.empty())
        row.location = tr("%1 (runtime)").arg(qs(f.runtimeNodes.front()));
      m_rows.push_back(std::move(row));
    };
    if (m_filter.bottlenecks) {
      int rank = 0;
      for (const std::string& id : r.bottlenecks)
        for (size_t i = 0; i < r.findings.size(); ++i)
          if (r.findings[i].id == id) {
            add(i, ++rank);
            break;
          }
    } else {
      for (size_t i = 0; i < r.findings.size(); ++i)
        if (m_filter.categories.contains(r.findings[i].category))
          add(i, i < r.assessments.size() && r.assessments[i].rank > 0 ? r.assessments[i].rank : static_cast<int>(i) + 1);
    }
  }
  endResetModel();
}

QString FindingsModel::findingId(int row) const {
  return row >= 0 && static_cast<size_t>(row) < m_rows.size() ? qs(m_rows[static_cast<size_t>(row)].finding->id) : QString();
}

int FindingsModel::rowOfFinding(const QString& id) const {
  const std::string key = id.toStdString();
  for (size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].finding->id == key) return static_cast<int>(i);
  return -1;
}

QList<int> FindingsModel::rowsMentioning(const QSet<QString>& nodes) const {
  QList<int> out;
  if (nodes.isEmpty()) return out;
  for (size_t i = 0; i < m_rows.size(); ++i)
    for (const QString& n : m_rows[i].nodes)
      if (nodes.contains(n)) {
        out << static_cast<int>(i);
        break;
      }
  return out;
}

double FindingsModel::totalImpactMs() const {
  double t = 0;
  for (const Row& r : m_rows) t += r.finding->impact.ms;
  return t;
}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = m_rows[static_cast<size_t>(index.row())];
  const Finding& f = *row.finding;
  const int col = index.column();
  switch (role) {
    case IdRole: return qs(f.id);
    case NodesRole: return row.nodes;
    case PriorityRole: return static_cast<int>(f.priority);
    case SuggestionRole: return row.suggestion;
    case FullTitleRole: return row.title;
    case AlikeRole: return row.alike;
    case KindRole: return QString(qs(report::priorityLabel(f.priority, m_lang)) + QStringLiteral(" · ") + qs(categoryShortTitle(f.category, m_lang)));
    case Qt::ToolTipRole: {
      QString tip = QStringLiteral("<b>%1</b><br>%2").arg(row.title.toHtmlEscaped(), row.suggestion.toHtmlEscaped());
      if (!row.alike.isEmpty()) tip += QStringLiteral("<br>") + row.alike.toHtmlEscaped();
      if (!f.impact.method.empty()) tip += QStringLiteral("<br><i>%1</i>").arg(qs(renderValue(f.impact.method, m_lang)).toHtmlEscaped());
      if (col == Location && row.nodes.size() > 1) tip += QStringLiteral("<br>") + row.nodes.join(QStringLiteral("<br>")).toHtmlEscaped();
      // Who does it when the model is deployed: the runtime at load, or the user.
      if (col == Impact && !row.spread.isEmpty()) tip += QStringLiteral("<br>") + row.spread.toHtmlEscaped();
      if (col == PriorityCol && row.assessment && row.assessment->priorityBorderline)
        tip += QStringLiteral("<br>") + qs(uiText("report.priority_borderline", m_lang, {{"priority", std::string(priorityName(f.priority))}})).toHtmlEscaped();
      tip += QStringLiteral("<br><b>%1</b>").arg(row.applied.toHtmlEscaped());
      return tip;
    }
    case Qt::TextAlignmentRole:
      if (col == Rank || col == Impact || col == LocalSpeedup || col == GlobalShare)
        return static_cast<int>(Qt::AlignRight | Qt::AlignVCenter);
      if (col == PriorityCol || col == Fix) return static_cast<int>(Qt::AlignCenter);
      return static_cast<int>(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      if (!f.appliedBy.empty()) return QColor(0x9a, 0xa1, 0xab);  // nothing left to do: greyed, listed last
      if (col == Fix && !f.hasFix()) return QColor(0x9a, 0xa1, 0xab);
      if (col == Location || col == CategoryCol) return QColor(0x4b, 0x55, 0x63);
      return {};
    case SortRole:
      switch (col) {
        case Rank: return row.rank;
        case PriorityCol: return static_cast<int>(f.priority) * 1000 + row.rank;
        case CategoryCol: return categoryOrder(f.category);
        case Title: return row.shortTitle;
        case Location: return row.location;
        case Impact: return f.impact.ms;
        case LocalSpeedup: return f.speedupLocal;
        case GlobalShare: return f.speedupGlobal;
        case Fix: return !f.appliedBy.empty() ? -1 : f.hasFix() ? (f.safeFix ? 2 : 1) : 0;
        default: return {};
      }
    case Qt::DisplayRole:
      switch (col) {
        case Rank: return row.rank;
        case PriorityCol: return qs(std::string(priorityName(f.priority)));
        case CategoryCol: return qs(categoryShortTitle(f.category, m_lang));
        case Title:
          return row.alike.isEmpty() || !row.assessment
                     ? row.shortTitle
                     : tr("%1 · %n more alike", nullptr, static_cast<int>(row.assessment->alike.size())).arg(row.shortTitle);
        case Location: return row.location;
        case Impact:
          if (!f.appliedBy.empty()) return QStringLiteral("–");  // not counted as time to gain
          return durationText(f.impact.ms);
        // The reports' own words: "removed" for a part the fix takes away, "–" with nothing to gain.
        case LocalSpeedup: return f.appliedBy.empty() ? qs(report::fmtLocalSpeedup(f, m_lang)) : QStringLiteral("–");
        case GlobalShare: return f.appliedBy.empty() ? qs(report::fmtGlobalShare(f)) : QStringLiteral("–");
        case Fix:
          if (!f.appliedBy.empty()) return row.applied;
          if (!f.legal) return tr("blocked");
          if (f.fixPass.empty()) return tr("advice");
          if (!f.fixDoneBy.empty()) return tr("done at load");  // no gain in the deployed run
          return f.safeFix ? tr("auto · safe") : tr("auto");
        default: return {};
      }
    default: return {};
  }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::TextAlignmentRole) return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Impact: return tr("Time saved when fixed (after overlap accounting: no node's time is counted twice)");
      case LocalSpeedup: return tr("Speedup of the affected part alone");
      case GlobalShare: return tr("Share of the whole run the fix saves");
      case Fix: return tr("auto: an optimizer pass fixes it; safe: applied by Apply All Safe; advice: needs a human");
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank: return tr("#");
    case PriorityCol: return tr("Priority");
    case CategoryCol: return tr("Category");
    case Title: return tr("Finding");
    case Location: return tr("Location");
    case Impact: return tr("Impact");
    case LocalSpeedup: return tr("Local");
    case GlobalShare: return tr("Global");
    case Fix: return tr("Fix");
    default: return {};
  }
}

}  // namespace msa::ui
