// How stable are per-node times? ResNet-18 is profiled twice in one process; for every runtime
// node the ratio of its two medians is taken, and the distribution of |ratio - 1| (median, p90,
// max) is the noise floor below which a measured difference means nothing on this machine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/onnx_io.h"
#include "profile/ort_profiler.h"
#include "test_paths.h"

using namespace msa;

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

int main(int argc, char** argv) {
  if (!test::hasCorpus()) {
    std::printf("no model corpus: skipped\n");
    return 0;
  }
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  auto model = loadModel(test::corpusModel("resnet18.onnx"));
  if (!model) {
    std::fprintf(stderr, "%s\n", model.error().describe().c_str());
    return 1;
  }
  struct Config {
    int threads;  // 0: every core
    bool spinning;
  };
  // The runtime's defaults, then the two settings that hold up better on a loaded machine.
  for (Config c : {Config{0, true}, Config{0, false}, Config{1, true}})
  for (auto level : {GraphOptimization::Disabled, GraphOptimization::All}) {
    CpuProfileOptions o;
    o.iterations = iterations;
    o.warmup = 3;
    o.optimization = level;
    o.threads = c.threads;
    o.spinning = c.spinning;
    auto a = profileOnCpu(*model, o);
    auto b = profileOnCpu(*model, o);
    if (!a || !b) {
      std::fprintf(stderr, "%s\n", (a ? b.error() : a.error()).describe().c_str());
      return 1;
    }
    std::vector<double> dev;
    for (const NodeProfile& n : a->nodes) {
      const NodeProfile* m = b->find(n.name);
      if (!m || n.timeMs.median <= 0) continue;
      dev.push_back(std::fabs(m->timeMs.median / n.timeMs.median - 1.0));
    }
    const double e2e = b->latencyMs.median / a->latencyMs.median;
    std::printf("resnet18 %-8s %d thread(s)%s, %d iterations x2, %zu nodes: |median ratio - 1| median %.3f, "
                "p90 %.3f, max %.3f; end-to-end ratio %.3f (%.2f vs %.2f ms); node-sum ratio %.3f\n",
                std::string(optimizationName(level)).c_str(), a->threads, c.spinning ? "" : " no spin", iterations,
                dev.size(), quantile(dev, 0.5),
                quantile(dev, 0.9), *std::max_element(dev.begin(), dev.end()), e2e, a->latencyMs.median,
                b->latencyMs.median, b->sumNodeMedians() / a->sumNodeMedians());
  }
  return 0;
}
