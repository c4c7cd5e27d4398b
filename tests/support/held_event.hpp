// An event that completes when the test says so: work still running on a
// device (of another backend, or one the test holds back).
#pragma once

#include <atomic>
#include <thread>

#include "baton/device.hpp"

namespace baton::test {

class HeldEvent final : public Event {
 public:
  void wait() override {
    while (!done_.load(std::memory_order_acquire)) std::this_thread::yield();
  }
  bool ready() override { return done_.load(std::memory_order_acquire); }
  void complete() { done_.store(true, std::memory_order_release); }

 private:
  std::atomic<bool> done_{false};
};

}  // namespace baton::test
