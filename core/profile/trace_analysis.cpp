#include "profile/trace_analysis.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace msa::training {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = static_cast<size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

bool isDataLoading(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n.find("dataloader") != std::string::npos || n.find("data_load") != std::string::npos ||
         n.find("data load") != std::string::npos || n.find("data-load") != std::string::npos;
}

bool isCommunication(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::erase_if(n, [](char c) { return c == '_' || c == ' ' || c == '-'; });
  if (n.find("nccl") != std::string::npos || n.find("hccl") != std::string::npos || n.find("hcom") != std::string::npos)
    return true;
  for (const char* k : {"allreduce", "allgather", "reducescatter", "alltoall", "c10d::"})
    if (n.find(k) != std::string::npos) return true;
  return false;
}

bool isBackwardName(std::string_view n) {
  return n.starts_with("autograd::engine::evaluate_function") || n.find("Backward") != std::string_view::npos ||
         n == "torch::autograd::AccumulateGrad";
}

std::string_view communicationKind(std::string_view name) {
  if (!isCommunication(name)) return "";
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::erase_if(n, [](char c) { return c == '_' || c == ' ' || c == '-'; });
  // Collectives first: "hcom_allReduce" holds no send, but "reducescatter" … must never read as p2p.
  for (const char* k : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "gather", "scatter"})
    if (n.find(k) != std::string::npos) return "collective";
  for (const char* k : {"sendrecv", "send", "recv", "receive", "p2p"})
    if (n.find(k) != std::string::npos) return "p2p";
  return "collective";
}

std::string shortKernelName(std::string_view name) {
  // Only C++ signatures: a '(' or '<' right after an identifier ("Memcpy HtoD (Pageable -> Device)"
  // is a description, not a signature).
  bool signature = false;
  for (size_t i = 1; i < name.size() && !signature; ++i)
    signature = (name[i] == '(' || name[i] == '<') &&
                (std::isalnum(static_cast<unsigned char>(name[i - 1])) || name[i - 1] == '_');
  if (!signature) return std::string(name);
  std::string s(name), out;
  for (size_t at; (at = s.find("->")) != std::string::npos;) s.erase(at, 2);
  // HTA's rule: drop every balanced <…> and (…), then keep the last space-separated word.
  for (char c : s) {
    if (c == '>' || c == ')') {
      const char open = c == '>' ? '<' : '(';
      while (!out.empty() && out.back() != open) out.pop_back();
      if (!out.empty()) out.pop_back();
    } else {
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  const size_t space = out.rfind(' ');
  std::string last = space == std::string::npos ? out : out.substr(space + 1);
  return last.empty() ? std::string(name) : last;
}

std::string_view copyDirection(std::string_view name) {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n.find("htod") != std::string::npos || n.find("h2d") != std::string::npos) return "h2d";
  if (n.find("dtoh") != std::string::npos || n.find("d2h") != std::string::npos) return "d2h";
  return "";
}

namespace {

struct Interval {
  double lo, hi;
};

// Sorted, disjoint union of intervals, clipped to [lo, hi].
std::vector<Interval> unite(std::vector<Interval> v, double lo, double hi) {
  for (Interval& i : v) i = {std::max(i.lo, lo), std::min(i.hi, hi)};
  std::erase_if(v, [](const Interval& i) { return i.hi <= i.lo; });
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.lo <= out.back().hi) out.back().hi = std::max(out.back().hi, i.hi);
    else out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double s = 0;
  for (const Interval& i : v) s += i.hi - i.lo;
  return s;
}

// |a ∩ b| for two sorted disjoint unions.
double overlap(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double s = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    s += std::max(0.0, std::min(a[i].hi, b[j].hi) - std::max(a[i].lo, b[j].lo));
    if (a[i].hi < b[j].hi) ++i;
    else ++j;
  }
  return s;
}

// |[lo, hi] ∩ u| for one interval against a sorted disjoint union.
double overlap(double lo, double hi, const std::vector<Interval>& u) {
  double s = 0;
  auto it = std::lower_bound(u.begin(), u.end(), lo, [](const Interval& i, double v) { return i.hi < v; });
  for (; it != u.end() && it->lo < hi; ++it) s += std::max(0.0, std::min(hi, it->hi) - std::max(lo, it->lo));
  return s;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + (v[i].empty() ? std::string("-") : v[i]);
  return s;
}

