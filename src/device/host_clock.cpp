// The host's steady clock, its futex-based parker, and the default timed
// wait of events.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <thread>

#include "baton/device.hpp"

namespace baton {

namespace {

// A permit in one word, as Rust's std does on Linux: unpark() sets it and
// wakes a parked thread; park() consumes it or sleeps on the word.
class FutexParker final : public Parker {
 public:
  void park() override {
    if (state_.fetch_sub(1, std::memory_order_acquire) == kNotified) return;  // now empty
    // Now parked (-1): sleep until unpark() stores kNotified.
    while (state_.load(std::memory_order_acquire) == kParked) futex_wait(kParked);
    state_.store(kEmpty, std::memory_order_release);
  }
  void unpark() override {
    if (state_.exchange(kNotified, std::memory_order_release) == kParked) futex_wake();
  }

 private:
  static constexpr int kParked = -1, kEmpty = 0, kNotified = 1;
  void futex_wait(int expected) {
    syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAIT_PRIVATE, expected, nullptr,
            nullptr, 0);
  }
  void futex_wake() {
    syscall(SYS_futex, reinterpret_cast<int*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  static_assert(sizeof(std::atomic<int>) == sizeof(int));
  std::atomic<int> state_{kEmpty};
};

class HostClock final : public Clock {
 public:
  double now() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  std::unique_ptr<Parker> make_parker(bool) override { return std::make_unique<FutexParker>(); }
};

}  // namespace

Clock& host_clock() {
  static HostClock clock;
  return clock;
}

bool Event::wait_for(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  // A few microseconds of polling catch short kernels without a sleep.
  for (int i = 0; i < 64; ++i)
    if (ready()) return true;
  for (int step_us = 1; Clock::now() < deadline; step_us = std::min(step_us * 2, 50)) {
    std::this_thread::sleep_for(std::chrono::microseconds(step_us));
    if (ready()) return true;
  }
  return ready();
}

}  // namespace baton
