#pragma once
// Cooperative progress and cancellation for long work. Core code calls report() at natural
// steps (per node, per iteration); a caller that wants to stop makes cancelled() return true.
#include <atomic>
#include <functional>
#include <string_view>

namespace msa {

class Progress {
 public:
  using Callback = std::function<void(std::string_view phase, double fraction)>;

  Progress() = default;
  explicit Progress(Callback cb, const std::atomic<bool>* cancelFlag = nullptr)
      : m_cb(std::move(cb)), m_cancel(cancelFlag) {}

  void report(std::string_view phase, double fraction) const {
    if (m_cb) m_cb(phase, fraction);
  }
  bool cancelled() const { return m_cancel && m_cancel->load(std::memory_order_relaxed); }
  // The flag cancelled() reads, for the progress of a sub-stage that must stop with this one.
  const std::atomic<bool>* cancelFlag() const { return m_cancel; }

  static const Progress& none() {
    static const Progress p;
    return p;
  }

 private:
  Callback m_cb;
  const std::atomic<bool>* m_cancel = nullptr;
};

}  // namespace msa
