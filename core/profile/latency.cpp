#include "profile/latency.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "profile/cpu_share.h"
#include "profile/run_timing.h"

namespace msa {
namespace {

// One configuration while it is timed: its session, and its runs sorted by how they ran.
struct Timing {
  std::vector<double> clean, busy;  // runs of uncontended / contended blocks
  std::vector<double> cleanBlocks, allBlocks;  // the blocks' medians
  int blocks = 0, busyBlocks = 0;
  double cleanOnCpu = 0, cleanAsked = 0, allOnCpu = 0, allAsked = 0;  // CPU-share sums, weighted by wall time
  double stealWall = 0, wall = 0, cleanWall = 0;
  int runnable = 0;
  double load = 0;
};

int readInt(const std::string& path) {
  std::ifstream in(path);
  int v = -1;
  in >> v;
  return in ? v : -1;
}

}  // namespace

int defaultThreads() {
  static const int threads = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    const int allowed = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    // One per physical core: (package, core) pairs of the CPUs this process may run on.
    std::set<std::pair<int, int>> cores;
    for (int cpu = 0; cpu < CPU_SETSIZE && allowed > 0; ++cpu) {
      if (!CPU_ISSET(cpu, &set)) continue;
      const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      const int package = readInt(dir + "physical_package_id"), core = readInt(dir + "core_id");
      if (core < 0) return allowed;  // no topology: every CPU we may use
      cores.insert({package, core});
    }
    if (!cores.empty()) return static_cast<int>(cores.size());
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return threads;
}

int resolvedThreads(const SessionSettings& s) { return s.threads > 0 ? s.threads : defaultThreads(); }

RuntimeOptions runtimeOptionsFor(const SessionSettings& s) {
  RuntimeOptions ro;
  ro.optimization = s.optimization;
  ro.intraOpThreads = resolvedThreads(s);
  ro.spinning = s.spinning;
  // Sessions are timed in turns: threads spinning on after a run would take the next session's cores.
  ro.spinAfterRun = false;
  ro.parallelExecution = s.parallelExecution;
  ro.interOpThreads = s.interOpThreads;
  return ro;
}

double medianUncertainty(std::vector<double> samples) {
  const size_t n = samples.size();
  if (n < 5) return std::numeric_limits<double>::infinity();
  std::sort(samples.begin(), samples.end());
  // The ranks n/2 ∓ 1.645·√n/2 bound the median with 90 % confidence (binomial approximation).
  const double half = 0.8224 * std::sqrt(static_cast<double>(n));
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(n / 2.0 - half)));
  const auto hi = static_cast<size_t>(std::min(static_cast<double>(n - 1), std::ceil(n / 2.0 + half)));
  const double median = samples[n / 2];
  return median > 0 ? (samples[hi] - samples[lo]) / 2 / median : std::numeric_limits<double>::infinity();
}

double latencyUncertainty(const std::vector<double>& runs, const std::vector<double>& keptBlocks,
                          const std::vector<double>& allBlocks) {
  double u = medianUncertainty(runs);
  if (keptBlocks.size() >= 5) u = std::max(u, medianUncertainty(keptBlocks));
  else if (allBlocks.size() >= 5) u = std::max(u, medianUncertainty(allBlocks));
  return u;
}

double ratioUncertainty(const TimedLatency& a, const TimedLatency& b) {
  const double separate = std::hypot(a.uncertainty, b.uncertainty, kSessionSpread);
  std::vector<double> paired;
  for (size_t k = 0; k < std::min(a.blockMedians.size(), b.blockMedians.size()); ++k)
    if (a.blockMedians[k] > 0 && b.blockMedians[k] > 0) paired.push_back(a.blockMedians[k] / b.blockMedians[k]);
  return paired.size() >= 5 ? std::max(separate, medianUncertainty(std::move(paired))) : separate;
}

