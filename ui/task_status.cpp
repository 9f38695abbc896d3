#include "task_status.h"

#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>
#include <algorithm>

namespace msa::ui {

TaskStatus::TaskStatus(QStatusBar* bar) : QObject(bar) {
  m_text = new QLabel(bar);
  m_text->setObjectName(QStringLiteral("statusText"));
  m_text->setTextFormat(Qt::PlainText);
  m_progress = new QProgressBar(bar);
  m_progress->setRange(0, 0);
  m_progress->setMaximumWidth(160);
  m_progress->setMaximumHeight(14);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_cancel = new QToolButton(bar);
  m_cancel->setText(tr("Cancel"));
  m_cancel->setAutoRaise(true);
  m_cancel->hide();
  connect(m_cancel, &QToolButton::clicked, this, [this] {
    if (m_onCancel) m_onCancel();
  });
  bar->addWidget(m_text, 1);
  bar->addPermanentWidget(m_progress);
  bar->addPermanentWidget(m_cancel);
}

void TaskStatus::begin(const QString& what, std::function<void()> cancel) {
  m_busy = true;
  m_onCancel = std::move(cancel);
  m_text->setText(what);
  m_progress->setRange(0, 0);
  m_progress->show();
  m_cancel->setVisible(static_cast<bool>(m_onCancel));
}

void TaskStatus::setProgress(const QString& text, double fraction) {
  if (!m_busy) return;
  m_progress->setRange(0, 1000);
  m_progress->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000));
  if (!text.isEmpty()) m_text->setText(text);
}

void TaskStatus::end(const QString& message) {
  m_busy = false;
  m_onCancel = nullptr;
  m_progress->hide();
  m_cancel->hide();
  m_text->setText(message.isEmpty() ? m_idle : message);
}

void TaskStatus::setIdleText(const QString& text) {
  m_idle = text;
  if (!m_busy) m_text->setText(text);
}

void TaskStatus::setMessage(const QString& text) { m_text->setText(text); }
QString TaskStatus::message() const { return m_text->text(); }

}  // namespace msa::ui
