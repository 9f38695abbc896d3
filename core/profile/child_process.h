#pragma once
// Runs an external tool (ATC), or msadvisor-cli's own work in a child (app/cli: the supervisor of
// the verbs that run a runtime), from core without Qt: posix_spawn into its own process group,
// output captured or passed through, cancel and timeout honoured (SIGTERM to the group, SIGKILL
// after a grace).
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct ChildResult {
  int exitCode = -1;     // valid when signal == 0
  int signal = 0;        // the signal that ended it, 0 when it exited
  bool timedOut = false;
  bool cancelled = false;
  std::string output;    // combined stdout + stderr, the last `outputLimit` bytes
};

struct ChildOptions {
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::chrono::milliseconds killGrace{5000};  // after SIGTERM, before SIGKILL
  size_t outputLimit = 64 * 1024;
  // Added later; the defaults keep the behaviour above.
  bool captureOutput = true;  // false: the child writes to this process's stdout and stderr (output stays empty, no onLine)
  std::vector<std::pair<std::string, std::string>> environment;  // set or replaced in the child's environment
  std::chrono::milliseconds cancelGrace{-1};  // after a cancel, before SIGKILL (a person waits); < 0: killGrace
  // Optional, called on the calling thread: each line of output as it arrives (stdout and
  // stderr together, without the newline; the last line too when it has none), and the child's
  // process id once it runs (the leader of its process group).
  std::function<void(std::string_view line)> onLine;
  std::function<void(long pid)> onStarted;
};

// Fails only when the process cannot be started (argv[0] not found or not executable);
// `progress` is polled for cancellation.
Result<ChildResult> runChild(const std::vector<std::string>& argv, const ChildOptions& options,
                             const Progress& progress = Progress::none());

}  // namespace msa
