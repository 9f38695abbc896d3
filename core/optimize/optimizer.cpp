#include "optimize/optimizer.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

#include "model/shape_inference.h"
#include "rules/family_registry.h"
#include "rules/texts.h"

namespace msa {
namespace {

std::string opKey(const Node& n) {
  return n.isDefaultDomain() ? n.opType : n.opType + " (" + n.domain + ")";
}

std::string rewriteKey(const Rewrite& r) {
  std::string k = r.pass;
  for (const auto& n : r.nodesBefore) k += "|" + n;
  return k;
}

// Value names with a value_info entry anywhere in the model: the ones the file itself declared.
std::unordered_set<std::string> declaredValueInfo(const Graph& g) {
  std::unordered_set<std::string> names;
  g.forEachGraph([&](const Graph& sub, int) {
    for (const auto& v : sub.valueInfo) names.insert(v.name);
  });
  return names;
}

void forEachGraphMutable(Graph& g, const std::function<void(Graph&)>& f) {
  f(g);
  for (Node& n : g.nodes)
    for (Attribute& a : n.attributes)
      for (Graph& sub : a.graphs) forEachGraphMutable(sub, f);
}

// Leaves the exported file as close to the source as the rewrites allow: value_info the optimizer
// inferred for its own use goes, declared inputs and outputs keep the source's types.
void restoreDeclarations(Model& work, const Model& source, const std::unordered_set<std::string>& declared) {
  forEachGraphMutable(work.graph, [&](Graph& g) {
    std::erase_if(g.valueInfo, [&](const ValueInfo& v) { return !declared.count(v.name); });
  });
  for (auto& out : work.graph.outputs)
    for (const auto& src : source.graph.outputs)
      if (src.name == out.name) out.type = src.type;
}

ShapeOptions shapeOptions(const OptimizeOptions& o) {
  ShapeOptions so;
  if (o.staticDims) so.dims = o.verification.inputs.dims;
  return so;
}

class Manager {
 public:
  Manager(const OptimizeOptions& o, const Progress& p, OptimizeResult& res) : m_o(o), m_p(p), m_res(res) {}

  // The checker judges rewrites only when the source itself passes it.
  void setCheckerGate(bool on) { m_checkerGate = on; }

  Status prepareVerifier(const Model& original) {
    VerifyOptions vo = m_o.verification;
    if (!m_o.toleranceOverride) vo.tolerance = toleranceFor(m_o.level);
    auto v = Verifier::create(original, vo, m_p);
    if (!v) {
      if (v.error().kind == ErrorKind::Cancelled) return v.error();
      Error e = v.error();
      if (e.kind == ErrorKind::Device) e.message = "cannot verify: " + e.message;
      return e;
    }
    m_verifier.emplace(std::move(*v));
    m_res.inputsSource = m_verifier->inputsSource();
    return Ok{};
  }

  // Runs one pass on `work`; keeps what verifies, rolls back the rest. True when the graph changed.
  Result<bool> run(const Pass& pass, Model& work) {
    if (m_p.cancelled()) return Error::cancelled();
    const PassInfo& info = pass.info();
    const Model snapshot = work;
    PassContext ctx = contextFor(pass, work);
    if (ctx.anchors.count(kNothing)) return false;  // every match of this pass was rolled back before
    std::vector<std::string> notes;
    ctx.diagnostics = &notes;
    auto rewrites = pass.run(work, ctx);
    for (auto& n : notes)
      if (std::find(m_res.warnings.begin(), m_res.warnings.end(), n) == m_res.warnings.end()) m_res.warnings.push_back(std::move(n));
    if (rewrites.empty()) {
      work = snapshot;  // a pass that reports nothing must not leave changes behind
      return false;
    }
    if (m_verifier) {
      VerifyResult v = m_verifier->check(work, m_checkerGate);
      ++m_checks;
      if (!v.passed) {
        work = snapshot;
        m_budget = m_o.bisectBudget;
        auto kept = bisect(pass, work, rewrites, v.failure);
        if (!kept) return kept.error();
        rewrites = std::move(*kept);
        if (rewrites.empty()) return false;
      }
    }
    for (auto& r : rewrites) {
      r.runtimeSpecific = r.runtimeSpecific || info.runtimeSpecific;
      if (r.pass.empty()) r.pass = std::string(info.id);
    }
    noteOpsetChanges(snapshot, work, std::string(info.id));
    reinfer(work);
    for (auto& r : rewrites) m_res.applied.push_back(std::move(r));
    return true;
  }

  int checks() const { return m_checks; }
  const Verifier* verifier() const { return m_verifier ? &*m_verifier : nullptr; }

