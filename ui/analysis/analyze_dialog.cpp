#include "analysis/analyze_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include "analysis/analysis_controller.h"
#include "file_dialog.h"

namespace msa::ui {

QList<std::pair<QString, QString>> modelInputRows(const Model& model) {
  QList<std::pair<QString, QString>> rows;
  for (const ValueInfo* in : runtimeInputs(model.graph)) {
    const std::string_view dt = dtypeName(in->type.elem);
    QString type = QString::fromLatin1(dt.data(), static_cast<qsizetype>(dt.size()));
    if (in->type.shape) type += QLatin1Char(' ') + QString::fromStdString(in->type.shape->str());
    rows.append({QString::fromStdString(in->name), type});
  }
  return rows;
}

AnalyzeDialog::AnalyzeDialog(const AnalysisSettings& initial, const QStringList& symbolicDims, QWidget* parent)
    : QDialog(parent), m_initial(initial) {
  setWindowTitle(tr("Analyze"));
  setObjectName(QStringLiteral("analyzeDialog"));

  m_device = new QComboBox(this);
  m_device->setObjectName(QStringLiteral("deviceCombo"));
  m_device->addItem(tr("CPU — measured here with ONNX Runtime"), static_cast<int>(AnalysisSettings::Device::Cpu));
  m_device->addItem(tr("Ascend NPU — measured with ACL"), static_cast<int>(AnalysisSettings::Device::Ascend));
  m_device->addItem(tr("Estimate for a device profile (no measurement)"), static_cast<int>(AnalysisSettings::Device::Estimate));
  const QString aclReason = AnalysisController::deviceUnavailableReason(AnalysisSettings::Device::Ascend);
  if (!aclReason.isEmpty()) {
    if (auto* m = qobject_cast<QStandardItemModel*>(m_device->model())) {
      QStandardItem* item = m->item(1);
      item->setEnabled(false);
      item->setToolTip(aclReason);
      item->setText(tr("Ascend NPU — unavailable (no CANN in this build)"));
    }
  }
  m_profile = new QComboBox(this);
  m_profile->setObjectName(QStringLiteral("profileCombo"));
  for (const auto& [id, name] : estimateDevices()) m_profile->addItem(QStringLiteral("%1 (%2)").arg(name, id), id);
  m_deviceNote = new QLabel(this);
  m_deviceNote->setWordWrap(true);
  m_deviceNote->setStyleSheet(QStringLiteral("color: #6b7280;"));

  m_goal = new QComboBox(this);
  m_goal->addItem(tr("Latency (one request as fast as possible)"), static_cast<int>(Goal::Latency));
  m_goal->addItem(tr("Throughput (requests per second)"), static_cast<int>(Goal::Throughput));
  m_scenario = new QComboBox(this);
  m_scenario->addItem(tr("Edge (small batches, launch overhead matters)"), static_cast<int>(Scenario::Edge));
  m_scenario->addItem(tr("Datacenter (large batches, compute and memory matter)"), static_cast<int>(Scenario::Datacenter));

  m_dims = new QTableWidget(static_cast<int>(symbolicDims.size()), 2, this);
  m_dims->setObjectName(QStringLiteral("dimsTable"));
  m_dims->setHorizontalHeaderLabels({tr("Symbolic dim"), tr("Value")});
  m_dims->verticalHeader()->hide();
  m_dims->horizontalHeader()->setStretchLastSection(true);
  m_dims->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int i = 0; i < symbolicDims.size(); ++i) {
    auto* name = new QTableWidgetItem(symbolicDims[i]);
    name->setFlags(name->flags() & ~Qt::ItemIsEditable);
    m_dims->setItem(i, 0, name);
    auto* spin = new QSpinBox(m_dims);
    spin->setRange(1, 1 << 20);
    spin->setValue(static_cast<int>(initial.dims.value(symbolicDims[i], 1)));
    m_dims->setCellWidget(i, 1, spin);
  }
  m_dims->setMaximumHeight(m_dims->horizontalHeader()->height() + 8 +
                           std::max(1, static_cast<int>(symbolicDims.size())) * m_dims->verticalHeader()->defaultSectionSize());
  m_dimsNote = new QLabel(symbolicDims.isEmpty() ? tr("The model's inputs have fixed shapes.")
                                                 : tr("Profiling needs a value for every symbolic input dim."),
                          this);
  m_dimsNote->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_dims->setVisible(!symbolicDims.isEmpty());

