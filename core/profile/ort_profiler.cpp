#include "profile/ort_profiler.h"

#include "model/model_check.h"
#include "profile/profile_import.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "model/onnx_io.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"
#include "profile/run_timing.h"
#include "util/scratch_dir.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// Stops a session's run in flight when the caller cancels (the GUI's SIGTERM, a timeout).
class CancelWatch {
 public:
  CancelWatch(const OrtSession& s, const Progress& p)
      : m_thread([this, &s, &p] {
          std::unique_lock lock(m_mu);
          while (!m_stop) {
            if (p.cancelled()) {
              s.terminate();
              return;
            }
            m_cv.wait_for(lock, std::chrono::milliseconds(20));
          }
        }) {}
  ~CancelWatch() {
    {
      std::lock_guard lock(m_mu);
      m_stop = true;
    }
    m_cv.notify_all();
    m_thread.join();
  }

 private:
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_stop = false;
  std::thread m_thread;
};

Status runMany(const OrtSession& s, const std::vector<DataValue>& inputs, int count, const Progress& progress,
               std::string_view phase, std::vector<double>* timesMs) {
  CancelWatch watch(s, progress);
  for (int i = 0; i < count; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    auto t0 = std::chrono::steady_clock::now();
    auto r = s.runDiscarding(inputs);
    auto t1 = std::chrono::steady_clock::now();
    if (!r) return r.error();
    if (timesMs) timesMs->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    progress.report(phase, static_cast<double>(i + 1) / count);
  }
  return Ok{};
}

Result<std::vector<DataValue>> modelInputs(const Model& model, const CpuProfileOptions& o) {
  std::vector<DataValue> inputs;
  if (!o.inputsDir.empty()) {
    auto loaded = loadInputs(model, o.inputsDir, o.inputs);
    if (!loaded) return loaded.error();
    return std::move(*loaded);
  }
  auto made = makeRandomInputs(model, o.inputs);
  if (!made) return made.error();
  for (Tensor& t : *made) inputs.push_back(DataValue::of(std::move(t)));
  return inputs;
}

RuntimeOptions runtimeOptions(const CpuProfileOptions& o, GraphOptimization level) {
  RuntimeOptions ro;
  ro.optimization = level;
  ro.intraOpThreads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ro.spinning = o.spinning;
  ro.spinAfterRun = false;
  return ro;
}

Result<std::vector<Stats>> sampleSessions(const std::vector<OrtSession>& sessions, const std::vector<DataValue>& inputs,
                                          const LatencySampling& sampling, const Progress& progress) {
  std::vector<std::vector<double>> times(sessions.size());
  std::vector<std::unique_ptr<CancelWatch>> watches;
  for (const OrtSession& s : sessions) watches.push_back(std::make_unique<CancelWatch>(s, progress));
  const auto start = std::chrono::steady_clock::now();
  const int maxRuns = std::max(sampling.minRuns, sampling.maxRuns);
  // Several sessions take turns by blocks (run_timing.h), each a small share of the budget.
  RunBlock block;
  block.refill = sessions.size() > 1;
  if (block.refill) block.seconds = std::clamp(sampling.budgetSeconds / 40, 0.02, 0.25);
  for (int round = 0; round < maxRuns; ++round) {
    for (size_t k = 0; k < sessions.size(); ++k) {
      // Alternate the order so that neither level always runs right after the other.
      const size_t i = round % 2 == 0 ? k : sessions.size() - 1 - k;
      if (block.refill) block.maxTimed = std::max(1, maxRuns - static_cast<int>(times[i].size()));
      if (auto st = timeRunBlock(sessions[i], inputs, block, times[i], progress); !st) return st.error();
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double worst = 0;
    size_t fewest = times.front().size();
    for (const auto& t : times) {
      worst = std::max(worst, medianUncertainty(t));
      fewest = std::min(fewest, t.size());
    }
    const bool enough = static_cast<int>(fewest) >= sampling.minRuns;
    progress.report("latency", std::clamp(std::max(elapsed / std::max(1e-9, sampling.budgetSeconds),
                                                   enough && worst > 0 ? std::min(1.0, sampling.target / worst) : 0.0),
                                          0.0, 1.0));
    if (static_cast<int>(fewest) >= maxRuns || (enough && (worst <= sampling.target || elapsed >= sampling.budgetSeconds)))
      break;
  }
  std::vector<Stats> out;
  for (auto& t : times) out.push_back(Stats::of(std::move(t)));
  return out;
}

std::string shapeText(const DataValue& v) {
  return v.kind == DataValue::Kind::Tensor ? Shape::of(v.tensor.dims).str() : v.describe();
}

}  // namespace

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

