#include "cli.h"

#include "model/onnx_io.h"
#include "util/atomic_file.h"
#include "util/read_limits.h"
#include "util/run_files.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>

namespace msa::cli {

std::optional<std::string> Args::value(std::string_view name) const {
  auto it = m_values.find(std::string(name));
  if (it == m_values.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string Args::valueOr(std::string_view name, std::string dflt) const {
  auto v = value(name);
  return v ? *v : std::move(dflt);
}

std::vector<std::string> Args::values(std::string_view name) const {
  auto it = m_values.find(std::string(name));
  return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

Result<long long> Args::intValue(std::string_view name, long long dflt, long long lo, long long hi) const {
  auto v = value(name);
  if (!v) return dflt;
  try {
    size_t pos = 0;
    long long x = std::stoll(*v, &pos);
    if (pos != v->size() || x < lo || x > hi) throw std::out_of_range("range");
    return x;
  } catch (const std::exception&) {
    return Error::usage("--" + std::string(name) + " expects an integer in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "], got '" + *v + "'");
  }
}

Result<double> Args::doubleValue(std::string_view name, double dflt) const {
  auto v = value(name);
  if (!v) return dflt;
  try {
    size_t pos = 0;
    double x = std::stod(*v, &pos);
    if (pos != v->size()) throw std::invalid_argument("trailing");
    return x;
  } catch (const std::exception&) {
    return Error::usage("--" + std::string(name) + " expects a number, got '" + *v + "'");
  }
}

std::vector<std::string> splitList(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    std::stringstream s(v);
    for (std::string item; std::getline(s, item, ',');)
      if (!item.empty()) out.push_back(item);
  }
  return out;
}

Result<Args> parseArgs(const Verb& verb, std::span<char*> argv) {
  Args args;
  auto find = [&](std::string_view name, char shortName) -> const OptionSpec* {
    for (const auto& o : verb.options)
      if ((!name.empty() && o.name == name) || (shortName && o.shortName == shortName)) return &o;
    return nullptr;
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      for (++i; i < argv.size(); ++i) args.positional.emplace_back(argv[i]);
      break;
    }
    const OptionSpec* spec = nullptr;
    std::optional<std::string> inlineValue;
    if (a.size() > 2 && a.starts_with("--")) {
      std::string_view name = a.substr(2);
      if (auto eq = name.find('='); eq != std::string_view::npos) {
        inlineValue = std::string(name.substr(eq + 1));
        name = name.substr(0, eq);
      }
      spec = find(name, 0);
      if (!spec) return Error::usage("unknown option --" + std::string(name) + " for '" + std::string(verb.name) + "'");
    } else if (a.size() == 2 && a[0] == '-' && a[1] != '-') {
      spec = find({}, a[1]);
      if (!spec) return Error::usage("unknown option " + std::string(a) + " for '" + std::string(verb.name) + "'");
    } else {
      args.positional.emplace_back(a);
      continue;
    }
    std::string key(spec->name);
    if (!spec->repeatable && args.has(key)) return Error::usage("--" + key + " given twice");
    if (!spec->takesValue) {
      if (inlineValue) return Error::usage("--" + key + " takes no value");
      args.set(key, "1");
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= argv.size()) return Error::usage("--" + key + " needs a value");
      inlineValue = argv[++i];
    }
    args.set(key, *inlineValue);
  }
  return args;
}

int exitCodeFor(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return kUsage;
    case ErrorKind::Model: return kModelError;
    case ErrorKind::Device: return kDeviceError;
    case ErrorKind::Verification: return kVerificationFailed;
    case ErrorKind::Cancelled: return kCancelled;
  }
  return kModelError;
}

int fail(const Error& e) {
  std::fprintf(stderr, "msadvisor-cli: %s\n", e.describe().c_str());
  return exitCodeFor(e.kind);
}

namespace {

// The files this run reads and the outputs its options name (one run per process).
struct RunFiles {
  ReadFiles reads;
  std::vector<PlannedOutput> outputs;
};

RunFiles& runFiles() {
  static RunFiles files;
  return files;
}

}  // namespace

Status checkRunFiles(const Verb& verb, const Args& args) {
  RunFiles& rf = runFiles();
  for (const std::string& p : args.positional) rf.reads.add(p, "an input");
  for (const OptionSpec& o : verb.options) {
    if (o.path == PathUse::None) continue;
    const std::string what = o.shortName ? "-" + std::string(1, o.shortName) : "--" + std::string(o.name);
    for (const std::string& v : args.values(o.name)) {
      if (o.path == PathUse::Reads) rf.reads.add(v, "the " + what + " input");
      else rf.outputs.push_back({what, v});
    }
  }
  return checkOutputs(rf.reads, rf.outputs);
}

Status applyReadLimits(const Args& args) {
  auto limits = readLimitsFromEnvironment();
  if (!limits) return limits.error();
  auto events = args.intValue("max-events", static_cast<long long>(limits->maxEvents), 1, std::numeric_limits<long long>::max());
  if (!events) return events.error();
  auto names = args.intValue("max-names", static_cast<long long>(limits->maxNames), 1, std::numeric_limits<long long>::max());
  if (!names) return names.error();
  limits->maxEvents = static_cast<uint64_t>(*events);
  limits->maxNames = static_cast<uint64_t>(*names);
  setReadLimits(*limits);
  return Ok{};
}

