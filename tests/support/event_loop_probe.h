#pragma once
// How long the GUI thread's event loop was kept from running: a timer ticking every few
// milliseconds records the longest gap between two ticks, in wall time and in the GUI thread's
// own CPU time. On a shared machine the wall gap also holds the time the thread waited for a
// core; the CPU gap is the time our code held the loop, which is what the tests assert on.
// Header-only (Qt Core): used by UI tests and GUI benchmarks.
#include <time.h>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>

namespace msa::test {

class EventLoopProbe {
 public:
  explicit EventLoopProbe(int intervalMs = 4) {
    m_timer.setInterval(intervalMs);
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, [this] { tick(); });
  }

  void start() {
    m_maxWall = m_maxCpu = 0;
    m_clock.start();
    m_lastWall = 0;
    m_lastCpu = threadCpuMs();
    m_timer.start();
  }
  void stop() {
    tick();
    m_timer.stop();
  }
  double maxWallMs() const { return m_maxWall; }
  double maxCpuMs() const { return m_maxCpu; }

  static double threadCpuMs() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  }

 private:
  void tick() {
    const double wall = static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
    const double cpu = threadCpuMs();
    m_maxWall = std::max(m_maxWall, wall - m_lastWall);
    m_maxCpu = std::max(m_maxCpu, cpu - m_lastCpu);
    m_lastWall = wall;
    m_lastCpu = cpu;
  }

  QTimer m_timer;
  QElapsedTimer m_clock;
  double m_lastWall = 0, m_lastCpu = 0, m_maxWall = 0, m_maxCpu = 0;
};

}  // namespace msa::test
