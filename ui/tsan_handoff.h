#pragma once
// ThreadSanitizer (preset tsan) sees the synchronization of instrumented code only. Qt is not
// instrumented: QThreadPool hands a task to a worker, and QFutureInterface a result back, under
// a futex-based QMutex TSan never sees, so everything the worker reads of what the caller wrote
// before QtConcurrent::run would look like a race. These mark the two hand-offs (release before
// handing over, acquire on the other side) and leave Qt's building of the task unchecked; they
// compile to nothing without TSan.
#if defined(__SANITIZE_THREAD__)
#define MSA_TSAN_ANNOTATE 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MSA_TSAN_ANNOTATE 1
#endif
#endif

#ifdef MSA_TSAN_ANNOTATE
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace msa::ui {

inline void tsanRelease([[maybe_unused]] const void* token) {
#ifdef MSA_TSAN_ANNOTATE
  __tsan_release(const_cast<void*>(token));
#endif
}

inline void tsanAcquire([[maybe_unused]] const void* token) {
#ifdef MSA_TSAN_ANNOTATE
  __tsan_acquire(const_cast<void*>(token));
#endif
}

// The calling thread's memory accesses in between are not checked (Qt building a task).
inline void tsanIgnoreBegin() {
#ifdef MSA_TSAN_ANNOTATE
  __tsan_ignore_thread_begin();
#endif
}

inline void tsanIgnoreEnd() {
#ifdef MSA_TSAN_ANNOTATE
  __tsan_ignore_thread_end();
#endif
}

}  // namespace msa::ui
