#include "device/sim/sim_clock.hpp"

#include <algorithm>

namespace baton::detail {

thread_local const SimClock* SimClock::worker_of_ = nullptr;
thread_local SimClock::Seat* SimClock::worker_seat_ = nullptr;

namespace {

// The clocks the calling host thread took part in: it leaves them when it
// ends, so that a turn it held is not held for ever.
struct HostThreadEnd {
  std::vector<std::weak_ptr<SimClock>> clocks;
  ~HostThreadEnd() {
    for (auto& c : clocks)
      if (auto clock = c.lock()) clock->host_leaving();
  }
};
thread_local HostThreadEnd host_thread_end;

}  // namespace

class SimClock::SimParker final : public Parker {
 public:
  SimParker(std::shared_ptr<SimClock> clock, bool worker) : clock_(std::move(clock)) {
    own_.worker = worker;
  }
  void park() override { park_until(-1); }
  void park_until(double t) override {
    std::unique_lock lock(clock_->mu_);
    if (permit_) {
      permit_ = false;
      return;
    }
    if (t >= 0 && clock_->now() >= t) return;
    // A worker's parker is its seat; a host's is lent the thread's seat.
    parked_ = own_.worker ? &own_ : &clock_->host_seat();
    clock_->block(lock, *parked_, t);
    parked_ = nullptr;
    permit_ = false;
  }
  void unpark() override {
    std::lock_guard lock(clock_->mu_);
    permit_ = true;
    if (!parked_ || !parked_->blocked) return;
    // Still blocked, until it has woken (or its own time came first); with
    // no host left to wait, time no longer moves (the workers are stopping).
    if (clock_->wake_s_ > 0 && !clock_->hosts_.empty()) {
      const double at = clock_->now() + clock_->wake_s_;
      if (parked_->until < 0 || at < parked_->until) parked_->until = at;
    } else {
      clock_->release(*parked_);
    }
    clock_->pass_turn();
  }
  Seat& seat() { return own_; }

 private:
  std::shared_ptr<SimClock> clock_;
  Seat own_;                // a worker's seat
  Seat* parked_ = nullptr;  // the seat blocked in park_until
  bool permit_ = false;     // under the clock's mutex
};

std::unique_ptr<Parker> SimClock::make_parker(bool worker) {
  return std::make_unique<SimParker>(shared_from_this(), worker);
}

bool SimClock::is_worker() const {
  return worker_of_ == this;
}

SimClock::Seat& SimClock::host_seat() {
  auto& seat = hosts_[std::this_thread::get_id()];
  if (!seat) {
    seat = std::make_unique<Seat>();
    seat->order = seats_made_++;
    // Listed once, however often the thread leaves and comes back; clocks
    // since gone are dropped.
    auto& clocks = host_thread_end.clocks;
    std::erase_if(clocks, [&](const auto& c) { return c.expired() || c.lock().get() == this; });
    clocks.push_back(weak_from_this());
  }
  return *seat;
}

SimClock::Seat& SimClock::seat_of_caller() {
  return is_worker() ? *worker_seat_ : host_seat();
}

void SimClock::worker_starting(Parker& worker) {
  std::unique_lock lock(mu_);
  Seat& host = host_seat();
  if (turn_ != &host) take_turn(lock, host);  // the host runs on until it waits
  Seat& s = static_cast<SimParker&>(worker).seat();
  s.order = seats_made_++;
  ready_.push_back(&s);
}

void SimClock::attach_worker(Parker& worker) {
  Seat& s = static_cast<SimParker&>(worker).seat();
  worker_of_ = this;
  worker_seat_ = &s;
  std::unique_lock lock(mu_);
  s.cv.wait(lock, [&] { return turn_ == &s; });
}

void SimClock::detach_worker() {
  std::lock_guard lock(mu_);
  if (turn_ == worker_seat_) turn_ = nullptr;
  worker_of_ = nullptr;
  worker_seat_ = nullptr;
  pass_turn();
}

void SimClock::host_leaving() {
  std::lock_guard lock(mu_);
  auto it = hosts_.find(std::this_thread::get_id());
  if (it == hosts_.end()) return;
  if (turn_ == it->second.get()) turn_ = nullptr;
  hosts_.erase(it);
  pass_turn();
}

void SimClock::wake_after(double seconds) {
  std::lock_guard lock(mu_);
  wake_s_ = std::max(wake_s_, seconds);
}

void SimClock::wait_until(double t) {
  if (now() >= t) return;
  std::unique_lock lock(mu_);
  block(lock, seat_of_caller(), t);
}

// Queues the seat for the turn and sleeps until it has it.
void SimClock::take_turn(std::unique_lock<std::mutex>& lock, Seat& s) {
  ready_.push_back(&s);
  pass_turn();
  s.cv.wait(lock, [&] { return turn_ == &s; });
}

// Gives up the turn (if the seat held it), lets the next seat run or time
// move, and sleeps until released and back in turn.
void SimClock::block(std::unique_lock<std::mutex>& lock, Seat& s, double until) {
  s.until = until;
  s.blocked = true;
  blocked_.push_back(&s);
  if (!s.worker) ++waiting_hosts_;
  if (turn_ == &s) turn_ = nullptr;
  pass_turn();
  s.cv.wait(lock, [&] { return turn_ == &s; });
}

void SimClock::release(Seat& s) {
  s.blocked = false;
  blocked_.erase(std::find(blocked_.begin(), blocked_.end(), &s));
  if (!s.worker) --waiting_hosts_;
  ready_.push_back(&s);
}

void SimClock::pass_turn() {
  while (!turn_) {
    if (!ready_.empty()) {
      turn_ = ready_.front();
      ready_.pop_front();
      turn_->cv.notify_one();
      return;
    }
    if (!advance()) return;
  }
}

// Nobody runs or is ready: time jumps to the earliest time waited for, and
// the seats waiting for it are released, workers first, each in seat order.
// Only while a host waits: a host thread that runs outside its turn (one
// that never waited) is not to see time move under it.
bool SimClock::advance() {
  if (waiting_hosts_ == 0) return false;
  double next = -1;
  for (const Seat* s : blocked_)
    if (s->until >= 0 && (next < 0 || s->until < next)) next = s->until;
  if (next < 0) return false;  // nothing timed: whoever waits is woken by an unpark
  now_.store(std::max(now(), next), std::memory_order_release);
  std::vector<Seat*> due;
  for (Seat* s : blocked_)
    if (s->until >= 0 && s->until <= now()) due.push_back(s);
  std::sort(due.begin(), due.end(), [](const Seat* a, const Seat* b) {
    return a->worker != b->worker ? a->worker : a->order < b->order;
  });
  for (Seat* s : due) release(*s);
  return true;
}

}  // namespace baton::detail
