// How long the kernel, small-ops, precision and graph families take on a 10,000-node graph, with a
// per-node measured profile, against computeCosts on the same graph measured in the same run.
// The target: all rule families together well under 200 ms on this machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "advisor/analysis_state.h"
#include "cost/device_profile.h"
#include "model/shape_inference.h"
#include "rules/rule.h"

using namespace msa;

namespace {

Node node(std::string op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> attrs = {}) {
  Node n;
  n.name = op + "_" + out.front();  // named here: generating unique names is quadratic
  n.opType = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

// Blocks of Conv→Relu→Add(residual)→Shape→Gather→Unsqueeze→Concat→Reshape→Cast→Cast: ten nodes each.
Model bigGraph(int blocks) {
  Model m;
  m.opsets.push_back({"", 13});
  Graph& g = m.graph;
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 16, 8, 8}), {}, {}});
  g.initializers.push_back(Tensor::fromValues("w", DType::Float, {16, 16, 3, 3}, std::vector<float>(16 * 16 * 9, 0.01f)));
  g.initializers.push_back(Tensor::fromValues("i0", DType::Int64, {1}, std::vector<int64_t>{0}));
  g.initializers.push_back(Tensor::fromValues("rest", DType::Int64, {3}, std::vector<int64_t>{16, 8, 8}));
  std::string v = "x";
  for (int b = 0; b < blocks; ++b) {
    const std::string s = std::to_string(b);
    g.addNode(node("Conv", {v, "w"}, {"c" + s}, {Attribute::makeInts("pads", {1, 1, 1, 1})}));
    g.addNode(node("Relu", {"c" + s}, {"r" + s}));
    g.addNode(node("Add", {"r" + s, v}, {"a" + s}));
    g.addNode(node("Shape", {"a" + s}, {"sh" + s}));
    g.addNode(node("Gather", {"sh" + s, "i0"}, {"n" + s}, {Attribute::makeInt("axis", 0)}));
    g.addNode(node("Unsqueeze", {"n" + s}, {"u" + s}, {Attribute::makeInts("axes", {0})}));
    g.addNode(node("Concat", {"n" + s, "rest"}, {"shape" + s}, {Attribute::makeInt("axis", 0)}));
    g.addNode(node("Reshape", {"a" + s, "shape" + s}, {"re" + s}));
    g.addNode(node("Cast", {"re" + s}, {"h" + s}, {Attribute::makeInt("to", 10)}));
    g.addNode(node("Cast", {"h" + s}, {"f" + s}, {Attribute::makeInt("to", 1)}));
    v = "f" + s;
  }
  g.outputs.push_back({v, {}, {}, {}});
  return m;
}

double ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

int main() {
  Model m = bigGraph(1000);
  if (auto r = inferShapes(m); !r) {
    std::fprintf(stderr, "%s\n", r.error().describe().c_str());
    return 1;
  }
  auto dev = loadDevice("cpu-host");
  auto t0 = std::chrono::steady_clock::now();
  GraphCost reference = computeCosts(m.graph);
  const double costMs = ms(std::chrono::steady_clock::now() - t0);
  // A measured profile: every node at its estimate times a seeded factor in [1, 3).
  auto est = AnalysisState::create(m, *dev, {}, Goal::Latency, Scenario::Edge);
  ProfileData p;
  p.device = "cpu";
  p.optimization = "disabled";
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> factor(1.0, 3.0);
  double total = 0;
  for (size_t i = 0; i < m.graph.nodes.size(); ++i) {
    NodeProfile e;
    e.name = m.graph.nodes[i].name;
    e.opType = m.graph.nodes[i].opType;
    e.irNodes = {e.name};
    const double t = std::max(0.002, est->context().estimatedMs[i]) * factor(rng);
    e.timeMs.median = t;
    e.timeMs.p10 = 0.9 * t;
    e.timeMs.p90 = 1.2 * t;
    total += t;
    p.nodes.push_back(std::move(e));
  }
  p.latencyMs.median = total;
  auto state = AnalysisState::create(m, *dev, {&p, nullptr}, Goal::Latency, Scenario::Edge);
  const std::string_view families[] = {"kernel", "small_ops", "precision", "graph"};
  double best = 1e9;
  size_t findings = 0;
  for (int run = 0; run < 5; ++run) {
    auto t1 = std::chrono::steady_clock::now();
    auto f = runRules(state->context(), families);
    best = std::min(best, ms(std::chrono::steady_clock::now() - t1));
    findings = f.size();
  }
  std::printf("rules kernel+small_ops+precision+graph on %zu nodes: best of 5 %.1f ms (%zu findings); "
              "computeCosts on the same graph %.1f ms; ratio %.2f\n",
              m.graph.nodes.size(), best, findings, costMs, best / costMs);
  for (std::string_view family : families) {
    double t = 1e9;
    for (int run = 0; run < 5; ++run) {
      auto t1 = std::chrono::steady_clock::now();
      std::string_view one[] = {family};
      (void)runRules(state->context(), one);
      t = std::min(t, ms(std::chrono::steady_clock::now() - t1));
    }
    std::printf("  %-10s %.1f ms (ratio to computeCosts %.2f)\n", std::string(family).c_str(), t, t / costMs);
  }
  return reference.nodes.size() == m.graph.nodes.size() ? 0 : 1;
}
