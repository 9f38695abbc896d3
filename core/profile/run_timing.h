#pragma once
// Timing one session's runs in blocks. Sessions timed in turn (the unoptimized and the deployed
// run; an original and its optimized model) take turns by blocks, not run by run: a run right
// after another session's finds the caches holding that session's weights, and a 1,000-node
// decoder's deployed run read 1.23-1.31x its time alone. A block's first run, untimed, brings the
// session's own data back; the timed runs that follow run as a deployed model does, one inference
// after another. The measurement engine (profile/latency.h) is built on this.
#include <condition_variable>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "model/data_value.h"
#include "profile/ort_session.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct RunBlock {
  bool refill = true;      // one untimed run first (not needed when the session ran last)
  int maxTimed = 1;        // timed runs at most (at least one is always timed)
  double seconds = 0;      // or fewer: the block ends with the run that ends this long after it began
  double minSeconds = 0;   // or more, up to `seconds`: sub-millisecond runs need more samples than a few
};

// Milliseconds on the wall clock (steady).
double nowMs();

// Runs one block of `session` and appends each timed run's milliseconds to `timesMs`.
Status timeRunBlock(const OrtSession& session, std::span<const DataValue> inputs, const RunBlock& block,
                    std::vector<double>& timesMs, const Progress& progress);

// Stops a session's run in flight when the caller cancels (the GUI's SIGTERM, a timeout): a
// thread that watches the flag while it lives.
class CancelWatch {
 public:
  CancelWatch(const OrtSession& session, const Progress& progress);
  ~CancelWatch();
  CancelWatch(const CancelWatch&) = delete;
  CancelWatch& operator=(const CancelWatch&) = delete;

 private:
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace msa
