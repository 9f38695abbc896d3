#include "profile_file_dialog.h"

#include <QFileInfo>
#include <QFileSystemModel>
#include <QIdentityProxyModel>
#include <QLocale>
#include <set>

#include "i18n/language.h"
#include "profile/profile_import.h"
#include "rules/texts.h"

namespace msa::ui {
namespace {

// Qt's file model writes its dates in the system's locale ("6 Dec" in a Chinese session): they
// follow the session's language here, as the rest of the dialog does.
class LocalDates : public QIdentityProxyModel {
 public:
  using QIdentityProxyModel::QIdentityProxyModel;
  QVariant data(const QModelIndex& index, int role) const override {
    static constexpr int kModifiedColumn = 3;
    if (role == Qt::DisplayRole && index.column() == kModifiedColumn)
      if (const auto* files = qobject_cast<const QFileSystemModel*>(sourceModel()))
        return QLocale().toString(files->lastModified(mapToSource(index)), QLocale::ShortFormat);
    return QIdentityProxyModel::data(index, role);
  }
};

}  // namespace

ProfileFileDialog::ProfileFileDialog(QWidget* parent, const QString& caption, const QString& directory, const QString& extraFilter)
    : QFileDialog(parent, caption, directory) {
  // Qt's own dialog: a native one cannot take "a file or a folder" in one.
  setOption(QFileDialog::DontUseNativeDialog, true);
  setFileMode(QFileDialog::ExistingFile);
  setAcceptMode(QFileDialog::AcceptOpen);
  QStringList filters = profileNameFilters();
  if (!extraFilter.isEmpty()) filters.prepend(extraFilter);
  setNameFilters(filters);
  setLabelText(QFileDialog::FileName, tr("File or folder:"));
  setProxyModel(new LocalDates(this));
}

QStringList ProfileFileDialog::profileNameFilters() {
  QStringList perImporter;
  std::set<QString> all;
  for (const ProfileImporter& i : profileImporters()) {
    const QString patterns = QString::fromUtf8(i.filePatterns.data(), static_cast<qsizetype>(i.filePatterns.size()));
    if (patterns.isEmpty()) continue;
    for (const QString& p : patterns.split(QLatin1Char(' '), Qt::SkipEmptyParts)) all.insert(p);
    // The importer's name in the session's language (its description is the CLI's, in English).
    const std::string key = "importer." + std::string(i.id);
    std::string label = uiText(key, coreLanguage());
    if (label == key) label = std::string(i.description);
    perImporter << QStringLiteral("%1 (%2)").arg(QString::fromStdString(label), patterns);
  }
  QStringList patterns(all.begin(), all.end());
  return QStringList{tr("Profiles (%1)").arg(patterns.join(QLatin1Char(' ')))} + perImporter + QStringList{tr("All files (*)")};
}

bool ProfileFileDialog::isProfileFolder(const QString& path) {
  const QFileInfo info(path);
  return info.isDir() && findProfileImporter(info.absoluteFilePath().toStdString()).ok();
}

void ProfileFileDialog::accept() {
  const QStringList files = selectedFiles();
  const QString path = files.isEmpty() ? QString() : files.front();
  if (QFileInfo(path).isFile() || isProfileFolder(path)) {
    m_chosen = path;
    QDialog::accept();  // a profiler's folder is the answer, not a place to enter
    return;
  }
  QFileDialog::accept();
  if (result() == QDialog::Accepted) m_chosen = selectedFiles().value(0);
}

QString ProfileFileDialog::getProfile(QWidget* parent, const QString& caption, const QString& directory, const QString& extraFilter) {
  ProfileFileDialog dialog(parent, caption, directory, extraFilter);
  return dialog.exec() == QDialog::Accepted ? dialog.chosen() : QString();
}

}  // namespace msa::ui
