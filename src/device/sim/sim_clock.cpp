#include "device/sim/sim_clock.hpp"

#include <algorithm>

namespace baton::detail {

namespace {
// The clock whose worker the calling thread is, if any.
thread_local const SimClock* worker_of = nullptr;
}  // namespace

class SimClock::SimParker final : public Parker {
 public:
  SimParker(std::shared_ptr<SimClock> clock, bool worker) : clock_(std::move(clock)) {
    blocked_.worker = worker;
  }
  void park() override { park_until(-1); }
  void park_until(double t) override {
    std::unique_lock lock(clock_->mu_);
    if (permit_) {
      permit_ = false;
      return;
    }
    if (t >= 0 && clock_->now() >= t) return;
    blocked_.until = t;
    clock_->block(lock, blocked_);
    permit_ = false;
  }
  void unpark() override {
    std::lock_guard lock(clock_->mu_);
    permit_ = true;
    if (blocked_.blocked) clock_->release(blocked_);
  }

 private:
  std::shared_ptr<SimClock> clock_;
  Blocked blocked_;
  bool permit_ = false;  // under the clock's mutex
};

std::unique_ptr<Parker> SimClock::make_parker(bool worker) {
  return std::make_unique<SimParker>(shared_from_this(), worker);
}

bool SimClock::is_worker() const {
  return worker_of == this;
}

void SimClock::worker_starting() {
  std::lock_guard lock(mu_);
  ++running_workers_;
}

void SimClock::attach_worker() {
  worker_of = this;
}

void SimClock::detach_worker() {
  std::lock_guard lock(mu_);
  worker_of = nullptr;
  --running_workers_;
  advance();
}

void SimClock::wait_until(double t) {
  if (now() >= t) return;
  std::unique_lock lock(mu_);
  Blocked b;
  b.worker = is_worker();
  b.until = t;
  block(lock, b);
}

// Counts the thread as blocked, moves time if that was the last one running,
// and sleeps until released.
void SimClock::block(std::unique_lock<std::mutex>& lock, Blocked& b) {
  b.blocked = true;
  blocked_.push_back(&b);
  if (b.worker)
    --running_workers_;
  else
    ++waiting_hosts_;
  advance();
  b.cv.wait(lock, [&] { return !b.blocked; });
}

void SimClock::release(Blocked& b) {
  b.blocked = false;
  blocked_.erase(std::find(blocked_.begin(), blocked_.end(), &b));
  if (b.worker)
    ++running_workers_;
  else
    --waiting_hosts_;
  b.cv.notify_one();
}

void SimClock::advance() {
  if (running_workers_ > 0 || waiting_hosts_ == 0) return;
  double next = -1;
  for (const Blocked* b : blocked_)
    if (b->until >= 0 && (next < 0 || b->until < next)) next = b->until;
  if (next < 0) return;  // nothing timed: whoever waits is woken by an unpark
  now_.store(std::max(now(), next), std::memory_order_release);
  std::vector<Blocked*> due;
  for (Blocked* b : blocked_)
    if (b->until >= 0 && b->until <= now()) due.push_back(b);
  for (Blocked* b : due) release(*b);
}

}  // namespace baton::detail
