// All rule families, and the whole advisor, on a 10,000-node graph: side-by-side copies of real
// corpus models (CNNs and transformers, with their inferred shapes), so every pattern the rules
// look for occurs at scale. Times are the best of several runs, printed next to references
// measured in the same run (building the GraphIndex, computing the costs), as ratios.
// Target: all rules < 200 ms on this machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "advisor/advisor.h"
#include "advisor/analysis_state.h"
#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "model/graph_index.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "rules/rule.h"
#include "test_paths.h"

using namespace msa;

namespace {

double bestMs(int runs, const std::function<void()>& f) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// Appends a copy of `src` to `dst` with every node, value and weight name prefixed: a disjoint
// union, so the copies do not interfere and the shapes stay valid.
void appendCopy(Graph& dst, const Graph& src, const std::string& prefix) {
  auto p = [&](const std::string& name) { return name.empty() ? name : prefix + name; };
  for (const ValueInfo& v : src.inputs) dst.inputs.push_back({p(v.name), v.type, {}, {}});
  for (const ValueInfo& v : src.outputs) dst.outputs.push_back({p(v.name), v.type, {}, {}});
  for (const ValueInfo& v : src.valueInfo) dst.valueInfo.push_back({p(v.name), v.type, {}, {}});
  for (const Tensor& t : src.initializers) {
    Tensor c = t;
    c.name = p(t.name);
    dst.initializers.push_back(std::move(c));
  }
  for (const Node& n : src.nodes) {
    Node c = n;
    c.name = p(n.name);
    for (auto& v : c.inputs) v = p(v);
    for (auto& v : c.outputs) v = p(v);
    dst.addNode(std::move(c));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!test::hasCorpus()) {
    std::printf("no model corpus: skipped\n");
    return 0;
  }
  const size_t target = argc > 1 ? static_cast<size_t>(std::atol(argv[1])) : 10000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<Model> sources;
  for (const char* name : {"resnet18.onnx", "mobilenet_v2.onnx", "vit_ti_16.onnx", "bert_like_encoder.onnx", "efficientnet_b0.onnx",
                           "densenet121.onnx", "ch_PP-OCRv4_rec_infer.onnx"}) {
    auto m = loadModel(test::corpusModel(name));
    if (!m) {
      std::fprintf(stderr, "%s\n", m.error().describe().c_str());
      return 1;
    }
    if (auto s = inferShapes(*m); !s) {
      std::fprintf(stderr, "%s\n", s.error().describe().c_str());
      return 1;
    }
    sources.push_back(std::move(*m));
  }
  Model big;
  big.opsets = {{"", 17}};
  for (size_t k = 0; big.graph.nodes.size() < target; ++k)
    appendCopy(big.graph, sources[k % sources.size()].graph, "c" + std::to_string(k) + "/");
  const size_t nodes = big.graph.nodes.size();

  auto device = loadDevice("ascend910b");
  if (!device) return 1;
  auto state = AnalysisState::create(big, *device, {}, Goal::Latency, Scenario::Edge);
  const AnalysisContext& ctx = state->context();

  size_t findings = 0;
  const double indexMs = bestMs(runs, [&] { GraphIndex idx(big.graph); });
  const double costMs = bestMs(runs, [&] { GraphCost c = computeCosts(big.graph); });
  const double rulesMs = bestMs(runs, [&] { findings = runRules(ctx).size(); });
  std::printf("bench_rules: %zu nodes (%zu copies of 7 corpus models), %zu findings, best of %d runs\n", nodes,
              nodes / 300, findings, runs);
  std::printf("  reference GraphIndex build   %8.2f ms\n", indexMs);
  std::printf("  reference computeCosts       %8.2f ms\n", costMs);
  for (const auto& rule : builtinRules()) {
    std::string_view fam[] = {rule->family()};
    size_t n = 0;
    const double ms = bestMs(runs, [&] { n = runRules(ctx, fam).size(); });
    std::printf("  rules: %-20.*s %8.2f ms  %6zu findings  (%.2f x GraphIndex)\n", static_cast<int>(rule->family().size()),
                rule->family().data(), ms, n, ms / indexMs);
  }
  std::printf("  all rules                    %8.2f ms  = %.2f x GraphIndex, %.2f x computeCosts  (target < 200 ms: %s)\n",
              rulesMs, rulesMs / indexMs, rulesMs / costMs, rulesMs < 200 ? "met" : "MISSED");
  AnalyzeOptions o;
  const double analyzeMs = bestMs(std::max(1, runs / 2), [&] { (void)analyze(big, *device, {}, o); });
  std::printf("  analyze() end to end         %8.2f ms  = %.2f x computeCosts (state, rules, accounting, optimum, tables)\n",
              analyzeMs, analyzeMs / costMs);
  return 0;
}
