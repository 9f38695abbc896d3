#pragma once
// Every file dialog of the application, one way: Qt's own dialog (Open Profile needs it: a file
// or a folder in one), its dates in the session's language, the files we read typed in words,
// columns wide enough for what they hold, a size that shows them.
#include <QString>

QT_BEGIN_NAMESPACE
class QFileDialog;
class QWidget;
QT_END_NAMESPACE

namespace msa::ui {

// Applies the above to a dialog built by the caller (before exec()).
void prepareFileDialog(QFileDialog& dialog);

// The file chosen to open, or empty when cancelled.
QString askOpenFile(QWidget* parent, const QString& caption, const QString& directory, const QString& filters);
// The file chosen to write (the dialog asks before overwriting), or empty when
// cancelled; `selectedFilter` receives the filter chosen.
QString askSaveFile(QWidget* parent, const QString& caption, const QString& proposal, const QString& filters,
                    QString* selectedFilter = nullptr);

}  // namespace msa::ui