 private:
  static constexpr const char* kNothing = "\x01msadvisor:nothing";

  // After a rollback the pass runs anchored away from the rewrites that broke verification, so
  // the fixed-point loop does not try them again.
  PassContext contextFor(const Pass& pass, const Model& work) const {
    PassContext ctx;
    ctx.progress = &m_p;
    auto it = m_rejectedNodes.find(std::string(pass.info().id));
    if (it == m_rejectedNodes.end()) return ctx;
    for (const Node& n : work.graph.nodes)
      if (!it->second.count(n.name)) ctx.anchors.insert(n.name);
    if (ctx.anchors.empty()) ctx.anchors.insert(kNothing);
    return ctx;
  }

  // Re-applies the pass to `base` anchored at `group`'s nodes. Returns what it did.
  static std::vector<Rewrite> applyGroup(const Pass& pass, Model& m, std::span<const Rewrite> group) {
    PassContext ctx;
    for (const auto& r : group)
      for (const auto& n : r.nodesBefore) ctx.anchors.insert(n);
    return pass.run(m, ctx);
  }

  void reject(std::span<const Rewrite> group, const std::string& reason) {
    for (const auto& r : group) {
      if (!m_rejectedKeys.insert(rewriteKey(r)).second) continue;
      m_res.rolledBack.push_back({r, reason});
      for (const auto& n : r.nodesBefore) m_rejectedNodes[r.pass].insert(n);
    }
  }

  // `base` verified; applying all of `group` to it did not (`failure`). Keeps the largest verified
  // part found by halving, while the pass's verification budget lasts; returns the rewrites kept
  // (now applied to `base`) and rolls the rest back.
  Result<std::vector<Rewrite>> bisect(const Pass& pass, Model& base, std::vector<Rewrite> group,
                                      const std::string& failure) {
    for (auto& r : group)
      if (r.pass.empty()) r.pass = std::string(pass.info().id);
    const bool anchorable = std::all_of(group.begin(), group.end(), [](const Rewrite& r) { return !r.nodesBefore.empty(); });
    if (group.size() == 1 || !anchorable || m_budget <= 0) {
      reject(group, group.size() == 1 ? failure : failure + " (rolled back with the pass's other rewrites)");
      return std::vector<Rewrite>{};
    }
    std::vector<Rewrite> kept;
    const size_t half = group.size() / 2;
    std::vector<Rewrite> parts[2] = {std::vector<Rewrite>(group.begin(), group.begin() + static_cast<long>(half)),
                                     std::vector<Rewrite>(group.begin() + static_cast<long>(half), group.end())};
    for (auto& part : parts) {
      if (m_p.cancelled()) return Error::cancelled();
      Model trial = base;
      auto done = applyGroup(pass, trial, part);
      if (done.empty()) continue;  // an earlier part's rewrites already covered these nodes
      if (m_budget <= 0) {
        reject(part, failure + " (rolled back with the pass's other rewrites)");
        continue;
      }
      VerifyResult v = m_verifier->check(trial, m_checkerGate);
      ++m_checks;
      --m_budget;
      if (v.passed) {
        base = std::move(trial);
        for (auto& r : done) kept.push_back(std::move(r));
        continue;
      }
      auto sub = bisect(pass, base, std::move(done), v.failure);
      if (!sub) return sub.error();
      for (auto& r : *sub) kept.push_back(std::move(r));
    }
    return kept;
  }

  void noteOpsetChanges(const Model& before, const Model& after, const std::string& pass) {
    for (const auto& o : after.opsets) {
      int64_t was = before.opset(o.domain);
      if (was != o.version) m_res.opsetChanges.push_back({o.domain, was, o.version, pass});
    }
  }

  void reinfer(Model& work) {
    auto rep = inferShapes(work, shapeOptions(m_o));
    if (!rep) m_res.warnings.push_back("shape inference after a rewrite: " + rep.error().describe());
  }

