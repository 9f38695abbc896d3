// Communication told apart by what it is for (profile/communication.h), as an Ascend performance
// engineer reads a job's rank: waiting for another pipeline stage is a balance problem (more
// micro-batches, an interleaved schedule, layers moved between stages), data moved across stages
// is a model-layout problem (tied embeddings), data-parallel reduction not overlapped with
// backward is an overlap setting, and only many small all-reduces are a bucket problem. The
// impact of waiting is the wait itself, never compute it could hide under. Without a
// communication record the kinds come from the kernels' names (training_rules.cpp).
#include <algorithm>
#include <map>
#include <set>

#include "profile/communication.h"
#include "rules/texts.h"
#include "rules/training_rule_helpers.h"

namespace msa::training {
namespace {

using namespace detail;

struct RoleTime {
  double elapsedMs = 0, transitMs = 0, waitMs = 0;  // per step
  double exposedWaitMs = 0, exposedTransitMs = 0;   // of which no compute kernel overlapped
  double megabytes = 0;                              // on the largest link, per step
  int ops = 0;
  std::map<std::string, double> kernels;  // name -> exposed ms per step
  std::set<std::string> types, transports;
  double exposedMs() const { return exposedWaitMs + exposedTransitMs; }
};

// What of an operator no compute kernel overlapped, from the timeline (the kernel of the same
// name); all of it when the timeline does not have the kernel.
double exposedShare(const RuleContext& c, const CommOp& op, double perStepElapsedMs) {
  auto it = c.p.exposedMsByKernel.find(op.name);
  if (it == c.p.exposedMsByKernel.end() || perStepElapsedMs <= 0) return 1.0;
  return std::clamp(it->second / perStepElapsedMs, 0.0, 1.0);
}

std::map<CommRole, RoleTime> timeByRole(const RuleContext& c, const CommRecord& rec) {
  const double steps = std::max(1, rec.steps);
  std::map<CommRole, RoleTime> out;
  for (const CommOp& op : rec.ops) {
    RoleTime& r = out[op.role];
    const double elapsed = op.elapsedMs / steps, transit = op.transitMs / steps, wait = op.waitMs / steps;
    const double share = exposedShare(c, op, elapsed);
    r.elapsedMs += elapsed;
    r.transitMs += transit;
    r.waitMs += wait;
    r.exposedWaitMs += wait * share;
    r.exposedTransitMs += transit * share;
    r.megabytes += op.megabytes / steps;
    ++r.ops;
    r.kernels[op.name] += (elapsed) * share;
    r.types.insert(op.type);
    if (!op.transport.empty()) r.transports.insert(op.transport);
  }
  return out;
}

std::string roleText(CommRole r) { return phrase("comm.role." + std::string(commRoleName(r))); }

// "pipeline point-to-point: 71.5 ms waiting, 1.2 ms moving 8.4 MB (3 operators)"
std::string part(CommRole role, const RoleTime& t) {
  return phrase("comm.part", {{"role", roleText(role)},
                              {"wait", formatSignificant(t.waitMs)},
                              {"transit", formatSignificant(t.transitMs)},
                              {"mb", fixed(t.megabytes, t.megabytes >= 10 ? 0 : 1)},
                              {"ops", std::to_string(t.ops)}});
}

std::vector<std::string> budgetsOf(const std::vector<const RoleTime*>& roles) {
  std::vector<std::string> b;
  for (const RoleTime* r : roles)
    for (const auto& [name, ms] : r->kernels) b.push_back("kernel:" + name);
  return b;
}

std::string firstKernel(const std::vector<const RoleTime*>& roles) {
  std::string best;
  double most = -1;
  for (const RoleTime* r : roles)
    for (const auto& [name, ms] : r->kernels)
      if (ms > most) most = ms, best = name;
  return best.empty() ? std::string("-") : best;
}

std::string stageText(const ParallelLayout& l) {
  if (l.stage() < 0 || l.stages() <= 0) return phrase("comm.stage_unknown");
  return phrase("comm.stage", {{"stage", std::to_string(l.stage() + 1)}, {"stages", std::to_string(l.stages())}});
}

}  // namespace

void roleAwareCommunication(detail::RuleContext& c, const CommRecord& rec) {
  if (c.p.stepMs <= 0) return;
  const auto byRole = timeByRole(c, rec);
  auto get = [&](CommRole r) -> const RoleTime* {
    auto it = byRole.find(r);
    return it == byRole.end() ? nullptr : &it->second;
  };
  const double step = c.p.stepMs;
  const bool stages = rec.layout.pp > 1 || get(CommRole::Pipeline) || get(CommRole::StageCrossing);

  // Waiting on another stage: pipeline send/receive, collectives across stages, and (with
  // stages) the world's collectives, which wait for the slowest stage too.
  std::vector<const RoleTime*> waiting;
  std::vector<std::string> parts;
  double waitMs = 0, p2pMs = 0;
  for (CommRole r : {CommRole::Pipeline, CommRole::StageCrossing, CommRole::World}) {
    const RoleTime* t = get(r);
    if (!t || (r == CommRole::World && !stages)) continue;
    waiting.push_back(t);
    parts.push_back(part(r, *t));
    waitMs += t->exposedWaitMs;
    if (r == CommRole::Pipeline) p2pMs += t->elapsedMs;
  }
  if (waitMs / step >= c.th.commExposedShare) {
    // The text speaks of the neighbour's activations or gradients: it names a send/receive when
    // the rank has one, even where a world collective (which waits for the slowest stage too)
    // took longer.
    const RoleTime* p2p = get(CommRole::Pipeline);
    const std::string kernel = p2p && !p2p->kernels.empty() ? firstKernel({p2p}) : firstKernel(waiting);
    Finding f = makeFinding("training.pipeline_bubble", Category::named("communication"), {kernel}, waitMs, 0,
                            ImpactSource::Both, phrase("method.training.pipeline_wait"));
    std::vector<double> bubbles;  // torch_npu's own figure, when step_trace_time.csv has a Bubble column
    for (const StepTraceRow& r : c.t.stepTrace)
      if (r.bubbleUs >= 0) bubbles.push_back(r.bubbleUs / 1000.0);
    f.params = {{"exposed_ms", formatSignificant(waitMs)},
                {"exposed_pct", formatPercent(waitMs / step)},
                {"p2p_ms", formatSignificant(p2pMs)},
                {"p2p_pct", formatPercent(p2pMs / step)},
                {"bubble_note", bubbles.empty() || median(bubbles) <= 0 ? std::string()
                                                                   : phrase("comm.bubble_note", {{"ms", formatSignificant(median(bubbles))}})},
                {"kernel", kernel},
                {"stage", stageText(rec.layout)},
                {"parts", phraseList(parts)}};
    addFinding(c.out, std::move(f), budgetsOf(waiting));
  }

  // Data moved across stages (the tied embedding's gradient): a layout cost, not a wait.
  if (const RoleTime* t = get(CommRole::StageCrossing); t && t->exposedTransitMs / step >= c.th.commExposedShare) {
    const double gbps = t->transitMs > 0 ? t->megabytes / t->transitMs : 0;  // MB/ms = GB/s
    Finding f = makeFinding("training.stage_collective", Category::named("communication"), {firstKernel({t})},
                            t->exposedTransitMs, 0, ImpactSource::Both, phrase("method.training.stage_collective"));
    std::string transports;
    for (const auto& tr : t->transports) transports += (transports.empty() ? "" : "/") + tr;
    f.params = {{"exposed_ms", formatSignificant(t->exposedTransitMs)},
                {"exposed_pct", formatPercent(t->exposedTransitMs / step)},
                {"mb", fixed(t->megabytes, 0)},
                {"transit_ms", formatSignificant(t->transitMs)},
                {"gbps", fixed(gbps, 1)},
                {"transport", transports.empty() ? std::string("-") : transports},
                {"kernel", firstKernel({t})},
                {"stage", stageText(rec.layout)}};
    addFinding(c.out, std::move(f), budgetsOf({t}));
  }

  // Everything else a step waits on: data-parallel reduction and gathering, tensor/context/
  // expert-parallel collectives, broadcasts, what could not be told apart.
  std::vector<const RoleTime*> rest;
  std::vector<std::string> restParts, advice;
  double exposedMs = 0, totalMs = 0;
  for (CommRole r : {CommRole::DataParallel, CommRole::TensorParallel, CommRole::ContextParallel, CommRole::ExpertParallel,
                     CommRole::Broadcast, CommRole::World, CommRole::Unknown}) {
    const RoleTime* t = get(r);
    if (!t || (r == CommRole::World && stages)) continue;
    rest.push_back(t);
    restParts.push_back(part(r, *t));
    exposedMs += t->exposedMs();
    totalMs += t->elapsedMs;
    if (r == CommRole::DataParallel) {
      const bool zero = t->types.count("reducescatter") && t->types.count("allgather");
      const bool small = t->ops >= 20 && t->megabytes / std::max(1, t->ops) < 4;
      advice.push_back(phrase(zero ? "comm.advice.dp_zero" : small ? "comm.advice.dp_small" : "comm.advice.dp_allreduce"));
    } else if (r == CommRole::TensorParallel) {
      advice.push_back(phrase("comm.advice.tp"));
    } else if (r == CommRole::ContextParallel) {
      advice.push_back(phrase("comm.advice.cp"));
    } else if (r == CommRole::ExpertParallel) {
      advice.push_back(phrase("comm.advice.ep"));
    } else if (r == CommRole::Broadcast) {
      advice.push_back(phrase("comm.advice.broadcast"));
    } else if (r == CommRole::World) {
      advice.push_back(phrase("comm.advice.world"));
    }
  }
  if (exposedMs / step >= c.th.commExposedShare) {
    if (advice.empty()) advice.push_back(phrase("comm.advice.dp_allreduce"));
    Finding f = makeFinding("training.communication", Category::named("communication"), {firstKernel(rest)}, exposedMs, 0,
                            ImpactSource::Both, phrase("method.training.communication"));
    f.params = {{"exposed_ms", formatSignificant(exposedMs)},
                {"exposed_pct", formatPercent(exposedMs / step)},
                {"comm_ms", formatSignificant(totalMs)},
                {"comm_pct", formatPercent(totalMs / step)},
                {"kernel", firstKernel(rest)},
                {"parts", phraseList(restParts)},
                {"advice", phraseList(advice, "list.sentence")}};
    addFinding(c.out, std::move(f), budgetsOf(rest));
  }
}

}  // namespace msa::training
