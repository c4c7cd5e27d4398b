// The completion of a run of whole tasks that one worker enqueued back to
// back on its pipelined compute queue, recorded as one device event after
// the last of them. A GPU then pays for an event record, and for looking at
// it, once per run rather than once per task (the queue is in order, so an
// event recorded later stands for everything enqueued before it).
//
// Its worker records it after a few tasks or once it has nothing more to
// issue; whoever must wait for it sooner (a queue of another device, a host
// thread) records it then. ready() never records: until then it is false.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "baton/device.hpp"

namespace baton::detail {

class Mark final : public Event {
 public:
  explicit Mark(Queue& queue) : queue_(queue) {}

  void wait() override;
  bool ready() override;
  bool wait_for(double seconds) override;
  Event* recorded() override;  // records it first; null where that failed

  // The worker, after it enqueued one more task: true when this mark, not
  // yet recorded, now stands for that task too.
  bool join();
  // Records the event after everything enqueued so far, once. A device
  // error marks it failed for every waiter, and is thrown.
  void record();

 private:
  enum class State : int { open, recorded, failed };
  State state() const { return state_.load(std::memory_order_acquire); }
  [[noreturn]] void throw_failure() const;

  Queue& queue_;
  std::mutex mu_;  // join() against record(): a task joins only before the record
  std::atomic<State> state_{State::open};
  std::atomic<bool> done_{false};  // seen complete once: no more driver calls
  EventPtr event_;                 // set before state_ becomes recorded
  std::string failure_;            // set before state_ becomes failed
};

}  // namespace baton::detail
