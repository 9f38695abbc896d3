#include "profile/run_timing.h"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace msa {

double nowMs(bool threadCpuClock) {
  if (threadCpuClock) {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status timeRunBlock(const OrtSession& session, std::span<const DataValue> inputs, const RunBlock& block,
                    std::vector<double>& timesMs, const Progress& progress) {
  if (block.refill) {
    if (progress.cancelled()) return Error::cancelled();
    if (auto r = session.runDiscarding(inputs); !r) return r.error();
  }
  // The block's length is wall time whatever clock times the runs.
  const double start = nowMs(false);
  for (int run = 1;; ++run) {
    if (progress.cancelled()) return Error::cancelled();
    const double t0 = nowMs(block.threadCpuClock);
    if (auto r = session.runDiscarding(inputs); !r) return r.error();
    timesMs.push_back(nowMs(block.threadCpuClock) - t0);
    const double elapsed = nowMs(false) - start;
    if ((run >= block.maxTimed && elapsed >= block.minSeconds * 1e3) || elapsed >= block.seconds * 1e3) break;
  }
  return Ok{};
}

}  // namespace msa
