// A device's worker: one host thread per device, alive as long as the
// Runtime, bound once to its device (context current, CPUs near it). It takes
// tasks placed on its device, chunks of spread tasks it takes part in and,
// where the policy allows, tasks queued for others; enqueues them on its
// device's queues; and notices their completion. With nothing to do it
// sleeps, woken by whoever gives it work.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "baton/device.hpp"
#include "common/chase_lev.hpp"
#include "submit/launch.hpp"
#include "submit/mark.hpp"
#include "submit/policy_hooks.hpp"
#include "submit/task.hpp"
#include "submit/task_pool.hpp"
#include "submit/trace_log.hpp"
#include "submit/worker_host.hpp"

namespace baton::detail {

// Tasks other threads place on a device: a lock-free stack the owner empties
// at once, oldest first.
class Inbox {
 public:
  // Seq_cst: the pusher's next look at whether the owner sleeps is ordered
  // after the push (the owner stores that it sleeps, then looks here).
  void push(TaskRecord* t) {
    TaskRecord* head = head_.load(std::memory_order_relaxed);
    do t->next = head;
    while (!head_.compare_exchange_weak(head, t, std::memory_order_seq_cst,
                                        std::memory_order_relaxed));
  }
  bool empty() const { return head_.load(std::memory_order_seq_cst) == nullptr; }
  // Every task pushed so far, oldest first.
  void take_all(std::vector<TaskRecord*>& out) {
    TaskRecord* t = head_.exchange(nullptr, std::memory_order_acquire);
    const std::size_t first = out.size();
    for (; t; t = t->next) out.push_back(t);
    std::reverse(out.begin() + std::ptrdiff_t(first), out.end());
  }

 private:
  std::atomic<TaskRecord*> head_{nullptr};
};

// Figures since the Runtime started; each written by its worker only.
struct WorkerCounters {
  std::atomic<std::uint64_t> tasks{0}, chunks{0}, items{0}, steals{0}, bytes_in{0}, bytes_out{0},
      reruns{0};
  std::atomic<double> busy_s{0}, last_done_s{0};
  void add(std::atomic<std::uint64_t>& c, std::uint64_t n) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void add(std::atomic<double>& c, double x) {
    c.store(c.load(std::memory_order_relaxed) + x, std::memory_order_relaxed);
  }
};

class Worker {
 public:
  Worker(WorkerHost& host, int index, Device& device, std::vector<unsigned> cpus,
         long long fault_after);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void start();
  void stop();  // after every task is done: ends the thread

  int index() const { return index_; }
  Device& device() { return device_; }
  bool alive() const { return alive_.load(std::memory_order_acquire); }
  const std::string& failure() const { return failure_; }  // once !alive()
  WorkerCounters& counters() { return counters_; }

  // --- any thread ---
  void post(TaskRecord* t);         // a task placed on this device
  void announce(TaskRecord* task);  // a spread task this device takes part in
  void wake();                      // if it sleeps
  bool sleeping() const { return sleeping_.load(std::memory_order_seq_cst); }
  // A queued task `thief` may take, or null. The thief's own thread.
  TaskRecord* steal(Worker& thief);
  bool has_stealable() const {
    return local_.size() > 0 || inbox_stealable_.load(std::memory_order_relaxed) > 0;
  }

  // --- its own thread, through its host ---
  void push_local(TaskRecord* t, bool stealable);
  FreeBatch& free_batch() { return free_; }
  void count_finished(std::uint64_t n = 1);
  void publish();  // tells the engine how many tasks it finished since it last did

