// Import benchmark on the largest model of the corpus (or a file given on the command line):
// import time as a ratio to `cat FILE > /dev/null` and to Python's onnx.load, both measured in
// this run on the same (warm) file, and the peak RSS growth of an import as a ratio to the file
// size. Prints ratios; asserts nothing about speed (the numbers are for people and for CI logs).
//
//   bench_import [MODEL] [--runs N]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "model/onnx_io.h"
#include "test_paths.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int64_t statusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stoll(line.substr(std::strlen(key)));
  return -1;
}

bool resetPeakRss() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY);
  if (fd < 0) return false;
  bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Milliseconds per run of `cat FILE > /dev/null`, process start included (that is the reference).
std::vector<double> timeCat(const fs::path& file, int runs) {
  std::vector<double> ms;
  const std::string cmd = "cat " + shellQuote(file.string()) + " > /dev/null";
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    if (std::system(cmd.c_str()) != 0) return {};
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return ms;
}

// Milliseconds per onnx.load, timed inside Python (interpreter start-up excluded).
std::vector<double> timeOnnxLoad(const fs::path& file, int runs) {
  const std::string script =
      "import onnx,time,sys\n"
      "p=sys.argv[1]\n"
      "for i in range(int(sys.argv[2])):\n"
      "  t=time.perf_counter(); m=onnx.load(p); d=time.perf_counter()-t; del m\n"
      "  print(d*1000.0)\n";
  const std::string cmd = "/usr/bin/python3 -c " + shellQuote(script) + " " + shellQuote(file.string()) + " " +
                          std::to_string(runs) + " 2>/dev/null";
  std::vector<double> ms;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return ms;
  double v;
  while (std::fscanf(p, "%lf", &v) == 1) ms.push_back(v);
  if (::pclose(p) != 0) ms.clear();
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path model;
  int runs = 9;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else model = a;
  }
  if (model.empty()) {
    for (const auto& p : msa::test::corpusModels())
      if (model.empty() || fs::file_size(p) > fs::file_size(model)) model = p;
    if (model.empty()) {
      std::printf("bench_import: no model corpus; skipped\n");
      return 0;
    }
  }
  const double fileMb = static_cast<double>(fs::file_size(model)) / 1e6;
  std::printf("bench_import: %s (%.1f MB), %d interleaved runs each\n", model.filename().c_str(), fileMb, runs);

  // Peak RSS first, on a fresh process: the growth of VmHWM over the RSS before the import.
  double rssRatio = -1;
  if (resetPeakRss()) {
    const int64_t before = statusKb("VmRSS:");
    auto m = msa::loadModel(model);
    if (!m) {
      std::fprintf(stderr, "%s\n", m.error().describe().c_str());
      return 2;
    }
    const int64_t peakKb = statusKb("VmHWM:") - before;
    const int64_t heldKb = statusKb("VmRSS:") - before;
    rssRatio = static_cast<double>(peakKb) * 1024.0 / static_cast<double>(fs::file_size(model));
    std::printf("  peak RSS growth  %8.1f MB (held after import %.1f MB)\n", peakKb / 1024.0, heldKb / 1024.0);
  }

  // The three are interleaved run by run, so that other load on the machine hits them alike;
  // the ratios use the fastest run of each (the least disturbed), medians are shown too.
  (void)timeCat(model, 1);  // warms the page cache for everyone below
  std::vector<double> ours, cat, py;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    auto m = msa::loadModel(model);
    ours.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (!m) {
      std::fprintf(stderr, "%s\n", m.error().describe().c_str());
      return 2;
    }
    for (double v : timeCat(model, 1)) cat.push_back(v);
    for (double v : timeOnnxLoad(model, 1)) py.push_back(v);
  }
  auto fastest = [](const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); };
  const double tOurs = fastest(ours), tCat = fastest(cat), tPy = fastest(py);
  std::printf("  %-18s %9s %9s\n", "", "fastest", "median");
  std::printf("  %-18s %9.2f %9.2f ms\n", "msadvisor import", tOurs, median(ours));
  if (!cat.empty()) std::printf("  %-18s %9.2f %9.2f ms\n", "cat > /dev/null", tCat, median(cat));
  if (!py.empty()) std::printf("  %-18s %9.2f %9.2f ms\n", "python onnx.load", tPy, median(py));
  else std::printf("  python onnx.load   unavailable (/usr/bin/python3 with python3-onnx)\n");
  std::printf("ratios:\n");
  if (!cat.empty()) std::printf("  import / cat        %.2f\n", tOurs / tCat);
  if (!py.empty()) std::printf("  import / onnx.load  %.2f\n", tOurs / tPy);
  if (rssRatio >= 0) std::printf("  peak RSS / file     %.2f\n", rssRatio);
  return 0;
}
