#pragma once
// Find (Ctrl+F): nodes whose name contains the text or whose op type is the text, in graph
// order, with next/previous. Emits the current hit; the graph widget frames and selects it.
#include <QStringList>
#include <QWidget>
#include <memory>

class QLabel;
class QLineEdit;
class QToolButton;

namespace msa::ui {

class ViewGraph;

// Node ids matching `text` (case-insensitive): op type equal, or name containing it.
QStringList findNodes(const ViewGraph& g, const QString& text);

class FindBar : public QWidget {
  Q_OBJECT
 public:
  explicit FindBar(QWidget* parent = nullptr);

  void setGraph(std::shared_ptr<const ViewGraph> g);
  void activate();  // show, focus, select the text
  void setText(const QString& text);
  QStringList matches() const { return m_matches; }
  int current() const { return m_current; }

 public slots:
  void next();
  void previous();

 signals:
  void hitChanged(const QString& node);  // empty: no hit
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  void search();
  void go(int index);

  std::shared_ptr<const ViewGraph> m_graph;
  QLineEdit* m_edit;
  QLabel* m_count;
  QToolButton *m_prev, *m_next, *m_close;
  QStringList m_matches;
  int m_current = -1;
};

}  // namespace msa::ui
