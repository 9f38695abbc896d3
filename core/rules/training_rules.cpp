#include "rules/training_rules.h"

#include "profile/communication.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "rules/training_rule_helpers.h"
#include "rules/sequence_mining.h"
#include "rules/texts.h"

namespace msa::training {
namespace {

using namespace detail;

// The dtype class of an operator's first tensor input: "fp32", "fp64", "low" (fp16/bf16), "" unknown.
std::string precisionOf(const TraceEvent& e) {
  for (size_t i = 0; i < e.inputTypes.size(); ++i) {
    if (i < e.inputDims.size() && (e.inputDims[i].empty() || e.inputDims[i] == "[]") && !e.onDevice()) continue;
    const std::string t = lower(e.inputTypes[i]);
    if (t.empty()) continue;
    if (t == "float" || t == "float32" || t == "dt_float") return "fp32";
    if (t == "double" || t == "float64" || t == "dt_double") return "fp64";
    if (t.find("half") != std::string::npos || t.find("bfloat16") != std::string::npos || t == "float16" || t == "dt_bf16" ||
        t == "bf16")
      return "low";
    return "";
  }
  return "";
}

// CUDA GEMM/convolution kernels that compute in fp32 on the SIMT cores, by name: cuBLAS/cuDNN
// "sgemm" (volta_sgemm_128x64_tn, ampere_sgemm_…, implicit_convolve_sgemm, cutlass_…_simt_sgemm)
// and xmma "gemm_f32f32" kernels. TF32 kernels ("tf32") already use the tensor cores.
bool isFp32GemmKernel(std::string_view name) {
  const std::string n = lower(std::string(name));
  if (n.find("tf32") != std::string::npos) return false;
  return n.find("sgemm") != std::string::npos || n.find("gemm_f32f32") != std::string::npos ||
         n.find("scudnn") != std::string::npos;
}

std::string signatureText(const TraceEvent& e) {
  std::string s;
  for (size_t i = 0; i < e.inputDims.size(); ++i) {
    if (e.inputDims[i].empty() || e.inputDims[i] == "[]") continue;
    s += (s.empty() ? "" : " ") + e.inputDims[i];
  }
  return s;
}

using Context = RuleContext;

void dataLoading(Context& c) {
  const auto& m = c.p.median;
  if (c.p.stepMs <= 0 || m.dataLoadingMs / c.p.stepMs < c.th.dataLoadingShare) return;
  double worst = 0;
  for (const auto& s : c.p.steps) worst = std::max(worst, s.dataLoadingMs);
  std::vector<std::string> nodes = c.p.dataLoaders.empty() ? std::vector<std::string>{"data loading"} : c.p.dataLoaders;
  Finding f = makeFinding("training.data_loading", Category::Host, nodes, m.dataLoadingMs, 0, ImpactSource::Both,
                          phrase("method.training.data_loading", {{"steps", std::to_string(c.p.steps.size())}}));
  f.params = {{"share_pct", formatPercent(m.dataLoadingMs / c.p.stepMs)}, {"stall_ms", formatSignificant(m.dataLoadingMs)},
              {"worst_ms", formatSignificant(worst)}, {"loader", nodes.front()}, {"steps", std::to_string(c.p.steps.size())}};
  addFinding(c.out, std::move(f), {"data_loading"});
}

void idleTime(Context& c) {
  const auto& m = c.p.median;
  if (c.p.stepMs <= 0) return;
  const double share = m.idleMs / c.p.stepMs;
  if (share < c.th.hostIdleShare) return;
  std::map<std::string, double> gapBefore;
  for (const auto& step : c.p.items)
    for (const auto& it : step) gapBefore[c.t.events[static_cast<size_t>(it.event)].name] += it.gapUs;
  const bool device = c.p.timeline == "device";
  Finding f = makeFinding(device ? "training.host_bound" : "training.framework_overhead", Category::Host, topKeys(gapBefore, 5),
                          m.idleMs, 0, ImpactSource::Both,
                          phrase(device ? "method.training.host_bound" : "method.training.framework_overhead"));
  f.params = {{"idle_pct", formatPercent(share)}, {"idle_ms", formatSignificant(m.idleMs)}, {"threshold_pct", formatPercent(c.th.hostIdleShare)},
              {"busy_ms", formatSignificant(m.busyMs)}};
  addFinding(c.out, std::move(f), {"idle", "short_gaps"});
}

void launchBound(Context& c) {
  const auto& m = c.p.median;
  if (c.p.stepMs <= 0 || m.items == 0) return;
  const double countShare = static_cast<double>(m.shortItems) / m.items;
  const double timeShare = (m.shortMs + m.shortGapMs) / c.p.stepMs;
  if (countShare < c.th.shortItemsShare || timeShare < c.th.shortTimeShare) return;
  std::map<std::string, double> shortCount;
  for (const auto& step : c.p.items)
    for (const auto& it : step)
      if (it.isShort) shortCount[c.t.events[static_cast<size_t>(it.event)].name] += 1;
  const bool device = c.p.timeline == "device";
  Finding f = makeFinding("training.launch_bound", Category::SmallOps, topKeys(shortCount, 5), m.shortMs + m.shortGapMs, m.shortMs,
                          ImpactSource::Both,
                          phrase(device ? "method.training.launch_bound_kernel" : "method.training.launch_bound_operator"));
  f.params = {{"short_count", std::to_string(m.shortItems)},
              {"items", std::to_string(m.items)},
              {"short_pct", formatPercent(countShare)},
              {"time_pct", formatPercent(timeShare)},
              {"threshold_us", fixed(c.p.thresholds.shortItemUs, 0)},
              {"work", device ? "kernels" : "operators"}};
  addFinding(c.out, std::move(f), {"short_gaps"});
}

void amp(Context& c) {
  // Topmost matmul/conv operators (or kernels on an Ascend trace) whose inputs are fp32/fp64.
  std::map<std::string, double> us;                  // by reported name
  std::map<std::string, std::string> example;        // name -> shapes of its heaviest call
  std::map<std::string, double> exampleUs;
  std::set<std::string> budgets;
  std::set<std::string> dtypes;
  const bool npuKernels = c.t.device == "npu" && c.t.hasDevice();
  const std::vector<int> family = outermostAncestorOrSelf(
      c.t, [](const TraceEvent& h) { return h.kind == EventKind::CpuOp && isMatmulOrConv(h.name); });
  auto topmostFamily = [&](int i) { return family[static_cast<size_t>(i)]; };
  auto add = [&](const std::string& name, const TraceEvent& shapes, double durUs, const std::string& budget,
                 std::string prec = {}) {
    if (prec.empty()) prec = precisionOf(shapes);
    if (prec != "fp32" && prec != "fp64") return;
    dtypes.insert(prec == "fp32" ? "float32" : "float64");
    us[name] += durUs;
    budgets.insert(budget);
    if (durUs > exampleUs[name]) {
      exampleUs[name] = durUs;
      example[name] = signatureText(shapes);
    }
  };
  for (size_t i = 0; i < c.t.events.size(); ++i) {
    const TraceEvent& e = c.t.events[i];
    if (e.step < 0) continue;
    if (npuKernels) {
      if (e.kind == EventKind::Kernel && isMatmulOrConv(e.opType.empty() ? e.name : e.opType)) add(e.name, e, e.durUs, "kernel:" + e.name);
    } else if (c.p.timeline == "device") {
      if (e.kind != EventKind::Kernel) continue;
      const int top = c.p.launchOp[i] >= 0 ? topmostFamily(c.p.launchOp[i]) : -1;
      if (top >= 0) {
        const TraceEvent& op = c.t.events[static_cast<size_t>(top)];
        // Without record_shapes the operator has no dtypes: the kernel's name may still say.
        add(op.name, op, e.durUs, "op:" + c.t.events[static_cast<size_t>(c.p.launchOp[i])].name,
            precisionOf(op).empty() && isFp32GemmKernel(e.name) ? "fp32" : "");
      } else if (isFp32GemmKernel(e.name)) {
        add(e.name, e, e.durUs, "kernel:" + e.name, "fp32");
      }
    } else if (e.kind == EventKind::CpuOp && isMatmulOrConv(e.name) && topmostFamily(static_cast<int>(i)) == static_cast<int>(i)) {
      add(e.name, e, e.durUs, "op:" + e.name);
      // Its matmul/conv children hold the self time the budget is made of.
      for (size_t j = i + 1; j < c.t.events.size() && c.t.events[j].tsUs < e.endUs(); ++j)
        if (c.t.events[j].kind == EventKind::CpuOp && c.t.events[j].thread == e.thread && isMatmulOrConv(c.t.events[j].name))
          budgets.insert("op:" + c.t.events[j].name);
    }
  }
  double total = 0;
  for (const auto& [n, v] : us) total += v;
  const double current = total / 1000.0 / c.steps;
  if (c.p.stepMs <= 0 || current / c.p.stepMs < c.th.ampMinShare) return;
  std::vector<std::string> nodes = topKeys(us, 8);
  std::string ops;
  for (size_t i = 0; i < nodes.size() && i < 4; ++i)
    ops += (i ? "; " : "") + nodes[i] + " " + formatMilliseconds(us[nodes[i]] / 1000.0 / c.steps) +
           (example[nodes[i]].empty() ? "" : " " + example[nodes[i]]);
  std::string dt;
  for (const auto& d : dtypes) dt += (dt.empty() ? "" : ", ") + d;
  Finding f = makeFinding("training.amp", Category::Precision, nodes, current, current / c.th.ampSpeedup, ImpactSource::Both,
                          phrase("method.training.amp"));
  f.params = {{"ops", ops}, {"share_pct", formatPercent(current / c.p.stepMs)}, {"fp32_ms", formatSignificant(current)}, {"dtypes", dt},
              {"device", c.t.device}};
  addFinding(c.out, std::move(f), std::vector<std::string>(budgets.begin(), budgets.end()));
}

void aicpu(Context& c) {
  std::map<std::string, double> us;  // by kernel name
  std::map<std::string, std::pair<std::string, int>> typeCount;  // name -> (op type, calls)
  std::set<std::string> dtypes;
  for (const TraceEvent& e : c.t.events) {
    if (e.step < 0 || e.kind != EventKind::Kernel || e.durUs <= c.th.aicpuMinUs) continue;
    std::string task = lower(e.taskType);
    std::erase_if(task, [](char ch) { return ch == '_' || ch == ' '; });
    if (task != "aicpu") continue;
    us[e.name] += e.durUs;
    auto& tc = typeCount[e.name];
    tc.first = e.opType.empty() ? e.name : e.opType;
    ++tc.second;
    for (const auto& t : e.inputTypes) {
      const std::string l = lower(t);
      if (l == "int64" || l == "double" || l == "float64" || l == "uint64") dtypes.insert(l == "double" ? "float64" : l);
    }
  }
  if (us.empty()) return;
  double total = 0;
  for (const auto& [n, v] : us) total += v;
  const double current = total / 1000.0 / c.steps;
  std::vector<std::string> nodes = topKeys(us, 8);
  std::string ops;
  std::vector<std::string> budgets;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto& tc = typeCount[nodes[i]];
    if (i < 4)
      ops += (i ? "; " : "") + tc.first + " ×" + fixed(tc.second / c.steps, tc.second % static_cast<int>(c.steps) ? 1 : 0) + " " +
             formatMilliseconds(us[nodes[i]] / 1000.0 / c.steps);
  }
  for (const auto& [n, v] : us) budgets.push_back("kernel:" + n);
  std::string dt;
  for (const auto& d : dtypes) dt += (dt.empty() ? "" : ", ") + d;
  Finding f = makeFinding("training.aicpu", Category::Kernel, nodes, current, 0, ImpactSource::Both,
                          phrase("method.training.aicpu", {{"threshold_us", fixed(c.th.aicpuMinUs, 0)}}));
  f.params = {{"ops", ops}, {"count", std::to_string(nodes.size())}, {"threshold_us", fixed(c.th.aicpuMinUs, 0)},
              {"dtypes", dt.empty() ? "-" : dt}, {"aicpu_ms", formatSignificant(current)}};
  addFinding(c.out, std::move(f), std::move(budgets));
}

void dynamicShapes(Context& c) {
  // Per operator (host op, or device kernel when the host has no shapes) and step, the sorted
  // list of its input-shape signatures.
  const bool hostShapes = std::any_of(c.t.events.begin(), c.t.events.end(),
                                      [](const TraceEvent& e) { return e.kind == EventKind::CpuOp && !e.inputDims.empty(); });
  std::map<std::string, std::vector<std::vector<std::string>>> sigs;
  std::map<std::string, double> us;
  std::vector<uint8_t> inLoader(c.t.events.size(), 0);
  for (size_t i = 0; i < c.t.events.size(); ++i) {
    const TraceEvent& e = c.t.events[i];
    if (e.parent >= 0) {
      const TraceEvent& pa = c.t.events[static_cast<size_t>(e.parent)];
      inLoader[i] = inLoader[static_cast<size_t>(e.parent)] || (pa.kind == EventKind::Annotation && isDataLoading(pa.name));
    }
    const bool use = hostShapes ? e.kind == EventKind::CpuOp : e.onDevice();
    if (!use || e.step < 0 || inLoader[i] || e.inputDims.empty()) continue;
    auto& v = sigs[e.name];
    v.resize(c.t.steps.size());
    v[static_cast<size_t>(e.step)].push_back(signatureText(e));
    us[e.name] += e.durUs;
  }
  std::map<std::string, double> dynamicUs;
  std::map<std::string, std::pair<std::string, std::string>> examples;
  std::vector<uint8_t> newStep(c.t.steps.size(), 0);
  for (auto& [name, perStep] : sigs) {
    // A shape change is a step that runs the operator with a shape no earlier step ran it with,
    // in place of one an earlier step ran (a smaller last batch, another sequence length). How
    // often it runs per step does not matter (an in-place op called once, then twice, with the
    // same shape changes nothing a compiler would see), and neither does a shape an earlier step
    // merely lacks: profilers drop events (CI: the first recorded step had no aten::zero_ of
    // the [8] bias gradient that every later step zeroed, and the second step's read as new).
    const std::vector<std::string>* first = nullptr;
    std::set<std::string> seen;
    std::vector<uint8_t> fresh(perStep.size(), 0);
    for (size_t k = 0; k < perStep.size(); ++k) {
      if (perStep[k].empty()) continue;
      if (!first) {
        first = &perStep[k];
        seen.insert(first->begin(), first->end());
        continue;
      }
      // Only a step with an unseen shape asks whether it replaces one (most steps repeat theirs).
      const bool unseen = std::any_of(perStep[k].begin(), perStep[k].end(), [&](const std::string& sig) { return !seen.count(sig); });
      const std::set<std::string> here = unseen ? std::set<std::string>(perStep[k].begin(), perStep[k].end()) : std::set<std::string>();
      const bool replaces = unseen && std::any_of(seen.begin(), seen.end(), [&](const std::string& s) { return !here.count(s); });
      for (const auto& sig : perStep[k]) {
        if (seen.count(sig) || !replaces) continue;
        fresh[k] = 1;
        if (!examples.count(name)) {  // a shape of the first step it did not run with now, and the new one
          std::set<std::string> now(perStep[k].begin(), perStep[k].end());
          auto gone = std::find_if(first->begin(), first->end(), [&](const std::string& s) { return !now.count(s); });
          examples[name] = {gone != first->end() ? *gone : first->front(), sig};
        }
      }
      seen.insert(perStep[k].begin(), perStep[k].end());
    }
    if (!examples.count(name)) continue;
    dynamicUs[name] = us[name];
    for (size_t k = 0; k < perStep.size(); ++k)
      if (fresh[k]) newStep[k] = 1;
  }
  if (dynamicUs.empty()) return;
  std::vector<double> newMs, repeatMs;
  for (size_t k = 0; k < c.p.steps.size(); ++k) (newStep[k] ? newMs : repeatMs).push_back(c.p.steps[k].ms);
  double current = 0, fixedMs = 0;
  ImpactSource source = ImpactSource::Estimated;
  std::string method;
  if (!newMs.empty() && !repeatMs.empty()) {
    const double excess = std::max(0.0, median(newMs) - median(repeatMs));
    current = excess * static_cast<double>(newMs.size()) / c.steps;
    source = ImpactSource::Measured;
    method = phrase("method.training.dynamic_shape");
  } else {
    method = phrase(repeatMs.empty() ? "method.training.dynamic_shape_all_new" : "method.training.dynamic_shape_none_new");
  }
  std::vector<std::string> nodes = topKeys(dynamicUs, 8);
  const auto& ex = examples[nodes.front()];
  Finding f = makeFinding("training.dynamic_shape", Category::Graph, nodes, current, fixedMs, source, method);
  f.params = {{"count", std::to_string(dynamicUs.size())},
              {"example_op", nodes.front()},
              {"shape_a", ex.first},
              {"shape_b", ex.second},
              {"new_steps", std::to_string(newMs.size())},
              {"steps", std::to_string(c.p.steps.size())}};
  addFinding(c.out, std::move(f), {});
}

// Per-step device time of the events matching `pick`, by name (for nodes and budgets).
std::map<std::string, double> deviceTimeByName(const Context& c, bool (*pick)(const TraceEvent&)) {
  std::map<std::string, double> us;
  for (const TraceEvent& e : c.t.events)
    if (e.step >= 0 && e.onDevice() && pick(e)) us[e.name] += e.durUs;
  return us;
}

// Per-step device time of communication kernels of one kind, by name (for nodes and budgets).
std::map<std::string, double> communicationByName(const Context& c, std::string_view kind) {
  std::map<std::string, double> us;
  for (size_t i = 0; i < c.t.events.size(); ++i)
    if (c.t.events[i].step >= 0 && c.p.communication[i] == kind) us[c.t.events[i].name] += c.t.events[i].durUs;
  return us;
}

// A finding on the exposed time of one kind of communication: `kind` "collective" (data-,
// tensor- or expert-parallel collectives) or "p2p" (pipeline point-to-point). Null when the
// exposed time is under the line.
Finding* exposedCommunication(Context& c, std::string_view kind, const char* rule, double totalMs, double exposedMs,
                              std::string method) {
  if (c.p.timeline != "device" || c.p.stepMs <= 0 || exposedMs / c.p.stepMs < c.th.commExposedShare) return nullptr;
  auto us = communicationByName(c, kind);
  std::vector<std::string> nodes = topKeys(us, 8), budgets;
  for (const auto& [n, v] : us) budgets.push_back("kernel:" + n);
  Finding f = makeFinding(rule, Category::named("communication"), nodes, exposedMs, 0, ImpactSource::Both, std::move(method));
  const std::string role = phrase(kind == "p2p" ? "comm.role.pipeline" : "comm.role.unknown");
  f.params = {{"exposed_ms", formatSignificant(exposedMs)},
              {"exposed_pct", formatPercent(exposedMs / c.p.stepMs)},
              {kind == "p2p" ? "p2p_ms" : "comm_ms", formatSignificant(totalMs)},
              {kind == "p2p" ? "p2p_pct" : "comm_pct", formatPercent(totalMs / c.p.stepMs)},
              {"kernel", nodes.empty() ? std::string("-") : nodes.front()},
              {"parts", phrase("comm.part.timeline", {{"role", role}, {"ms", formatSignificant(totalMs)}})},
              {"stage", phrase("comm.stage_unknown")},
              {"advice", phraseList({phrase("comm.advice.dp_allreduce"), phrase("comm.advice.tp")}, "list.sentence")}};
  addFinding(c.out, std::move(f), std::move(budgets));
  return &c.out.back();
}

// Data-parallel (gradient all-reduce, ZeRO/FSDP all-gather and reduce-scatter), tensor-parallel
// or expert-parallel collectives the step waits for.
void communication(Context& c) {
  exposedCommunication(c, "collective", "training.communication", c.p.median.collectiveMs, c.p.median.collectiveExposedMs,
                       phrase("method.training.communication"));
}

// Pipeline point-to-point traffic the step waits for: a stage idles until its neighbour sends
// the activations (forward) or the gradients (backward) of a micro-batch — the pipeline bubble,
// which more micro-batches or an interleaved schedule shrink; gradient bucketing does nothing here.
void pipelineBubble(Context& c) {
  Finding* f = exposedCommunication(c, "p2p", "training.pipeline_bubble", c.p.median.p2pMs, c.p.median.p2pExposedMs,
                                    phrase("method.training.pipeline_bubble"));
  if (!f) return;
  std::vector<double> bubbles;  // torch_npu's own figure, when step_trace_time.csv has a Bubble column
  for (const StepTraceRow& r : c.t.stepTrace)
    if (r.bubbleUs >= 0) bubbles.push_back(r.bubbleUs / 1000.0);
  f->params["bubble_note"] =
      bubbles.empty() || median(bubbles) <= 0 ? std::string() : phrase("comm.bubble_note", {{"ms", formatSignificant(median(bubbles))}});
}

void hostCopies(Context& c) {
  const auto& m = c.p.median;
  if (c.p.timeline != "device" || c.p.stepMs <= 0 || m.copies == 0 ||
      m.copyExposedMs / c.p.stepMs < c.th.copyExposedShare)
    return;
  auto us = deviceTimeByName(c, [](const TraceEvent& e) { return e.kind == EventKind::Memcpy && !copyDirection(e.name).empty(); });
  std::vector<std::string> nodes = topKeys(us, 8), budgets;
  for (const auto& [n, v] : us) budgets.push_back("kernel:" + n);
  budgets.push_back("idle");  // a synchronous copy also stalls the launches behind it
  Finding f = makeFinding("training.host_copies", Category::Host, nodes, m.copyExposedMs, 0, ImpactSource::Both,
                          phrase("method.training.host_copies"));
  f.params = {{"copies", std::to_string(m.copies)},
              {"h2d_ms", formatSignificant(m.h2dMs)},
              {"d2h_ms", formatSignificant(m.d2hMs)},
              {"exposed_ms", formatSignificant(m.copyExposedMs)},
              {"exposed_pct", formatPercent(m.copyExposedMs / c.p.stepMs)}};
  addFinding(c.out, std::move(f), std::move(budgets));
}

std::string mbText(double bytes) { return fixed(bytes / (1024.0 * 1024.0), bytes >= 100.0 * 1024 * 1024 ? 0 : 1); }

// Modules whose saved activations are large against their forward compute: checkpointing them
// frees that memory for one more forward pass each in the backward. It costs time, saves none:
// the impact is 0 ms and the memory and recompute cost are in the params.
void checkpointCandidates(Context& c) {
  const ActivationMemory& mem = c.p.memory;
  if (mem.source.empty() || mem.savedBytes <= 0 || c.p.stepMs <= 0) return;
  // Only where memory is short: nothing is gained by recomputing when the step fits with room.
  const double limit = c.th.memoryLimitBytes;
  const double peak = std::max(c.th.memoryPeakBytes, mem.savedBytes);
  if (limit <= 0 || peak < c.th.memoryNearShare * limit) return;
  const std::string limitText = c.th.memoryLimitIsBudget ? phrase("training.memory_limit.budget")
                                                         : phrase("training.memory_limit.capacity", {{"device", c.th.memoryDevice}});
  struct Candidate {
    const ModuleActivation* m;
    double freed, rate;  // rate: share of the saved activations freed per share of the step recomputed
  };
  std::vector<Candidate> eligible;
  for (const ModuleActivation& m : mem.modules) {
    if (m.parent.empty() || m.forwardMs <= 0) continue;  // the model itself, the loss
    const double freed = m.savedBytes - m.outputBytes;
    if (freed < c.th.checkpointMinBytes || freed < c.th.checkpointMinShare * mem.savedBytes) continue;
    const double rate = (freed / mem.savedBytes) / (m.forwardMs / c.p.stepMs);
    if (rate < c.th.checkpointMinRatio) continue;
    eligible.push_back({&m, freed, rate});
  }
  std::stable_sort(eligible.begin(), eligible.end(), [](const Candidate& a, const Candidate& b) { return a.rate > b.rate; });
  // One of a module and its submodules: checkpointing a block already recomputes its children.
  auto ancestorOf = [&](const std::string& a, const ModuleActivation& m) {
    for (const ModuleActivation* q = &m; q && !q->parent.empty();) {
      if (q->parent == a) return true;
      auto it = std::find_if(mem.modules.begin(), mem.modules.end(), [&](const ModuleActivation& x) { return x.label == q->parent; });
      q = it == mem.modules.end() ? nullptr : &*it;
    }
    return false;
  };
  std::vector<const ModuleActivation*> chosen;
  for (const Candidate& cand : eligible) {
    if (static_cast<int>(chosen.size()) >= c.th.maxCheckpointCandidates) break;
    bool overlaps = false;
    for (const ModuleActivation* k : chosen) overlaps = overlaps || ancestorOf(k->label, *cand.m) || ancestorOf(cand.m->label, *k);
    if (overlaps) continue;
    chosen.push_back(cand.m);
    const ModuleActivation& m = *cand.m;
    Finding f = makeFinding("training.checkpoint", Category::Host, {m.label}, 0, 0, ImpactSource::Measured,
                            phrase("method.training.checkpoint"));
    f.params = {{"module", m.label},
                {"type", m.type.empty() ? std::string("-") : m.type},
                {"freed_mb", mbText(cand.freed)},
                {"freed_bytes", fixed(cand.freed, 0)},
                {"saved_mb", mbText(m.savedBytes)},
                {"output_mb", mbText(m.outputBytes)},
                {"freed_pct", formatPercent(cand.freed / mem.savedBytes)},
                {"total_mb", mbText(mem.savedBytes)},
                {"recompute_ms", formatSignificant(m.forwardMs)},
                {"recompute_pct", formatPercent(c.p.stepMs > 0 ? m.forwardMs / c.p.stepMs : 0)},
                {"ratio", fixed(cand.rate, 1)},
                {"source", mem.source},
                {"peak_mb", mbText(peak)},
                {"limit_mb", mbText(limit)},
                {"peak_pct", formatPercent(peak / limit)},
                {"limit", limitText}};
    addFinding(c.out, std::move(f), {});
  }
}

}  // namespace