  m_iterations = new QSpinBox(this);
  m_iterations->setObjectName(QStringLiteral("iterationsSpin"));
  m_iterations->setRange(1, 10000);
  m_iterations->setValue(initial.iterations);
  m_iterations->setToolTip(tr("Timed runs per profile; the median is reported"));
  m_threads = new QSpinBox(this);
  m_threads->setRange(0, std::max(1024, QThread::idealThreadCount()));
  m_threads->setSpecialValueText(tr("all cores (%1)").arg(QThread::idealThreadCount()));
  m_threads->setValue(initial.threads);
  m_timeout = new QSpinBox(this);
  m_timeout->setObjectName(QStringLiteral("timeoutSpin"));
  m_timeout->setRange(AnalysisSettings::kMinTimeoutSeconds, AnalysisSettings::kMaxTimeoutSeconds);
  m_timeout->setSuffix(tr(" s"));
  m_timeout->setValue(initial.timeoutSeconds);
  m_timeout->setToolTip(tr("A profiling run that takes longer is stopped; the application stays usable"));

  auto* deviceBox = new QGroupBox(tr("Device"), this);
  auto* df = new QFormLayout(deviceBox);
  df->addRow(tr("Run on:"), m_device);
  df->addRow(tr("Device profile:"), m_profile);
  df->addRow(QString(), m_deviceNote);
  auto* goalBox = new QGroupBox(tr("Ranking"), this);
  auto* gf = new QFormLayout(goalBox);
  gf->addRow(tr("Goal:"), m_goal);
  gf->addRow(tr("Scenario:"), m_scenario);
  auto* measureBox = new QGroupBox(tr("Measurement"), this);
  auto* mf = new QFormLayout(measureBox);
  mf->addRow(tr("Iterations:"), m_iterations);
  mf->addRow(tr("Threads:"), m_threads);
  mf->addRow(tr("Timeout:"), m_timeout);
  mf->addRow(tr("Input shapes:"), m_dimsNote);
  mf->addRow(m_dims);
  m_inputs = new QTableWidget(0, 3, this);
  m_inputs->setObjectName(QStringLiteral("inputsTable"));
  m_inputs->setHorizontalHeaderLabels({tr("Input"), tr("Type"), tr("Value or file")});
  m_inputs->verticalHeader()->hide();
  m_inputs->horizontalHeader()->setStretchLastSection(true);
  m_inputs->setVisible(false);
  m_inputsNote = new QLabel(tr("Empty: seeded random values shaped by how the model uses them."), this);
  m_inputsNote->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_inputsNote->setWordWrap(true);
  m_inputsNote->setVisible(false);
  mf->addRow(tr("Input values:"), m_inputsNote);
  mf->addRow(m_inputs);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Analyze"));
  m_ok = buttons->button(QDialogButtonBox::Ok);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(deviceBox);
  layout->addWidget(goalBox);
  layout->addWidget(measureBox);
  layout->addWidget(buttons);

  int deviceIndex = m_device->findData(static_cast<int>(initial.device));
  if (initial.device == AnalysisSettings::Device::Ascend && !aclReason.isEmpty()) deviceIndex = 0;
  m_device->setCurrentIndex(std::max(0, deviceIndex));
  m_profile->setCurrentIndex(std::max(0, m_profile->findData(initial.deviceProfile)));
  m_goal->setCurrentIndex(initial.goal == Goal::Throughput ? 1 : 0);
  m_scenario->setCurrentIndex(initial.scenario == Scenario::Datacenter ? 1 : 0);
  connect(m_device, qOverload<int>(&QComboBox::currentIndexChanged), this, &AnalyzeDialog::updateDeviceState);
  updateDeviceState();
  if (!aclReason.isEmpty()) m_device->setToolTip(tr("Ascend: %1").arg(aclReason));
}

