#pragma once
// How a measured latency was measured (profile/latency.h): with how many threads and why, and
// whether the machine let the runtime's threads run. Carried by ProfileData (and its JSON, so the
// GUI's profiling child hands it back), written to reports as `measurement` (DESIGN.md contract).
#include <string>

namespace msa {

struct Measurement {
  bool measured = false;     // false: nothing was timed here (an imported or estimated figure)
  int threads = 0;           // intra-op threads the timed runs used
  std::string threadsBasis;  // "default": the runtime's default, one per physical core; "user": --threads
  // The machine stayed busy: too few uncontended blocks for the figures, which then describe the
  // moment (every block), not the model. `uncontendedMs` is the best estimate beside them.
  bool contended = false;
  double cpuShare = 1;       // of the CPU time the runtime's threads were ready to use, the part they got
  double stealShare = 0;     // CPU time the hypervisor took (steal), share of all CPU time
  double load = 0;           // the 1-minute load average when the timing ended
  int runnable = 0;          // the most runnable tasks seen at the end of a block
  int blocks = 0;            // blocks of runs timed
  int blocksSetAside = 0;    // of them, contended: left out of the figures (replaced while the budget allowed)
  // The best uncontended estimate: the median of the runs of uncontended blocks, or the fastest
  // run when no block was uncontended ("fastest_run").
  double uncontendedMs = 0;
  std::string uncontendedBasis;  // "uncontended_runs" | "fastest_run"
  // One intra-op thread against `threads`, timed in turns beside each other (when it was cheap,
  // or when contention was seen): medians, 0 when not measured.
  double oneThreadMs = 0, threadsMs = 0;
};

}  // namespace msa
