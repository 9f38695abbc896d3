// RuntimeSettings: the session settings a measured run used, when they cost this machine time.
// The measurement engine times one intra-op thread beside the default count when that is cheap or
// when it saw contention (profile/latency.h, compareOneThread); when one thread runs the deployed
// model clearly faster, the thread count is a finding with both figures, not a hidden confound
// (under load, one thread ran a GPT-style decoder 2x faster than the default two here).
#include <algorithm>

#include "profile/profile_data.h"
#include "rules/rule_families.h"
#include "rules/rule_util.h"
#include "rules/texts.h"

namespace msa {
namespace {

// One thread at least this much faster than the default before it is a finding: two medians
// timed in turns on a quiet machine differ by a few percent.
constexpr double kOneThreadGain = 1.2;

class RuntimeSettings final : public Rule {
 public:
  std::string_view family() const override { return "runtime"; }

  void run(const AnalysisContext& ctx, std::vector<Finding>& out) const override {
    // The deployed run's measurement when there is one, else the only run's.
    const ProfileData* run = ctx.runtimeProfile && ctx.runtimeProfile->optimization != "disabled" ? ctx.runtimeProfile
                                                                                                   : ctx.profile;
    if (!run || !run->measurement.measured) return;
    const Measurement& m = run->measurement;
    if (!(m.oneThreadMs > 0 && m.threadsMs > 0) || m.threads <= 1) return;
    const double gain = m.threadsMs / m.oneThreadMs;
    if (gain < kOneThreadGain) return;
    Finding f;
    f.rule = "runtime.threads";
    f.category = Category::named("runtime");
    // The whole run at the ratio the two settings measured beside each other.
    const double latency = run->latencyMs.median > 0 ? run->latencyMs.median : m.threadsMs;
    f.impact.currentMs = latency;
    f.impact.fixedMs = latency / gain;
    f.impact.rawMs = f.impact.ms = latency - f.impact.fixedMs;
    f.impact.source = ImpactSource::Measured;
    f.impact.method = phrase("method.runtime.threads");
    f.params["threads"] = std::to_string(m.threads);
    f.params["threads_ms"] = formatSignificant(m.threadsMs);
    f.params["one_thread_ms"] = formatSignificant(m.oneThreadMs);
    f.params["gain"] = formatSignificant(gain);
    f.params["cpu_share"] = formatPercent(m.cpuShare);
    f.params["why"] = phrase(m.contended || m.blocksSetAside > 0 ? "runtime.threads.busy" : "runtime.threads.quiet");
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> makeRuntimeSettingsRules() { return std::make_unique<RuntimeSettings>(); }

}  // namespace msa
