// A test-and-test-and-set lock for sections of a few instructions (a task's
// dependency edges), where a mutex's sleep would cost more than the wait.
#pragma once

#include <atomic>
#include <thread>

namespace baton::detail {

class SpinLock {
 public:
  void lock() {
    for (int spins = 0; flag_.exchange(true, std::memory_order_acquire); ++spins)
      while (flag_.load(std::memory_order_relaxed))
        if (++spins > 64) std::this_thread::yield();
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace baton::detail
