// A CPU device's threads. The device's host worker is member 0 and runs its
// share itself; the other members sleep on a generation counter between jobs.
#pragma once

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "baton/range.hpp"

namespace baton::detail {

class ThreadGroup {
 public:
  explicit ThreadGroup(int threads);  // threads >= 1, the caller included
  ~ThreadGroup();
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  int size() const { return static_cast<int>(helpers_.size()) + 1; }
  // Runs fn over span, cut into one contiguous piece per thread; returns when all are done.
  // Only the device's worker calls this, so jobs never overlap.
  void run(Span span, const std::function<void(Span)>& fn);

 private:
  void helper_loop(int index);
  Span piece(int index) const;

  std::vector<std::thread> helpers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  Span span_{};
  const std::function<void(Span)>* fn_ = nullptr;
};

}  // namespace baton::detail
