#include "whatif/variant_timing.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <limits>
#include <thread>

#include "profile/ort_session.h"
#include "profile/run_timing.h"

namespace msa {
namespace {

double processCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

int64_t weightBytes(const Model& m) {
  int64_t bytes = 0;
  for (const Tensor& t : m.graph.initializers) bytes += std::max<int64_t>(0, t.byteSize());
  return bytes;
}

}  // namespace

int defaultVariantThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

int resolvedThreads(const VariantSettings& s) { return s.threads > 0 ? s.threads : defaultVariantThreads(); }

double loadAverage() {
  std::ifstream in("/proc/loadavg");
  double v = 0;
  in >> v;
  return in ? v : 0.0;
}

Result<TimingReport> timeVariants(std::span<const TimedVariant> variants, const TimingOptions& o, const Progress& progress) {
  if (variants.empty()) return Error::usage("nothing to time");
  TimingReport report;
  report.timings.resize(variants.size());
  std::vector<std::optional<OrtSession>> sessions(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    if (progress.cancelled()) return Error::cancelled();
    const TimedVariant& v = variants[i];
    RuntimeOptions ro;
    ro.optimization = GraphOptimization::All;  // as deployed
    ro.intraOpThreads = resolvedThreads(v.settings);
    ro.spinning = v.settings.spinning;
    ro.parallelExecution = v.settings.parallelExecution;
    ro.interOpThreads = v.settings.interOpThreads;
    ro.spinAfterRun = false;  // sessions run in turn: one's threads must not spin into the next's block
    // Weights inline, as ONNX Runtime loads a file, for every configuration alike (outcome.cpp).
    if (weightBytes(*v.model) < (int64_t(1800) << 20)) ro.detachAbove = std::numeric_limits<int64_t>::max();
    auto s = OrtSession::create(*v.model, ro);
    Status warm = s ? Status(Ok{}) : Status(s.error());
    for (int w = 0; warm && w < o.warmup; ++w)
      if (auto r = s->runDiscarding(v.inputs); !r) warm = r.error();
    if (!warm) {
      if (warm.error().kind == ErrorKind::Cancelled) return warm.error();
      if (i == 0) return warm.error();
      report.timings[i].error = warm.error().message;
      continue;
    }
    sessions[i].emplace(std::move(*s));
    progress.report("timing", 0.1 * static_cast<double>(i + 1) / static_cast<double>(variants.size()));
  }
  std::vector<std::vector<double>> samples(variants.size());
  constexpr int kTurns = 6;
  RunBlock block;
  block.maxTimed = (o.iterations + kTurns - 1) / kTurns;
  block.minSeconds = 0.02;
  block.seconds = 0.25;
  auto left = [&](size_t i) {
    return sessions[i] ? o.iterations - static_cast<int>(samples[i].size()) : 0;
  };
  const double start = nowMs();
  double baseCpu = 0, baseWall = 0;
  const size_t n = variants.size();
  for (int round = 0;; ++round) {
    for (size_t j = 0; j < n; ++j) {
      const size_t i = (static_cast<size_t>(round) + j) % n;  // each round starts with another configuration
      if (!sessions[i] || (round >= kTurns && left(i) <= 0)) continue;
      const double c0 = processCpuMs(), w0 = nowMs();
      if (auto st = timeRunBlock(*sessions[i], variants[i].inputs, block, samples[i], progress); !st) {
        if (st.error().kind == ErrorKind::Cancelled || i == 0) return st.error();
        report.timings[i].error = st.error().message;
        sessions[i].reset();
        continue;
      }
      if (i == 0) {
        baseCpu += processCpuMs() - c0;
        baseWall += nowMs() - w0;
      }
    }
    report.rounds = round + 1;
    int most = 0;
    for (size_t i = 0; i < n; ++i) most = std::max(most, left(i));
    const double elapsed = (nowMs() - start) / 1e3;
    progress.report("timing", 0.1 + 0.9 * std::min(1.0, std::max(static_cast<double>(round + 1) / kTurns,
                                                                  elapsed / o.budgetSeconds)));
    if (round + 1 >= kTurns && most <= 0) break;
    if (round + 1 >= 3 && elapsed > o.budgetSeconds) break;
  }
  for (size_t i = 0; i < n; ++i)
    if (sessions[i]) report.timings[i].stats = Stats::of(samples[i]);
  report.threads = resolvedThreads(variants[0].settings);
  if (baseWall > 0) report.cpuShare = std::min(1.0, baseCpu / (baseWall * report.threads));
  report.contended = report.cpuShare < 0.75;
  report.load = loadAverage();
  return report;
}

}  // namespace msa
