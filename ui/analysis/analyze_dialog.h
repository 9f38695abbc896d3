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

// The model's runtime inputs as rows for setModelInputs: (name, "int64 []"), (name, "float32 [1,576]").
QList<std::pair<QString, QString>> modelInputRows(const Model& model);

class AnalyzeDialog : public QDialog {
  Q_OBJECT
 public:
  // `symbolicDims`: the model's symbolic input dims, one row each, pre-filled from `initial`.
  AnalyzeDialog(const AnalysisSettings& initial, const QStringList& symbolicDims, QWidget* parent = nullptr);
  // Analyze ▸ Settings: the same choices, kept for the next run instead of starting one.
  void setSettingsOnly();
  // The model's runtime inputs as (name, "dtype [dims]"): a row each, where a value (a number
  // filling it: a scalar such as Silero's `sr`) or a .npy/.pb file replaces the seeded random
  // value. Rows left empty stay random.
  void setModelInputs(const QList<std::pair<QString, QString>>& inputs);
  QTableWidget* inputsTable() const { return m_inputs; }
  AnalysisSettings settings() const;
  QComboBox* deviceCombo() const { return m_device; }

 private:
  void updateDeviceState();

  AnalysisSettings m_initial;
  QComboBox *m_device, *m_profile, *m_goal, *m_scenario;
  QLabel *m_deviceNote, *m_dimsNote;
  QTableWidget* m_dims;
  QTableWidget* m_inputs = nullptr;
  QLabel* m_inputsNote = nullptr;
  QSpinBox *m_iterations, *m_threads, *m_timeout;
  QPushButton* m_ok = nullptr;
};

}  // namespace msa::ui
