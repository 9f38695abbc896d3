#pragma once
// Activation memory per module: what each layer's forward pass leaves held for the backward pass
// (the memory gradient checkpointing frees) against what running that forward again costs.
//
// Modules are the trace's module ranges (isModuleRange), nested as the trace nests them. The
// saved bytes come from patch_pytorch's saved-tensor accounting when the trace has it (exact: the
// tensors autograd saved for backward, each storage once, parameters excluded). Otherwise they
// come from the profiler's allocations (Kineto memory events, torch_npu operator_memory.csv): an
// allocation made inside a module's forward range and still held when the step's backward pass
// starts counts for the innermost module running. That is an upper bound, because it includes the
// output the next layer reads. A module's output is then the last such allocation it made.
#include <string>
#include <vector>

#include "profile/run_trace.h"

namespace msa::training {

struct ModuleActivation {
  std::string label;   // the module path (patch_pytorch) or the python tracer's "<Class>_<n>"
  std::string type;    // the module's class, where known
  std::string parent;  // the enclosing module's label; "" for a top-level module (the model, the loss)
  int depth = 0;
  double calls = 0;          // per step
  double forwardMs = 0;      // per step (median over steps), submodules included: what recomputing it costs
  double ownSavedBytes = 0;  // per step, while it was the innermost module running
  double savedBytes = 0;     // per step, its submodules' included
  double outputBytes = 0;    // per step: what stays held when it is checkpointed
};

struct ActivationMemory {
  std::string source;     // TrainingTrace::memorySource; "" when the trace has no memory facts
  int steps = 0;          // steps with module ranges
  double savedBytes = 0;  // per step, every module's own bytes (each byte once)
  double forwardMs = 0;   // per step (median over steps), the top-level modules' forward time
  std::vector<ModuleActivation> modules;  // by savedBytes, highest first
};

ActivationMemory analyzeActivations(const TrainingTrace& trace);

}  // namespace msa::training
