// What the user waits for (issue 30): the real binaries started on generated Llama-like decoders
// (tests/tools, weights inline as torch.onnx.export writes a model below 2 GB, hidden 64: the
// graph is what grows) of 1k, 10k, 50k and 100k nodes, timed from fork+exec to exit:
//   msadvisor-cli info MODEL
//   msadvisor-cli estimate MODEL --device ascend910b
//   msadvisor-cli analyze MODEL --device ascend910b
//   msadvisor --screenshot OUT.png MODEL            (offscreen, the first complete picture)
// Per verb and size: wall time, CPU time (user + sys: on a shared machine it tracks what the wall
// clock would be on an idle one), peak RSS (wait4's ru_maxrss), the cost per 1k nodes, and the
// same work done in-process by this benchmark through the core API (a forked child: import;
// import + shapes + costs; import + runAnalysis) so the part spent outside it shows (process start,
// the report written, the window painted). References timed in the same run, interleaved: `cat`
// of the file and each binary's --version (process start and dynamic loading alone).
// The scaling verdict is a ratio of per-1k costs in this run (largest size vs 10k), never a limit.
// Prints the load average before each size; asserts nothing.
// --real-size 0.5b|1.5b adds a decoder with the structure and sizes of Qwen2-0.5B / -1.5B
// (hidden 896 / 1536, 24 / 28 layers, vocabulary 151936, 2.5 / 7.1 GB of float32 weights in
// external data, zeros: a sparse file) opened, estimated and analysed on an Ascend profile with
// batch 1 and sequence 2048 bound; --real-size-cpu also measures it on this CPU (sequence 128):
// minutes and several GB.
//
//   bench_e2e [--sizes 1000,10000,50000,100000] [--runs 3] [--verbs info,estimate,analyze,gui]
//             [--cli PATH] [--gui PATH] [--dir DIR] [--keep] [--real-size 0.5b|1.5b] [--real-size-cpu]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "advisor/run_analysis.h"
#include "cost/op_cost.h"
#include "large_models.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string s;
  std::getline(in, s);
  return s;
}

double tvMs(const timeval& t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; }

struct Exec {
  double wallMs = -1, cpuMs = -1;
  int64_t maxRssKb = -1;
  bool ok = false;
};

// fork + exec + wait4: wall from before fork to the reaped exit, the child's rusage. Output goes
// to `log` (the report is written, as a user redirecting it would).
Exec runProcess(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Exec e;
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return e;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
    ::setenv("QT_FONT_DPI", "96", 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  if (::wait4(pid, &status, 0, &ru) != pid) return e;
  e.wallMs = msSince(t0);
  e.cpuMs = tvMs(ru.ru_utime) + tvMs(ru.ru_stime);
  e.maxRssKb = ru.ru_maxrss;
  e.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!e.ok) {
    std::ifstream in(log);
    std::stringstream s;
    s << in.rdbuf();
    std::fprintf(stderr, "  %s failed (status %d): %s\n", argv[1].c_str(), status, s.str().substr(0, 600).c_str());
  }
  return e;
}

// The same work through the core API, in a forked child (a fresh heap; its rusage is its own).
struct InProcess {
  double importMs = -1, workMs = -1;  // work: shapes + costs (estimate) or runAnalysis (analyze)
  double wallMs = -1;                 // fork to exit, heap teardown included
  int64_t maxRssKb = -1;
  bool ok = false;
};

enum class Work { Import, Estimate, Analyze };

