#pragma once
// What the user chose in the Analyze dialog, as a plain value: the device, the goal and scenario
// the ranking weighs, symbolic input dims, and how to measure. Remembered in QSettings by
// persistent windows.
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include "profile/model_inputs.h"
#include "rules/rule.h"

namespace msa::ui {

struct AnalysisSettings {
  enum class Device {
    Cpu,       // measured here: ONNX Runtime through `msadvisor-cli profile`
    Ascend,    // measured on the NPU through ACL (only where the build has CANN)
    Estimate,  // no measurement: the roofline on a device profile
  };
  Device device = Device::Cpu;
  QString deviceProfile = QStringLiteral("ascend910b");  // Ascend and Estimate: the profile id
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
  QMap<QString, qint64> dims;  // symbolic input dim -> value
  int iterations = 10;
  int warmup = 2;
  int threads = 0;  // 0: every core
  int topN = 10;
  QString cliProgram;            // empty: msadvisor-cli next to this executable (then PATH)
  // Per profiling run (the child process is stopped after it); shown in the Analyze dialog.
  static constexpr int kMinTimeoutSeconds = 10, kMaxTimeoutSeconds = 24 * 3600;
  int timeoutSeconds = 30 * 60;
  // File ▸ Import Profile: analyse this profile (ORT JSON, msprof CSV or folder, torch_npu,
  // Netron attachment, `profile --json`) instead of measuring; never persisted.
  QString importedProfile;
  // Values for the model's inputs instead of seeded random ones, by input name: a number that
  // fills the input (a scalar such as Silero's `sr`) or a .npy / .pb file. Never persisted.
  QMap<QString, QString> inputValues;

  // "--dim name=value" arguments for the CLI.
  QStringList dimArguments() const;
  // inputValues in core's terms; an error names the input whose value is neither a number nor
  // an existing file.
  Result<std::map<std::string, GivenInput, std::less<>>> givenInputs() const;
  // Persisted under "analysis/…" (the CLI path is not: it is for tests).
  static AnalysisSettings load();
  void save() const;
};

// Built-in device profiles for estimate-only analysis, as (id, display name).
QList<std::pair<QString, QString>> estimateDevices();

}  // namespace msa::ui

Q_DECLARE_METATYPE(msa::ui::AnalysisSettings)
