// Peak memory of the profile verbs against the file size (issue 28.1): generated profiles of 10^4
// to 10^7 events in every importer's format go through `msadvisor-cli analyze --profile` (and
// `training` for the traces) in a child process; its peak resident set (VmHWM, from wait4's
// ru_maxrss) is printed against the target, 1 GiB + 4 × the file's size on disk. A run that hits
// a read limit (--max-events, the gzip ratio) says so and counts as within the bound only when its
// peak is. Prints a table; exits 1 when a run crashed or went past the bound.
//
//   bench_profile_memory [MAX_EVENTS_EXPONENT (default 7)] [FORMAT…]
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "test_paths.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Writes a profile of about `events` events to `out`, streamed (never whole in memory).
using Writer = std::function<void(std::ostream& out, long long events)>;

void kinetoEvents(std::ostream& o, long long events) {
  // 100 kernels per step, 50 kernel names, one host operator launching each.
  o << "{\"schemaVersion\":1,\"traceEvents\":[";
  long long n = 0;
  for (long long step = 0; n < events; ++step) {
    const long long t0 = step * 100000;
    o << (step ? "," : "") << "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" << step
      << "\",\"pid\":1,\"tid\":1,\"ts\":" << t0 << ",\"dur\":90000}";
    for (int k = 0; k < 50 && n < events; ++k, n += 2)
      o << ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op" << k << "\",\"pid\":1,\"tid\":1,\"ts\":" << t0 + 10 + k * 1000
        << ",\"dur\":500,\"args\":{\"External id\":" << n << "}}"
        << ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void kernel_" << k << "<float, 128>(float const*, float*, int)\","
        << "\"pid\":0,\"tid\":7,\"ts\":" << t0 + 20 + k * 1000 << ",\"dur\":" << 100 + k << ",\"args\":{\"correlation\":" << n << "}}";
  }
  o << "]}";
}

void ortEvents(std::ostream& o, long long events) {
  // Runs of 100 nodes, each with its shapes, as ONNX Runtime writes them.
  o << "[\n";
  long long n = 0;
  for (long long run = 0; n < events; ++run) {
    const long long t0 = run * 100000;
    o << (run ? ",\n" : "") << "{\"cat\":\"Session\",\"pid\":1,\"tid\":1,\"dur\":90000,\"ts\":" << t0
      << ",\"ph\":\"X\",\"name\":\"model_run\",\"args\":{}}";
    for (int k = 0; k < 100 && n < events; ++k, ++n)
      o << ",\n{\"cat\":\"Node\",\"pid\":1,\"tid\":1,\"dur\":" << 50 + k << ",\"ts\":" << t0 + 10 + k * 800
        << ",\"ph\":\"X\",\"name\":\"/layer" << k << "/MatMul_kernel_time\",\"args\":{\"op_name\":\"MatMul\","
        << "\"provider\":\"CPUExecutionProvider\",\"input_type_shape\":[{\"float\":[1,128,768]},{\"float\":[768,768]}],"
        << "\"output_type_shape\":[{\"float\":[1,128,768]}]}}";
  }
  o << "\n]\n";
}

void opSummaryRows(std::ostream& o, long long events) {
  o << "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
       "Task Duration(us),Task Wait Time(us),Block Num,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
       "Output Data Types,Output Formats\n";
  for (long long n = 0; n < events; ++n) {
    const long long iter = n / 200, k = n % 200;
    o << "0,m,1," << k << ",2," << iter << ",Default/layer" << k << "/MatMul-op" << k << ",MatMul,static,AI_CORE,"
      << 1000 + n * 20 << "," << 10 + k % 7 << ",0.1,8,\"1,128,768;768,768\",FLOAT16;FLOAT16,ND;ND,\"1,128,768\",FLOAT16,ND\n";
  }
}

void trtLayers(std::ostream& o, long long events) {
  o << "[{\"count\":100}";
  for (long long n = 0; n < events; ++n)
    o << ",{\"name\":\"layer_" << n << " + relu_" << n << "\",\"timeMs\":" << 1.5 << ",\"averageMs\":0.015,\"medianMs\":0.015,"
      << "\"percentage\":0.001}";
  o << "]";
}

struct Format {
  const char* name;
  const char* file;
  Writer write;
  bool gzip = false;
  bool training = false;  // also through the training verb
};

struct Run {
  int exit = -1, signal = 0;
  long peakKb = 0;
  double seconds = 0;
  std::string tail;  // the end of what it printed on stderr
};

