#include "device/cpu/thread_group.hpp"

#include <algorithm>

namespace baton::detail {

ThreadGroup::ThreadGroup(int threads) {
  for (int i = 1; i < threads; ++i) helpers_.emplace_back([this] { helper_loop(); });
}

ThreadGroup::~ThreadGroup() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (auto& t : helpers_) t.join();
}

Span ThreadGroup::piece(std::uint64_t index) const {
  const std::uint64_t n = span_.size();
  return {span_.begin + n * index / pieces_, span_.begin + n * (index + 1) / pieces_};
}

void ThreadGroup::take_pieces() {
  for (std::uint64_t i; (i = next_piece_.fetch_add(1, std::memory_order_relaxed)) < pieces_;)
    (*fn_)(piece(i));
}

void ThreadGroup::run(Span span, const std::function<void(Span)>& fn) {
  if (helpers_.empty() || span.size() < 2) {
    fn(span);
    return;
  }
  span_ = span;
  fn_ = &fn;
  pieces_ = std::min(span.size(), std::uint64_t(size()) * kPiecesPerThread);
  next_piece_.store(0, std::memory_order_relaxed);
  pending_.store(static_cast<int>(helpers_.size()), std::memory_order_relaxed);
  // The release increment publishes the job to the helpers' acquire loads.
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  take_pieces();
  for (int p; (p = pending_.load(std::memory_order_acquire)) != 0;) pending_.wait(p);
}

void ThreadGroup::helper_loop() {
  std::uint64_t seen = 0;
  for (;;) {
    generation_.wait(seen, std::memory_order_acquire);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    take_pieces();
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace baton::detail