  const OptimizeOptions& m_o;
  const Progress& m_p;
  OptimizeResult& m_res;
  std::optional<Verifier> m_verifier;
  int m_checks = 0;
  int m_budget = 0;
  bool m_checkerGate = true;
  std::set<std::string> m_rejectedKeys;
  std::map<std::string, std::set<std::string, std::less<>>> m_rejectedNodes;  // pass -> node names
};

std::string adviceReason(const Finding& f, const OptimizeOptions& o, const std::vector<const Pass*>& selected,
                         const OptimizeResult& res) {
  if (f.fixPass.empty()) {
    // Why a human is needed is part of the category's description (resources/rules/<family>.json).
    const std::string why = categoryInfo(f.category).advice.in(Lang::En);
    return why.empty() ? uiText("optimize.advice_only", Lang::En) : why;
  }
  if (!f.legal) {
    std::string why = "not legal to apply";
    for (size_t i = 0; i < f.blockers.size(); ++i) why += (i ? ", " : ": ") + f.blockers[i];
    return why;
  }
  for (const auto& rb : res.rolledBack)
    if (rb.rewrite.pass == f.fixPass && !f.nodes.empty() &&
        std::find(rb.rewrite.nodesBefore.begin(), rb.rewrite.nodesBefore.end(), f.nodes[0]) != rb.rewrite.nodesBefore.end())
      return "rolled back: " + rb.reason;
  const Pass* p = findPass(f.fixPass);
  if (!p && std::none_of(o.passes.begin(), o.passes.end(), [&](const Pass* q) { return q->info().id == f.fixPass; }))
    return "its fix pass '" + f.fixPass + "' is not built in";
  if (p && p->info().level > o.level) return "its fix needs --level " + std::string(levelName(p->info().level));
  if (std::none_of(selected.begin(), selected.end(), [&](const Pass* q) { return q->info().id == f.fixPass; }))
    return "its fix pass '" + f.fixPass + "' was excluded by --only/--skip";
  return "the pass did not match at its nodes (an earlier rewrite changed them, or the pattern is not legal there)";
}

}  // namespace

ModelStats modelStats(const Model& model) {
  ModelStats s;
  model.graph.forEachGraph([&](const Graph& g, int) {
    for (const Node& n : g.nodes) {
      ++s.opCounts[opKey(n)];
      ++s.nodes;
    }
    s.initializers += g.initializers.size();
    for (const Tensor& t : g.initializers) s.weightBytes += std::max<int64_t>(0, t.byteSize());
  });
  return s;
}

Result<std::vector<const Pass*>> selectPasses(const OptimizeOptions& o) {
  std::vector<const Pass*> pool = o.passes;
  if (pool.empty())
    for (const auto& p : builtinPasses()) pool.push_back(p.get());
  auto find = [&](const std::string& id) -> const Pass* {
    for (const Pass* p : pool)
      if (p->info().id == id) return p;
    return nullptr;
  };
  for (const auto* list : {&o.only, &o.skip})
    for (const auto& id : *list) {
      const Pass* p = find(id);
      if (!p) return Error::usage("unknown pass '" + id + "' (msadvisor-cli optimize --list-passes lists them)");
      if (list == &o.only && p->info().level > o.level)
        return Error::usage("pass '" + id + "' needs --level " + std::string(levelName(p->info().level)));
    }
  std::vector<const Pass*> out;
  for (const Pass* p : pool) {
    const std::string id(p->info().id);
    if (p->info().level > o.level) continue;
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), id) == o.only.end()) continue;
    if (std::find(o.skip.begin(), o.skip.end(), id) != o.skip.end()) continue;
    out.push_back(p);
  }
  return out;
}

std::string matchFinding(const Rewrite& r, std::span<const Finding> findings) {
  auto has = [&](const std::string& n) {
    return std::find(r.nodesBefore.begin(), r.nodesBefore.end(), n) != r.nodesBefore.end();
  };
  for (const Finding& f : findings)
    if (f.fixPass == r.pass && !f.nodes.empty() && has(f.nodes[0])) return f.id;
  for (const Finding& f : findings)
    if (f.fixPass == r.pass && std::any_of(f.nodes.begin(), f.nodes.end(), has)) return f.id;
  return {};
}

