#pragma once
// The Overview dock: measured (or estimated) latency, the theoretical optimum, the gap as a
// ×-factor and a percentage, the latency once every safe fix is applied, what was analysed and
// the findings by priority. Each figure is a QLabel with a stable objectName (tests read them).
#include <QList>
#include <QWidget>
#include <memory>
#include <utility>

class QLabel;
class QScrollArea;
class QStackedWidget;

namespace msa {
struct Report;
}

namespace msa::ui {

class OverviewPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OverviewPanel(QWidget* parent = nullptr);
  void setReport(std::shared_ptr<const Report> report, double analysisSeconds = 0);
  QString latencyText() const;
  QSize sizeHint() const override;

 private:
  QLabel* figure(const QString& objectName);
  void retranslate();  // the captions and the empty page's text (the figures follow setReport)
  void fitWidth();     // at least as wide as the figures in the language shown
  QString jobTable(const Report& r) const;  // r.job's ranks side by side
  QList<std::pair<QLabel*, const char*>> m_captions;
  QStackedWidget* m_stack;
  QScrollArea* m_scroll;
  QLabel *m_headline, *m_latency, *m_latencyNote, *m_optimum, *m_optimumNote, *m_gap, *m_gapNote, *m_after, *m_afterNote,
      *m_context, *m_priorities, *m_gapBar, *m_job, *m_empty;
};

}  // namespace msa::ui
