#pragma once
// Long core calls from Python: the work runs on a worker thread while the calling thread waits
// with the GIL released. The calling thread wakes every 50 ms (or when the work is done) to hand
// the latest progress to the Python callback and to run Python's signal handlers: Ctrl-C raises
// KeyboardInterrupt there, which sets the core's cancel flag, waits for the worker to stop and
// then propagates. Nothing is left running when runJob returns or throws.
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
void runJobImpl(pybind11::object callback, const std::function<void(const Progress&)>& work);

// The core's Result<T> as the value or a Python exception (errors.h).
template <typename T>
T runJob(pybind11::object callback, const std::function<Result<T>(const Progress&)>& work) {
  std::optional<Result<T>> result;
  runJobImpl(std::move(callback), [&](const Progress& p) { result.emplace(work(p)); });
  return unwrap(std::move(*result));
}

// Number of jobs whose worker thread is still running (0 whenever no call is in flight).
int runningJobs();

}  // namespace msa::py
