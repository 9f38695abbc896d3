#include "profile/trace_memory.h"

#include <algorithm>
#include <map>
#include <set>

#include "profile/trace_analysis.h"

namespace msa::training {
namespace {

std::string_view labelOf(const TraceEvent& e) { return std::string_view(e.name).substr(kModuleRangePrefix.size()); }

// "Conv2d_0" (the python tracer's instance name) -> "Conv2d".
std::string typeFromLabel(std::string_view label) {
  const size_t us = label.rfind('_');
  if (us == std::string_view::npos || us + 1 == label.size()) return {};
  for (size_t i = us + 1; i < label.size(); ++i)
    if (label[i] < '0' || label[i] > '9') return {};
  return std::string(label.substr(0, us));
}


// Per step, when its backward pass starts (the first backward host operator), else its end.
std::vector<double> backwardStarts(const TrainingTrace& t) {
  std::vector<double> start(t.steps.size());
  for (size_t k = 0; k < t.steps.size(); ++k) start[k] = t.steps[k].endUs;
  for (const TraceEvent& e : t.events)
    if (e.step >= 0 && e.kind == EventKind::CpuOp && isBackwardName(e.name))
      start[static_cast<size_t>(e.step)] = std::min(start[static_cast<size_t>(e.step)], e.tsUs);
  return start;
}

}  // namespace

ActivationMemory analyzeActivations(const TrainingTrace& t) {
  ActivationMemory out;
  out.source = t.memorySource;
  std::vector<int> ranges;  // module-range events, in start order (those outside every step only nest others)
  bool inSteps = false;
  for (size_t i = 0; i < t.events.size(); ++i)
    if (isModuleRange(t.events[i])) {
      ranges.push_back(static_cast<int>(i));
      inSteps = inSteps || t.events[i].step >= 0;
    }
  if (!inSteps) return out;

  // The module range around each event (the innermost), found in one pass.
  const std::vector<int> outerModule = nearestAncestor(t, [](const TraceEvent& h) { return isModuleRange(h); });
  const auto moduleParent = [&](const TrainingTrace&, const TraceEvent& e) -> int {
    return e.parent < 0 ? -1 : isModuleRange(t.events[static_cast<size_t>(e.parent)]) ? e.parent : outerModule[static_cast<size_t>(e.parent)];
  };
  std::map<std::string, ModuleActivation, std::less<>> mods;
  std::set<int> steps;
  // Forward time per module and step: the median over steps, as the step time is, so that a step
  // another process stalled moves neither.
  std::map<std::string, std::map<int, double>, std::less<>> moduleStepMs;
  std::map<int, double> forwardStepMs;
  // Per thread, the module ranges open around the current one and how often each label is among
  // them: depth and recursion in one pass.
  struct Path {
    std::vector<int> stack;
    std::map<std::string_view, int> labels;
  };
  std::map<int, Path> paths;
  for (int i : ranges) {
    const TraceEvent& e = t.events[static_cast<size_t>(i)];
    const int p = moduleParent(t, e);
    Path& path = paths[e.thread];
    while (!path.stack.empty() && path.stack.back() != p) {
      --path.labels[labelOf(t.events[static_cast<size_t>(path.stack.back())])];
      path.stack.pop_back();
    }
    if (e.step < 0) {
      ++path.labels[labelOf(e)];
      path.stack.push_back(i);
      continue;
    }
    steps.insert(e.step);
    const std::string label(labelOf(e));
    auto [it, added] = mods.try_emplace(label);
    ModuleActivation& m = it->second;
    if (added) {
      m.label = label;
      m.type = typeFromLabel(label);
      m.parent = p >= 0 ? std::string(labelOf(t.events[static_cast<size_t>(p)])) : std::string();
      m.depth = static_cast<int>(path.stack.size());
    }
    m.calls += 1;
    int& open = path.labels[labelOf(e)];
    const bool nested = open > 0;  // a module inside itself (recursion) is timed once
    ++open;
    path.stack.push_back(i);
    if (!nested) moduleStepMs[label][e.step] += e.durUs / 1000.0;
    if (p < 0) forwardStepMs[e.step] += e.durUs / 1000.0;
  }
  out.steps = static_cast<int>(steps.size());
  const double n = static_cast<double>(out.steps);
  auto medianOverSteps = [&](const std::map<int, double>& perStep) {
    std::vector<double> v;
    for (int step : steps) {
      auto it = perStep.find(step);
      v.push_back(it == perStep.end() ? 0.0 : it->second);
    }
    return median(std::move(v));
  };
  for (auto& [label, m] : mods) {
    m.calls /= n;
    m.forwardMs = medianOverSteps(moduleStepMs[label]);
  }
  out.forwardMs = medianOverSteps(forwardStepMs);

  if (t.memorySource == "saved_tensors") {
    for (const ModuleMemory& mm : t.moduleMemory) {
      out.savedBytes += mm.savedBytes;
      auto it = mods.find(mm.path);
      if (it == mods.end()) continue;  // saved outside a traced step: counted in the total only
      it->second.ownSavedBytes = mm.savedBytes;
      it->second.outputBytes = mm.outputBytes;
      if (!mm.type.empty()) it->second.type = mm.type;
    }
  } else if (!t.allocations.empty()) {
    const std::vector<double> bwd = backwardStarts(t);
    std::vector<const MemoryBlock*> blocks;
    for (const MemoryBlock& b : t.allocations) blocks.push_back(&b);
    std::sort(blocks.begin(), blocks.end(), [](const MemoryBlock* a, const MemoryBlock* b) { return a->allocUs < b->allocUs; });
    // Sweep: the module ranges open at each allocation, innermost on top.
    std::vector<int> open;
    std::map<int, std::pair<double, double>> lastHeld;  // range -> (alloc time, bytes) of its last held block
    size_t next = 0;
    for (const MemoryBlock* b : blocks) {
      while (next < ranges.size() && t.events[static_cast<size_t>(ranges[next])].tsUs <= b->allocUs) {
        const int r = ranges[next++];
        while (!open.empty() && t.events[static_cast<size_t>(open.back())].endUs() < t.events[static_cast<size_t>(r)].tsUs)
          open.pop_back();
        open.push_back(r);
      }
      while (!open.empty() && t.events[static_cast<size_t>(open.back())].endUs() < b->allocUs) open.pop_back();
      if (open.empty()) continue;
      const TraceEvent& r = t.events[static_cast<size_t>(open.back())];
      const double backward = bwd[static_cast<size_t>(r.step)];
      if (b->allocUs >= backward || (b->releaseUs >= 0 && b->releaseUs < backward)) continue;  // not held into backward
      ModuleActivation& m = mods.find(labelOf(r))->second;
      m.ownSavedBytes += b->bytes / n;
      out.savedBytes += b->bytes / n;
      for (int o : open) {  // the module's output is the last held block it (or a submodule) made
        auto& last = lastHeld[o];
        if (b->allocUs >= last.first) last = {b->allocUs, b->bytes};
      }
    }
    for (const auto& [r, last] : lastHeld) mods.find(labelOf(t.events[static_cast<size_t>(r)]))->second.outputBytes += last.second / n;
  }

  // Submodules' bytes into their parents, deepest first.
  std::vector<ModuleActivation*> order;
  for (auto& [label, m] : mods) {
    m.savedBytes += m.ownSavedBytes;
    order.push_back(&m);
  }
  std::sort(order.begin(), order.end(), [](const ModuleActivation* a, const ModuleActivation* b) { return a->depth > b->depth; });
  for (ModuleActivation* m : order)
    if (auto it = mods.find(m->parent); !m->parent.empty() && it != mods.end()) it->second.savedBytes += m->savedBytes;
  for (auto& [label, m] : mods) out.modules.push_back(std::move(m));
  std::stable_sort(out.modules.begin(), out.modules.end(),
                   [](const ModuleActivation& a, const ModuleActivation& b) { return a.savedBytes > b.savedBytes; });
  return out;
}

}  // namespace msa::training
