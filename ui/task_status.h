#pragma once
// The status bar's task area: one message, a progress bar and Cancel for whatever long work
// runs (loading, layout, analysis, Apply, Verify). Owners say what runs (begin), how far it is
// (setProgress) and that it ended (end); Cancel calls what the current task gave. The window
// and the edit controller share it instead of reaching into each other's widgets.
#include <QObject>
#include <QString>
#include <functional>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace msa::ui {

class TaskStatus : public QObject {
  Q_OBJECT
 public:
  explicit TaskStatus(QStatusBar* bar);

  // Work starts: the message, an indeterminate bar, Cancel (when `cancel` is given).
  void begin(const QString& what, std::function<void()> cancel = {});
  // A fraction in [0, 1] and what it is doing now (empty: keeps the message).
  void setProgress(const QString& text, double fraction);
  // Work ended: the bar and Cancel go, `message` stays (empty: the idle text).
  void end(const QString& message = {});
  // The text shown while nothing runs (the document's summary).
  void setIdleText(const QString& text);
  void setMessage(const QString& text);
  QString message() const;
  bool busy() const { return m_busy; }

  QLabel* messageLabel() const { return m_text; }
  QProgressBar* progressBar() const { return m_progress; }
  QToolButton* cancelButton() const { return m_cancel; }

 private:
  QLabel* m_text;
  QProgressBar* m_progress;
  QToolButton* m_cancel;
  QString m_idle;
  std::function<void()> m_onCancel;
  bool m_busy = false;
};

}  // namespace msa::ui