bool isMatmulOrConv(std::string_view name) {
  static const std::set<std::string, std::less<>> aten{
      "aten::mm",     "aten::addmm",  "aten::bmm",    "aten::baddbmm", "aten::matmul", "aten::linear", "aten::addmv",
      "aten::mv",     "aten::einsum", "aten::conv1d", "aten::conv2d",  "aten::conv3d", "aten::convolution",
      "aten::_convolution", "aten::convolution_backward", "aten::conv_transpose1d", "aten::conv_transpose2d",
      "aten::conv_transpose3d", "aten::mkldnn_convolution", "aten::cudnn_convolution", "aten::_scaled_dot_product_attention",
      "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention"};
  if (aten.count(name)) return true;
  if (name.find("::") != std::string_view::npos) return false;
  const std::string l = lower(std::string(name));  // Ascend op types: MatMulV2, BatchMatMul, Conv2DBackpropFilter, …
  return l.find("matmul") != std::string::npos || l.starts_with("conv") || l.find("gemm") != std::string::npos;
}

std::map<std::string, double> trainingBudgets(const TrainingTrace& trace, const TrainingProfile& p) {
  // The idle time in two disjoint pools: the gaps right before short work items (what the
  // launch-bound and fusion findings save) and the rest.
  const double shortGaps = std::min(p.median.shortGapMs, p.median.idleMs);
  std::map<std::string, double> b{{"idle", p.median.idleMs - shortGaps},
                                  {"short_gaps", shortGaps},
                                  {"data_loading", p.median.dataLoadingMs}};
  const bool device = p.timeline == "device";
  for (const OpTime& o : p.ops) b["op:" + o.name] = device ? o.deviceMs : o.selfMs;
  for (const KernelTime& k : p.kernels) b["kernel:" + k.name] = k.ms;
  (void)trace;
  return b;
}

