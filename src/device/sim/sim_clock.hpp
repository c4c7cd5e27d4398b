// The virtual clock the sim devices of one set share. Virtual time stands
// still while any sim device's worker runs host code; once every one of them
// is blocked (waiting for a completion, or parked with nothing to do) and a
// host thread waits for the devices, it jumps to the earliest completion
// waited for. Simulated times so follow from the work and the policies, never
// from how fast the host happens to run them; the host's own code between two
// waits takes no virtual time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "baton/device.hpp"

namespace baton::detail {

class SimClock final : public Clock, public std::enable_shared_from_this<SimClock> {
 public:
  double now() const override { return now_.load(std::memory_order_acquire); }
  bool is_virtual() const override { return true; }
  std::unique_ptr<Parker> make_parker(bool worker) override;
  void worker_starting() override;
  void attach_worker() override;
  void detach_worker() override;
  // Blocks the calling thread until virtual time reaches `t`.
  void wait_until(double t);

 private:
  class SimParker;
  // One blocked thread: a worker or a host thread, until a time or a wake-up.
  struct Blocked {
    std::condition_variable cv;
    bool worker = false;
    double until = -1;     // < 0: parked until unparked
    bool blocked = false;  // in blocked_
  };
  void block(std::unique_lock<std::mutex>& lock, Blocked& b);
  void release(Blocked& b);  // mu_ held
  void advance();            // mu_ held
  bool is_worker() const;

  std::mutex mu_;
  std::atomic<double> now_{0.0};
  int running_workers_ = 0;  // attached workers not blocked
  int waiting_hosts_ = 0;    // host threads blocked
  std::vector<Blocked*> blocked_;
};

}  // namespace baton::detail
