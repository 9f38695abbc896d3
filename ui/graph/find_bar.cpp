#include "graph/find_bar.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QStyle>
#include <QToolButton>

#include "graph/view_graph.h"

namespace msa::ui {

QStringList findNodes(const ViewGraph& g, const QString& text) {
  QStringList out;
  const QString t = text.trimmed();
  if (t.isEmpty()) return out;
  for (const ViewNode& n : g.nodes())
    if (n.opType.compare(t, Qt::CaseInsensitive) == 0 || n.id.contains(t, Qt::CaseInsensitive)) out << n.id;
  return out;
}

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(8, 4, 8, 4);
  row->setSpacing(4);
  auto* label = new QLabel(tr("Find:"), this);
  m_edit = new QLineEdit(this);
  m_edit->setPlaceholderText(tr("node name or op type (e.g. MatMul)"));
  m_edit->setClearButtonEnabled(true);
  m_edit->setMinimumWidth(260);
  m_count = new QLabel(this);
  m_count->setMinimumWidth(90);
  auto button = [this](const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
  };
  m_prev = button(QStringLiteral("▲"), tr("Previous match (Shift+Enter)"));
  m_next = button(QStringLiteral("▼"), tr("Next match (Enter)"));
  m_close = button(QStringLiteral("✕"), tr("Close (Esc)"));
  row->addWidget(label);
  row->addWidget(m_edit);
  row->addWidget(m_prev);
  row->addWidget(m_next);
  row->addWidget(m_count);
  row->addStretch(1);
  row->addWidget(m_close);
  connect(m_edit, &QLineEdit::textChanged, this, &FindBar::search);
  connect(m_edit, &QLineEdit::returnPressed, this, &FindBar::next);
  connect(m_prev, &QToolButton::clicked, this, &FindBar::previous);
  connect(m_next, &QToolButton::clicked, this, &FindBar::next);
  connect(m_close, &QToolButton::clicked, this, [this] {
    hide();
    emit hitChanged({});
    emit closed();
  });
  setAutoFillBackground(true);
}

void FindBar::setGraph(std::shared_ptr<const ViewGraph> g) {
  m_graph = std::move(g);
  m_matches.clear();
  m_current = -1;
  if (isVisible()) search();
}

void FindBar::activate() {
  show();
  m_edit->setFocus();
  m_edit->selectAll();
}

void FindBar::setText(const QString& text) { m_edit->setText(text); }

void FindBar::search() {
  m_matches = m_graph ? findNodes(*m_graph, m_edit->text()) : QStringList();
  m_current = -1;
  if (m_matches.isEmpty()) {
    m_count->setText(m_edit->text().trimmed().isEmpty() ? QString() : tr("no match"));
    emit hitChanged({});
    return;
  }
  go(0);
}

void FindBar::go(int index) {
  if (m_matches.isEmpty()) return;
  m_current = (index % m_matches.size() + m_matches.size()) % m_matches.size();
  m_count->setText(tr("%1 of %2").arg(m_current + 1).arg(m_matches.size()));
  emit hitChanged(m_matches[m_current]);
}

void FindBar::next() { go(m_current + 1); }
void FindBar::previous() { go(m_current - 1); }

void FindBar::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Escape) {
    m_close->click();
    return;
  }
  if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && (e->modifiers() & Qt::ShiftModifier)) {
    previous();
    return;
  }
  QWidget::keyPressEvent(e);
}

}  // namespace msa::ui
