#include "job.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace msa::py {
namespace {

std::atomic<int> g_running{0};

struct JobState {
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;
  bool fresh = false;  // progress not yet handed to Python
  std::string phase;
  double fraction = 0;
  std::atomic<bool> cancel{false};
  std::exception_ptr failure;
};

}  // namespace

int runningJobs() { return g_running.load(); }

void runJobImpl(pybind11::object callback, const std::function<void(const Progress&)>& work) {
  namespace py = pybind11;
  JobState st;
  Progress progress(
      [&st](std::string_view phase, double fraction) {
        std::lock_guard lock(st.mutex);
        st.phase.assign(phase);
        st.fraction = fraction;
        st.fresh = true;
      },
      &st.cancel);

  ++g_running;
  std::thread worker([&] {
    try {
      work(progress);
    } catch (...) {
      st.failure = std::current_exception();
    }
    {
      std::lock_guard lock(st.mutex);
      st.done = true;
    }
    st.wake.notify_all();
    --g_running;
  });
  // Whatever happens on this side (a callback or signal handler raising), the worker is told to
  // stop and joined before the exception leaves: no thread outlives the call.
  struct Stop {
    JobState& st;
    std::thread& worker;
    ~Stop() {
      st.cancel = true;
      py::gil_scoped_release nogil;
      if (worker.joinable()) worker.join();
    }
  } stop{st, worker};

  const bool hasCallback = !callback.is_none();
  for (;;) {
    bool done = false, fresh = false;
    std::string phase;
    double fraction = 0;
    {
      py::gil_scoped_release nogil;
      std::unique_lock lock(st.mutex);
      st.wake.wait_for(lock, std::chrono::milliseconds(50), [&] { return st.done; });
      done = st.done;
      fresh = st.fresh;
      st.fresh = false;
      phase = st.phase;
      fraction = st.fraction;
    }
    if (fresh && hasCallback) callback(phase, fraction);
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (done) break;
  }
  worker.join();
  if (st.failure) std::rethrow_exception(st.failure);
}

}  // namespace msa::py