// For every device event launched from a host thread, the innermost host operator on that thread
// whose range holds the launch, -1 when none. One sweep per thread over its host events and the
// launches in time order: the stack holds the ranges open at the moment (each inside the one below),
// and `op` the innermost operator among them — walking up the parents for every launch costs
// launches × depth.
std::vector<int> launchOperators(const TrainingTrace& t, const Progress& progress) {
  std::vector<int> out(t.events.size(), -1);
  std::unordered_map<int, std::vector<int>> hosts, launches;  // thread -> event indices
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (e.onHost()) hosts[e.thread].push_back(static_cast<int>(i));
    else if (e.onDevice() && e.launchThread >= 0) launches[e.launchThread].push_back(static_cast<int>(i));
  }
  const auto ev = [&](int i) -> const TraceEvent& { return t.events[static_cast<size_t>(i)]; };
  for (auto& [thread, queries] : launches) {
    if (progress.cancelled()) return out;
    std::stable_sort(queries.begin(), queries.end(), [&](int a, int b) { return ev(a).launchTsUs < ev(b).launchTsUs; });
    const std::vector<int>& h = hosts[thread];  // sorted by start already
    struct Open {
      int event, op;  // op: the innermost operator at or below this entry, -1 none
    };
    std::vector<Open> stack;
    size_t next = 0;
    for (int q : queries) {
      const double ts = ev(q).launchTsUs;
      for (; next < h.size() && ev(h[next]).tsUs <= ts; ++next) {
        const TraceEvent& e = ev(h[next]);
        while (!stack.empty() && !(e.tsUs >= ev(stack.back().event).tsUs && e.endUs() <= ev(stack.back().event).endUs()))
          stack.pop_back();
        const int below = stack.empty() ? -1 : stack.back().op;
        stack.push_back({h[next], e.kind == EventKind::CpuOp ? h[next] : below});
      }
      while (!stack.empty() && ev(stack.back().event).endUs() < ts) stack.pop_back();
      out[static_cast<size_t>(q)] = stack.empty() ? -1 : stack.back().op;
    }
  }
  return out;
}

// Per host operator: whether a host event of the same name encloses it (a recursive call, whose time
// its caller's inclusive time already holds). A stack per thread with the count of each name on it.
std::vector<uint8_t> recursiveCalls(const TrainingTrace& t) {
  std::vector<uint8_t> out(t.events.size(), 0);
  struct Path {
    std::vector<int> stack;
    std::unordered_map<std::string_view, int> names;
  };
  std::unordered_map<int, Path> paths;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (!e.onHost()) continue;
    Path& path = paths[e.thread];
    while (!path.stack.empty() && path.stack.back() != e.parent) {
      --path.names[t.events[static_cast<size_t>(path.stack.back())].name];
      path.stack.pop_back();
    }
    int& n = path.names[e.name];
    out[i] = e.kind == EventKind::CpuOp && n > 0;
    ++n;
    path.stack.push_back(static_cast<int>(i));
  }
  return out;
}

struct SigAcc {
  int calls = 0;
  double us = 0;
};

std::vector<Signature> topSignatures(const std::map<std::pair<std::string, std::string>, SigAcc>& m, double steps) {
  std::vector<Signature> out;
  for (const auto& [key, acc] : m) out.push_back({key.first, key.second, acc.calls, acc.us / 1000.0 / steps});
  std::sort(out.begin(), out.end(), [](const Signature& a, const Signature& b) { return a.ms != b.ms ? a.ms > b.ms : a.calls > b.calls; });
  if (out.size() > 3) out.resize(3);
  return out;
}

}  // namespace

