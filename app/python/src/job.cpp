#include "job.h"

#include <signal.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace msa::py {
namespace {

std::atomic<int> g_running{0};

// SIGTERM during a job, when Python leaves it at its default (which ends the process at once and
// leaves the job's temporary files): noted here, the work cancelled, then the process ended by
// SIGTERM as it would have been. Installed while any job runs.
std::atomic<bool> g_terminate{false};
std::mutex g_signalMutex;
int g_signalUsers = 0;
struct sigaction g_previous {};
extern "C" void onTerminate(int) { g_terminate.store(true); }

bool g_installed = false;

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

class TerminateGuard {
 public:
  TerminateGuard() {
    std::lock_guard lock(g_signalMutex);
    if (g_signalUsers++ > 0) return;
    struct sigaction current {};
    ::sigaction(SIGTERM, nullptr, &current);
    g_installed = current.sa_handler == SIG_DFL;  // Python's own handler (or SIG_IGN) stays as it is
    if (!g_installed) return;
    struct sigaction sa {};
    sa.sa_handler = onTerminate;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGTERM, &sa, &g_previous);
  }
  ~TerminateGuard() {
    std::lock_guard lock(g_signalMutex);
    if (--g_signalUsers > 0 || !g_installed) return;
    ::sigaction(SIGTERM, &g_previous, nullptr);
    g_installed = false;
    if (g_terminate.exchange(false)) ::raise(SIGTERM);  // the default action, now that the work has stopped
  }
};

}  // namespace

int runningJobs() { return g_running.load(); }

CoreError timeoutError(double timeoutSeconds) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", timeoutSeconds);
  return CoreError{Error::device(std::string("timeout: the work did not finish within ") + seconds + " s (timeout=)"), true};
}

bool runJobImpl(pybind11::object callback, const std::function<void(const Progress&)>& work, double timeoutSeconds) {
  namespace py = pybind11;
  if (!(timeoutSeconds >= 0)) throw CoreError{Error::usage("timeout is a number of seconds, 0 for none")};
  TerminateGuard terminate;
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
  const auto start = std::chrono::steady_clock::now();
  bool timedOut = false;
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
    if (g_terminate.load()) st.cancel = true;
    if (timeoutSeconds > 0 && !timedOut &&
        std::chrono::steady_clock::now() - start > std::chrono::duration<double>(timeoutSeconds)) {
      timedOut = true;
      st.cancel = true;
    }
  }
  worker.join();
  if (st.failure) std::rethrow_exception(st.failure);
  return timedOut;
}

}  // namespace msa::py