Result<Model> loadInput(const std::filesystem::path& path) {
  auto model = loadModel(path);
  if (!model) return model;
  RunFiles& rf = runFiles();
  addModelFiles(rf.reads, *model);
  if (auto s = checkOutputs(rf.reads, rf.outputs); !s) return s.error();
  return model;
}

Status checkPlannedOutput(const std::string& what, const std::string& path) {
  RunFiles& rf = runFiles();
  std::vector<PlannedOutput> all = rf.outputs;
  all.push_back({what, path});
  return checkOutputs(rf.reads, all);
}

int writeOutput(const std::string& text, const std::string& path) {
  // The last line of defence: checked when the run began, and again as it writes.
  if (auto s = runFiles().reads.checkOutput(path, "the output"); !s) return fail(s.error());
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return kOk;
  }
  if (auto s = writeFileAtomically(path, text); !s) return fail(Error::usage("cannot write " + s.error().describe()));
  return kOk;
}

int writeJson(const nlohmann::json& j, const std::string& path) {
  // Names that are not UTF-8 (bytes from a model file) become U+FFFD instead of throwing.
  return writeOutput(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", path);
}

Progress makeProgress(const Args& args, const std::atomic<bool>* cancel) {
  std::string mode = args.valueOr("progress", "text");
  if (mode == "none") return Progress({}, cancel);
  bool json = mode == "json";
  struct State {
    std::mutex mu;
    std::chrono::steady_clock::time_point last{};
    std::string phase;
  };
  auto st = std::make_shared<State>();
  return Progress(
      [json, st](std::string_view phase, double fraction) {
        std::lock_guard lock(st->mu);
        auto now = std::chrono::steady_clock::now();
        bool newPhase = phase != st->phase;
        if (!newPhase && fraction < 1.0 && now - st->last < std::chrono::milliseconds(200)) return;
        st->last = now;
        st->phase = std::string(phase);
        if (json) {
          nlohmann::json j{{"event", "progress"}, {"phase", phase}, {"fraction", fraction}};
          std::fprintf(stderr, "%s\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        } else {
          std::fprintf(stderr, "%.*s: %3.0f%%\n", static_cast<int>(phase.size()), phase.data(), fraction * 100.0);
        }
        std::fflush(stderr);
      },
      cancel);
}

namespace {
std::atomic<bool> g_cancel{false};
extern "C" void onSignal(int) { g_cancel.store(true); }
}  // namespace

const std::atomic<bool>* installCancelHandler() {
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  return &g_cancel;
}

Result<double> timeoutSeconds(const Args& args) {
  auto t = args.doubleValue("timeout", kDefaultTimeoutSeconds);
  if (!t) return t.error();
  if (!(*t >= 0)) return Error::usage("--timeout is a number of seconds, 0 for none");
  return *t;
}

Watchdog::Watchdog(double timeoutSeconds, std::atomic<bool>& flag, std::string label, Abandon abandon)
    : m_timeoutSeconds(timeoutSeconds),
      m_flag(flag),
      m_label(std::move(label)),
      m_abandon(std::move(abandon)),
      m_signal(installCancelHandler()) {
  m_thread = std::thread([this] { loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(m_mu);
    m_done = true;
  }
  m_cv.notify_all();
  m_thread.join();
}

Error Watchdog::timeoutError() const {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", m_timeoutSeconds);
  Error e = Error::device(std::string("timeout: the work did not finish within ") + seconds + " s (--timeout)");
  e.file = m_label;
  return e;
}

void Watchdog::loop() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::optional<clock::time_point> stopAsked;
  std::unique_lock lock(m_mu);
  while (!m_done) {
    m_cv.wait_for(lock, std::chrono::milliseconds(50));
    if (m_done) break;
    const auto now = clock::now();
    if (!stopAsked) {
      if (m_signal->load()) stopAsked = now;
      if (m_timeoutSeconds > 0 && now - start >= std::chrono::duration<double>(m_timeoutSeconds)) {
        m_timedOut = true;
        stopAsked = now;
      }
      if (stopAsked) m_flag.store(true);
    } else if (now - *stopAsked > (m_timedOut ? std::chrono::milliseconds(3000) : std::chrono::milliseconds(700))) {
      // A runtime stuck past the timeout gets 3 s; Ctrl-C or SIGTERM is answered within a second.
      Error e = m_timedOut ? timeoutError() : Error::cancelled();
      if (m_timedOut) e.message += "; the runtime did not stop, so the process ends";
      if (m_abandon) m_abandon(e, m_timedOut ? "timeout" : "cancelled");
      else fail(e);
      std::fflush(nullptr);
      std::_Exit(m_timedOut ? kDeviceError : kCancelled);
    }
  }
}

}  // namespace msa::cli
