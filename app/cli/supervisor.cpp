// The verbs that run a runtime or long work (their options hold --timeout) run in a child process
// of msadvisor-cli itself, through core's one out-of-process runner (profile/child_process.h). The
// parent is the supervisor: Ctrl-C or SIGTERM reaches the child as SIGTERM, and a child that does
// not stop within a second is killed with its process group; at the timeout the same, with the
// error record written where --json points. The child's temporary files ($TMPDIR points into a
// folder of the supervisor's, util/scratch_dir.h) go with the folder on every exit path: a normal
// end, a timeout, a cancel, a crash or a kill of the child. A killed supervisor takes the child
// along (PR_SET_PDEATHSIG), and its folder is swept by the next run.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli.h"
#include "profile/child_process.h"
#include "util/scratch_dir.h"

namespace msa::cli {
namespace {

constexpr const char* kWorkerVariable = "MSA_CLI_WORKER";

// A signal's name for a message ("SIGSEGV"), its number otherwise.
std::string signalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return "signal " + std::to_string(sig);
  }
}

// The input the work is about, named by a timeout or a crash.
std::string label(const Args& args) {
  if (!args.positional.empty()) return args.positional.front();
  for (const char* o : {"profile", "import"})
    if (auto v = args.value(o)) return *v;
  return {};
}

int failWithRecord(const Args& args, const Error& e, const std::string& kind) {
  if (auto path = args.value("json"); path && *path != "-")
    writeJson({{"error", {{"kind", kind}, {"message", e.describe()}}}}, *path);
  return fail(e);
}

}  // namespace

bool isSupervised(const Verb& verb) {
  for (const OptionSpec& o : verb.options)
    if (o.name == kTimeoutOption.name) return true;
  return false;
}

bool isWorker() { return std::getenv(kWorkerVariable) != nullptr; }

void becomeWorker() {
  // The supervisor killed (SIGKILL: no chance to pass anything on) takes its child along.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) std::_Exit(kCancelled);  // it went before the line above took effect
}

int superviseVerb(const Args& args, int argc, char** argv) {
  auto timeout = timeoutSeconds(args);
  if (!timeout) return fail(timeout.error());
  ScratchDir scratch("msadvisor-run-");
  if (scratch.path().empty()) return fail(Error::device("cannot create a temporary folder for the run"));

  std::vector<std::string> command{"/proc/self/exe"};
  for (int i = 1; i < argc; ++i) command.emplace_back(argv[i]);
  ChildOptions o;
  o.captureOutput = false;
  o.environment = {{kWorkerVariable, "1"}, {"TMPDIR", scratch.path().string()}};
  // The child's own watchdog ends it at the timeout (its error record written, 3 s for a runtime
  // to stop); this is the net under it.
  o.timeout = *timeout > 0 ? std::chrono::milliseconds(static_cast<long long>((*timeout + 5) * 1000))
                           : std::chrono::milliseconds(std::chrono::hours(24 * 365 * 100));
  o.killGrace = std::chrono::milliseconds(1000);
  o.cancelGrace = std::chrono::milliseconds(900);  // Ctrl-C: stopped within a second
  const std::atomic<bool>* cancel = installCancelHandler();
  const Progress progress({}, cancel);
  auto r = runChild(command, o, progress);
  if (!r) return fail(r.error());
  if (r->timedOut) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", *timeout);
    Error e = Error::device(std::string("timeout: the work did not finish within ") + seconds +
                            " s (--timeout); the runtime did not stop, so it was ended");
    e.file = label(args);
    return failWithRecord(args, e, "timeout");
  }
  if (r->cancelled) {
    // The child said so itself when it stopped in time (exit 5); a killed one cannot.
    if (r->signal) fail(Error::cancelled());
    return kCancelled;
  }
  if (r->signal) {
    Error e = Error::device("the work ended with " + signalName(r->signal) +
                            " (a crash in the runtime or in msadvisor): nothing was written");
    e.file = label(args);
    return failWithRecord(args, e, "crash");
  }
  return r->exitCode;
}

}  // namespace msa::cli
