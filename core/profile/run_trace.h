#pragma once
// A training run as the profiler recorded it: host operators and annotations, device kernels,
// and the training steps (ProfilerStep#N). Readers fill it from a PyTorch Chrome trace
// (Kineto, the legacy autograd exporter) or a torch_npu profiler folder; training_analysis.h
// turns it into per-step statistics and rules into findings. Plain data, no Qt.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/progress.h"

namespace msa::training {

enum class EventKind : uint8_t {
  CpuOp,       // an operator on the host: aten::addmm, autograd::engine::evaluate_function: …
  Annotation,  // a record_function range: ProfilerStep#3, enumerate(DataLoader)#…, Optimizer.step#…
  Kernel,      // device compute: a CUDA kernel, an Ascend task (AI_CORE, AI_CPU, …)
  Memcpy,      // device memory traffic: gpu_memcpy, MEMCPY tasks
  Memset,
  Runtime,     // the host side of a launch: cudaLaunchKernel, CANN runtime APIs
};

std::string_view eventKindName(EventKind k);

struct TraceEvent {
  EventKind kind = EventKind::CpuOp;
  std::string name;
  double tsUs = 0;   // start, µs on the trace's own clock
  double durUs = 0;
  int thread = -1;   // index into TrainingTrace::threads (a host thread or a device stream)
  int parent = -1;   // host events: the innermost enclosing host event on the same thread
  int step = -1;     // index into TrainingTrace::steps; -1 outside every step
  int source = -1;   // the event's index in the trace file, or its CSV line
  long long correlation = -1;  // links a kernel to its launch (Kineto "correlation", torch_npu flows)
  long long externalId = -1;   // Kineto "External id" of an operator
  // Device events: where and when the host launched them (-1: unknown).
  int launchThread = -1;
  double launchTsUs = -1;
  long long stepId = -1;  // device rows that carry their own step number (kernel_details Step Id)
  // Operators recorded with record_shapes: one entry per input, "" for non-tensor inputs.
  std::vector<std::string> inputDims;   // "[8,3,32,32]"; a tensor list is "[[2,3],[4]]"
  std::vector<std::string> inputTypes;  // "float", "c10::Half", "int64", "Scalar", …
  std::string opType;    // device: the kernel's operator type (kernel_details Type)
  std::string taskType;  // device: AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC, …
  int io = -1;           // index into TrainingTrace::kernelIo (kernel_details rows), -1: none

  double endUs() const { return tsUs + durUs; }
  bool onDevice() const { return kind == EventKind::Kernel || kind == EventKind::Memcpy || kind == EventKind::Memset; }
  bool onHost() const { return kind == EventKind::CpuOp || kind == EventKind::Annotation; }
};

// A module's forward pass: patch_pytorch's record_function range "nn.Module: <path>", or the
// python tracer's "nn.Module: <Class>_<n>" (Kineto and torch_npu with with_stack/with_modules).
inline constexpr std::string_view kModuleRangePrefix = "nn.Module: ";
bool isModuleRange(const TraceEvent& e);

struct TraceThread {
  std::string label;  // "pid 123 / tid 7", "Ascend Hardware / stream 2"
  bool device = false;
};

struct TrainingStep {
  long long number = -1;  // N of ProfilerStep#N (or the Step Id)
  double startUs = 0, endUs = 0;
  int event = -1;         // the ProfilerStep annotation, -1 when the step was derived otherwise
  double ms() const { return (endUs - startUs) / 1000.0; }
};

// torch_npu step_trace_time.csv (µs per step): the device's own breakdown of each step.
struct StepTraceRow {
  long long step = -1;
  // msprof-analyze's cluster_step_trace_time.csv: "rank" (index its rank) or "stage" (index a
  // pipeline's ranks, "(0, 2)", with their largest figures); empty in a rank's own file.
  std::string type, index;
  double computingUs = 0, communicationNotOverlappedUs = 0, overlappedUs = 0, communicationUs = 0, freeUs = 0;
  double bubbleUs = -1, preparingUs = -1;  // -1: column absent
  double totalUs() const { return computingUs + communicationNotOverlappedUs + freeUs; }
};

// Memory facts, when the trace has them (training_memory.h turns them into per-module figures).
// patch_pytorch's own accounting (the "msadvisor" block of its trace): per module path and step,
// the bytes autograd saved for backward while the module was the innermost one running.
struct ModuleMemory {
  std::string path, type;
  double savedBytes = 0, outputBytes = 0, calls = 0;  // per step
};
// One allocation: Kineto "[memory]" events paired by address, torch_npu operator_memory.csv rows.
struct MemoryBlock {
  double bytes = 0;
  double allocUs = 0;
  double releaseUs = -1;  // -1: not released within the trace
  std::string op;         // the operator that allocated it, when the profiler says
};

// The rest of a kernel_details row's tensors (its inputs' shapes and dtypes are the event's
// inputDims / inputTypes): what the Ascend cost model prices a kernel from. Kept beside the
// events, not in them, so that traces without it (Kineto) pay nothing per event.
struct KernelIo {
  std::vector<std::string> inputFormats;                // "NC1HWC0", "ND", …
  std::vector<std::string> outputDims, outputTypes, outputFormats;
};

struct TrainingTrace {
  std::string path;
  std::string format;   // "kineto", "autograd-legacy", "torch_npu"
  std::string device;   // "cpu", "cuda", "npu"
  std::vector<TraceEvent> events;  // sorted by start time (ties: the longer first)
  std::vector<TraceThread> threads;
  std::vector<TrainingStep> steps;
  // How the steps were found: "profiler_step" (ProfilerStep#N ranges), "step_id" (device rows'
  // Step Id), "whole_trace" (neither: the trace is one step).
  std::string stepSource;
  std::vector<StepTraceRow> stepTrace;  // torch_npu step_trace_time.csv, when present
  std::vector<KernelIo> kernelIo;       // TraceEvent::io indexes it
  bool hasShapes = false;  // some operator carries Input Dims
  std::vector<ModuleMemory> moduleMemory;  // patch_pytorch's saved-tensor accounting
  std::vector<MemoryBlock> allocations;    // the profiler's allocations
  std::string memorySource;  // "saved_tensors", "memory_events" (Kineto), "operator_memory" (torch_npu); "" none
  std::vector<std::string> files;  // what was read
  std::vector<std::string> notes;  // caveats as text keys: "no_steps", "no_shapes", …

