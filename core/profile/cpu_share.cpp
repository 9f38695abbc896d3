#include "profile/cpu_share.h"

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace msa {
namespace {

double wallNowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double processCpuMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// "<on cpu ns> <run_delay ns> <timeslices>" of every thread of this process; false when the
// kernel keeps no such statistics.
bool readSchedstat(CpuSample& s) {
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return false;
  bool any = false;
  char path[64];
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", e->d_name);
    FILE* f = std::fopen(path, "r");
    if (!f) continue;  // a thread that ended in between
    unsigned long long run = 0, wait = 0;
    if (std::fscanf(f, "%llu %llu", &run, &wait) == 2) {
      s.onCpuMs += static_cast<double>(run) * 1e-6;
      s.waitingMs += static_cast<double>(wait) * 1e-6;
      any = true;
    }
    std::fclose(f);
  }
  ::closedir(dir);
  return any;
}

void readStat(CpuSample& s) {
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return;
  // cpu user nice system idle iowait irq softirq steal guest guest_nice
  unsigned long long v[8] = {};
  if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
    s.stealTicks = v[7];
    for (unsigned long long x : v) s.totalTicks += x;
  }
  std::fclose(f);
}

void readLoadavg(CpuSample& s) {
  FILE* f = std::fopen("/proc/loadavg", "r");
  if (!f) return;
  double l1 = 0, l5 = 0, l15 = 0;
  int running = 0, total = 0;
  if (std::fscanf(f, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &total) == 5) {
    s.load1 = l1;
    s.runnable = running;
  }
  std::fclose(f);
}

}  // namespace

CpuSample sampleCpu() {
  CpuSample s;
  s.schedstat = readSchedstat(s);
  if (!s.schedstat) s.onCpuMs = processCpuMs();
  readStat(s);
  readLoadavg(s);
  s.wallMs = wallNowMs();
  return s;
}

BlockLoad loadBetween(const CpuSample& a, const CpuSample& b, int threads) {
  BlockLoad out;
  const double on = b.onCpuMs - a.onCpuMs;
  if (a.schedstat && b.schedstat) {
    // Threads that came or went between the samples make a sum shrink: judged on what is left.
    const double waiting = std::max(0.0, b.waitingMs - a.waitingMs);
    if (on > 0) out.cpuShare = on / (on + waiting);
  } else {
    const double wall = b.wallMs - a.wallMs;
    if (wall > 0 && threads > 0) out.cpuShare = std::clamp(on / (wall * threads), 0.0, 1.0);
  }
  if (b.totalTicks > a.totalTicks)
    out.stealShare = static_cast<double>(b.stealTicks - std::min(b.stealTicks, a.stealTicks)) /
                     static_cast<double>(b.totalTicks - a.totalTicks);
  out.load1 = b.load1;
  out.runnable = b.runnable;
  return out;
}

}  // namespace msa
