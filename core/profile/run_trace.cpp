#include "profile/run_trace.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace msa::training {

std::string_view eventKindName(EventKind k) {
  switch (k) {
    case EventKind::CpuOp: return "cpu_op";
    case EventKind::Annotation: return "annotation";
    case EventKind::Kernel: return "kernel";
    case EventKind::Memcpy: return "memcpy";
    case EventKind::Memset: return "memset";
    case EventKind::Runtime: return "runtime";
  }
  return "cpu_op";
}

bool isModuleRange(const TraceEvent& e) {
  return e.kind == EventKind::Annotation && std::string_view(e.name).starts_with(kModuleRangePrefix);
}

bool TrainingTrace::hasDevice() const {
  return std::any_of(events.begin(), events.end(), [](const TraceEvent& e) { return e.onDevice(); });
}

size_t TrainingTrace::count(EventKind k) const {
  return static_cast<size_t>(std::count_if(events.begin(), events.end(), [k](const TraceEvent& e) { return e.kind == k; }));
}

namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

// Nests host events per thread: the innermost event whose range holds the child's (the rule
// torch's own event tree uses, so self times agree with key_averages()).
void nestHostEvents(TrainingTrace& t) {
  std::map<int, std::vector<int>> open;  // thread -> stack of event indices
  for (size_t i = 0; i < t.events.size(); ++i) {
    TraceEvent& e = t.events[i];
    if (!e.onHost()) continue;
    auto& stack = open[e.thread];
    while (!stack.empty()) {
      const TraceEvent& p = t.events[static_cast<size_t>(stack.back())];
      if (e.tsUs >= p.tsUs && e.endUs() <= p.endUs()) break;
      stack.pop_back();
    }
    e.parent = stack.empty() ? -1 : stack.back();
    stack.push_back(static_cast<int>(i));
  }
}

long long stepNumber(std::string_view name) {
  name.remove_prefix(kStepPrefix.size());
  long long n = 0;
  if (name.empty()) return -1;
  for (char c : name) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

void findSteps(TrainingTrace& t) {
  t.steps.clear();
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (!e.onHost() || !std::string_view(e.name).starts_with(kStepPrefix)) continue;
    long long n = stepNumber(e.name);
    if (n < 0) continue;
    t.steps.push_back({n, e.tsUs, e.endUs(), static_cast<int>(i)});
  }
  if (!t.steps.empty()) {
    t.stepSource = "profiler_step";
    return;
  }
  std::map<long long, TrainingStep> byId;
  for (const TraceEvent& e : t.events) {
    if (e.stepId < 0) continue;
    auto [it, added] = byId.try_emplace(e.stepId, TrainingStep{e.stepId, e.tsUs, e.endUs(), -1});
    if (!added) {
      it->second.startUs = std::min(it->second.startUs, e.tsUs);
      it->second.endUs = std::max(it->second.endUs, e.endUs());
    }
  }
  if (!byId.empty()) {
    for (auto& [id, s] : byId) t.steps.push_back(s);
    t.stepSource = "step_id";
    return;
  }
  if (t.events.empty()) return;
  double lo = t.events.front().tsUs, hi = lo;
  for (const TraceEvent& e : t.events) hi = std::max(hi, e.endUs());
  t.steps.push_back({0, lo, hi, -1});
  t.stepSource = "whole_trace";
  t.notes.push_back("no_steps");
}

// The step whose range holds `ts` (steps sorted by start, not overlapping), or -1.
int stepAt(const std::vector<TrainingStep>& steps, double ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](double v, const TrainingStep& s) { return v < s.startUs; });
  if (it == steps.begin()) return -1;
  --it;
  return ts < it->endUs || (ts == it->endUs && it->startUs == it->endUs) ? static_cast<int>(it - steps.begin()) : -1;
}

