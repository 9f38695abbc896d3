#pragma once
// How much of the CPU this process's threads got while a block of runs was timed, and what else
// the machine was doing: the contention the measurement engine (profile/latency.h) sets aside.
//  - From each thread's scheduler statistics (/proc/self/task/*/schedstat): time on a CPU and
//    time ready to run but waiting for one. Their ratio is the share of the CPU time the threads
//    asked for that they got: about 1 on a quiet machine whatever the threads did (an idle pool
//    thread asks for nothing), about 0.75 with a busy process pinned to one of two cores.
//    Without schedstat (a kernel without CONFIG_SCHED_INFO), the process's CPU time over wall
//    time × threads, as the host calibration measured it before.
//  - Steal time (/proc/stat): the CPU time the hypervisor gave to other guests. On a virtual
//    machine the same session drifted up to 40 % between runs with no other process visible.
//  - The runnable count and the 1-minute load average (/proc/loadavg), for the report.
#include <cstdint>

namespace msa {

struct CpuSample {
  double wallMs = 0;
  double onCpuMs = 0;       // summed over the process's threads
  double waitingMs = 0;     // ready to run, waiting for a CPU (schedstat's run_delay), summed likewise
  bool schedstat = false;   // onCpuMs/waitingMs come from schedstat (else onCpuMs is the process CPU clock)
  uint64_t stealTicks = 0, totalTicks = 0;  // /proc/stat "cpu" line, every CPU
  double load1 = 0;         // 1-minute load average
  int runnable = 0;         // runnable tasks on the machine right now
};

CpuSample sampleCpu();

struct BlockLoad {
  double cpuShare = 1;    // of the CPU time the threads were ready to use, the part they got
  double stealShare = 0;  // of all CPU time between the samples, the part the hypervisor took
  double load1 = 0;
  int runnable = 0;
};

// Between two samples; `threads` is the runtime's intra-op thread count (the fallback's divisor).
BlockLoad loadBetween(const CpuSample& before, const CpuSample& after, int threads);

// Below this share, or with more steal than kStolenShare, a block's runs measured the machine's
// other work (one core of two held by another process: about 0.75; both: about 0.5).
constexpr double kContendedShare = 0.85;
constexpr double kStolenShare = 0.1;
inline bool contended(const BlockLoad& b) { return b.cpuShare < kContendedShare || b.stealShare > kStolenShare; }

}  // namespace msa
