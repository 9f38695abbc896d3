#include "profile/kineto_import.h"

#include <map>

#include "profile/run_trace.h"

namespace msa {

Result<ProfileData> importKineto(const std::filesystem::path& file, const Model* model, const Progress& progress) {
  auto text = training::readMaybeCompressed(file);
  if (!text) return text.error();
  auto t = training::parseChromeTrace(*text, file.string(), progress);
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
  // Per entry name: time per step.
  std::map<std::string, size_t> index;
  std::vector<std::vector<double>> perStep;
  std::vector<std::vector<double>> calls;
  for (const training::TraceEvent& e : t->events) {
    if (device ? !e.onDevice() : !hostEntry(e)) continue;
    const int s = t->steps.empty() || !anyInSteps ? 0 : e.step;
    if (s < 0) continue;  // outside every step
    auto [it, added] = index.emplace(e.name, p.nodes.size());
    if (added) {
      NodeProfile n;
      n.name = e.name;
      n.opType = e.opType;
      n.kernel = device ? std::string(training::eventKindName(e.kind)) : "cpu_op";
      if (!device) n.inputShapes = e.inputDims;
      p.nodes.push_back(std::move(n));
      perStep.emplace_back(static_cast<size_t>(steps), 0.0);
      calls.emplace_back(static_cast<size_t>(steps), 0.0);
      if (model) p.unmatched.push_back(e.name);
    }
    ++p.tasks;
    perStep[it->second][static_cast<size_t>(s)] += e.durUs / 1000.0;
    calls[it->second][static_cast<size_t>(s)] += 1;
  }
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    p.nodes[i].timeMs = Stats::of(perStep[i]);
    p.nodes[i].calls = Stats::of(calls[i]).median;
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
