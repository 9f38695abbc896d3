#pragma once
// The msadvisor-cli framework: verbs, option parsing, JSON output and exit codes. Each verb lives
// in its own cmd_<verb>.cpp and is listed in main.cpp.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/progress.h"
#include "util/special_file.h"
#include "util/text_escape.h"

namespace msa {
struct Model;
}

namespace msa::cli {

// Exit codes of the command-line contract (DESIGN.md).
enum Exit : int { kOk = 0, kUsage = 1, kModelError = 2, kDeviceError = 3, kVerificationFailed = 4, kCancelled = 5 };

// Whether an option's value is a path the run reads or writes: what a run writes never lands on
// what it reads (util/run_files.h). Positional arguments are always read.
enum class PathUse { None, Reads, Writes };

struct OptionSpec {
  std::string_view name;   // long name without dashes: "json"
  char shortName = 0;      // 'o' for -o
  bool takesValue = true;  // false: a flag
  bool repeatable = false;
  std::string_view help;
  PathUse path = PathUse::None;
};

class Args {
 public:
  std::vector<std::string> positional;
  bool has(std::string_view name) const { return m_values.count(std::string(name)) != 0; }
  std::optional<std::string> value(std::string_view name) const;
  std::string valueOr(std::string_view name, std::string dflt) const;
  std::vector<std::string> values(std::string_view name) const;
  // Integer option within [lo, hi]; a usage error otherwise.
  Result<long long> intValue(std::string_view name, long long dflt, long long lo, long long hi) const;
  Result<double> doubleValue(std::string_view name, double dflt) const;
  void set(std::string name, std::string value) { m_values[std::move(name)].push_back(std::move(value)); }

 private:
  std::map<std::string, std::vector<std::string>> m_values;
};

struct Verb {
  std::string_view name;
  std::string_view synopsis;  // "info MODEL [--json PATH]"
  std::string_view summary;
  std::vector<OptionSpec> options;
  int (*run)(const Args&);
};

Result<Args> parseArgs(const Verb& verb, std::span<char*> argv);

// The items of a repeatable comma-separated option ("--only a,b --only c" -> a, b, c), empty ones dropped.
std::vector<std::string> splitList(const std::vector<std::string>& values);

// Options every verb shares.
inline const OptionSpec kJsonOption{"json", 0, true, false, "write JSON to PATH ('-' for standard output)",
                                    PathUse::Writes};
inline const OptionSpec kDimOption{"dim", 0, true, true, "bind a symbolic input dim, NAME=VALUE (repeatable)"};
inline const OptionSpec kProgressOption{"progress", 0, true, false, "progress on stderr: text (default), json, none"};
// Verbs that read profiles: how much of one they hold (util/read_limits.h; also MSA_MAX_EVENTS
// and MSA_MAX_NAMES in the environment, which these override).
inline const OptionSpec kMaxEventsOption{"max-events", 0, true, false,
                                         "read at most N events, rows or layers of a profile (default 2000000)"};
inline const OptionSpec kMaxNamesOption{"max-names", 0, true, false,
                                        "read at most N distinct kernel, operator or layer names (default 200000)"};

// The read limits from the environment, then the verb's --max-events / --max-names.
Status applyReadLimits(const Args& args);

// Before a verb runs: every path it will write (options marked PathUse::Writes) is refused when it
// is a file the run reads (its positional arguments and PathUse::Reads options, folders included)
// or another output of the run. The files stay noted for the checks below.
Status checkRunFiles(const Verb& verb, const Args& args);
// loadModel, and the model's external data joins the files the run reads (checked at once).
Result<Model> loadInput(const std::filesystem::path& path);
// A file the verb writes that no option names (the external data an export generates).
Status checkPlannedOutput(const std::string& what, const std::string& path);

// Writes text to a file atomically (a temporary renamed over it), to stdout for "-", and in place
// into what is not a regular file (/dev/null, a pipe: see isSpecialFile); never over a file the run
// reads. Returns an exit code.
int writeOutput(const std::string& text, const std::string& path);
int writeJson(const nlohmann::json& j, const std::string& path);
// A name or path from a file as the terminal shows it: control characters and escape sequences
// escaped (util/text_escape.h). Every name a verb prints goes through it.
inline std::string shown(std::string_view s) { return terminalText(s); }

// Prints "msadvisor-cli: <error>" to stderr and returns the exit code for its kind.
int fail(const Error& e);
int exitCodeFor(ErrorKind k);

// Progress on stderr: human text, or JSON lines {"event":"progress","phase":…,"fraction":…}
// for a parent process (the GUI) to parse. Throttled to a few lines per second.
Progress makeProgress(const Args& args, const std::atomic<bool>* cancel = nullptr);

// Installs SIGTERM/SIGINT handlers that set the returned flag (cooperative cancel).
const std::atomic<bool>* installCancelHandler();

// Verbs that run a runtime (profile, analyze on the CPU, optimize --verify/--measure) are bounded
// by --timeout SECONDS, 1800 by default, 0 for none.
inline constexpr double kDefaultTimeoutSeconds = 1800;
inline const OptionSpec kTimeoutOption{"timeout", 0, true, false,
                                       "give up after SECONDS (default 1800, 0: never): exit 3, error kind 'timeout'"};
Result<double> timeoutSeconds(const Args& args);

// Verbs with --timeout run in a child process of msadvisor-cli (supervisor.cpp): the parent ends it
// at the timeout or a signal, whatever the runtime does, and removes its temporary files.
bool isSupervised(const Verb& verb);
bool isWorker();      // this process is such a child
void becomeWorker();  // dies with its supervisor
int superviseVerb(const Args& args, int argc, char** argv);

// Sets `flag` (the verb's cooperative cancel) when SIGTERM/SIGINT arrive or the timeout passes.
// If the work then does not stop within a grace period (a runtime stuck creating a session cannot
// be interrupted), it calls `abandon` with the error (the verb writes its error record) and ends
// the process: exit 3 for a timeout, 5 for a cancel.
class Watchdog {
 public:
  using Abandon = std::function<void(const Error&, const std::string& kind)>;
  // `label`: the input the work is about, named by the timeout's message.
  Watchdog(double timeoutSeconds, std::atomic<bool>& flag, std::string label, Abandon abandon = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  bool timedOut() const { return m_timedOut.load(); }
  // The error a verb returns when its work stopped because of the timeout.
  Error timeoutError() const;

 private:
  void loop();

  double m_timeoutSeconds;
  std::atomic<bool>& m_flag;
  std::string m_label;
  Abandon m_abandon;
  const std::atomic<bool>* m_signal;
  std::atomic<bool> m_timedOut{false};
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_done = false;
  std::thread m_thread;
};

}  // namespace msa::cli
