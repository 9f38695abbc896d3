#pragma once
// Runs one analysis for the GUI as one Job (ui/job.h) over core's runAnalysis, so the window
// never blocks:
//   CPU: runAnalysis with a Measurer that profiles in `msadvisor-cli profile` child processes
//        (child_profiler.h: optimizations disabled, then all; an edited model is written to a
//        temporary file first), the host's calibration measured with progress when none is
//        cached (the first measured analysis), then the rules;
//   Ascend (builds with CANN): `profile --device acl` in a child, then runAnalysis on the chosen
//        device profile with that profile;
//   estimate-only device, or File ▸ Import Profile: runAnalysis alone.
// Every run ends in exactly one of finished / failed / cancelled (cancel is never a failure). A
// crashing or hanging child is a failure with the profiler's message; the window keeps working.
#include <QObject>
#include <memory>

#include "advisor/advisor.h"
#include "analysis/analysis_overlays.h"
#include "analysis/analysis_settings.h"
#include "graph/model_document.h"
#include "job.h"

namespace msa::ui {

struct AnalysisResult {
  std::shared_ptr<const Report> report;
  std::shared_ptr<const ModelDocument> document;  // what was analysed, as the window showed it (null: a profile alone)
  std::shared_ptr<const Model> model;             // the analysed IR (symbolic dims bound; null without a model)
  AnalysisSettings settings;
  double seconds = 0;  // wall time of the whole run
  // What the graph draws of it, built on the worker too (a large model's hundreds of groups and
  // thousands of marks take longer than the event loop may be held). Used only while
  // `overlaysOf` is `report` (a copy given another report draws that one's); otherwise built then.
  std::shared_ptr<const AnalysisOverlays> overlays;
  std::shared_ptr<const Report> overlaysOf;
};

class AnalysisController : public QObject {
  Q_OBJECT
 public:
  explicit AnalysisController(QObject* parent = nullptr);
  ~AnalysisController() override;  // cancels: the child is killed, a worker's result dropped

  // Starts a run; false (and nothing emitted) while another runs, or without a document unless
  // the settings import a profile (the profile-only analysis: no graph).
  bool start(std::shared_ptr<const ModelDocument> document, const AnalysisSettings& settings);
  void cancel();
  bool isRunning() const { return m_job.running(); }

  // msadvisor-cli beside this executable, in the build tree's app/cli, then on PATH.
  static QString defaultCliProgram();
  // Empty when the device can be used here; otherwise why not (shown in the dialog).
  static QString deviceUnavailableReason(AnalysisSettings::Device device);
  // A worker's progress phase in words ("profile-all|warm-up", "calibrate matmul", "ranking").
  static QString phaseText(const QString& phase);

 signals:
  void progressChanged(const QString& phase, double fraction);
  void finished(const msa::ui::AnalysisResult& result);
  void failed(const QString& message);
  void cancelled();

 private:
  Job<AnalysisResult> m_job{this};
  double m_fraction = 0;
};

}  // namespace msa::ui

Q_DECLARE_METATYPE(msa::ui::AnalysisResult)