Result<std::vector<Stats>> measureLatencies(const Model& model, const std::vector<GraphOptimization>& levels,
                                            const CpuProfileOptions& o, const LatencySampling& sampling,
                                            const Progress& progress) {
  if (sampling.minRuns < 1) return Error::usage("at least one iteration is needed");
  auto inputs = modelInputs(model, o);
  if (!inputs) return inputs.error();
  std::vector<OrtSession> sessions;
  for (GraphOptimization level : levels) {
    progress.report("loading", 0);
    auto s = OrtSession::create(model, runtimeOptions(o, level));
    if (!s) return s.error();
    if (auto st = runMany(*s, *inputs, o.warmup, progress, "warm-up", nullptr); !st) return st.error();
    sessions.push_back(std::move(*s));
  }
  return sampleSessions(sessions, *inputs, sampling, progress);
}

Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& o, const Progress& progress) {
  if (o.iterations < 1) return Error::usage("at least one iteration is needed");
  if (o.warmup < 0) return Error::usage("warm-up runs cannot be negative");
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  progress.report("inputs", 0);
  auto madeInputs = modelInputs(model, o);
  if (!madeInputs) return madeInputs.error();
  const std::vector<DataValue> inputs = std::move(*madeInputs);
  progress.report("inputs", 1);
  // A shape the model cannot take is said with the inputs and dims that led to it.
  auto explain = [&](const Error& e) { return explainRunFailure(e, model, inputs, o.inputs); };

  RuntimeOptions ro = runtimeOptions(o, o.optimization);

  ProfileData p;
  // End to end, without the profiler's per-node bookkeeping, until its median is known.
  if (o.measureLatency) {
    progress.report("loading", 0);
    std::vector<OrtSession> sessions;
    {
      auto s = OrtSession::create(model, ro);
      if (!s) return s.error();
      if (auto st = runMany(*s, inputs, o.warmup, progress, "warm-up", nullptr); !st) return explain(st.error());
      sessions.push_back(std::move(*s));
    }
    LatencySampling sampling;
    sampling.minRuns = o.iterations;
    sampling.target = o.latencyTarget;
    sampling.budgetSeconds = o.latencyBudgetSeconds;
    auto stats = sampleSessions(sessions, inputs, sampling, progress);
    if (!stats) return explain(stats.error());
    p.latencyMs = stats->front();
  }

  ScratchDir scratch;  // the trace and the dumped graph; swept by the next run if this one is killed
  if (scratch.path().empty()) return Error::device("cannot create a temporary folder for the profile");
  // The runtime profiles the model with its nodes renamed (node_mapping.h): its profile stays
  // readable whatever bytes the names hold, and what it says is turned back into the model's names.
  const RuntimeNames names(model);
  auto named = [&](Error e) {
    e.message = names.original(e.message);
    e.node = names.original(e.node);
    return e;
  };
  ro.profiling = true;
  ro.profilePrefix = scratch.path() / "ort_profile";
  // The graph as the runtime runs it, to map its nodes back: fused and inserted ones at `all`,
  // inlined functions (HardSwish -> HardSigmoid + Mul) even at `disabled`.
  ro.optimizedModelPath = scratch.path() / "optimized.onnx";
  progress.report("loading", 0.5);
  fs::path tracePath;
  {
    auto s = OrtSession::create(names.model(), ro);
    if (!s) return named(s.error());
    if (auto st = runMany(*s, inputs, o.warmup, progress, "warm-up", nullptr); !st) return named(explain(st.error()));
    if (auto st = runMany(*s, inputs, o.iterations, progress, "profile", nullptr); !st) return named(explain(st.error()));
    auto tp = s->endProfiling();
    if (!tp) return named(tp.error());
    tracePath = *tp;
  }
  if (progress.cancelled()) return Error::cancelled();
  progress.report("mapping", 0);
  // Errors name the model: the trace is a temporary file, gone when the message is read.
  const std::string label = model.path.empty() ? std::string("<model>") : model.path.string();
  auto trace = loadOrtTrace(tracePath);
  if (!trace) {
    Error e = Error::device("ONNX Runtime wrote a profile we cannot read (" + named(trace.error()).message + ")");
    e.file = label;
    return e;
  }
  auto table = profileFromTrace(*trace, o.warmup, label);
  if (!table) return Error::device(named(table.error()).describe());
  Stats latency = p.latencyMs;
  p = std::move(*table);
  if (o.measureLatency) p.latencyMs = latency;  // the trace's spans include profiling overhead

  std::optional<Model> optimized;
  if (!ro.optimizedModelPath.empty()) {
    auto m = loadRuntimeWrittenModel(ro.optimizedModelPath);
    if (!m) {
      Error e = Error::device("cannot read the graph ONNX Runtime ran (" + named(m.error()).message + ")");
      e.file = label;
      return e;
    }
    optimized = std::move(*m);
  }
  mapToIr(p, names.model(), optimized ? &*optimized : nullptr);
  names.restore(p);

  if (!o.keepTrace.empty()) {
    if (auto st = names.restoreTraceFile(tracePath, o.keepTrace); !st)
      return Error::device("cannot keep the trace at " + o.keepTrace.string() + ": " + st.error().message);
  }
  p.device = "cpu";
  p.runtime = ortVersion();
  p.source = "measured";
  p.optimization = std::string(optimizationName(o.optimization));
  p.importer = "cpu";
  p.caps = findProfilerBackend("cpu")->caps;
  p.caps.runtimeGraph = o.optimization != GraphOptimization::Disabled;
  p.threads = threads;
  p.iterations = o.iterations;
  p.warmup = o.warmup;
  for (const DataValue& v : inputs) p.inputShapes[v.name] = shapeText(v);
  progress.report("mapping", 1);
  return p;
}

}  // namespace msa
