#include "file_dialog.h"

#include <QFileDialog>
#include <QCoreApplication>
#include <QFileSystemModel>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLocale>
#include <QTreeView>

namespace msa::ui {
namespace {

// Qt's file model writes its dates in the system's locale ("6 Dec" in a Chinese session) and
// calls a file whose MIME type it does not know "unknown" (every .onnx): both follow the session
// and say what the file is.
class FileColumns : public QIdentityProxyModel {
  Q_DECLARE_TR_FUNCTIONS(FileColumns)

 public:
  using QIdentityProxyModel::QIdentityProxyModel;
  QVariant data(const QModelIndex& index, int role) const override {
    static constexpr int kTypeColumn = 2, kModifiedColumn = 3;
    const auto* files = qobject_cast<const QFileSystemModel*>(sourceModel());
    if (role != Qt::DisplayRole || !files) return QIdentityProxyModel::data(index, role);
    if (index.column() == kModifiedColumn) return QLocale().toString(files->lastModified(mapToSource(index)), QLocale::ShortFormat);
    if (index.column() == kTypeColumn) {
      const QFileInfo info = files->fileInfo(mapToSource(index));
      const QString suffix = info.suffix().toLower();
      if (info.isFile() && suffix == QLatin1String("onnx")) return tr("ONNX model");
      if (info.isFile() && (suffix == QLatin1String("json") || suffix == QLatin1String("csv") || suffix == QLatin1String("gz")))
        return tr("%1 file").arg(suffix.toUpper());
    }
    return QIdentityProxyModel::data(index, role);
  }
};

}  // namespace

void prepareFileDialog(QFileDialog& dialog) {
  // Qt's own dialog everywhere: Open Profile must take a file or a folder in one, which no
  // native dialog does, and every dialog looks and reads alike.
  dialog.setOption(QFileDialog::DontUseNativeDialog, true);
  dialog.setProxyModel(new FileColumns(&dialog));
  dialog.resize(dialog.size().expandedTo(QSize(860, 520)));
  // The name takes the room; size, type and date show whole (they read "44.…MiB", "6 Dec …:53").
  if (auto* details = dialog.findChild<QTreeView*>(QStringLiteral("treeView"))) {
    QHeaderView* header = details->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < header->count(); ++column) header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
  }
}

QString askOpenFile(QWidget* parent, const QString& caption, const QString& directory, const QString& filters) {
  QFileDialog dialog(parent, caption, directory, filters);
  prepareFileDialog(dialog);
  dialog.setFileMode(QFileDialog::ExistingFile);
  dialog.setAcceptMode(QFileDialog::AcceptOpen);
  return dialog.exec() == QDialog::Accepted ? dialog.selectedFiles().value(0) : QString();
}

QString askSaveFile(QWidget* parent, const QString& caption, const QString& proposal, const QString& filters,
                    QString* selectedFilter) {
  QFileDialog dialog(parent, caption, QString(), filters);
  prepareFileDialog(dialog);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.selectFile(proposal);
  if (dialog.exec() != QDialog::Accepted) return {};
  if (selectedFilter) *selectedFilter = dialog.selectedNameFilter();
  return dialog.selectedFiles().value(0);
}

}  // namespace msa::ui
