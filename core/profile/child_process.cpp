#include "profile/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

extern char** environ;

namespace msa {

namespace {

void appendCapped(std::string& out, const char* data, size_t n, size_t limit) {
  out.append(data, n);
  if (out.size() > limit) out.erase(0, out.size() - limit);
}

}  // namespace

Result<ChildResult> runChild(const std::vector<std::string>& argv, const ChildOptions& options,
                             const Progress& progress) {
  if (argv.empty()) return Error::usage("no command to run");
  int fds[2] = {-1, -1};
  if (options.captureOutput && pipe2(fds, O_CLOEXEC) != 0) return Error::device(std::string("pipe: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.captureOutput) {
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  }
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group: ATC forks compiler workers, and stopping it must stop them too.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment: this process's, with `options.environment` set over it.
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) {
    const std::string_view var(*e);
    const std::string_view key = var.substr(0, var.find('='));
    bool replaced = false;
    for (const auto& [k, v] : options.environment) replaced = replaced || k == key;
    if (!replaced) envStrings.emplace_back(var);
  }
  for (const auto& [k, v] : options.environment) envStrings.push_back(k + "=" + v);
  std::vector<char*> env;
  for (std::string& e : envStrings) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (fds[1] >= 0) close(fds[1]);
  if (rc != 0) {
    if (fds[0] >= 0) close(fds[0]);
    return Error::device("cannot run '" + argv[0] + "': " + std::strerror(rc));
  }

  if (options.onStarted) options.onStarted(static_cast<long>(pid));
  ChildResult result;
  std::string pending;  // the line being received, for onLine
  auto take = [&](const char* data, size_t n) {
    appendCapped(result.output, data, n, options.outputLimit);
    if (!options.onLine) return;
    pending.append(data, n);
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
      options.onLine(std::string_view(pending).substr(0, nl));
    if (pending.size() > options.outputLimit) pending.clear();  // no newline in sight: not a line
  };
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto termSent = Clock::time_point{};
  bool killed = false, exited = false, pipeOpen = options.captureOutput;
  int status = 0;
  char buf[4096];
  while (!exited) {
    if (pipeOpen) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 100) > 0) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) take(buf, static_cast<size_t>(n));
        else if (n == 0) pipeOpen = false;
      }
    } else {
      usleep(20 * 1000);
    }
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    const auto now = Clock::now();
    if (termSent == Clock::time_point{}) {
      if (progress.cancelled()) result.cancelled = true;
      else if (now - start > options.timeout) result.timedOut = true;
      if (result.cancelled || result.timedOut) {
        kill(-pid, SIGTERM);
        termSent = now;
      }
    } else if (!killed && now - termSent > (result.cancelled && options.cancelGrace.count() >= 0 ? options.cancelGrace
                                                                                                 : options.killGrace)) {
      kill(-pid, SIGKILL);
      killed = true;
    }
  }
  // Whatever is left in the pipe (workers that outlive the tool may hold it: don't wait on them).
  if (fds[0] >= 0) {
    int flags = fcntl(fds[0], F_GETFL);
    fcntl(fds[0], F_SETFL, flags | O_NONBLOCK);
    for (ssize_t n; pipeOpen && (n = read(fds[0], buf, sizeof buf)) > 0;) take(buf, static_cast<size_t>(n));
    if (options.onLine && !pending.empty()) options.onLine(pending);
    close(fds[0]);
  }
  if (termSent != Clock::time_point{}) kill(-pid, SIGKILL);  // stragglers of the group
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace msa
