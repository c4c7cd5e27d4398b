// The virtual clock the sim devices of one set share, and the turns their
// threads take. One thread runs at a time: a device's worker, or a host
// thread that starts workers or waits for the devices (from then until it
// leaves). The one running keeps its turn until it blocks (waits for a time
// or parks); the turn then goes to the first thread released, in the order
// they were released, and threads released at one instant go in the order
// their seats were made (workers in device order, then hosts). With nobody
// left to run and a host thread waiting, time jumps to the earliest time
// waited for. A run so follows from the work and the policies alone: the
// same command gives the same figures, however the host schedules threads,
// and the host's own code between two waits takes no virtual time.
//
// A host thread that took part must not block on anything but this clock
// while the devices still need to run (it holds the turn): it leaves first
// (host_leaving), as the Runtime does before it joins its workers. A host
// thread that ends leaves by itself.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "baton/device.hpp"

namespace baton::detail {

class SimClock final : public Clock, public std::enable_shared_from_this<SimClock> {
 public:
  double now() const override { return now_.load(std::memory_order_acquire); }
  bool is_virtual() const override { return true; }
  std::unique_ptr<Parker> make_parker(bool worker) override;
  void worker_starting(Parker& worker) override;
  void attach_worker(Parker& worker) override;
  void detach_worker() override;
  void host_leaving() override;
  // Blocks the calling thread until virtual time reaches `t`.
  void wait_until(double t);
  // A parked thread runs this long after it is unparked (0: at once). The
  // devices of a set share the clock: the largest asked for holds.
  void wake_after(double seconds);

 private:
  class SimParker;
  // A thread that takes turns.
  struct Seat {
    std::condition_variable cv;
    bool worker = false;
    int order = 0;         // among seats released at one instant, lower goes first
    double until = -1;     // while blocked: the time it waits for; < 0: an unpark
    bool blocked = false;  // in blocked_
  };
  Seat& host_seat();       // the calling host thread's
  Seat& seat_of_caller();  // its worker's seat, or host_seat()
  void take_turn(std::unique_lock<std::mutex>& lock, Seat& s);
  void block(std::unique_lock<std::mutex>& lock, Seat& s, double until);
  void release(Seat& s);  // blocked -> ready
  void pass_turn();       // to the first ready seat; none: time moves
  bool advance();         // false: time cannot move now
  bool is_worker() const;

  // The clock whose worker the calling thread is, if any, and its seat.
  static thread_local const SimClock* worker_of_;
  static thread_local Seat* worker_seat_;

  // All under mu_.
  std::mutex mu_;
  std::atomic<double> now_{0.0};
  double wake_s_ = 0;
  Seat* turn_ = nullptr;  // the seat whose thread runs; none: nobody runs
  std::deque<Seat*> ready_;
  std::vector<Seat*> blocked_;
  int waiting_hosts_ = 0;  // host seats blocked
  int seats_made_ = 0;
  std::map<std::thread::id, std::unique_ptr<Seat>> hosts_;
};

}  // namespace baton::detail