Result<std::vector<TimedLatency>> timeConfigs(std::span<const TimedConfig> configs, const SamplingPolicy& policy,
                                              const Progress& progress) {
  if (configs.empty()) return std::vector<TimedLatency>{};
  if (policy.minRuns < 1) return Error::usage("at least one iteration is needed");
  if (policy.warmup < 0) return Error::usage("warm-up runs cannot be negative");
  std::vector<OrtSession> sessions;
  for (const TimedConfig& c : configs) {
    if (!c.model) return Error::usage("a timed configuration needs a model");
    progress.report("loading", static_cast<double>(sessions.size()) / configs.size());
    auto s = OrtSession::create(*c.model, runtimeOptionsFor(c.session));
    if (!s) return s.error();
    for (int w = 0; w < policy.warmup; ++w) {
      if (progress.cancelled()) return Error::cancelled();
      if (auto r = s->runDiscarding(c.inputs); !r) return r.error();
    }
    sessions.push_back(std::move(*s));
  }
  std::vector<std::unique_ptr<CancelWatch>> watches;
  for (const OrtSession& s : sessions) watches.push_back(std::make_unique<CancelWatch>(s, progress));

  const size_t n = configs.size();
  std::vector<Timing> t(n);
  const int maxRuns = std::max(policy.minRuns, policy.maxRuns);
  // Blocks of a fortieth of the budget (at least 20 ms: a sub-millisecond model's few runs catch
  // one busy moment; at most a quarter of a second), a session's caches refilled when another ran.
  RunBlock block;
  block.refill = n > 1;
  block.seconds = std::clamp(policy.budgetSeconds / 40, 0.02, 0.25);
  block.minSeconds = 0.02;
  const double start = nowMs();
  for (int round = 0;; ++round) {
    for (size_t k = 0; k < n; ++k) {
      // Alternate the order so that no configuration always runs right after another.
      const size_t i = round % 2 == 0 ? k : n - 1 - k;
      Timing& ti = t[i];
      block.maxTimed = std::max(1, maxRuns - static_cast<int>(ti.clean.size()));
      std::vector<double> runs;
      const CpuSample before = sampleCpu();
      if (auto st = timeRunBlock(sessions[i], configs[i].inputs, block, runs, progress); !st) return st.error();
      const CpuSample after = sampleCpu();
      const BlockLoad load = loadBetween(before, after, resolvedThreads(configs[i].session));
      const double wall = after.wallMs - before.wallMs;
      const bool busy = contended(load);
      ++ti.blocks;
      ti.busyBlocks += busy;
      ti.allOnCpu += load.cpuShare * wall;
      ti.allAsked += wall;
      ti.stealWall += load.stealShare * wall;
      ti.wall += wall;
      if (!busy) {
        ti.cleanOnCpu += load.cpuShare * wall;
        ti.cleanAsked += wall;
      }
      ti.runnable = std::max(ti.runnable, load.runnable);
      ti.load = load.load1;
      auto& into = busy ? ti.busy : ti.clean;
      into.insert(into.end(), runs.begin(), runs.end());
      const double blockMedian = Stats::of(runs).median;
      ti.allBlocks.push_back(blockMedian);
      if (!busy) ti.cleanBlocks.push_back(blockMedian);
    }
    const double elapsed = (nowMs() - start) * 1e-3;
    double worst = 0;
    size_t fewestClean = t.front().clean.size(), fewestAll = fewestClean + t.front().busy.size();
    for (const Timing& ti : t) {
      worst = std::max(worst, medianUncertainty(ti.clean));
      fewestClean = std::min(fewestClean, ti.clean.size());
      fewestAll = std::min(fewestAll, ti.clean.size() + ti.busy.size());
    }
    // Contended runs do not count towards the runs asked: they are replaced while the budget lasts.
    const bool known = static_cast<int>(fewestClean) >= policy.minRuns && worst <= policy.target;
    const bool spent = elapsed >= policy.budgetSeconds && static_cast<int>(fewestAll) >= policy.minRuns;
    const bool full = static_cast<int>(fewestClean) >= maxRuns;
    progress.report("latency", std::clamp(std::max(elapsed / std::max(1e-9, policy.budgetSeconds),
                                                   static_cast<int>(fewestClean) >= policy.minRuns && worst > 0
                                                       ? std::min(1.0, policy.target / worst)
                                                       : 0.0),
                                          0.0, 1.0));
    if (known || spent || full) break;
  }

  std::vector<TimedLatency> out(n);
  for (size_t i = 0; i < n; ++i) {
    Timing& ti = t[i];
    Measurement& m = out[i].measurement;
    m.measured = true;
    m.threads = resolvedThreads(configs[i].session);
    m.threadsBasis = configs[i].session.threads > 0 ? "user" : "default";
    // Enough uncontended runs for the figures: the contended ones were only set aside.
    m.contended = static_cast<int>(ti.clean.size()) < policy.minRuns;
    m.blocks = ti.blocks;
    m.blocksSetAside = m.contended ? 0 : ti.busyBlocks;
    m.cpuShare = m.contended ? (ti.allAsked > 0 ? ti.allOnCpu / ti.allAsked : 1.0)
                             : (ti.cleanAsked > 0 ? ti.cleanOnCpu / ti.cleanAsked : 1.0);
    m.stealShare = ti.wall > 0 ? ti.stealWall / ti.wall : 0.0;
    m.load = ti.load;
    m.runnable = ti.runnable;
    std::vector<double> all = ti.clean;
    all.insert(all.end(), ti.busy.begin(), ti.busy.end());
    out[i].stats = Stats::of(m.contended ? all : ti.clean);
    out[i].blockMedians = ti.allBlocks;
    out[i].uncertainty = latencyUncertainty(m.contended ? all : ti.clean, m.contended ? ti.allBlocks : ti.cleanBlocks, ti.allBlocks);
    if (!ti.clean.empty()) {
      m.uncontendedMs = Stats::of(ti.clean).median;
      m.uncontendedBasis = "uncontended_runs";
    } else {
      m.uncontendedMs = all.empty() ? 0.0 : *std::min_element(all.begin(), all.end());
      m.uncontendedBasis = "fastest_run";
    }
  }
  return out;
}

Status compareOneThread(const TimedConfig& config, const SamplingPolicy& policy, double medianMs, Measurement& m,
                        const Progress& progress) {
  const int threads = resolvedThreads(config.session);
  const bool sawContention = m.contended || m.blocksSetAside > 0;
  if (threads <= 1 || !(sawContention || (medianMs > 0 && medianMs <= kOneThreadCheapMs))) return Ok{};
  TimedConfig one = config;
  one.session.threads = 1;
  TimedConfig many = config;
  many.session.threads = threads;
  const TimedConfig both[2] = {many, one};
  SamplingPolicy p = policy;
  p.budgetSeconds = std::min(2.0, std::max(0.5, policy.budgetSeconds / 4));
  auto timed = timeConfigs(both, p, progress);
  if (!timed) return timed.error();
  m.threadsMs = (*timed)[0].stats.median;
  m.oneThreadMs = (*timed)[1].stats.median;
  return Ok{};
}

}  // namespace msa