 private:
  // Work it found: a whole task, or a chunk of a spread task it takes part in.
  struct Participation {
    TaskRecord* task = nullptr;
    std::uint64_t done_items = 0;  // completed here, not yet published
    int in_flight = 0;
    bool excluded = false;  // its buffers did not fit this device: it takes no more
  };
  struct Work {
    TaskRecord* task = nullptr;
    Participation* part = nullptr;  // a chunk of a spread task
    Take take{};
    int victim = -1;
  };
  static Work task_work(TaskRecord* t, int victim = -1) { return Work{t, nullptr, Take{}, victim}; }
  struct InFlight {
    TaskRecord* task = nullptr;
    Participation* part = nullptr;
    Span span;  // chunks: items [0, n) of the spread task
    EventPtr done;
    double issued_s = -1;     // < 0: not timed (its policy does not learn from run times)
    std::uint64_t step = 0;   // chunks: launched in pieces of at most this many items
    double traced_s = -1;     // when it was issued, while tracing; < 0: not traced
    int victim = -1;          // >= 0: stolen from that device
    std::uint64_t after = 0;  // traced: devices of the predecessors it waited for (TraceSpan)
    // Chunks on a queue that times its commands: recorded before the launch,
    // `done` after it (Queue::record_timed).
    EventPtr started;
    double issue_s = 0;  // traced: the host's time to issue it (TraceSpan)
  };
  // What went down one in-order queue, oldest first: what is done of it is a prefix.
  struct Lane {
    Queue& queue;
    std::deque<InFlight> flight;
    double traced_until_s = 0;    // the end of its last traced span
    LaneId id = LaneId::compute;  // traced apart from the compute queue's unless compute
  };
  // The lane `t` runs on: the copy-in queue for a prefetch, the side queue
  // for a side kernel, where the device has such a queue of its own; else
  // the compute queue.
  Lane& lane_of(const TaskRecord* t);
  // Notes a span in the trace for `f`, seen done now, if it is traced;
  // `device_s` >= 0: its time as the device timed it.
  void trace(const InFlight& f, Lane& lane, double now_s, double device_s);

  void run();
  void bind();
  bool step();  // one round of the loop; false when there was nothing to do
  // Whole tasks it keeps in flight on its compute queue.
  std::size_t task_room() const { return depth_ > 1 ? depth_ * 8 : depth_; }
  std::optional<Work> find_work(bool chunks);  // chunks: room for one more in flight
  std::optional<Work> chunk_work();
  std::optional<Work> steal_work();
  void take_inbox();
  void take_announcements();
  bool has_work_now();
  void idle();

  void issue(Work& w);
  void issue_task(TaskRecord* t, int victim);
  void issue_chunk(Participation& p, const Take& take);
  struct Enqueued {
    std::uint64_t bytes_in = 0, bytes_out = 0;
    std::uint64_t launched = 0;  // items launched, also when a launch failed
    EventPtr started;            // a chunk's timing start (InFlight::started)
  };
  // Enqueues items `span` of `t` on `lane` (waits, copies in, launches of at
  // most `step` items, writes); returns its completion event. `whole`: the
  // whole task (not a chunk of a spread one), which may share a Mark.
  EventPtr enqueue(TaskRecord* t, Lane& lane, Span span, std::uint64_t step, bool whole,
                   Enqueued& out);
  EventPtr task_done_event(const TaskRecord* t);
  // Whatever is in flight on `lane` now holds `f`.
  void in_flight(Lane& lane, InFlight f);
  void record_open_mark();  // throws a device's error
  bool reap();              // notices completed work; true when some completed
  bool reap(Lane& lane);
  // With nothing to issue: blocks until some of its work or of what holds a
  // deferred task may have completed, or work is given to it.
  void wait_for_progress();
  static bool done_now(const EventPtr& e);
  // Seconds since the previous completion, or since `issued_s` if later; the
  // next is timed from now.
  double since_previous(double issued_s);
  // A chunk's time: on the device where its queue times it (the host sees
  // completions late and in batches), else `host_s`, the host's figure.
  static double chunk_seconds(const InFlight& f, double host_s);
  // Done now: timed since the previous completion.
  void completed(InFlight& f, Lane& lane);
  void completed(InFlight& f, Lane& lane, double seconds);
  void chunk_completed(Participation& p, Span span, std::uint64_t step, double seconds);
  void settle(Participation& p);  // publishes what it completed; leaves when nothing is left
  // The event that keeps `t` from going down `lane`'s queue yet, or null: one
  // it follows that cannot be waited for there, a compute kernel not yet done
  // that a side task would wait for on the device, or any not yet done that a
  // prefetch follows (Kernel::prefetch).
  const EventPtr* holding(const TaskRecord* t, Lane& lane);
  // True while a side task's input copies are landing: issued before it goes
  // down the in-order side queue, so that it does not wait for them there.
  bool inputs_landing(TaskRecord* t);
  static const EventPtr* first_not_done(const std::vector<EventPtr>& events);
  void defer(TaskRecord* t) { deferred_.push_back(t); }
  bool retry_deferred();