Run runCli(const std::vector<std::string>& args) {
  Run r;
  int err[2];
  if (pipe(err) != 0) return r;
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(err[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    close(err[0]);
    std::vector<char*> argv;
    const std::string cli = msa::test::cliPath().string();
    argv.push_back(const_cast<char*>(cli.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(err[1]);
  char buf[4096];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) {
    r.tail.append(buf, static_cast<size_t>(n));
    if (r.tail.size() > 4000) r.tail.erase(0, r.tail.size() - 4000);
  }
  close(err[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  // wait4 reports the child's usage with its own waited-for children's (Linux: RUSAGE_BOTH), so the
  // peak is the larger of the supervisor's and its worker's.
  r.peakKb = ru.ru_maxrss;
  if (WIFEXITED(status)) r.exit = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  while (!r.tail.empty() && (r.tail.back() == '\n' || r.tail.back() == ' ')) r.tail.pop_back();
  if (auto nl = r.tail.rfind('\n'); nl != std::string::npos) r.tail = r.tail.substr(nl + 1);
  return r;
}

void writeFile(const fs::path& p, const Format& f, long long events) {
  if (!f.gzip) {
    std::ofstream out(p, std::ios::binary);
    f.write(out, events);
    return;
  }
  // gzip: through a temporary plain file, compressed in chunks
  const fs::path plain = p.string() + ".plain";
  {
    std::ofstream out(plain, std::ios::binary);
    f.write(out, events);
  }
  gzFile gz = gzopen(p.c_str(), "wb6");
  std::ifstream in(plain, std::ios::binary);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    gzwrite(gz, buf.data(), static_cast<unsigned>(in.gcount()));
  gzclose(gz);
  fs::remove(plain);
}

}  // namespace

int main(int argc, char** argv) {
  const int maxExp = argc > 1 ? std::atoi(argv[1]) : 7;
  std::vector<std::string> only(argv + std::min(argc, 2), argv + argc);
  const std::vector<Format> formats{
      {"kineto", "trace.pt.trace.json", kinetoEvents, false, true},
      {"kineto.gz", "trace.pt.trace.json.gz", kinetoEvents, true, true},
      {"onnxruntime", "ort_profile.json", ortEvents},
      {"msprof", "op_summary_0_1.csv", opSummaryRows},
      {"tensorrt", "trt.profile.json", trtLayers},
  };
  const msa::test::TempDir dir("bench-profile-memory");
  std::printf("cli %s; load %s", msa::test::cliPath().c_str(), [] {
    std::ifstream in("/proc/loadavg");
    std::string l;
    std::getline(in, l);
    return l + "\n";
  }().c_str());
  std::printf("%-12s %-16s %10s %11s %11s %11s %7s %8s  %s\n", "format", "verb", "events", "file MB", "peak MB", "bound MB",
              "peak/b", "seconds", "outcome");
  bool ok = true;
  for (const Format& f : formats) {
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    for (int e = 4; e <= maxExp; ++e) {
      const long long events = static_cast<long long>(std::pow(10, e));
      const fs::path file = dir / f.file;
      writeFile(file, f, events);
      const double mb = static_cast<double>(fs::file_size(file)) / 1048576.0;
      const double boundMb = 1024.0 + 4 * mb;
      std::vector<std::pair<std::string, std::vector<std::string>>> verbs{
          {"analyze-profile", {"analyze", "--profile", file.string(), "--json", "/dev/null", "--progress", "none"}}};
      if (f.training) verbs.push_back({"training", {"training", file.string(), "--json", "/dev/null", "--progress", "none"}});
      for (const auto& [verb, args] : verbs) {
        const Run r = runCli(args);
        const double peakMb = static_cast<double>(r.peakKb) / 1024.0;
        const bool within = r.signal == 0 && peakMb <= boundMb && (r.exit == 0 || r.exit == 2);
        ok = ok && within;
        std::string outcome = r.signal ? "SIGNAL " + std::to_string(r.signal)
                              : r.exit == 0 ? "analysed"
                                            : "exit " + std::to_string(r.exit) + ": " + r.tail.substr(0, 140);
        std::printf("%-12s %-16s %10lld %11.1f %11.1f %11.1f %7.3f %8.2f  %s%s\n", f.name, verb.c_str(), events, mb, peakMb, boundMb,
                    peakMb / boundMb, r.seconds, within ? "" : "OVER THE BOUND or crashed: ", outcome.c_str());
        std::fflush(stdout);
      }
      fs::remove(file);
    }
  }
  std::printf("%s\n", ok ? "every run within 1 GiB + 4 x the file size" : "SOME RUN WENT PAST THE BOUND");
  return ok ? 0 : 1;
}
