// What a worker asks of the engine that owns it, and no more: placing the
// tasks it releases, hearing what it issued, finished, failed or lost, the
// other workers it may steal from, and the chunks of spread tasks. Chunks are
// handed out, completed, given back and retired here, in one place (the
// engine's spread part), which tells the chunk source and the policy
// together. Declared beside the worker, so that the worker depends on this
// and not on the whole Engine. What every task asks (may it be stolen, is it
// timed, who sleeps) is plain data the engine keeps here, read without a call.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/options.hpp"
#include "submit/policy_hooks.hpp"
#include "submit/task.hpp"

namespace baton::detail {

class TraceLog;
class Worker;
struct FreeBatch;

class WorkerHost {
 public:
  // ---- what every task asks ----
  // Other devices may take `t` from the queue it waits in.
  bool stealable(const TaskRecord* t) const { return t->pinned < 0 && traits_[t->policy].steals; }
  // `t`'s policy learns from run times, so its runs are timed.
  bool learns(const TaskRecord* t) const { return traits_[t->policy].learns; }
  int devices() const { return int(peers_.size()); }
  Worker& worker(int d) { return *peers_[d]; }
  // Some policy in use lets idle devices take others' queued tasks.
  bool steals_anything() const { return any_stealing_.load(std::memory_order_relaxed); }
  // After publishing work, whether a worker sleeps: a read-modify-write, so
  // that it is ordered after the publication (a worker counts itself asleep,
  // then looks for work).
  bool any_idle() { return sleepers_.fetch_add(0, std::memory_order_seq_cst) > 0; }
  void sleeping(bool now) { sleepers_.fetch_add(now ? 1 : -1, std::memory_order_seq_cst); }
  TraceLog& trace_log() { return *trace_log_; }
  bool write_back() const { return write_back_; }

  // ---- tasks ----
  // `t` has no unissued predecessor left: place it. `from`: the worker placing
  // it, or null.
  virtual void make_ready(TaskRecord* t, Worker* from) = 0;
  // Device `d` may run `t`: alive, with code for the kernel, not out of memory for it.
  virtual bool can_run(const TaskRecord* t, int d) const = 0;
  // `t` leaves device `d`'s queue to run there.
  virtual void left_queue(TaskRecord* t, int d) = 0;
  // `t` was enqueued on `device`, down `lane`; its successors may be placed.
  virtual void issued(TaskRecord* t, const EventPtr& done, int device, LaneId lane,
                      Worker& from) = 0;
  virtual void finished(TaskRecord* t, Worker& by, double seconds) = 0;
  // `t` fails with `error`, and so does everything that depends on it.
  virtual void fail(TaskRecord* t, std::exception_ptr error, Worker* by) = 0;
  // Device `d` ran out of memory for `t`: it runs elsewhere, or fails with `why`.
  virtual void exclude(TaskRecord* t, int d, const std::string& why) = 0;
  // `t` was in flight on a device that failed: it runs again.
  virtual void lost_in_flight(TaskRecord* t, const std::string& cause) = 0;
  // Places tasks again (a failed device's, or ones that reached it late).
  virtual void requeue(std::vector<TaskRecord*>& tasks) = 0;
  // The worker finished `tasks` since it last said so.
  virtual void published(std::uint64_t tasks) = 0;
  virtual void pool_flush(FreeBatch& batch) = 0;

  // ---- chunks of spread tasks ----
  // The next span of `t` for device `d`, or nothing for it now.
  virtual std::optional<Take> next_chunk(TaskRecord* t, int d) = 0;
  // Device `d` ran `span` of `t` in `seconds`: the chunk source and the policy hear it.
  virtual void chunk_done(TaskRecord* t, int d, Span span, double seconds) = 0;
  // `span`, handed to `d`, did not run there; `rerun`: because the device failed.
  virtual void chunk_returned(TaskRecord* t, int d, Span span, bool rerun) = 0;
  // Device `d` takes no more of `t`: its share of what is left goes to the others.
  virtual void chunks_retired(TaskRecord* t, int d) = 0;
  // Device `d` may still find a chunk of `t`: its own, one to steal, or the end.
  virtual bool chunks_for(const TaskRecord* t, int d) const = 0;
  // Every chunk of `t` has been handed out.
  virtual bool chunks_exhausted(const TaskRecord* t) const = 0;
  // `items` of `t` are done on `w`'s device.
  virtual void spread_publish(TaskRecord* t, std::uint64_t items, Worker& w) = 0;
  virtual void spread_leave(TaskRecord* t, Worker& w) = 0;
  virtual void spread_error(TaskRecord* t, std::exception_ptr e) = 0;
  // Device `d` cannot hold `t`'s buffers: it leaves `t` to the others.
  virtual void spread_exclude(TaskRecord* t, int d, const std::string& why) = 0;

  // ---- the other workers ----
  // The victims device `d` tries, nearest first (null: any order).
  virtual const std::vector<int>* victim_order(int d) const = 0;
  virtual void wake_one(int except) = 0;
  // `w`'s device failed with `cause`: `requeue` are the tasks it held, `left`
  // the spread tasks it took part in.
  virtual void device_failed(Worker& w, const std::string& cause, std::vector<TaskRecord*>& requeue,
                             std::vector<TaskRecord*>& left) = 0;

  // ---- settings ----
  virtual const Options& options() const = 0;

 protected:
  WorkerHost() = default;
  ~WorkerHost() = default;

  struct PolicyTraits {
    bool steals = false, learns = false;  // the policy instance's, once made
  };
  std::vector<PolicyTraits> traits_;  // per policy slot
  std::vector<Worker*> peers_;        // every device's worker
  TraceLog* trace_log_ = nullptr;
  bool write_back_ = false;
  std::atomic<bool> any_stealing_{false};
  alignas(64) std::atomic<int> sleepers_{0};
};

}  // namespace baton::detail
