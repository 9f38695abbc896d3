#include "profile/run_timing.h"

#include <chrono>

namespace msa {

double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status timeRunBlock(const OrtSession& session, std::span<const DataValue> inputs, const RunBlock& block,
                    std::vector<double>& timesMs, const Progress& progress) {
  if (block.refill) {
    if (progress.cancelled()) return Error::cancelled();
    if (auto r = session.runDiscarding(inputs); !r) return r.error();
  }
  const double start = nowMs();
  for (int run = 1;; ++run) {
    if (progress.cancelled()) return Error::cancelled();
    const double t0 = nowMs();
    if (auto r = session.runDiscarding(inputs); !r) return r.error();
    const double t1 = nowMs();
    timesMs.push_back(t1 - t0);
    const double elapsed = t1 - start;
    if ((run >= block.maxTimed && elapsed >= block.minSeconds * 1e3) || elapsed >= block.seconds * 1e3) break;
  }
  return Ok{};
}

CancelWatch::CancelWatch(const OrtSession& s, const Progress& p)
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

CancelWatch::~CancelWatch() {
  {
    std::lock_guard lock(m_mu);
    m_stop = true;
  }
  m_cv.notify_all();
  m_thread.join();
}

}  // namespace msa