TrainingProfile analyzeTrace(const TrainingTrace& t, const AnalysisThresholds& thresholds, const Progress& progress) {
  TrainingProfile p;
  p.thresholds = thresholds;
  const bool device = t.hasDevice();
  p.timeline = device ? "device" : "host";
  const size_t nSteps = t.steps.size();
  p.steps.resize(nSteps);
  p.items.resize(nSteps);
  p.launchOp.assign(t.events.size(), -1);
  if (nSteps == 0) return p;
  const double steps = static_cast<double>(nSteps);

  std::unordered_map<long long, double> runtimeDur;  // correlation -> launch call duration (HTA's short-kernel test)
  for (const TraceEvent& e : t.events)
    if (e.kind == EventKind::Runtime && e.correlation >= 0) runtimeDur[e.correlation] = e.durUs;
  p.launchOp = launchOperators(t, progress);

  // Per-event facts from the nesting: inside data loading, inside an optimizer range, backward.
  std::vector<uint8_t> inLoader(t.events.size(), 0), inOptimizer(t.events.size(), 0), backward(t.events.size(), 0),
      hasOpAncestor(t.events.size(), 0);
  std::map<std::string, int> loaders;
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (!e.onHost()) continue;
    if (e.parent >= 0) {
      const size_t pa = static_cast<size_t>(e.parent);
      inLoader[i] = inLoader[pa] || (t.events[pa].kind == EventKind::Annotation && isDataLoading(t.events[pa].name));
      inOptimizer[i] = inOptimizer[pa] || (t.events[pa].kind == EventKind::Annotation && startsWith(t.events[pa].name, "Optimizer."));
      backward[i] = backward[pa] || isBackwardName(t.events[pa].name);
      hasOpAncestor[i] = hasOpAncestor[pa] || t.events[pa].kind == EventKind::CpuOp;
    }
    backward[i] = backward[i] || isBackwardName(e.name);
    if (e.kind == EventKind::Annotation && isDataLoading(e.name) && e.step >= 0) ++loaders[e.name];
  }
  for (const auto& [name, n] : loaders) p.dataLoaders.push_back(name);

  // Communication kernels: what they do, by the operator that launched them where linked (the
  // innermost communication operator around the launch).
  if (progress.cancelled()) return p;
  const auto commOps = nearestAncestor(t, [](const TraceEvent& h) { return !communicationKind(h.name).empty(); });
  p.communication.assign(t.events.size(), std::string_view());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (e.kind != EventKind::Kernel) continue;
    std::string_view kind = communicationKind(e.opType.empty() ? e.name : e.opType);
    if (kind.empty()) kind = communicationKind(e.name);
    if (kind.empty()) continue;
    if (const int op = p.launchOp[i]; op >= 0) {
      const std::string_view self = communicationKind(t.events[static_cast<size_t>(op)].name);
      const int q = !self.empty() ? op : commOps[static_cast<size_t>(op)];
      if (q >= 0) kind = communicationKind(t.events[static_cast<size_t>(q)].name);
    }
    p.communication[i] = kind;
  }

  // Per step: data loading, work items, phases.
  std::vector<std::vector<Interval>> loading(nSteps), work(nSteps), kernels(nSteps), compute(nSteps), comm(nSteps), copies(nSteps),
      p2p(nSteps), collective(nSteps);
  std::vector<std::vector<size_t>> commEvents(nSteps);
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (e.step < 0) continue;
    const size_t k = static_cast<size_t>(e.step);
    if (e.kind == EventKind::Annotation && isDataLoading(e.name) && !inLoader[i]) loading[k].push_back({e.tsUs, e.endUs()});
    const bool hostItem = e.kind == EventKind::CpuOp && !hasOpAncestor[i] && !inLoader[i];
    if (hostItem) {
      StepBreakdown& b = p.steps[k];
      (inOptimizer[i] ? b.optimizerMs : backward[i] ? b.backwardMs : b.forwardMs) += e.durUs / 1000.0;
    }
    if (device ? e.onDevice() : hostItem) {
      work[k].push_back({e.tsUs, e.endUs()});
      if (e.kind == EventKind::Kernel) {
        kernels[k].push_back({e.tsUs, e.endUs()});
        const std::string_view kind = p.communication[i];
        (kind.empty() ? compute[k] : comm[k]).push_back({e.tsUs, e.endUs()});
        if (!kind.empty()) {
          (kind == "p2p" ? p2p[k] : collective[k]).push_back({e.tsUs, e.endUs()});
          commEvents[k].push_back(i);
        }
      } else if (e.kind == EventKind::Memcpy) {
        const std::string_view dir = copyDirection(e.name);
        if (!dir.empty()) {
          StepBreakdown& b = p.steps[k];
          (dir == "h2d" ? b.h2dMs : b.d2hMs) += e.durUs / 1000.0;
          ++b.copies;
          copies[k].push_back({e.tsUs, e.endUs()});
        }
      }
      TrainingProfile::Item item;
      item.event = static_cast<int>(i);
      if (auto it = runtimeDur.find(e.correlation); device && e.correlation >= 0 && it != runtimeDur.end())
        item.isShort = e.durUs < it->second;
      else
        item.isShort = e.durUs < thresholds.shortItemUs;
      p.items[k].push_back(item);
    }
  }

  for (size_t k = 0; k < nSteps; ++k) {
    if (progress.cancelled()) return p;
    const TrainingStep& s = t.steps[k];
    StepBreakdown& b = p.steps[k];
    b.number = s.number;
    b.ms = s.ms();
    const auto dl = unite(loading[k], s.startUs, s.endUs);
    const auto busy = unite(work[k], s.startUs, s.endUs);
    b.busyMs = length(busy) / 1000.0;
    if (device) b.memoryMs = std::max(0.0, b.busyMs - length(unite(kernels[k], s.startUs, s.endUs)) / 1000.0);
    b.dataLoadingMs = std::max(0.0, length(dl) - overlap(dl, busy)) / 1000.0;
    b.idleMs = std::max(0.0, b.ms - b.busyMs - b.dataLoadingMs);
    const auto computeU = unite(compute[k], s.startUs, s.endUs);
    b.computeMs = length(computeU) / 1000.0;
    const auto commU = unite(comm[k], s.startUs, s.endUs), copyU = unite(copies[k], s.startUs, s.endUs);
    b.commMs = length(commU) / 1000.0;
    b.commExposedMs = std::max(0.0, length(commU) - overlap(commU, computeU)) / 1000.0;
    const auto p2pU = unite(p2p[k], s.startUs, s.endUs), collU = unite(collective[k], s.startUs, s.endUs);
    b.p2pMs = length(p2pU) / 1000.0;
    b.p2pExposedMs = std::max(0.0, length(p2pU) - overlap(p2pU, computeU)) / 1000.0;
    b.collectiveMs = length(collU) / 1000.0;
    b.collectiveExposedMs = std::max(0.0, length(collU) - overlap(collU, computeU)) / 1000.0;
    b.copyExposedMs = std::max(0.0, length(copyU) - overlap(copyU, computeU)) / 1000.0;
    for (size_t i : commEvents[k]) {
      const TraceEvent& e = t.events[i];
      p.exposedMsByKernel[e.name] += std::max(0.0, e.durUs - overlap(e.tsUs, e.endUs(), computeU)) / 1000.0 / static_cast<double>(nSteps);
    }
    // Gaps before each item on the merged timeline, data loading taken out.
    double cursor = s.startUs;
    for (auto& item : p.items[k]) {
      const TraceEvent& e = t.events[static_cast<size_t>(item.event)];
      if (e.tsUs > cursor) item.gapUs = (e.tsUs - cursor) - overlap(cursor, e.tsUs, dl);
      cursor = std::max(cursor, e.endUs());
      ++b.items;
      b.gapMs += item.gapUs / 1000.0;
      if (item.isShort) {
        ++b.shortItems;
        b.shortMs += e.durUs / 1000.0;
        b.shortGapMs += item.gapUs / 1000.0;
      }
    }
  }

  auto med = [&](auto field) {
    std::vector<double> v;
    for (const StepBreakdown& b : p.steps) v.push_back(static_cast<double>(b.*field));
    return median(v);
  };
  p.median.ms = med(&StepBreakdown::ms);
  p.median.busyMs = med(&StepBreakdown::busyMs);
  p.median.memoryMs = med(&StepBreakdown::memoryMs);
  p.median.computeMs = med(&StepBreakdown::computeMs);
  p.median.dataLoadingMs = med(&StepBreakdown::dataLoadingMs);
  p.median.idleMs = med(&StepBreakdown::idleMs);
  p.median.forwardMs = med(&StepBreakdown::forwardMs);
  p.median.backwardMs = med(&StepBreakdown::backwardMs);
  p.median.optimizerMs = med(&StepBreakdown::optimizerMs);
  p.median.items = static_cast<int>(std::lround(med(&StepBreakdown::items)));
  p.median.shortItems = static_cast<int>(std::lround(med(&StepBreakdown::shortItems)));
  p.median.shortMs = med(&StepBreakdown::shortMs);
  p.median.shortGapMs = med(&StepBreakdown::shortGapMs);
  p.median.gapMs = med(&StepBreakdown::gapMs);
  p.median.commMs = med(&StepBreakdown::commMs);
  p.median.commExposedMs = med(&StepBreakdown::commExposedMs);
  p.median.p2pMs = med(&StepBreakdown::p2pMs);
  p.median.p2pExposedMs = med(&StepBreakdown::p2pExposedMs);
  p.median.collectiveMs = med(&StepBreakdown::collectiveMs);
  p.median.collectiveExposedMs = med(&StepBreakdown::collectiveExposedMs);
  p.median.h2dMs = med(&StepBreakdown::h2dMs);
  p.median.d2hMs = med(&StepBreakdown::d2hMs);
  p.median.copies = static_cast<int>(std::lround(med(&StepBreakdown::copies)));
  p.median.copyExposedMs = med(&StepBreakdown::copyExposedMs);
  std::vector<double> ms;
  for (const StepBreakdown& b : p.steps) ms.push_back(b.ms);
  p.stepMs = p.median.ms;
  p.stepP10Ms = percentile(ms, 0.1);
  p.stepP90Ms = percentile(ms, 0.9);
  p.stepMinMs = *std::min_element(ms.begin(), ms.end());
  p.stepMaxMs = *std::max_element(ms.begin(), ms.end());

  // Operators: calls, self and inclusive time, device time of what they launched, signatures.
  struct OpAcc {
    double calls = 0, selfUs = 0, totalUs = 0, deviceUs = 0;
    std::map<std::pair<std::string, std::string>, SigAcc> sigs;
  };
  std::map<std::string, OpAcc> ops;
  std::vector<double> childUs(t.events.size(), 0.0);
  for (size_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].onHost() && t.events[i].parent >= 0) childUs[static_cast<size_t>(t.events[i].parent)] += t.events[i].durUs;
  if (progress.cancelled()) return p;
  const std::vector<uint8_t> recursive = recursiveCalls(t);
  for (size_t i = 0; i < t.events.size(); ++i) {
    const TraceEvent& e = t.events[i];
    if (e.step < 0) continue;
    if ((i & 65535) == 0 && progress.cancelled()) return p;
    if (e.kind == EventKind::CpuOp) {
      OpAcc& a = ops[e.name];
      const double self = std::max(0.0, e.durUs - childUs[i]);
      a.calls += 1;
      a.selfUs += self;
      if (!recursive[i]) a.totalUs += e.durUs;
      if (!e.inputDims.empty() || !e.inputTypes.empty()) {
        SigAcc& s = a.sigs[{joined(e.inputDims), joined(e.inputTypes)}];
        ++s.calls;
        s.us += device ? 0.0 : self;
      }
    } else if (e.onDevice() && p.launchOp[i] >= 0) {
      const TraceEvent& op = t.events[static_cast<size_t>(p.launchOp[i])];
      OpAcc& a = ops[op.name];
      a.deviceUs += e.durUs;
      if (!op.inputDims.empty()) a.sigs[{joined(op.inputDims), joined(op.inputTypes)}].us += e.durUs;
    }
  }
  for (auto& [name, a] : ops) {
    OpTime o;
    o.name = name;
    o.calls = a.calls / steps;
    o.selfMs = a.selfUs / 1000.0 / steps;
    o.totalMs = a.totalUs / 1000.0 / steps;
    o.deviceMs = a.deviceUs / 1000.0 / steps;
    o.share = p.stepMs > 0 ? (device ? o.deviceMs : o.selfMs) / p.stepMs : 0.0;
    o.signatures = topSignatures(a.sigs, steps);
    p.ops.push_back(std::move(o));
  }
  std::stable_sort(p.ops.begin(), p.ops.end(), [&](const OpTime& a, const OpTime& b) {
    const double x = device ? a.deviceMs : a.selfMs, y = device ? b.deviceMs : b.selfMs;
    return x != y ? x > y : a.selfMs > b.selfMs;
  });

  // Kernels by name.
  struct KernelAcc {
    double calls = 0, us = 0, maxUs = 0;
    std::string opType, taskType;
    std::map<std::pair<std::string, std::string>, SigAcc> sigs;
  };
  std::map<std::string, KernelAcc> ks;
  for (const TraceEvent& e : t.events) {
    if (!e.onDevice() || e.step < 0) continue;
    KernelAcc& a = ks[e.name];
    a.calls += 1;
    a.us += e.durUs;
    a.maxUs = std::max(a.maxUs, e.durUs);
    if (a.opType.empty()) a.opType = e.opType;
    if (a.taskType.empty()) a.taskType = e.taskType;
    if (!e.inputDims.empty()) {
      SigAcc& s = a.sigs[{joined(e.inputDims), joined(e.inputTypes)}];
      ++s.calls;
      s.us += e.durUs;
    }
  }
  for (auto& [name, a] : ks) {
    KernelTime k{name, a.opType, a.taskType, shortKernelName(name), a.calls / steps, a.us / 1000.0 / steps, a.maxUs, 0,
                 topSignatures(a.sigs, steps)};
    k.share = p.stepMs > 0 ? k.ms / p.stepMs : 0.0;
    p.kernels.push_back(std::move(k));
  }
  std::stable_sort(p.kernels.begin(), p.kernels.end(), [](const KernelTime& a, const KernelTime& b) { return a.ms > b.ms; });
  p.memory = analyzeActivations(t);
  return p;
}

}  // namespace msa::training
