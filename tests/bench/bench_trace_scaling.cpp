// The training analysis on nested host operators (issue 28.5): a Kineto trace of N CPU operators
// each inside the previous one (a chain as deep as the trace), analysed as `msadvisor-cli training`
// does (analyzeTraining: read, steps, rules, ranking), at N = 10^4, 10^5, 10^6. Prints events/s
// and, as the reference timed beside it, the time of a plain SAX parse of the same file
// (nlohmann::json::sax_parse with a handler that keeps nothing): a linear analysis keeps the ratio
// flat as N grows; the quadratic one grew it tenfold per decade (50k: 7 s, 250k: 405 s). Then the
// time a cancel takes to end the largest analysis (Ctrl-C is answered within a second).
//
//   bench_trace_scaling [MAX_EXPONENT (default 6)]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "advisor/profile_analysis.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void writeNested(const fs::path& p, long long n) {
  std::ofstream o(p, std::ios::binary);
  static const char* kNames[] = {"aten::linear", "aten::addmm", "aten::mm", "aten::relu"};
  o << "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
       "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":"
    << 20 * n + 10 << "}";
  for (long long i = 0; i < n; ++i)
    o << ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" << kNames[i % 4] << "\",\"pid\":1,\"tid\":1,\"ts\":" << 1 + i
      << ",\"dur\":" << 20 * n - 2 * i << ",\"args\":{\"Input Dims\":[[8,8],[8,8]],\"Input type\":[\"float\",\"float\"]}}";
  o << "]}";
}

struct NullSax : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool key(string_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

double saxSeconds(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  NullSax sax;
  const auto t0 = Clock::now();
  nlohmann::json::sax_parse(in, &sax);
  return secondsSince(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const int maxExp = argc > 1 ? std::atoi(argv[1]) : 6;
  const msa::test::TempDir dir("bench-trace-scaling");
  std::ifstream load("/proc/loadavg");
  std::string loadavg;
  std::getline(load, loadavg);
  std::printf("load %s\n%10s %12s %12s %14s %14s\n", loadavg.c_str(), "events", "analysis s", "SAX parse s", "events/s",
              "analysis/parse");
  int rc = 0;
  fs::path largest;
  for (int e = 4; e <= maxExp; ++e) {
    const long long n = static_cast<long long>(std::pow(10, e));
    const fs::path file = dir / ("nested_" + std::to_string(n) + ".json");
    writeNested(file, n);
    const double parse = saxSeconds(file);
    const auto t0 = Clock::now();
    auto r = msa::training::analyzeTraining(file);
    const double analysis = secondsSince(t0);
    if (!r) {
      std::printf("%10lld: %s\n", n, r.error().describe().c_str());
      rc = 1;
      continue;
    }
    std::printf("%10lld %12.3f %12.3f %14.0f %14.2f\n", n, analysis, parse, static_cast<double>(n) / analysis, analysis / parse);
    std::fflush(stdout);
    largest = file;
  }
  if (!largest.empty()) {
    // Cancelled half a second in: how long until the analysis returns.
    std::atomic<bool> cancel{false};
    const msa::Progress progress({}, &cancel);
    Clock::time_point asked{};
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      asked = Clock::now();
      cancel = true;
    });
    auto r = msa::training::analyzeTraining(largest, {}, progress);
    const double latency = secondsSince(asked);
    canceller.join();
    std::printf("cancel of the largest analysis: %s %.3f s after it was asked\n",
                r ? "finished anyway" : r.error().kind == msa::ErrorKind::Cancelled ? "stopped" : "failed", latency);
    if (r || r.error().kind != msa::ErrorKind::Cancelled) rc = 1;
  }
  return rc;
}