InProcess inProcess(const fs::path& model, Work work) {
  int fds[2];
  InProcess r;
  if (::pipe(fds) != 0) return r;
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    ::close(fds[0]);
    double times[2] = {-1, -1};
    auto t = Clock::now();
    auto m = loadModel(model);
    times[0] = msSince(t);
    bool ok = m.ok();
    if (ok && work == Work::Estimate) {
      t = Clock::now();
      ok = inferShapes(*m, ShapeOptions{}).ok();
      if (ok) (void)computeCosts(m->graph);
      times[1] = msSince(t);
    } else if (ok && work == Work::Analyze) {
      AnalysisRequest request;
      request.device = "ascend910b";
      auto shared = std::make_shared<const Model>(std::move(*m));
      t = Clock::now();
      ok = runAnalysis(std::move(shared), request).ok();
      times[1] = msSince(t);
    }
    if (::write(fds[1], times, sizeof times) != sizeof times) ok = false;
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  double times[2] = {-1, -1};
  const bool got = ::read(fds[0], times, sizeof times) == sizeof times;
  ::close(fds[0]);
  int status = 0;
  rusage ru{};
  if (::wait4(pid, &status, 0, &ru) != pid) return r;
  r.wallMs = msSince(t0);
  r.importMs = times[0];
  r.workMs = times[1];
  r.maxRssKb = ru.ru_maxrss;
  r.ok = got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

// A model written in a child: a child's peak RSS starts from its parent's at fork (exec keeps the
// high-water mark), so this process stays small. Gives the node count and the files' sizes.
struct WrittenSizes {
  int64_t nodes = 0, modelBytes = 0, dataBytes = 0;
};

bool writeInChild(const std::function<Result<tools::Written>()>& write, WrittenSizes& sizes) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::close(fds[0]);
    auto w = write();
    if (!w) {
      std::fprintf(stderr, "%s\n", w.error().describe().c_str());
      ::_exit(1);
    }
    const WrittenSizes out{w->nodes, w->modelFileBytes, w->dataFileBytes};
    ::_exit(::write(fds[1], &out, sizeof out) == sizeof out ? 0 : 1);
  }
  ::close(fds[1]);
  const bool got = ::read(fds[0], &sizes, sizeof sizes) == sizeof sizes;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The decoder of about `nodes` nodes, weights inline and random.
bool writeModel(int64_t nodes, const fs::path& path, int64_t& nodesOut, int64_t& fileBytes) {
  WrittenSizes w;
  const bool ok = writeInChild(
      [&] {
        tools::WriteOptions o;
        o.storage = tools::Storage::Inline;
        o.fill = tools::Fill::Random;
        return tools::writeLlama(tools::llamaFor({nodes, 0}, o), o, path);
      },
      w);
  nodesOut = w.nodes;
  fileBytes = w.modelBytes;
  return ok;
}

// A Qwen2-class decoder, weights in a sparse external file (zeros).
bool writeRealSize(const std::string& which, const fs::path& path, int64_t& nodes, int64_t& dataBytes) {
  const tools::LlamaSpec spec = which == "1.5b" ? tools::LlamaSpec{28, 1536, 12, 2, 8960, 151936, 32768}
                                                : tools::LlamaSpec{24, 896, 14, 2, 4864, 151936, 32768};
  WrittenSizes w;
  const bool ok = writeInChild([&] { return tools::writeLlama(spec, tools::WriteOptions{}, path); }, w);
  nodes = w.nodes;
  dataBytes = w.dataBytes;
  return ok;
}

int64_t ownRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

struct Verb {
  std::string name;
  bool gui = false;
  std::vector<std::string> args;  // after the binary; MODEL replaced by the file
  Work inProcessWork = Work::Import;
  bool hasInProcess = true;
};

struct Stat {
  std::vector<double> wall, cpu;
  int64_t rssKb = 0;
  bool failed = false;
  void add(const Exec& e) {
    if (!e.ok) failed = true;
    wall.push_back(e.wallMs);
    cpu.push_back(e.cpuMs);
    rssKb = std::max(rssKb, e.maxRssKb);
  }
  static double best(const std::vector<double>& v) { return v.empty() ? -1 : *std::min_element(v.begin(), v.end()); }
  double wallMs() const { return best(wall); }
  double cpuMs() const { return best(cpu); }
};

