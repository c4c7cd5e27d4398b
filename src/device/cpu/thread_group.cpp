#include "device/cpu/thread_group.hpp"

namespace baton::detail {

ThreadGroup::ThreadGroup(int threads, std::chrono::nanoseconds spin) : spin_(spin) {
  for (int i = 1; i < threads; ++i) helpers_.emplace_back([this, i] { helper_loop(i); });
}

ThreadGroup::~ThreadGroup() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& t : helpers_) t.join();
}

Span ThreadGroup::piece(int index) const {
  const std::uint64_t n = span_.size(), parts = static_cast<std::uint64_t>(size());
  const std::uint64_t i = static_cast<std::uint64_t>(index);
  return {span_.begin + n * i / parts, span_.begin + n * (i + 1) / parts};
}

void ThreadGroup::run(Span span, const std::function<void(Span)>& fn) {
  if (helpers_.empty() || span.size() < 2) {
    fn(span);
    return;
  }
  span_ = span;
  fn_ = &fn;
  pending_.store(static_cast<int>(helpers_.size()), std::memory_order_relaxed);
  // The release increment publishes span_ and fn_ to the helpers' acquire loads.
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  fn(piece(0));
  for (int p; (p = pending_.load(std::memory_order_acquire)) != 0;) await_change(pending_, p);
}

template <class T>
void ThreadGroup::await_change(const std::atomic<T>& a, T old) const {
  for (const auto until = std::chrono::steady_clock::now() + spin_;
       a.load(std::memory_order_acquire) == old && std::chrono::steady_clock::now() < until;)
    std::this_thread::yield();
  a.wait(old, std::memory_order_acquire);
}

void ThreadGroup::helper_loop(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    await_change(generation_, seen);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    Span mine = piece(index);
    if (!mine.empty()) (*fn_)(mine);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace baton::detail