void AnalyzeDialog::updateDeviceState() {
  const auto d = static_cast<AnalysisSettings::Device>(m_device->currentData().toInt());
  m_profile->setEnabled(d != AnalysisSettings::Device::Cpu);
  const bool measures = d != AnalysisSettings::Device::Estimate;
  m_iterations->setEnabled(measures);
  m_threads->setEnabled(d == AnalysisSettings::Device::Cpu);
  if (m_inputs) m_inputs->setEnabled(d == AnalysisSettings::Device::Cpu);
  m_timeout->setEnabled(measures);
  switch (d) {
    case AnalysisSettings::Device::Cpu:
      m_deviceNote->setText(tr("Profiles twice in a separate process (runtime optimizations off, then on) and "
                               "analyses against this host's calibrated roofline."));
      break;
    case AnalysisSettings::Device::Ascend:
      m_deviceNote->setText(tr("Compiles with ATC and profiles on the NPU; the profile gives the roofs."));
      break;
    case AnalysisSettings::Device::Estimate:
      m_deviceNote->setText(tr("No measurement: every operator at its roofline on the chosen device profile."));
      break;
  }
}

AnalysisSettings AnalyzeDialog::settings() const {
  AnalysisSettings s = m_initial;
  s.device = static_cast<AnalysisSettings::Device>(m_device->currentData().toInt());
  s.deviceProfile = m_profile->currentData().toString();
  s.goal = static_cast<Goal>(m_goal->currentData().toInt());
  s.scenario = static_cast<Scenario>(m_scenario->currentData().toInt());
  s.iterations = m_iterations->value();
  s.threads = m_threads->value();
  s.timeoutSeconds = m_timeout->value();
  for (int i = 0; i < m_dims->rowCount(); ++i)
    if (auto* spin = qobject_cast<QSpinBox*>(m_dims->cellWidget(i, 1))) s.dims.insert(m_dims->item(i, 0)->text(), spin->value());
  for (int i = 0; i < m_inputs->rowCount(); ++i)
    if (auto* value = m_inputs->cellWidget(i, 2) ? m_inputs->cellWidget(i, 2)->findChild<QLineEdit*>() : nullptr) {
      const QString v = value->text().trimmed();
      if (v.isEmpty()) s.inputValues.remove(m_inputs->item(i, 0)->text());
      else s.inputValues.insert(m_inputs->item(i, 0)->text(), v);
    }
  return s;
}

void AnalyzeDialog::setModelInputs(const QList<std::pair<QString, QString>>& inputs) {
  m_inputs->setRowCount(static_cast<int>(inputs.size()));
  for (int i = 0; i < inputs.size(); ++i) {
    for (int c = 0; c < 2; ++c) {
      auto* item = new QTableWidgetItem(c == 0 ? inputs[i].first : inputs[i].second);
      item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      m_inputs->setItem(i, c, item);
    }
    auto* cell = new QWidget(m_inputs);
    auto* row = new QHBoxLayout(cell);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    auto* value = new QLineEdit(m_initial.inputValues.value(inputs[i].first), cell);
    value->setObjectName(QStringLiteral("inputValue"));
    value->setPlaceholderText(tr("random"));
    value->setToolTip(tr("A number that fills the input, or the path of a .npy or .pb file"));
    auto* browse = new QToolButton(cell);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose a .npy or .pb file for this input"));
    connect(browse, &QToolButton::clicked, this, [this, value] {
      const QString f = askOpenFile(this, tr("Input Values"), QString(), tr("Tensors (*.npy *.pb)"));
      if (!f.isEmpty()) value->setText(f);
    });
    row->addWidget(value, 1);
    row->addWidget(browse);
    m_inputs->setCellWidget(i, 2, cell);
  }
  m_inputs->resizeColumnToContents(0);
  m_inputs->resizeColumnToContents(1);
  m_inputs->setMaximumHeight(m_inputs->horizontalHeader()->height() + 8 +
                             std::max(1, static_cast<int>(inputs.size())) * m_inputs->verticalHeader()->defaultSectionSize());
  m_inputs->setVisible(!inputs.isEmpty());
  m_inputsNote->setVisible(!inputs.isEmpty());
  updateDeviceState();
}

void AnalyzeDialog::setSettingsOnly() {
  setWindowTitle(tr("Analysis Settings"));
  m_ok->setText(tr("Save"));
}

}  // namespace msa::ui