  bool hasDevice() const;
  size_t count(EventKind k) const;
};

// Reads a trace: a Chrome-trace JSON file (Kineto `traceEvents`, the legacy autograd list, a
// torch_npu trace_view.json), gzip-compressed or not, or a torch_npu profiler folder (a
// *_ascend_pt folder, its ASCEND_PROFILER_OUTPUT, or a folder holding exactly one of them),
// or a kernel_details.csv. Malformed input is an error naming the file and the event index or
// CSV line.
Result<TrainingTrace> loadTrainingTrace(const std::filesystem::path& path, const Progress& progress = Progress::none());

// The Chrome-trace reader on its own (text already in memory; `label` names it in errors).
Result<TrainingTrace> parseChromeTrace(std::string_view text, const std::string& label,
                                       const Progress& progress = Progress::none());
// The same, streamed from a file (gzip or not) within the read limits (util/read_limits.h).
Result<TrainingTrace> loadChromeTrace(const std::filesystem::path& file, const Progress& progress = Progress::none());

// For every event, the nearest enclosing host event (parent, grand-parent, …) for which `pred`
// holds, -1 when none. One pass: a parent comes before its children in the sorted events. Walking
// up from every event instead costs events × depth: a trace of 250k nested operators took minutes.
template <typename Pred>
std::vector<int> nearestAncestor(const TrainingTrace& t, Pred pred) {
  std::vector<int> near(t.events.size(), -1);
  for (size_t i = 0; i < t.events.size(); ++i)
    if (const int p = t.events[i].parent; p >= 0)
      near[i] = pred(t.events[static_cast<size_t>(p)]) ? p : near[static_cast<size_t>(p)];
  return near;
}
// The same for the outermost such ancestor, the event itself included.
template <typename Pred>
std::vector<int> outermostAncestorOrSelf(const TrainingTrace& t, Pred pred) {
  std::vector<int> top(t.events.size(), -1);
  for (size_t i = 0; i < t.events.size(); ++i) {
    const int p = t.events[i].parent;
    top[i] = p >= 0 && top[static_cast<size_t>(p)] >= 0 ? top[static_cast<size_t>(p)] : pred(t.events[i]) ? static_cast<int>(i) : -1;
  }
  return top;
}

// Finishes a trace the readers filled: sorts the events, nests host events per thread, finds
// the steps and assigns every event to one. Called by the readers; exposed for tests.
void finalizeTrace(TrainingTrace& trace);

}  // namespace msa::training