std::vector<Finding> runTrainingRules(const TrainingTrace& trace, const TrainingProfile& profile, const RuleThresholds& th,
                                      const CommRecord* comm) {
  std::vector<Finding> out;
  if (profile.steps.empty()) return out;
  Context c{trace, profile, th, static_cast<double>(profile.steps.size()), out};
  dataLoading(c);
  idleTime(c);
  launchBound(c);
  amp(c);
  aicpu(c);
  dynamicShapes(c);
  if (comm && !comm->ops.empty()) {
    roleAwareCommunication(c, *comm);
  } else {
    communication(c);
    pipelineBubble(c);
  }
  hostCopies(c);
  checkpointCandidates(c);
  fusionAndSyncRules(trace, profile, th, out);
  // Kernel names as HTA prints them: a CUDA kernel's full signature runs to hundreds of
  // characters. Budgets keep the full names (they key the per-kernel pools).
  for (auto& tf : out) {
    for (std::string& n : tf.nodes) n = shortKernelName(n);
    if (auto it = tf.params.find("kernel"); it != tf.params.end()) it->second = shortKernelName(it->second);
    if (!tf.nodes.empty() && tf.id.starts_with(tf.rule + "@"))
      tf.id = tf.rule + "@" + tf.nodes.front();
  }
  // Ids are unique in a report: a second finding on the same anchor gets "#2", …
  std::map<std::string, int> seen;
  for (auto& tf : out)
    if (int n = ++seen[tf.id]; n > 1) tf.id += "#" + std::to_string(n);
  return out;
}

}  // namespace msa::training
