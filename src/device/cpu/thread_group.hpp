// A CPU device's threads. The device's host worker is member 0 and runs its
// share itself; the other members wait on a generation counter between jobs,
// first spinning, then asleep.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "baton/range.hpp"

namespace baton::detail {

class ThreadGroup {
 public:
  // threads >= 1, the caller included. A member that waits (for the next job,
  // or the worker for the others' pieces) spins, yielding, for up to `spin`
  // before it sleeps: a job's members woke from sleep up to about 0.1 ms
  // apart, and a chunk lasts as long as its last member.
  ThreadGroup(int threads, std::chrono::nanoseconds spin);
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
  // Returns once `a` no longer holds `old`.
  template <class T>
  void await_change(const std::atomic<T>& a, T old) const;

  std::vector<std::thread> helpers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::chrono::nanoseconds spin_;
  Span span_{};
  const std::function<void(Span)>* fn_ = nullptr;
};

}  // namespace baton::detail