Result<OptimizeResult> optimize(const Model& model, const OptimizeOptions& o, const Progress& progress) {
  auto selected = selectPasses(o);
  if (!selected) return selected.error();
  OptimizeResult res;
  res.level = o.level;
  res.before = modelStats(model);
  for (const Pass* p : *selected) res.passesRun.push_back(std::string(p->info().id));

  Manager mgr(o, progress, res);
  res.originalChecker = checkModel(model);
  if (res.originalChecker.ran && !res.originalChecker.passed) {
    res.warnings.push_back("the source model fails the ONNX checker (" + res.originalChecker.message +
                           "): the checker does not judge the rewrites");
    mgr.setCheckerGate(false);
  }
  if (o.verify) {
    if (auto s = mgr.prepareVerifier(model); !s) return s.error();
  } else {
    res.verificationSkipped = "outputs not compared (verification off)";
  }

  Model work = model;
  const auto declared = declaredValueInfo(model.graph);
  if (o.staticDims && !o.verification.inputs.dims.empty()) {
    std::string dims;
    for (const auto& [k, v] : o.verification.inputs.dims) dims += (dims.empty() ? "" : ", ") + k + "=" + std::to_string(v);
    res.warnings.push_back("inputs specialised to " + dims + " (--static): the result runs at these dims only");
  }
  if (auto rep = inferShapes(work, shapeOptions(o)); !rep)
    res.warnings.push_back("shape inference: " + rep.error().describe());
  else
    for (const auto& w : rep->warnings) res.warnings.push_back(w);

  std::vector<const Pass*> loop, last;
  for (const Pass* p : *selected) (p->info().runsLast ? last : loop).push_back(p);
  const double steps = static_cast<double>(selected->size());
  for (int round = 1; round <= std::max(1, o.maxRounds); ++round) {
    res.rounds = round;
    bool changed = false;
    for (size_t i = 0; i < loop.size(); ++i) {
      progress.report("optimizing: " + std::string(loop[i]->info().id), (static_cast<double>(i) / steps) / round);
      auto c = mgr.run(*loop[i], work);
      if (!c) return c.error();
      changed = changed || *c;
    }
    if (!changed) break;
  }
  for (const Pass* p : last) {
    progress.report("optimizing: " + std::string(p->info().id), 0.9);
    auto c = mgr.run(*p, work);
    if (!c) return c.error();
  }

  restoreDeclarations(work, model, declared);
  for (auto& r : res.applied) r.finding = matchFinding(r, o.findings);
  for (const Finding& f : o.findings) {
    bool resolved = std::any_of(res.applied.begin(), res.applied.end(), [&](const Rewrite& r) { return r.finding == f.id; });
    if (!resolved) res.advice.push_back({f.id, f.rule, adviceReason(f, o, *selected, res)});
  }

  progress.report("verifying the result", 0.95);
  res.checker = checkModel(work);
  if (const Verifier* v = mgr.verifier()) {
    res.verification = v->check(work, false);
    res.verification->checker = res.checker;
    if (res.verification->passed && res.checker.ran && !res.checker.passed && !(res.originalChecker.ran && !res.originalChecker.passed)) {
      res.verification->passed = false;
      res.verification->failure = "ONNX checker: " + res.checker.message;
    }
  }
  res.after = modelStats(work);
  res.model = std::move(work);
  progress.report("done", 1);
  return res;
}

std::string runtimeOperatorsOfFix(const Finding& f, const Model& model) {
  const Pass* pass = f.fixPass.empty() ? nullptr : findPass(f.fixPass);
  if (!pass || !pass->info().runtimeSpecific) return {};
  const PassInfo& info = pass->info();
  if (info.standardFromOpset > 0 && model.opset("") >= info.standardFromOpset) return {};
  return info.writes.empty() ? "operators outside the ONNX standard" : std::string(info.writes);
}

// Why a finding's fix cannot apply is said in words, with the user's node names, never with the
// finding's or the pass's internal ids.
Result<std::vector<Rewrite>> applyFinding(Model& model, const Finding& f, const Progress& progress) {
  if (f.fixPass.empty()) return Error::usage("this finding has no automatic fix: it is advice only");
  if (!f.legal) {
    std::string why = "its rewrite is not legal here";
    for (size_t i = 0; i < f.blockers.size(); ++i) why += (i ? "; " : ": ") + renderBlocker(f.blockers[i], Lang::En);
    return Error::usage(why);
  }
  const Pass* pass = findPass(f.fixPass);
  if (!pass) return Error::usage("this build has no rewrite for this finding");
  if (f.nodes.empty()) return Error::usage("this finding names no node to apply its fix at");
  if (!model.graph.findNodeByName(f.nodes[0]))
    return Error::model("the fix no longer applies: node '" + f.nodes[0] + "' is no longer in the graph", {}, f.nodes[0]);
  Model work = model;
  if (auto rep = inferShapes(work); !rep) return rep.error();
  // Anchored at every node the finding names: an aggregate finding (83 operators computing
  // constants) is fixed whole, and nothing outside its nodes is touched.
  PassContext ctx;
  for (const std::string& n : f.nodes) ctx.anchors.insert(n);
  ctx.progress = &progress;
  std::vector<std::string> declined;
  ctx.diagnostics = &declined;
  auto rewrites = pass->run(work, ctx);
  if (rewrites.empty()) {
    std::string why = "the fix no longer applies to the graph as it is now: the pattern at node '" + f.nodes[0] + "' is not there";
    if (!declined.empty()) why += ": " + declined.front();
    return Error::model(why, {}, f.nodes[0]);
  }
  for (auto& r : rewrites) {
    r.finding = f.id;
    if (r.pass.empty()) r.pass = f.fixPass;
    r.runtimeSpecific = r.runtimeSpecific || pass->info().runtimeSpecific;
  }
  model = std::move(work);
  return rewrites;
}

}  // namespace msa
