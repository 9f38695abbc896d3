#pragma once
// File ▸ Open Profile, Import Profile and Compare With: one dialog that takes a file of a run or
// a profiler's folder (a job, a rank, PROF_*, PROF_GROUP_*, mindstudio_profiler_output, a
// *_ascend_pt folder). A folder that an importer claims opens when the user presses Open on it;
// any other folder is entered as usual. The file filters come from core's importer registry
// (profile/profile_import.h), so a new importer is offered without a line here.
#include <QFileDialog>

namespace msa::ui {

class ProfileFileDialog : public QFileDialog {
  Q_OBJECT
 public:
  // `extraFilter` goes first ("ONNX models (*.onnx)" for Compare With); empty: profiles only.
  ProfileFileDialog(QWidget* parent, const QString& caption, const QString& directory, const QString& extraFilter = {});

  // The file or folder chosen; empty when cancelled.
  QString chosen() const { return m_chosen; }

  // "Profiles (*.csv *.json …);;Ascend msprof / torch_npu … (*.csv …);;…;;All files (*)".
  static QStringList profileNameFilters();
  // Whether an importer claims `path` (a folder: by its layout).
  static bool isProfileFolder(const QString& path);

  // Asks, runs the dialog, and returns the choice (empty when cancelled).
  static QString getProfile(QWidget* parent, const QString& caption, const QString& directory, const QString& extraFilter = {});

 public slots:
  void accept() override;

 private:
  QString m_chosen;
};

}  // namespace msa::ui
