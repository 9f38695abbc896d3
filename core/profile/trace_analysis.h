#pragma once
// Where the time of a training step goes, from a TrainingTrace: per step the busy time of the
// compute timeline, the data-loading stall and the idle rest; per operator and per kernel the
// time and calls; the hotspots with their input shapes and dtypes; the short-work statistics.
//
// The compute timeline is the device's when the trace has device events (kernels, memcpy,
// memset; busy = the union of their intervals), else the host's: the top-level operators (no
// operator around them) outside data loading. On a CPU-only trace "idle" is therefore the
// time the training process spends outside any operator: Python, the framework, the profiler.
#include <map>
#include <string>
#include <vector>

#include "profile/trace_memory.h"
#include "profile/run_trace.h"

namespace msa::training {

struct AnalysisThresholds {
  // A work item (kernel, or top-level host op) shorter than this is launch-dominated. HTA's
  // CUDA kernel launch statistics quote 5–20 µs for a launch on the CPU side; a kernel shorter
  // than its own launch (HTA's "short GPU kernel") is used instead when the runtime call is
  // in the trace.
  double shortItemUs = 10;
};

struct StepBreakdown {
  long long number = -1;
  double ms = 0;           // the step's span
  double busyMs = 0;       // union of the compute timeline's work (compute + memory on a device)
  double computeMs = 0;    // device: union of the compute kernels (no communication, no copies)
  double memoryMs = 0;     // device memcpy/memset time not overlapped by kernels
  double dataLoadingMs = 0;  // data loading while no model work ran (the stall)
  double idleMs = 0;       // the rest: neither work nor data loading
  // Host phases (sum of top-level host time by phase; may overlap the device's timeline).
  double forwardMs = 0, backwardMs = 0, optimizerMs = 0;
  int items = 0;            // work items on the compute timeline
  int shortItems = 0;       // of which short (AnalysisThresholds)
  double shortMs = 0;       // their own time
  double shortGapMs = 0;    // idle time right before each short item (outside data loading)
  double gapMs = 0;         // idle time before every item (outside data loading)
  // Device traces: collective communication (NCCL / HCCL kernels) and host<->device copies.
  double commMs = 0;          // union of the communication kernels
  double commExposedMs = 0;   // of which no compute kernel overlaps (the step waits for it)
  // The same split by kind (communicationKind): pipeline point-to-point and collectives.
  double p2pMs = 0, p2pExposedMs = 0;
  double collectiveMs = 0, collectiveExposedMs = 0;
  double h2dMs = 0, d2hMs = 0;  // summed memcpy time by direction (HtoD / DtoH)
  int copies = 0;             // H2D + D2H memcpy events
  double copyExposedMs = 0;   // H2D/D2H time no compute kernel overlaps
};

struct Signature {
  std::string dims, types;  // "[8,3,32,32] [16,3,3,3]", "float float"
  int calls = 0;
  double ms = 0;  // per step
};

struct OpTime {
  std::string name;
  double calls = 0;       // per step
  double selfMs = 0;      // per step: own time, children excluded (torch's "Self CPU")
  double totalMs = 0;     // per step: inclusive time (nested calls of the same op counted once)
  double deviceMs = 0;    // per step: device time of the kernels it launched (0 without links)
  double share = 0;       // of the step: deviceMs on a device timeline, selfMs otherwise
  std::vector<Signature> signatures;  // heaviest first (at most 3)
};

struct KernelTime {
  std::string name, opType, taskType;
  std::string shortName;  // shortKernelName(name)
  double calls = 0;  // per step
  double ms = 0;     // per step
  double maxUs = 0;
  double share = 0;
  std::vector<Signature> signatures;
};

struct TrainingProfile {
  std::string timeline;  // "device" or "host": what busy/idle are measured on
  AnalysisThresholds thresholds;
  std::vector<StepBreakdown> steps;
  StepBreakdown median;          // per field, the median over steps (number = -1)
  double stepMs = 0, stepP10Ms = 0, stepP90Ms = 0, stepMinMs = 0, stepMaxMs = 0;
  std::vector<OpTime> ops;         // by share, highest first
  std::vector<KernelTime> kernels; // by time, highest first (device traces)
  std::vector<std::string> dataLoaders;  // names of the data-loading ranges seen
  // The compute timeline's work items per step, in order (for the sequence and launch rules).
  struct Item {
    int event = -1;        // index into the trace's events
    double gapUs = 0;      // idle time before it (outside data loading)
    bool isShort = false;
  };
  std::vector<std::vector<Item>> items;  // aligned with steps
  // Per event: for a device event, the innermost host operator enclosing its launch; -1 when
  // not linked (and for host events).
  std::vector<int> launchOp;
  ActivationMemory memory;  // per module, when the trace has module ranges (training_memory.h)
  // Per event: for a communication kernel its kind, from the host operator that launched it
  // when the trace links them (NCCL runs all-to-all as SendRecv kernels: c10d::alltoall_ says it
  // is a collective), else from its own name; "" for everything else.
  std::vector<std::string_view> communication;
  // Per communication kernel name: its time per step no compute kernel overlaps (ms, summed over
  // its calls, mean over the steps) — what the step waits for it.
  std::map<std::string, double> exposedMsByKernel;
};

// True for the names of data-loading ranges: torch's "enumerate(DataLoader)#…__next__" and
// user annotations naming a data loader or data loading.
bool isDataLoading(std::string_view name);
// Collective communication kernels and ops: NCCL (ncclKernel_AllReduce…, nccl:all_reduce), HCCL
// (hcom_allReduce_, HcclAllReduce, HcomAllReduce), and names with allreduce/allgather/
// reducescatter/alltoall/broadcast-collective spellings.
bool isCommunication(std::string_view name);
// What a communication kernel or op does: "p2p" — point-to-point send/receive, the traffic between
// pipeline stages (HCCL hcom_send / hcom_receive / hcom_batchSendRecv, NCCL SendRecv, Send,
// Recv, c10d::send / recv) — or "collective" (all-reduce, all-gather, reduce-scatter,
// broadcast, all-to-all: data, tensor or expert parallelism). "" when not communication.
std::string_view communicationKind(std::string_view name);
// A kernel name as HTA prints it: template arguments, function arguments and the return type
// removed ("void at::native::vectorized_elementwise_kernel<4, …>(int, …)" ->
// "at::native::vectorized_elementwise_kernel"). Names that are not C++ signatures stay as they are.
std::string shortKernelName(std::string_view name);
// Host operators of the backward pass: autograd's evaluate_function ranges, *Backward* nodes,
// AccumulateGrad.
bool isBackwardName(std::string_view name);
// Direction of a copy from its name: "h2d" (Memcpy HtoD, MEMCPY_H2D…), "d2h", or "" (device to
// device, or unknown).
std::string_view copyDirection(std::string_view name);

TrainingProfile analyzeTrace(const TrainingTrace& trace, const AnalysisThresholds& thresholds = {},
                             const Progress& progress = Progress::none());

double median(std::vector<double> v);
double percentile(std::vector<double> v, double p);

}  // namespace msa::training
