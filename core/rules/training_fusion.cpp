// The training rules about what one kernel could do instead of several, and about the host
// waiting for the device:
//   training.fused_operator  a sequence that a real fused operator computes (the catalogue in
//                            resources/training/fused_operators.json), a per-parameter optimizer
//                            loop a fused optimizer replaces, or on CUDA a repeated chain of
//                            pointwise kernels torch.compile turns into one kernel;
//   training.host_sync       operators that make the host wait for the device (.item(), nonzero,
//                            boolean masks, explicit synchronisation): the device idles after each.
// A repeated sequence no fused operator implements is not proposed: kernel windows such as
// "RmsNorm → MatMulV3 → Slice → RmsNorm → …" exist in every transformer and no kernel fuses them.
#include <algorithm>
#include <functional>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "rules/texts.h"
#include "rules/training_rule_helpers.h"
#include "rules/sequence_mining.h"
#include "rules/training_rules.h"
#include "util/embedded.h"

namespace msa::training {
namespace {

using namespace detail;

struct Element {
  std::vector<std::string> names;  // lower case
  bool optional = false;
};

struct FusedOperator {
  std::string id, fused, what, source;
  std::vector<std::string> devices;
  std::vector<Element> sequence;
};

struct Catalogue {
  std::vector<FusedOperator> operators;  // longest first
  std::map<std::string, std::pair<std::string, std::string>> compile;  // device -> (fused, source)
  // device -> (optimizer class -> its fused replacement, source)
  std::map<std::string, std::pair<std::map<std::string, std::string>, std::string>> optimizers;
};

const Catalogue& catalogue() {
  static const Catalogue c = [] {
    Catalogue out;
    const auto j = nlohmann::json::parse(embedded::find("training/fused_operators.json"), nullptr, false);
    if (!j.is_object()) {
      embedded::recordTableError("training/fused_operators.json", "not a JSON object");
      return out;
    }
    static const nlohmann::json none = nlohmann::json::object();
    auto section = [&](const char* key) -> const nlohmann::json& { return j.contains(key) ? j.at(key) : none; };
    if (section("fused_operators").is_array())
      for (const auto& e : section("fused_operators")) {
        FusedOperator f{e.value("id", ""), e.value("fused", ""), e.value("what", ""), e.value("source", ""),
                        e.value("devices", std::vector<std::string>{}), {}};
        if (e.contains("sequence") && e.at("sequence").is_array())
          for (const auto& el : e.at("sequence")) {
            Element x;
            for (const auto& n : el.value("any", std::vector<std::string>{})) x.names.push_back(lower(n));
            x.optional = el.value("optional", false);
            f.sequence.push_back(std::move(x));
          }
        out.operators.push_back(std::move(f));
      }
    std::stable_sort(out.operators.begin(), out.operators.end(),
                     [](const FusedOperator& a, const FusedOperator& b) { return a.sequence.size() > b.sequence.size(); });
    if (section("compile").is_object())
      for (const auto& [device, v] : section("compile").items()) out.compile[device] = {v.value("fused", ""), v.value("source", "")};
    if (section("fused_optimizers").is_object())
      for (const auto& [device, v] : section("fused_optimizers").items())
        out.optimizers[device] = {v.value("by_optimizer", std::map<std::string, std::string>{}), v.value("source", "")};
    return out;
  }();
  return c;
}

using Ctx = RuleContext;

// What a work item is called, most specific first: its operator type (Ascend kernels), the host
// operator that launched it (CUDA kernels), its own name.
std::vector<std::string> tokens(const Ctx& c, int i) {
  const TraceEvent& e = c.event(i);
  std::vector<std::string> v;
  if (!e.opType.empty()) v.push_back(lower(e.opType));
  if (e.onDevice() && c.p.launchOp[static_cast<size_t>(i)] >= 0) v.push_back(lower(c.event(c.p.launchOp[static_cast<size_t>(i)]).name));
  v.push_back(lower(e.name));
  return v;
}

std::string label(const Ctx& c, int i) {
  const TraceEvent& e = c.event(i);
  return e.opType.empty() ? shortKernelName(e.name) : e.opType;
}

bool matches(const Element& el, const std::vector<std::string>& tokens) {
  for (const std::string& t : tokens)
    if (std::find(el.names.begin(), el.names.end(), t) != el.names.end()) return true;
  return false;
}

// Items matched by seq[k…] from items[at] on (consecutive items), or -1 when it does not match.
int matchAt(const Ctx& c, const std::vector<TrainingProfile::Item>& items, size_t at, const std::vector<Element>& seq, size_t k) {
  if (k == seq.size()) return 0;
  if (at < items.size() && matches(seq[k], tokens(c, items[at].event)))
    if (const int rest = matchAt(c, items, at + 1, seq, k + 1); rest >= 0) return 1 + rest;
  return seq[k].optional ? matchAt(c, items, at, seq, k + 1) : -1;
}

bool forDevice(const FusedOperator& f, const std::string& device) {
  return f.devices.empty() || std::find(f.devices.begin(), f.devices.end(), device) != f.devices.end();
}

void addFusion(Ctx& c, const std::string& key, const std::string& fused, const std::string& what, const std::string& source,
               const std::string& chain, int occurrences, double spanUs, double gapUs, int shortMembers, int members) {
  const double span = spanUs / 1000.0 / c.steps, gaps = gapUs / 1000.0 / c.steps;
  Finding f = makeFinding("training.fused_operator", Category::Fusion, {key}, span, span - gaps, ImpactSource::Both,
                          phrase("method.training.fused_operator"));
  f.id = "training.fused_operator@" + key;
  const double perStep = occurrences / c.steps;
  f.params = {{"fused", fused},
              {"what", what},
              {"source", source},
              {"sequence", chain},
              {"per_step", fixed(perStep, perStep == std::floor(perStep) ? 0 : 1)},
              {"span_ms", formatSignificant(span)},
              {"gap_ms", formatSignificant(gaps)},
              {"span_pct", formatPercent(c.p.stepMs > 0 ? span / c.p.stepMs : 0)}};
  // The gaps inside the occurrences are gaps before their members: before short items they are
  // the launch-bound finding's time too (the short_gaps budget both claim from).
  std::vector<std::string> pools{"short_gaps"};
  if (2 * shortMembers < members) pools.insert(pools.begin(), "idle");
  addFinding(c.out, std::move(f), std::move(pools));
}

void catalogueFusions(Ctx& c) {
  for (const FusedOperator& op : catalogue().operators) {
    if (!forDevice(op, c.t.device) || op.sequence.empty()) continue;
    int occurrences = 0, shortMembers = 0, members = 0;
    double spanUs = 0, gapUs = 0;
    std::string chain;
    for (const auto& items : c.p.items) {
      for (size_t at = 0; at < items.size();) {
        const int matched = matchAt(c, items, at, op.sequence, 0);
        const size_t n = matched > 0 ? static_cast<size_t>(matched) : 0;
        if (n < 2) {
          ++at;
          continue;
        }
        ++occurrences;
        const TraceEvent& first = c.event(items[at].event);
        double end = first.endUs();
        for (size_t m = 1; m < n; ++m) {
          const auto& it = items[at + m];
          end = std::max(end, c.event(it.event).endUs());
          gapUs += it.gapUs;
          shortMembers += it.isShort;
          ++members;
        }
        spanUs += end - first.tsUs;
        if (chain.empty())
          for (size_t m = 0; m < n; ++m) chain += (m ? " → " : "") + label(c, items[at + m].event);
        at += n;
      }
    }
    // One occurrence in the whole trace is a coincidence of names, not the model's structure.
    if (occurrences >= std::max(1.0, c.steps)) addFusion(c, op.id, op.fused, op.what, op.source, chain, occurrences, spanUs, gapUs, shortMembers, members);
  }
}

bool alreadyFused(const std::string& name) {
  const std::string n = lower(name);
  for (const char* k : {"fused", "multi_tensor_apply", "_foreach_", "foreach", "applyadam", "applymomentum"})
    if (n.find(k) != std::string::npos) return true;
  return false;
}

// Per-parameter optimizer loops: many work items inside Optimizer.step#… where a fused (or
// foreach) optimizer runs a handful.
void fusedOptimizer(Ctx& c) {
  const auto& choices = catalogue().optimizers;
  auto it = choices.find(c.t.device);
  if (it == choices.end()) return;
  // The innermost optimizer step or already-fused operator around an event decides.
  const auto decides = [](const TraceEvent& h) {
    return (h.kind == EventKind::Annotation && h.name.starts_with("Optimizer.step#")) || alreadyFused(h.name);
  };
  const std::vector<int> decider = nearestAncestor(c.t, decides);
  auto inOptimizer = [&](int i) -> std::string {
    const TraceEvent& e = c.event(i);
    int q = e.onDevice() ? c.p.launchOp[static_cast<size_t>(i)] : i;
    if (q < 0) return "";
    if (!decides(c.event(q))) q = decider[static_cast<size_t>(q)];
    if (q < 0 || alreadyFused(c.event(q).name)) return "";
    return c.event(q).name;
  };
  int items = 0, shortMembers = 0;
  double spanUs = 0, gapUs = 0;
  std::string optimizer;
  for (const auto& step : c.p.items) {
    double first = -1, last = 0;
    for (const auto& item : step) {
      const std::string name = inOptimizer(item.event);
      if (name.empty() || alreadyFused(c.event(item.event).name)) continue;
      optimizer = name;
      const TraceEvent& e = c.event(item.event);
      if (first < 0) first = e.tsUs;
      else gapUs += item.gapUs;
      last = std::max(last, e.endUs());
      ++items;
      shortMembers += item.isShort;
    }
    if (first >= 0) spanUs += last - first;
  }
  const double perStep = items / c.steps;
  if (perStep < c.th.fusedOptimizerMinItems || c.p.stepMs <= 0 || spanUs / 1000.0 / c.steps < c.th.fusedOptimizerMinShare * c.p.stepMs)
    return;
  const std::string step = optimizer.substr(optimizer.find('#') + 1);  // "SGD.step"
  const std::string cls = step.substr(0, step.find('.'));
  // Only optimizers with a fused implementation: a third-party one (Shampoo, …) has none here.
  auto fused = it->second.first.find(cls);
  if (fused == it->second.first.end()) return;
  addFusion(c, "optimizer", fused->second, "the " + cls + " update of every parameter (" + fixed(perStep, 0) + " work items per step)",
            it->second.second, step, items, spanUs, gapUs, shortMembers, items);
}

bool pointwiseKernel(const std::string& name) {
  const std::string n = lower(name);
  for (const char* k : {"elementwise_kernel", "vectorized_elementwise", "unrolled_elementwise", "reduce_kernel"})
    if (n.find(k) != std::string::npos) return true;
  return false;
}

// CUDA: repeated chains of pointwise/reduction kernels of at least two kinds, which TorchInductor
// (torch.compile) generates as one kernel each.
void compileRegions(Ctx& c) {
  const auto& choices = catalogue().compile;
  auto it = choices.find(c.t.device);
  if (it == choices.end() || c.p.timeline != "device") return;
  std::unordered_map<std::string, int> ids;
  std::vector<std::string> names;
  std::vector<std::vector<SequenceItem>> seq(c.p.items.size());
  double totalUs = 0;
  for (size_t k = 0; k < c.p.items.size(); ++k) {
    totalUs += c.p.steps[k].ms * 1000.0;
    for (const auto& item : c.p.items[k]) {
      const TraceEvent& e = c.event(item.event);
      const int launch = c.p.launchOp[static_cast<size_t>(item.event)];
      // Kernels are told apart by the operator that launched them: one elementwise kernel
      // template serves add, mul, silu, ….
      const std::string key = pointwiseKernel(e.name) ? "pw:" + (launch >= 0 ? c.event(launch).name : shortKernelName(e.name))
                                                      : "other:" + e.name;
      auto [pos, added] = ids.try_emplace(key, static_cast<int>(names.size()));
      if (added) names.push_back(key);
      seq[k].push_back({pos->second, e.tsUs, e.endUs(), item.gapUs});
    }
  }
  SequenceOptions o;
  o.minLength = 3;
  o.maxResults = 3;
  for (const RepeatedSequence& r : findRepeatedSequences(seq, totalUs, o)) {
    std::set<int> distinct(r.tokens.begin(), r.tokens.end());
    bool pointwise = distinct.size() >= 2;
    std::string chain;
    for (int tok : r.tokens) {
      const std::string& n = names[static_cast<size_t>(tok)];
      pointwise = pointwise && n.starts_with("pw:");
      chain += (chain.empty() ? "" : " → ") + n.substr(n.find(':') + 1);
    }
    if (!pointwise) continue;
    addFusion(c, "compile:" + chain, it->second.first, phrase("training.what.pointwise_chain"), it->second.second, chain,
              static_cast<int>(r.occurrences.size()), r.spanUs, r.innerGapUs, 0, 0);
  }
}

bool hostSyncOp(const TraceEvent& e) {
  static const std::set<std::string, std::less<>> host{
      "aten::item",        "aten::_local_scalar_dense", "aten::nonzero",           "aten::masked_select",
      "aten::unique",      "aten::_unique",             "aten::_unique2",          "aten::unique_dim",
      "aten::unique_consecutive", "aten::is_nonzero",   "aten::repeat_interleave", "aten::nonzero_numpy"};
  static const std::set<std::string, std::less<>> runtime{"cudaStreamSynchronize", "cudaDeviceSynchronize",
                                                          "cudaEventSynchronize",  "aclrtSynchronizeStream",
                                                          "aclrtSynchronizeDevice", "aclrtSynchronizeEvent"};
  static const std::set<std::string, std::less<>> device{"nonzero", "maskedselect", "unique", "uniquewithcountsext2",
                                                         "uniqueconsecutive"};
  if (e.kind == EventKind::CpuOp) return host.count(e.name) > 0;
  if (e.kind == EventKind::Runtime) return runtime.count(e.name) > 0;
  if (e.kind == EventKind::Kernel) return device.count(lower(e.opType)) > 0;
  return false;
}

// Dynamic-shape host synchronisations: the host stops until the device has produced a value
// (a scalar, the number of nonzero elements, the size of a masked result), so the device runs
// dry behind it. Measured as the idle gap before the first device item that starts after each.
void hostSyncs(Ctx& c) {
  if (c.p.timeline != "device") return;
  std::map<std::string, double> count;
  double total = 0;
  std::set<std::pair<int, int>> waited;  // (step, item): several syncs before one item wait once
  const std::vector<int> outerSync = nearestAncestor(c.t, [](const TraceEvent& h) { return hostSyncOp(h); });
  for (size_t i = 0; i < c.t.events.size(); ++i) {
    const TraceEvent& e = c.t.events[i];
    if (e.step < 0 || !hostSyncOp(e)) continue;
    // A host operator nested in another sync (aten::item holds _local_scalar_dense) counts once.
    if (outerSync[i] >= 0) continue;
    const auto& items = c.p.items[static_cast<size_t>(e.step)];
    const double after = e.onDevice() ? e.endUs() : e.tsUs;
    auto next = std::lower_bound(items.begin(), items.end(), after,
                                 [&](const TrainingProfile::Item& it, double v) { return c.event(it.event).tsUs < v; });
    if (next != items.end() && next->event == static_cast<int>(i)) ++next;
    count[e.kind == EventKind::Kernel ? e.opType : e.name] += 1;
    if (next != items.end() && waited.insert({e.step, static_cast<int>(next - items.begin())}).second) total += next->gapUs;
  }
  if (count.empty()) return;
  const double idle = total / 1000.0 / c.steps;
  std::vector<std::string> nodes = topKeys(count, 8);
  std::string ops;
  double calls = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    calls += count[nodes[i]];
    if (i < 5)
      ops += (i ? ", " : "") + nodes[i] + " ×" + fixed(count[nodes[i]] / c.steps, std::fmod(count[nodes[i]], c.steps) ? 1 : 0);
  }
  Finding f = makeFinding("training.host_sync", Category::Host, nodes, idle, 0, ImpactSource::Measured,
                          phrase("method.training.host_sync"));
  f.params = {{"ops", ops},
              {"per_step", fixed(calls / c.steps, std::fmod(calls, c.steps) ? 1 : 0)},
              {"idle_ms", formatSignificant(idle)},
              {"idle_pct", formatPercent(c.p.stepMs > 0 ? idle / c.p.stepMs : 0)}};
  addFinding(c.out, std::move(f), {"idle", "short_gaps"});
}

}  // namespace