  // Failures.
  void task_failed(TaskRecord* t, std::exception_ptr e);
  void chunk_failed(Participation& p, const Take& take, std::exception_ptr e);
  void device_lost(const std::string& cause);
  void drain_after_failure();
  void injected_fault();

  double now() const { return clock_.now(); }

  WorkerHost& host_;
  const int index_;
  Device& device_;
  Clock& clock_;
  Queue& compute_;
  // The compute queue's work, the side queue's, the prefetches' on the
  // copy-in queue: a prefetch's copies keep no kernel waiting (a batch staged
  // for the next step on the compute queue held back every chunk behind it).
  Lane main_, side_, fetch_;
  std::vector<unsigned> cpus_;
  const long long fault_after_;
  long long launches_ = 0;
  const std::size_t depth_;
  const double idle_spin_s_;
  // It drives its device from a thread of its own (a GPU): idle, it may spin
  // through a gap as long as the ones before (idle()).
  const double gap_spin_s_;  // 0 where it does not
  double last_gap_s_ = 0;    // its last idle time, from going idle to having work
  const double long_chunk_s_;

  std::thread thread_;
  std::unique_ptr<Parker> parker_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> alive_{true};
  std::string failure_;
  // Written by the worker when it sleeps and wakes, read by whoever gives it work.
  alignas(64) std::atomic<bool> sleeping_{false};
  // Written by whoever gives it work.
  alignas(64) Inbox inbox_;
  std::atomic<int> inbox_stealable_{0};  // about how many tasks in it others may take

  // Queues of its own.
  alignas(64) ChaseLevDeque local_;  // tasks others may steal
  std::deque<TaskRecord*> fixed_;    // tasks placed here that stay here
  std::vector<TaskRecord*> inbox_scratch_;
  std::mutex announce_mu_;
  std::vector<TaskRecord*> announced_;
  std::atomic<bool> has_announced_{false};
  std::vector<std::unique_ptr<Participation>> parts_;
  std::vector<std::unique_ptr<Participation>> spare_parts_;  // reused: no allocation per task
  std::vector<TaskRecord*> announced_scratch_;
  std::size_t next_part_ = 0;        // round robin over spread tasks
  std::shared_ptr<Mark> open_mark_;  // the completion of the last whole tasks, not yet recorded
  int open_uses_ = 0;
  std::size_t chunks_in_flight_ = 0;
  std::vector<TaskRecord*> deferred_;  // wait for events this device cannot wait for itself
  // Deferred side tasks' input copies not yet landed (inputs_landing).
  std::vector<std::pair<const TaskRecord*, std::vector<EventPtr>>> landing_;
  Prepared landing_scratch_;
  int sticky_ = -1;  // the victim that last had work
  std::uint64_t rng_;

  // Timing of back-to-back work: its cost is the time since the previous
  // completion when they overlap.
  double prev_done_s_ = 0, busy_since_s_ = -1, last_chunk_s_ = 0;
  std::uint64_t unpublished_ = 0;  // tasks finished, not yet counted in the engine

  Prepared scratch_;
  FreeBatch free_;
  WorkerCounters counters_;
};

}  // namespace baton::detail
