// Training-trace benchmark: a synthetic Kineto trace (STEPS × OPS host operators, each with a
// cudaLaunchKernel and a kernel, plus ProfilerStep and DataLoader ranges) is read with the
// training reader and analysed; the times are printed as ratios to a plain nlohmann::json DOM
// parse of the same text measured in this run, and the peak RSS growth as a ratio to the text
// size. Prints ratios; asserts nothing about speed.
//
//   bench_training [STEPS] [OPS_PER_STEP] [--runs N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advisor/profile_analysis.h"

using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int64_t statusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  return -1;
}

// Written as text directly (not through a json DOM) so building it costs little memory.
std::string syntheticTrace(int steps, int ops) {
  std::string s = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  char buf[512];
  long long corr = 1;
  static const char* kOps[] = {"aten::linear", "aten::add", "aten::relu", "aten::layer_norm"};
  for (int k = 0; k < steps; ++k) {
    const double start = 1000.0 + k * (ops * 40.0 + 5000.0);
    std::snprintf(buf, sizeof buf,
                  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f},\n"
                  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\","
                  "\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":1000},\n",
                  k, start, ops * 40.0 + 4000.0, start);
    s += buf;
    for (int i = 0; i < ops; ++i, ++corr) {
      const double t = start + 1500 + i * 40.0;
      std::snprintf(buf, sizeof buf,
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":30,"
                    "\"args\":{\"Input Dims\":[[64,%d],[512,512]],\"Input type\":[\"float\",\"float\"],\"External id\":%lld}},\n"
                    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":8,"
                    "\"args\":{\"correlation\":%lld}},\n"
                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d\",\"pid\":0,\"tid\":7,\"ts\":%.3f,\"dur\":%d,"
                    "\"args\":{\"correlation\":%lld,\"stream\":7}},\n",
                    kOps[i % 4], t, 512 + i % 7, corr, t + 5, corr, i % 50, t + 20, 3 + i % 30, corr);
      s += buf;
    }
  }
  s += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}}\n]}\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 20, ops = 4000, runs = 3;
  std::vector<int> positional;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else positional.push_back(std::atoi(argv[i]));
  }
  if (positional.size() > 0 && positional[0] > 0) steps = positional[0];
  if (positional.size() > 1 && positional[1] > 0) ops = positional[1];

  const std::string text = syntheticTrace(steps, ops);
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("synthetic Kineto trace: %d steps x %d ops (%d events), %.1f MB\n", steps, ops, steps * (3 * ops + 2), mb);

  std::vector<double> domMs, readMs, analyseMs;
  int64_t peakGrowthKb = 0;
  for (int r = 0; r < runs; ++r) {
    // The reader first: the peak RSS (VmHWM) of the first run is not the DOM parse's.
    const int64_t before = statusKb("VmRSS:");
    auto t0 = Clock::now();
    auto trace = msa::training::parseChromeTrace(text, "synthetic.json");
    if (!trace) {
      std::fprintf(stderr, "%s\n", trace.error().describe().c_str());
      return 1;
    }
    readMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    t0 = Clock::now();
    auto built = msa::training::buildTrainingReport(*trace);
    if (!built) {
      std::fprintf(stderr, "%s\n", built.error().describe().c_str());
      return 1;
    }
    const auto& report = *built;
    analyseMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (r == 0) peakGrowthKb = statusKb("VmHWM:") - before;
    if (report.report.findings.empty()) std::printf("(no findings)\n");
    t0 = Clock::now();
    {
      auto doc = nlohmann::json::parse(text);
      if (doc["traceEvents"].empty()) return 1;
    }
    domMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  const double dom = median(domMs), read = median(readMs), analyse = median(analyseMs);
  std::printf("nlohmann DOM parse (reference): %.0f ms\n", dom);
  std::printf("training reader:                %.0f ms  = %.2fx the DOM parse  (%.1f MB/s)\n", read, read / dom,
              mb / (read / 1000.0));
  std::printf("analysis + rules + ranking:     %.0f ms  = %.2fx the DOM parse\n", analyse, analyse / dom);
  std::printf("peak RSS growth while reading and analysing: %.0f MB = %.2fx the text\n", peakGrowthKb / 1024.0,
              peakGrowthKb / 1024.0 / mb);
  return 0;
}
