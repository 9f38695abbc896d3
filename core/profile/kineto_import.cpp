#include "profile/kineto_import.h"

#include <map>

#include "profile/run_trace.h"
#include "util/read_limits.h"

namespace msa {

Result<ProfileData> importKineto(const std::filesystem::path& file, const Model* model, const Progress& progress) {
  auto t = training::loadChromeTrace(file, progress);
  if (!t) return t.error();
  ProfileData p;
  p.device = t->device;
  p.runtime = "PyTorch profiler (" + t->format + ")";
  p.source = "imported:" + file.filename().string();
  p.importer = "kineto";
  p.files = {file.string()};
  const bool device = t->hasDevice();
  p.caps.deviceTasks = device;
  p.caps.shapes = t->hasShapes;
  p.caps.timeline = true;
  // A CPU-only trace: its outermost host work (operators, and ranges such as gloo:all_reduce
  // on other threads), inside the steps when some is; else all of it as one step.
  auto hostEntry = [&](const training::TraceEvent& e) {
    if (e.kind == training::EventKind::Annotation) return !e.name.starts_with("ProfilerStep#") && e.parent < 0;
    return e.kind == training::EventKind::CpuOp &&
           (e.parent < 0 || t->events[static_cast<size_t>(e.parent)].kind != training::EventKind::CpuOp);
  };
  bool anyInSteps = t->steps.empty();
  for (const training::TraceEvent& e : t->events)
    anyInSteps = anyInSteps || ((device ? e.onDevice() : hostEntry(e)) && e.step >= 0);
  const int steps = anyInSteps ? std::max<int>(1, static_cast<int>(t->steps.size())) : 1;
  p.iterations = steps;
  // Per entry name: time and calls in the steps it ran in (sparse: 25k steps × 25k names must not
  // cost 25k² cells), the other steps count as 0.
  struct StepSum {
    int step;
    double ms, calls;
  };
  std::map<std::string, size_t> index;
  std::vector<std::vector<StepSum>> perStep;
  RecordBudget names(file.string(), "distinct kernel or operator names", CountLimit::Names);
  for (const training::TraceEvent& e : t->events) {
    if (device ? !e.onDevice() : !hostEntry(e)) continue;
    const int s = t->steps.empty() || !anyInSteps ? 0 : e.step;
    if (s < 0) continue;  // outside every step
    auto [it, added] = index.emplace(e.name, p.nodes.size());
    if (added) {
      if (!names.add()) return names.error();
      NodeProfile n;
      n.name = e.name;
      n.opType = e.opType;
      n.kernel = device ? std::string(training::eventKindName(e.kind)) : "cpu_op";
      if (!device) n.inputShapes = e.inputDims;
      p.nodes.push_back(std::move(n));
      perStep.emplace_back();
      if (model) p.unmatched.push_back(e.name);
    }
    ++p.tasks;
    auto& sums = perStep[it->second];
    if (sums.empty() || sums.back().step != s) sums.push_back({s, 0, 0});
    sums.back().ms += e.durUs / 1000.0;
    sums.back().calls += 1;
  }
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    auto& sums = perStep[i];
    // Device events follow their launch's step: a step may come round again out of order.
    std::stable_sort(sums.begin(), sums.end(), [](const StepSum& a, const StepSum& b) { return a.step < b.step; });
    std::vector<double> ms, calls;
    for (size_t k = 0; k < sums.size(); ++k) {
      if (k > 0 && sums[k].step == sums[k - 1].step) {
        ms.back() += sums[k].ms;
        calls.back() += sums[k].calls;
        continue;
      }
      ms.push_back(sums[k].ms);
      calls.push_back(sums[k].calls);
    }
    const size_t absent = static_cast<size_t>(steps) - ms.size();
    p.nodes[i].timeMs = Stats::withZeros(std::move(ms), absent);
    p.nodes[i].calls = Stats::withZeros(std::move(calls), absent).median;
    std::vector<StepSum>().swap(sums);
  }
  std::vector<double> stepMs;
  if (anyInSteps)
    for (const auto& s : t->steps) stepMs.push_back(s.ms());
  if (stepMs.empty() && !t->events.empty()) {
    double lo = t->events.front().tsUs, hi = lo;
    for (const auto& e : t->events) lo = std::min(lo, e.tsUs), hi = std::max(hi, e.endUs());
    stepMs.push_back((hi - lo) / 1000.0);
  }
  p.latencyMs = Stats::of(stepMs);
  if (p.nodes.empty()) return Error::model("the trace holds no kernel or operator events in its steps", file.string());
  return p;
}

}  // namespace msa