// A host event's step: the range holding it, or the next one when it falls in the gap before a
// range. The profiler opens a step's range a few microseconds after the loop has gone on (the
// first operator of the iteration, a zero_grad, often starts in between), so which step such an
// operator lands in was timing: a step then lacked one of the shapes its neighbours ran, and the
// next step's looked new (CI: "1 operator changes input shapes", aten::zero_ [1] then [8]).
// Before the first range, only as far back as the widest gap between ranges (what came before is
// set-up, not a step); past the last range it belongs to no step (the partial one a stopped
// session leaves).
int hostStepAt(const std::vector<TrainingStep>& steps, double ts, double widestGapUs) {
  const int k = stepAt(steps, ts);
  if (k >= 0) return k;
  auto next = std::upper_bound(steps.begin(), steps.end(), ts, [](double v, const TrainingStep& s) { return v < s.startUs; });
  if (next == steps.end()) return -1;
  const bool inGap = next == steps.begin() ? next->startUs - ts <= widestGapUs : ts >= std::prev(next)->endUs;
  return inGap ? static_cast<int>(next - steps.begin()) : -1;
}

void assignSteps(TrainingTrace& t) {
  std::sort(t.steps.begin(), t.steps.end(), [](const TrainingStep& a, const TrainingStep& b) { return a.startUs < b.startUs; });
  std::map<long long, int> byNumber;
  for (size_t k = 0; k < t.steps.size(); ++k) byNumber.emplace(t.steps[k].number, static_cast<int>(k));
  const bool wholeTrace = t.stepSource == "whole_trace";
  double widestGapUs = 0;
  for (size_t k = 1; k < t.steps.size(); ++k) widestGapUs = std::max(widestGapUs, t.steps[k].startUs - t.steps[k - 1].endUs);
  for (TraceEvent& e : t.events) {
    if (wholeTrace) {
      e.step = 0;
      continue;
    }
    if (e.onDevice()) {
      if (auto it = byNumber.find(e.stepId); e.stepId >= 0 && it != byNumber.end()) e.step = it->second;
      else if (e.launchTsUs >= 0) e.step = stepAt(t.steps, e.launchTsUs);
      else e.step = stepAt(t.steps, e.tsUs);
      continue;
    }
    e.step = hostStepAt(t.steps, e.tsUs, widestGapUs);
  }
}

}  // namespace

void finalizeTrace(TrainingTrace& t) {
  // Sort by start, the longer first at equal starts (a parent before the children it holds),
  // keeping the events' order in the file otherwise.
  std::vector<int> order(t.events.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const TraceEvent &x = t.events[static_cast<size_t>(a)], &y = t.events[static_cast<size_t>(b)];
    return x.tsUs != y.tsUs ? x.tsUs < y.tsUs : x.durUs > y.durUs;
  });
  // Applied in place, cycle by cycle: a second vector of the events would double their memory.
  std::vector<bool> placed(order.size(), false);
  for (size_t start = 0; start < order.size(); ++start) {
    if (placed[start] || order[start] == static_cast<int>(start)) continue;
    TraceEvent held = std::move(t.events[start]);
    size_t at = start;
    for (;;) {
      const size_t from = static_cast<size_t>(order[at]);
      placed[at] = true;
      if (from == start) {
        t.events[at] = std::move(held);
        break;
      }
      t.events[at] = std::move(t.events[from]);
      at = from;
    }
  }
  // Idempotent: a reader may add events (kernel_details rows) and finalize again.
  std::erase_if(t.notes, [](const std::string& n) { return n == "no_steps" || n == "no_shapes"; });
  nestHostEvents(t);
  findSteps(t);
  assignSteps(t);
  t.hasShapes = std::any_of(t.events.begin(), t.events.end(), [](const TraceEvent& e) { return !e.inputDims.empty(); });
  const bool hostOps = t.count(EventKind::CpuOp) > 0;
  if (hostOps && !t.hasShapes) t.notes.push_back("no_shapes");
}

}  // namespace msa::training
