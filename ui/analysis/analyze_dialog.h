#pragma once
// Analyze ▸ Run…: device (CPU measured; Ascend when the build has CANN, otherwise disabled with
// the reason; or an estimate on a device profile), goal, scenario, the model's symbolic input
// dims, iterations and threads. Returns the choice as AnalysisSettings.
#include <QDialog>
#include <QStringList>

#include "analysis/analysis_settings.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QPushButton;
class QTableWidget;

namespace msa::ui {

class AnalyzeDialog : public QDialog {
  Q_OBJECT
 public:
  // `symbolicDims`: the model's symbolic input dims, one row each, pre-filled from `initial`.
  AnalyzeDialog(const AnalysisSettings& initial, const QStringList& symbolicDims, QWidget* parent = nullptr);
  // Analyze ▸ Settings: the same choices, kept for the next run instead of starting one.
  void setSettingsOnly();
  AnalysisSettings settings() const;
  QComboBox* deviceCombo() const { return m_device; }

 private:
  void updateDeviceState();

  AnalysisSettings m_initial;
  QComboBox *m_device, *m_profile, *m_goal, *m_scenario;
  QLabel *m_deviceNote, *m_dimsNote;
  QTableWidget* m_dims;
  QSpinBox *m_iterations, *m_threads, *m_timeout;
  QPushButton* m_ok = nullptr;
};

}  // namespace msa::ui
