#pragma once
// Long core calls from Python: the work runs on a worker thread while the calling thread waits
// with the GIL released. The calling thread wakes every 50 ms (or when the work is done) to hand
// the latest progress to the Python callback and to run Python's signal handlers: Ctrl-C raises
// KeyboardInterrupt there, which sets the core's cancel flag, waits for the worker to stop and
// then propagates. SIGTERM (when Python leaves it at its default) cancels the same way, then ends
// the process as SIGTERM would have, once the work has stopped and removed its temporary files.
// Past `timeoutSeconds` (the CLI's --timeout, the same default; 0: none) the work is cancelled and
// msadvisor.TimeoutError (a DeviceError) raised. Nothing is left running when runJob returns or
// throws.
#include <functional>
#include <optional>

#include <pybind11/pybind11.h>

#include "errors.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa::py {

// Runs `work(progress)` as described above. `callback` is None or a callable(phase: str,
// fraction: float). An exception from the callback or a signal handler cancels the work and is
// re-raised once the worker has stopped; an exception thrown by the work is re-raised too.
// Returns true when the timeout cancelled the work.
bool runJobImpl(pybind11::object callback, const std::function<void(const Progress&)>& work, double timeoutSeconds);

inline constexpr double kDefaultTimeoutSeconds = 1800;  // the CLI's --timeout default

// The timeout as an error (what a cancelled result becomes when the timeout cancelled it).
CoreError timeoutError(double timeoutSeconds);

// The core's Result<T> as the value or a Python exception (errors.h).
template <typename T>
T runJob(pybind11::object callback, const std::function<Result<T>(const Progress&)>& work,
         double timeoutSeconds = kDefaultTimeoutSeconds) {
  std::optional<Result<T>> result;
  const bool timedOut = runJobImpl(std::move(callback), [&](const Progress& p) { result.emplace(work(p)); }, timeoutSeconds);
  if (timedOut && !*result) throw timeoutError(timeoutSeconds);
  return unwrap(std::move(*result));
}

// Number of jobs whose worker thread is still running (0 whenever no call is in flight).
int runningJobs();

}  // namespace msa::py
