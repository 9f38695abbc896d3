#pragma once
// Analyze > Verify in a worker: the edited model against the original — libonnx's checker, then
// ONNX Runtime runs both on the same seeded inputs and compares every output (core verify.h,
// Polygraphy semantics, the tolerance `optimize` uses for the level of the applied passes) —
// and, when the outputs match, the latency of both as deployed (the runtime's optimizer on,
// reported first) and with it disabled (core outcome.h), next to the speedup the advisor estimated.
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>
#include <span>

#include "advisor/advisor.h"
#include "job.h"
#include "optimize/outcome.h"
#include "optimize/verify.h"

namespace msa::ui {

struct VerifyOutcome {
  VerifyResult verification;
  std::string inputsSource;  // "seeded N(0,1), seed 1234"
  std::optional<LatencyComparison> latency;  // none when the outputs differ or timing was not asked for
  QString latencyError;
  double estimatedSpeedup = 0;  // the advisor's: original latency / latency after the edits; 0 unknown
  // At the deployed configuration (the runtime's optimizer on), which is what a user gains.
  double measuredSpeedup() const { return latency ? latency->speedupAll() : 0.0; }
};

// The tolerance the applied rewrites are held to: the highest level among their passes.
Tolerance toleranceForRewrites(std::span<const Rewrite> rewrites);

// Values for the original's symbolic input dims, as the analysis ran it: from the report's
// profile (input shapes it measured with), else the shapes the report lists; keys "input:axis".
// Empty when every input dim is fixed or nothing says what they were.
std::map<std::string, int64_t, std::less<>> inputDimsFromReport(const Report& report, const Model& original);

// The outcome as a short HTML paragraph for a dialog or the Overview.
QString describeVerifyOutcome(const VerifyOutcome& o);

class VerifyJob : public QObject {
  Q_OBJECT
 public:
  struct Options {
    VerifyOptions verify;
    bool measure = true;         // time both models after the outputs matched
    LatencyOptions latency;
    double estimatedSpeedup = 0;
  };

  explicit VerifyJob(QObject* parent = nullptr);
  ~VerifyJob() override;
  bool running() const { return m_job.running(); }
  void start(std::shared_ptr<const Model> original, std::shared_ptr<const Model> edited, const Options& options);
  void cancel();

 signals:
  void progressChanged(const QString& phase, double fraction);
  void finished(const msa::ui::VerifyOutcome& outcome);
  void failed(const QString& message);  // the original cannot run here: nothing could be verified
  void cancelled();

 private:
  Job<VerifyOutcome> m_job{this};
};

}  // namespace msa::ui
