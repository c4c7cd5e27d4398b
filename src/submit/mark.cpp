#include "submit/mark.hpp"

#include "baton/error.hpp"

namespace baton::detail {

bool Mark::join() {
  std::lock_guard lock(mu_);
  return state() == State::open;
}

void Mark::record() {
  if (state() == State::open) {
    std::lock_guard lock(mu_);
    if (state() == State::open) {
      try {
        event_ = queue_.record();
      } catch (const Error& e) {
        failure_ = e.message();
        state_.store(State::failed, std::memory_order_release);
        throw;
      }
      state_.store(State::recorded, std::memory_order_release);
    }
  }
  if (state() == State::failed) throw_failure();
}

void Mark::throw_failure() const {
  raise(Errc::device_failed, "mark", failure_);
}

void Mark::wait() {
  record();
  event_->wait();
  done_.store(true, std::memory_order_release);
}

bool Mark::ready() {
  if (done_.load(std::memory_order_acquire)) return true;
  const State s = state();
  if (s == State::failed) throw_failure();
  if (s == State::open || !event_->ready()) return false;
  done_.store(true, std::memory_order_release);
  return true;
}

bool Mark::wait_for(double seconds) {
  if (done_.load(std::memory_order_acquire)) return true;
  record();
  if (!event_->wait_for(seconds)) return false;
  done_.store(true, std::memory_order_release);
  return true;
}

Event* Mark::recorded() {
  try {
    record();
  } catch (const Error&) {  // failed: waiting for it throws, as for the device's own events
    return nullptr;
  }
  return event_.get();
}

}  // namespace baton::detail
