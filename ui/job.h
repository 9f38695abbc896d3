#pragma once
// One runner for the GUI's long work (loading a model, an analysis, applying fixes, Verify), in
// the manner of hotspot's JobTracker: the work runs on the thread pool and returns a value; the
// result comes back to the GUI thread through a watcher owned by the context object; a
// generation counter drops the result of a job that was superseded or cancelled; cancellation
// is cooperative (the work's Progress carries the flag) and is its own outcome, never a failure;
// progress is published by the worker into a mutex-guarded slot that the GUI thread polls every
// 100 ms (throttled, and the worker never touches a QObject).
//
//   Job<Model> m_load{this};
//   m_load.start([path](const Progress& p) { return loadModel(path, p); },
//                {.done = [this](Model m) { … }, .failed = [this](const Error& e) { … }});
//
// Exactly one of done / failed / cancelled is called per start(), on the context's thread, unless
// a later start() or the context's destruction superseded it (then none is).
#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "tsan_handoff.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa::ui {

// The part of a job that does not depend on its value type: cancel flag, generation, progress.
class JobState {
 public:
  struct Slot {  // written by the worker, read by the GUI thread
    std::mutex mutex;
    QString phase;
    double fraction = 0;
    bool fresh = false;
  };
  quint64 generation() const { return m_generation; }
  bool running() const { return m_running; }

 protected:
  quint64 m_generation = 0;
  bool m_running = false;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  std::shared_ptr<Slot> m_slot;
};

template <typename T>
class Job : public JobState {
 public:
  struct Callbacks {
    std::function<void(T)> done;
    std::function<void(const Error&)> failed;
    std::function<void()> cancelled;
    std::function<void(const QString& phase, double fraction)> progress;
  };
  using Work = std::function<Result<T>(const Progress&)>;

  explicit Job(QObject* context) : m_context(context) {
    m_poll.setInterval(100);
    QObject::connect(&m_poll, &QTimer::timeout, context, [this] { poll(); });
  }
  ~Job() { supersede(); }
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Starts `work` on the thread pool; a job still running is superseded (its result dropped,
  // its flag set so it stops early; nothing is called for it).
  void start(Work work, Callbacks callbacks) {
    supersede();
    const quint64 gen = ++m_generation;
    m_running = true;
    m_callbacks = std::move(callbacks);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto slot = std::make_shared<Slot>();
    m_cancel = cancel;
    m_slot = slot;
    if (m_callbacks.progress) m_poll.start();
    // The result travels in its own box, not through QFuture's result store: the hand-back is
    // then one our code marks for ThreadSanitizer (tsan_handoff.h), like the hand-over.
    auto result = std::make_shared<std::optional<Result<T>>>();
    auto* watcher = new QFutureWatcher<void>(m_context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, m_context, [this, watcher, gen, result] {
      watcher->deleteLater();
      if (gen != m_generation || !m_running) return;  // superseded or cancelled meanwhile
      poll();  // the last progress the work reported comes before its outcome
      finish();
      tsanAcquire(result.get());
      Result<T>& r = **result;
      const Callbacks cb = m_callbacks;  // a callback may start the next job
      if (r.ok()) {
        if (cb.done) cb.done(std::move(r.value()));
      } else if (r.error().kind == ErrorKind::Cancelled) {
        if (cb.cancelled) cb.cancelled();
      } else if (cb.failed) {
        cb.failed(r.error());
      }
    });
    tsanRelease(slot.get());
    tsanIgnoreBegin();  // QtConcurrent::run builds the task Qt hands over invisibly: not ours to check
    QFuture<void> future = QtConcurrent::run([work = std::move(work), cancel, slot, result]() {
      tsanAcquire(slot.get());
      const Progress progress(
          [slot](std::string_view phase, double f) {
            std::lock_guard lock(slot->mutex);
            slot->phase = QString::fromUtf8(phase.data(), static_cast<qsizetype>(phase.size()));
            slot->fraction = f < 0 ? 0 : f > 1 ? 1 : f;
            slot->fresh = true;
          },
          cancel.get());
      try {
        result->emplace(work(progress));
      } catch (const std::exception& e) {  // QFuture rethrew it on the GUI thread
        result->emplace(Error::device(e.what()));
      }
      tsanRelease(result.get());
    });
    tsanIgnoreEnd();
    watcher->setFuture(future);
  }

  // Asks the work to stop and lets it end by itself: its outcome (cancelled, when it honours
  // the flag) comes through the callbacks as usual. For work that can only say it stopped once
  // it cleaned up (a child process is gone when it is reaped).
  void requestCancel() {
    if (m_running && m_cancel) m_cancel->store(true);
  }

  // Forgets the running job without a word (its flag set, its result dropped): the context
  // moved on (another document), nothing about it is worth telling.
  void drop() { supersede(); }

  // Cooperative: the worker sees the flag and stops; the job ends now as cancelled (a late
  // result is dropped). Nothing happens when no job runs.
  void cancel() {
    if (!m_running) return;
    supersede();
    const Callbacks cb = m_callbacks;
    if (cb.cancelled) cb.cancelled();
  }

 private:
  void supersede() {
    if (m_cancel) m_cancel->store(true);
    ++m_generation;
    finish();
  }
  void finish() {
    m_running = false;
    m_poll.stop();
  }
  void poll() {
    if (!m_slot || !m_callbacks.progress) return;
    QString phase;
    double f = 0;
    {
      std::lock_guard lock(m_slot->mutex);
      if (!m_slot->fresh) return;
      m_slot->fresh = false;
      phase = m_slot->phase;
      f = m_slot->fraction;
    }
    m_callbacks.progress(phase, f);
  }

  QPointer<QObject> m_context;
  Callbacks m_callbacks;
  QTimer m_poll;
};

}  // namespace msa::ui
