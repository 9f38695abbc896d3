#include "profile_file_dialog.h"

#include <QFileInfo>
#include <set>

#include "file_dialog.h"
#include "i18n/language.h"
#include "profile/profile_import.h"
#include "rules/texts.h"

namespace msa::ui {

ProfileFileDialog::ProfileFileDialog(QWidget* parent, const QString& caption, const QString& directory, const QString& extraFilter)
    : QFileDialog(parent, caption, directory) {
  prepareFileDialog(*this);
  setFileMode(QFileDialog::ExistingFile);
  setAcceptMode(QFileDialog::AcceptOpen);
  QStringList filters = profileNameFilters();
  if (!extraFilter.isEmpty()) filters.prepend(extraFilter);
  setNameFilters(filters);
  setLabelText(QFileDialog::FileName, tr("File or folder:"));
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