std::vector<std::string> fusedOperatorsIn(const std::vector<std::string>& opTypes, const std::string& device) {
  std::vector<std::string> out;
  std::vector<std::string> lowered;
  for (const auto& t : opTypes) lowered.push_back(lower(t));
  for (const FusedOperator& f : catalogue().operators) {
    if (!forDevice(f, device) || f.sequence.empty()) continue;
    // Consecutive kernels, optional elements skipped.
    std::function<bool(size_t, size_t)> at = [&](size_t i, size_t k) {
      if (k == f.sequence.size()) return true;
      if (i < lowered.size() &&
          std::find(f.sequence[k].names.begin(), f.sequence[k].names.end(), lowered[i]) != f.sequence[k].names.end() &&
          at(i + 1, k + 1))
        return true;
      return f.sequence[k].optional && at(i, k + 1);
    };
    for (size_t i = 0; i < lowered.size(); ++i)
      if (at(i, 0)) {
        if (std::find(out.begin(), out.end(), f.fused) == out.end()) out.push_back(f.fused);
        break;
      }
  }
  return out;
}

void fusionAndSyncRules(const TrainingTrace& trace, const TrainingProfile& profile, const RuleThresholds& thresholds,
                        std::vector<Finding>& out) {
  if (profile.steps.empty()) return;
  Ctx c{trace, profile, thresholds, static_cast<double>(profile.steps.size()), out};
  catalogueFusions(c);
  fusedOptimizer(c);
  compileRegions(c);
  hostSyncs(c);
}

}  // namespace msa::training
