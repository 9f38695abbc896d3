#pragma once
// Shared by the rule-family tests: run families on a model (with profiles), the invariants every
// finding must keep, and small named graphs.
#include <QtTest>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "advisor/analysis_state.h"
#include "cost/device_profile.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "profile/profile_data.h"
#include "rules/rule.h"
#include "rules/texts.h"
#include "test_paths.h"

namespace msa::test {

struct Analysed {
  std::unique_ptr<AnalysisState> state;
  std::vector<Finding> findings;
  std::map<std::string, int> byRule;

  std::vector<const Finding*> of(const std::string& rule) const {
    std::vector<const Finding*> v;
    for (const auto& f : findings)
      if (f.rule == rule) v.push_back(&f);
    return v;
  }
  // Findings of `rule` that name node `name`.
  std::vector<const Finding*> on(const std::string& rule, const std::string& name) const {
    std::vector<const Finding*> v;
    for (const auto* f : of(rule))
      if (std::find(f->nodes.begin(), f->nodes.end(), name) != f->nodes.end()) v.push_back(f);
    return v;
  }
};

// A CPU profile of `m` (optimization disabled), each node timed `msOf(node)`; the latency is
// their sum.
inline ProfileData measuredProfile(const Model& m, const std::function<double(const Node&)>& msOf) {
  ProfileData p;
  p.device = "cpu";
  p.optimization = "disabled";
  for (const Node& n : m.graph.nodes) {
    NodeProfile e;
    e.name = n.name;
    e.opType = n.opType;
    e.irNodes = {n.name};
    const double t = msOf(n);
    e.timeMs.median = e.timeMs.p10 = e.timeMs.p90 = t;
    p.latencyMs.median += t;
    p.nodes.push_back(e);
  }
  return p;
}

inline DeviceProfile device(const std::string& id) {
  auto d = loadDevice(id);
  if (!d) qFatal("%s", d.error().describe().c_str());
  return *d;
}

// `model` must carry inferred shapes.
inline Analysed analyse(const Model& model, const DeviceProfile& dev, std::vector<std::string_view> families,
                        const ProfileData* profile = nullptr, const ProfileData* runtimeProfile = nullptr,
                        Goal goal = Goal::Latency, Scenario scenario = Scenario::Edge) {
  Analysed a;
  AnalysisInputs in;
  in.profile = profile;
  in.runtimeProfile = runtimeProfile;
  a.state = AnalysisState::create(model, dev, in, goal, scenario);
  a.findings = runRules(a.state->context(), families);
  for (const auto& f : a.findings) ++a.byRule[f.rule];
  return a;
}

inline Model loadCorpus(const std::string& name, const ShapeOptions& shapes = {}) {
  auto m = loadModel(corpusModel(name));
  if (!m) qFatal("%s", m.error().describe().c_str());
  auto r = inferShapes(*m, shapes);
  if (!r) qFatal("%s", r.error().describe().c_str());
  return std::move(*m);
}

// What every finding must keep: its nodes exist, its impact is a saving no larger than the time
// of what it claims (the measured time of its IR nodes, or the runtime entries it names), and
// its texts render in both languages. Returns an empty string when all hold.
inline std::string violations(const Analysed& a) {
  const AnalysisContext& ctx = a.state->context();
  const Graph& g = *ctx.graph;
  std::string out;
  auto fail = [&](const Finding& f, const std::string& what) { out += f.id + ": " + what + "\n"; };
  for (const Finding& f : a.findings) {
    if (f.nodes.empty()) fail(f, "no nodes");
    double nodeTime = 0;
    bool allMeasured = true;
    for (const auto& n : f.nodes) {
      long i = ctx.index->indexOfName(n);
      if (i < 0 || !g.findNodeByName(n)) {
        fail(f, "names a node that does not exist: " + n);
        continue;
      }
      nodeTime += ctx.timeMs(static_cast<size_t>(i));
      allMeasured = allMeasured && ctx.isMeasured(static_cast<size_t>(i));
    }
    const Impact& im = f.impact;
    if (!(im.ms >= 0) || !(im.rawMs >= 0) || !(im.fixedMs >= 0) || !std::isfinite(im.currentMs))
      fail(f, "negative or non-finite impact");
    if (im.ms > im.currentMs * (1 + 1e-9) + 1e-12) fail(f, "impact above the time it claims");
    if (std::fabs(im.currentMs - im.fixedMs - im.ms) > 1e-9 * std::max(1.0, im.currentMs)) fail(f, "current - fixed != impact");
    // Claimed time: the runtime entries it names, else its IR nodes (when all are measured).
    double claimed = -1;
    if (!f.runtimeNodes.empty()) {
      for (const ProfileData* p : {ctx.runtimeProfile, ctx.profile}) {
        if (!p) continue;
        double sum = 0;
        bool all = true;
        for (const auto& r : f.runtimeNodes)
          if (const NodeProfile* e = p->find(r)) sum += e->timeMs.median;
          else all = false;
        if (all) {
          claimed = sum;
          break;
        }
      }
    } else if (allMeasured && ctx.measured && im.source != ImpactSource::Estimated) {
      claimed = nodeTime;
    }
    if (claimed >= 0 && im.currentMs > claimed * (1 + 1e-6) + 1e-9)
      fail(f, "claims " + std::to_string(im.currentMs) + " ms, its nodes took " + std::to_string(claimed));
    if (!hasTexts(f.rule)) fail(f, "no catalog texts");
    for (Lang l : {Lang::En, Lang::Zh}) {
      const FindingText t = renderFinding(f, l);
      for (const std::string* s : {&t.title, &t.suggestion, &t.hazard, &t.mitigation, &t.help})
        if (s->empty() || s->find('{') != std::string::npos) fail(f, "text not rendered: " + *s);
    }
    for (const auto& b : f.blockers)
      if (renderBlocker(b, Lang::Zh) == b) fail(f, "blocker without text: " + b);
  }
  return out;
}

}  // namespace msa::test
