#include "profile/ort_profiler.h"
#include "profile/profile_import.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "model/onnx_io.h"
#include "profile/node_mapping.h"
#include "profile/ort_trace.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// A folder under the temp dir for the trace and the dumped graph, removed when done.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "msadvisor-profile-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) m_path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!m_path.empty()) fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

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

std::string shapeText(const DataValue& v) {
  return v.kind == DataValue::Kind::Tensor ? Shape::of(v.tensor.dims).str() : v.describe();
}

}  // namespace

Result<ProfileData> profileOnCpu(const Model& model, const CpuProfileOptions& o, const Progress& progress) {
  if (o.iterations < 1) return Error::usage("at least one iteration is needed");
  if (o.warmup < 0) return Error::usage("warm-up runs cannot be negative");
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  progress.report("inputs", 0);
  std::vector<DataValue> inputs;
  if (!o.inputsDir.empty()) {
    auto loaded = loadInputs(model, o.inputsDir, o.inputs);
    if (!loaded) return loaded.error();
    inputs = std::move(*loaded);
  } else {
    auto made = makeRandomInputs(model, o.inputs);
    if (!made) return made.error();
    for (Tensor& t : *made) inputs.push_back(DataValue::of(std::move(t)));
  }
  progress.report("inputs", 1);
  // A shape the model cannot take is said with the inputs and dims that led to it.
  auto explain = [&](const Error& e) { return explainRunFailure(e, model, inputs, o.inputs); };

  RuntimeOptions ro;
  ro.optimization = o.optimization;
  ro.intraOpThreads = threads;
  ro.spinning = o.spinning;

  ProfileData p;
  // End to end, without the profiler's per-node bookkeeping.
  if (o.measureLatency) {
    progress.report("loading", 0);
    auto s = OrtSession::create(model, ro);
    if (!s) return s.error();
    if (auto st = runMany(*s, inputs, o.warmup, progress, "warm-up", nullptr); !st) return explain(st.error());
    std::vector<double> times;
    if (auto st = runMany(*s, inputs, o.iterations, progress, "latency", &times); !st) return explain(st.error());
    p.latencyMs = Stats::of(times);
  }

  ScratchDir scratch;
  if (scratch.path().empty()) return Error::device("cannot create a temporary folder for the profile");
  ro.profiling = true;
  ro.profilePrefix = scratch.path() / "ort_profile";
  // The graph as the runtime runs it, to map its nodes back: fused and inserted ones at `all`,
  // inlined functions (HardSwish -> HardSigmoid + Mul) even at `disabled`.
  ro.optimizedModelPath = scratch.path() / "optimized.onnx";
  progress.report("loading", 0.5);
  fs::path tracePath;
  {
    auto s = OrtSession::create(model, ro);
    if (!s) return s.error();
    if (auto st = runMany(*s, inputs, o.warmup, progress, "warm-up", nullptr); !st) return explain(st.error());
    if (auto st = runMany(*s, inputs, o.iterations, progress, "profile", nullptr); !st) return explain(st.error());
    auto tp = s->endProfiling();
    if (!tp) return tp.error();
    tracePath = *tp;
  }
  if (progress.cancelled()) return Error::cancelled();
  progress.report("mapping", 0);
  auto trace = loadOrtTrace(tracePath);
  if (!trace) return Error::device("ONNX Runtime wrote a profile we cannot read: " + trace.error().describe());
  auto table = profileFromTrace(*trace, o.warmup, tracePath.string());
  if (!table) return Error::device(table.error().describe());
  Stats latency = p.latencyMs;
  p = std::move(*table);
  if (o.measureLatency) p.latencyMs = latency;  // the trace's spans include profiling overhead

  std::optional<Model> optimized;
  if (!ro.optimizedModelPath.empty()) {
    auto m = loadModel(ro.optimizedModelPath);
    if (!m) return Error::device("cannot read the graph ONNX Runtime ran: " + m.error().describe());
    optimized = std::move(*m);
  }
  mapToIr(p, model, optimized ? &*optimized : nullptr);

  if (!o.keepTrace.empty()) {
    std::error_code ec;
    fs::copy_file(tracePath, o.keepTrace, fs::copy_options::overwrite_existing, ec);
    if (ec) return Error::device("cannot keep the trace at " + o.keepTrace.string() + ": " + ec.message());
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
