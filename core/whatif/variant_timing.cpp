#include "whatif/variant_timing.h"

#include "profile/ort_session.h"

namespace msa {

Result<TimingReport> timeVariants(std::span<const TimedVariant> variants, const TimingOptions& o, const Progress& progress) {
  if (variants.empty()) return Error::usage("nothing to time");
  TimingReport report;
  report.timings.resize(variants.size());
  // The engine stops at the first configuration that fails; a variant the runtime refuses (an
  // operator without a kernel for its type) is one finding of the what-if, not the end of it.
  std::vector<TimedConfig> configs;
  std::vector<size_t> timed;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (progress.cancelled()) return Error::cancelled();
    const TimedVariant& v = variants[i];
    auto s = OrtSession::create(*v.model, runtimeOptionsFor(v.settings));
    const Status runs = s ? s->runDiscarding(v.inputs) : Status(s.error());
    if (!runs) {
      if (runs.error().kind == ErrorKind::Cancelled || i == 0) return runs.error();
      report.timings[i].error = runs.error().message;
      continue;
    }
    configs.push_back({v.model, v.inputs, v.settings});
    timed.push_back(i);
  }
  SamplingPolicy policy;
  policy.warmup = o.warmup;
  policy.minRuns = o.iterations;
  policy.budgetSeconds = o.budgetSeconds;
  auto t = timeConfigs(configs, policy, progress);
  if (!t) return t.error();
  for (size_t k = 0; k < timed.size(); ++k) report.timings[timed[k]].stats = (*t)[k].stats;
  report.measurement = t->front().measurement;
  return report;
}

}  // namespace msa