struct SizeRow {
  int64_t nodes = 0, fileBytes = 0;
  std::map<std::string, Stat> verbs;     // by verb name, and the references "cat", "cli --version", "gui --version"
  std::map<std::string, InProcess> own;  // best in-process figures by verb
};

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

}  // namespace

int main(int argc, char** argv) {
  std::vector<int64_t> sizes = {1000, 10000, 50000, 100000};
  int runs = 3;
  fs::path dir = fs::temp_directory_path() / ("msa_bench_e2e_" + std::to_string(::getpid()));
  bool keep = false, realSizeCpu = false;
  std::string realSize;
  std::string verbList = "info,estimate,analyze,gui";
  std::string cli = test::cliPath().string();
#ifdef MSA_GUI_BINARY
  std::string gui = MSA_GUI_BINARY;
#else
  std::string gui;
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
    if (a == "--sizes") {
      sizes.clear();
      std::stringstream ss(next());
      for (std::string t; std::getline(ss, t, ',');) sizes.push_back(std::atoll(t.c_str()));
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--verbs") {
      verbList = next();
    } else if (a == "--dir") {
      dir = next();
    } else if (a == "--cli") {  // other builds of the binaries (a before/after comparison)
      cli = next();
    } else if (a == "--gui") {
      gui = next();
    } else if (a == "--keep") {
      keep = true;
    } else if (a == "--real-size") {
      realSize = next();
    } else if (a == "--real-size-cpu") {
      realSizeCpu = true;
    } else {
      std::fprintf(stderr,
                   "usage: bench_e2e [--sizes 1000,10000,50000,100000] [--runs N] [--verbs info,estimate,analyze,gui] "
                   "[--cli PATH] [--gui PATH] [--dir DIR] [--keep] [--real-size 0.5b|1.5b] [--real-size-cpu]\n");
      return 2;
    }
  }
  std::vector<Verb> verbs;
  for (const Verb& v : std::vector<Verb>{
           {"info", false, {"info", "MODEL"}, Work::Estimate, true},
           {"estimate", false, {"estimate", "MODEL", "--device", "ascend910b"}, Work::Estimate, true},
           {"analyze", false, {"analyze", "MODEL", "--device", "ascend910b"}, Work::Analyze, true},
           {"gui", true, {"--screenshot", "SHOT", "MODEL"}, Work::Import, false},
       })
    if (("," + verbList + ",").find("," + v.name + ",") != std::string::npos && (!v.gui || !gui.empty()))
      verbs.push_back(v);
  fs::create_directories(dir);
  std::printf("bench_e2e: %s%s, %d run(s) per figure (fastest wall, largest RSS)\nload average at start: %s\n",
              cli.c_str(), gui.empty() ? "" : (", " + gui).c_str(), runs, loadAverage().c_str());

  std::vector<SizeRow> rows;
  for (int64_t n : sizes) {
    const fs::path modelPath = dir / ("llama_" + std::to_string(n) + ".onnx");
    SizeRow row;
    if (!writeModel(n, modelPath, row.nodes, row.fileBytes)) return 2;
    const std::string model = modelPath.string();
    std::printf("\n%lld nodes, %.1f MB (%s)  load average %s\n", static_cast<long long>(row.nodes), row.fileBytes / 1e6,
                model.c_str(), loadAverage().c_str());
    std::fflush(stdout);
    // Interleaved blocks: every verb and reference once per run.
    for (int k = 0; k < runs; ++k) {
      row.verbs["cat"].add(runProcess({"/bin/cat", model}, dir / "cat.log"));
      row.verbs["cli --version"].add(runProcess({cli, "--version"}, dir / "version.log"));
      if (!gui.empty()) row.verbs["gui --version"].add(runProcess({gui, "--version"}, dir / "version.log"));
      for (const Verb& v : verbs) {
        std::vector<std::string> argvv = {v.gui ? gui : cli};
        const fs::path shot = dir / "shot.png";
        for (const auto& a : v.args) argvv.push_back(a == "MODEL" ? model : a == "SHOT" ? shot.string() : a);
        fs::remove(shot);
        Exec e = runProcess(argvv, dir / (v.name + ".log"));
        if (v.gui && e.ok && (!fs::exists(shot) || fs::file_size(shot) == 0)) {
          std::fprintf(stderr, "  gui: exit 0 but no screenshot written\n");
          e.ok = false;
        }
        row.verbs[v.name].add(e);
        if (v.hasInProcess) {
          const InProcess p = inProcess(modelPath, v.inProcessWork);
          auto it = row.own.find(v.name);
          if (it == row.own.end() || (p.ok && p.importMs + p.workMs < it->second.importMs + it->second.workMs))
            row.own[v.name] = p;
        }
      }
    }
    const double k1 = row.nodes / 1000.0;
    std::printf("  %-14s %9s %9s %8s %9s %11s %11s %10s\n", "verb", "wall ms", "cpu ms", "RSS MB", "ms/1k",
                "in-proc ms", "outside ms", "in-proc MB");
    for (const auto& name : {"cat", "cli --version", "gui --version"})
      if (row.verbs.count(name)) {
        const Stat& s = row.verbs[name];
        std::printf("  %-14s %9.0f %9.0f %8.0f %9.2f\n", name, s.wallMs(), s.cpuMs(), s.rssKb / 1024.0,
                    s.wallMs() / k1);
      }
    for (const Verb& v : verbs) {
      const Stat& s = row.verbs[v.name];
      std::printf("  %-14s %9.0f %9.0f %8.0f %9.2f", v.name.c_str(), s.wallMs(), s.cpuMs(), s.rssKb / 1024.0,
                  s.wallMs() / k1);
      if (row.own.count(v.name) && row.own[v.name].ok) {
        const InProcess& p = row.own[v.name];
        const double inside = p.importMs + std::max(0.0, p.workMs);
        std::printf(" %11.0f %11.0f %10.0f", inside, s.wallMs() - inside, p.maxRssKb / 1024.0);
      }
      std::printf("%s\n", s.failed ? "  FAILED" : "");
    }
    for (const Verb& v : verbs)
      if (row.own.count(v.name) && row.own[v.name].ok)
        std::printf("    in-process %-8s import %.0f ms%s%.0f ms\n", v.name.c_str(), row.own[v.name].importMs,
                    v.inProcessWork == Work::Estimate  ? ", shapes + costs "
                    : v.inProcessWork == Work::Analyze ? ", runAnalysis "
                                                       : ", nothing else ",
                    std::max(0.0, row.own[v.name].workMs));
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }

  // Scaling: cost per 1k nodes at each size, and the largest size against 10k (or the smallest).
  if (rows.size() >= 2) {
    const SizeRow* ref = &rows.front();
    for (const auto& r : rows)
      if (r.nodes >= 10000) {
        ref = &r;
        break;
      }
    const SizeRow& big = rows.back();
    std::printf("\nms per 1k nodes (wall; cpu in brackets)\n  %-14s", "verb");
    for (const auto& r : rows) std::printf(" %14lldk", static_cast<long long>(r.nodes / 1000));
    std::printf("   %lldk / %lldk\n", static_cast<long long>(big.nodes / 1000),
                static_cast<long long>(ref->nodes / 1000));
    std::vector<std::string> names = {"cat"};
    for (const Verb& v : verbs) names.push_back(v.name);
    for (const auto& name : names) {
      std::printf("  %-14s", name.c_str());
      for (const auto& r : rows) {
        const Stat& s = r.verbs.at(name);
        std::printf(" %7.1f (%5.1f)", s.wallMs() / (r.nodes / 1e3), s.cpuMs() / (r.nodes / 1e3));
      }
      const Stat& a = big.verbs.at(name);
      const Stat& b = ref->verbs.at(name);
      const double wallRatio = (a.wallMs() / big.nodes) / (b.wallMs() / ref->nodes);
      const double cpuRatio = (a.cpuMs() / big.nodes) / (b.cpuMs() / ref->nodes);
      std::printf("   %.2fx wall, %.2fx cpu%s\n", wallRatio, cpuRatio,
                  name == "cat" ? "" : (std::string("  (cpu, target <= 1.2x: ") + verdict(cpuRatio <= 1.2) + ")").c_str());
    }
  }

  // The targets at 50k nodes (wall here is on a shared machine: CPU time beside it).
  for (const auto& r : rows)
    if (r.nodes >= 50000 && r.nodes < 60000) {
      std::printf("\nissue 30 targets at %lld nodes (load average %s)\n", static_cast<long long>(r.nodes),
                  loadAverage().c_str());
      const double fileMb = r.fileBytes / 1048576.0;
      for (const Verb& v : verbs) {
        const Stat& s = r.verbs.at(v.name);
        const double limit = v.name == "info" ? 1000 : v.gui ? 3000 : 1500;
        std::printf("  %-9s wall %6.0f ms, cpu %6.0f ms vs %5.0f ms: %-6s  RSS %5.0f MB vs 300 + %.0f MB: %s\n",
                    v.name.c_str(), s.wallMs(), s.cpuMs(), limit, verdict(s.wallMs() <= limit), s.rssKb / 1024.0,
                    fileMb, verdict(s.rssKb / 1024.0 <= 300 + fileMb));
      }
    }
  // The real-size language model: what a user opening a downloaded 0.5-1.5B model waits for.
  if (!realSize.empty()) {
    const fs::path modelPath = dir / ("qwen2_" + realSize + ".onnx");
    int64_t nodes = 0, dataBytes = 0;
    if (!writeRealSize(realSize, modelPath, nodes, dataBytes)) return 2;
    const std::string model = modelPath.string();
    std::printf("\nreal-size decoder (Qwen2-%s class): %lld nodes, %.2f GB of weights in %s.data  load average %s\n",
                realSize.c_str(), static_cast<long long>(nodes), dataBytes / 1e9, model.c_str(), loadAverage().c_str());
    const std::vector<std::string> dims = {"--dim", "batch=1", "--dim", "sequence=2048"};
    std::vector<std::pair<std::string, std::vector<std::string>>> runsOf = {
        {"info", {cli, "info", model}},
        {"estimate", {cli, "estimate", model, "--device", "ascend910b"}},
        {"analyze", {cli, "analyze", model, "--device", "ascend910b"}},
    };
    for (size_t k = 1; k < runsOf.size(); ++k) runsOf[k].second.insert(runsOf[k].second.end(), dims.begin(), dims.end());
    if (!gui.empty()) runsOf.push_back({"gui", {gui, "--screenshot", (dir / "shot.png").string(), model}});
    if (realSizeCpu)
      runsOf.push_back({"analyze cpu", {cli, "analyze", model, "--device", "cpu", "--dim", "batch=1", "--dim", "sequence=128"}});
    std::printf("  %-14s %9s %9s %8s   (weights %.0f MB; target: RSS within them + 300 MB, first paint 3 s)\n", "verb",
                "wall ms", "cpu ms", "RSS MB", dataBytes / 1048576.0);
    for (const auto& [name, argvv] : runsOf) {
      Stat st;
      for (int k = 0; k < (name == "analyze cpu" ? 1 : runs); ++k) st.add(runProcess(argvv, dir / "real.log"));
      std::printf("  %-14s %9.0f %9.0f %8.0f%s\n", name.c_str(), st.wallMs(), st.cpuMs(), st.rssKb / 1024.0,
                  st.failed ? "  FAILED" : "");
      std::fflush(stdout);
    }
  }

  std::printf("\nload average at end: %s\nthis benchmark's own peak RSS (a floor under every RSS above): %.0f MB\n",
              loadAverage().c_str(), ownRssKb() / 1024.0);
  if (!keep) fs::remove_all(dir);
  return 0;
}
