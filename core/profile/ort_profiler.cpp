#include "profile/ort_profiler.h"

#include "model/model_check.h"
#include "profile/profile_import.h"

#include <cstdlib>

#include "model/onnx_io.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"
#include "profile/run_timing.h"
#include "util/scratch_dir.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// Untimed runs (warm-up, the profiled runs whose times the trace holds).
Status runMany(const OrtSession& s, const std::vector<DataValue>& inputs, int count, const Progress& progress,
               std::string_view phase) {
  CancelWatch watch(s, progress);
  for (int i = 0; i < count; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    if (auto r = s.runDiscarding(inputs); !r) return r.error();
    progress.report(phase, static_cast<double>(i + 1) / count);
  }
  return Ok{};
}

std::string shapeText(const DataValue& v) {
  return v.kind == DataValue::Kind::Tensor ? Shape::of(v.tensor.dims).str() : v.describe();
}

}  // namespace

SessionSettings sessionSettings(const CpuProfileOptions& o, GraphOptimization level) {
  SessionSettings s;
  s.optimization = level;
  s.threads = o.threads;
  s.spinning = o.spinning;
  return s;
}

SamplingPolicy samplingPolicy(const CpuProfileOptions& o) {
  SamplingPolicy p;
  p.warmup = o.warmup;
  p.minRuns = o.iterations;
  p.target = o.latencyTarget;
  p.budgetSeconds = o.latencyBudgetSeconds;
  return p;
}

Result<std::vector<DataValue>> profileInputs(const Model& model, const CpuProfileOptions& o) {
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

Result<std::vector<TimedLatency>> measureLatencies(const Model& model, const std::vector<GraphOptimization>& levels,
                                                   const CpuProfileOptions& o, const SamplingPolicy& sampling,
                                                   const Progress& progress) {
  auto inputs = profileInputs(model, o);
  if (!inputs) return inputs.error();
  std::vector<TimedConfig> configs;
  for (GraphOptimization level : levels) configs.push_back({&model, *inputs, sessionSettings(o, level)});
  auto timed = timeConfigs(configs, sampling, progress);
  if (!timed) return explainRunFailure(timed.error(), model, *inputs, o.inputs);
  return timed;
}

Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& o, const Progress& progress) {
  if (o.iterations < 1) return Error::usage("at least one iteration is needed");
  if (o.warmup < 0) return Error::usage("warm-up runs cannot be negative");

  progress.report("inputs", 0);
  auto madeInputs = profileInputs(model, o);
  if (!madeInputs) return madeInputs.error();
  const std::vector<DataValue> inputs = std::move(*madeInputs);
  progress.report("inputs", 1);
  // A shape the model cannot take is said with the inputs and dims that led to it.
  auto explain = [&](const Error& e) { return explainRunFailure(e, model, inputs, o.inputs); };

  ProfileData p;
  // End to end, without the profiler's per-node bookkeeping, by the measurement engine.
  if (o.measureLatency) {
    const TimedConfig config{&model, inputs, sessionSettings(o, o.optimization)};
    auto timed = timeConfigs({&config, 1}, samplingPolicy(o), progress);
    if (!timed) return explain(timed.error());
    p.latencyMs = timed->front().stats;
    p.measurement = timed->front().measurement;
    // The deployed run: whether one intra-op thread runs it faster here (as measureOnCpu does).
    if (o.optimization != GraphOptimization::Disabled)
      if (auto st = compareOneThread(config, samplingPolicy(o), p.latencyMs.median, p.measurement, progress); !st)
        return explain(st.error());
  }

  ScratchDir scratch;  // the trace and the dumped graph; swept by the next run if this one is killed
  if (scratch.path().empty()) return Error::device("cannot create a temporary folder for the profile");
  RuntimeOptions ro = runtimeOptionsFor(sessionSettings(o, o.optimization));
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
    if (auto st = runMany(*s, inputs, o.warmup, progress, "warm-up"); !st) return named(explain(st.error()));
    if (auto st = runMany(*s, inputs, o.iterations, progress, "profile"); !st) return named(explain(st.error()));
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
  Measurement measurement = p.measurement;
  p = std::move(*table);
  if (o.measureLatency) {  // the trace's spans include profiling overhead
    p.latencyMs = latency;
    p.measurement = measurement;
  }

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
  p.threads = ro.intraOpThreads;
  p.iterations = o.iterations;
  p.warmup = o.warmup;
  for (const DataValue& v : inputs) p.inputShapes[v.name] = shapeText(v);
  progress.report("mapping", 1);
  return p;
}

}  // namespace msa
