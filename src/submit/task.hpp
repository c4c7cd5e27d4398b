// A submitted task as the engine keeps it. Records live in a pool for the
// Runtime's life and are reused; a reference to one therefore carries the
// generation it was made with, and a reference whose generation has moved on
// names a task that is long done.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <vector>

#include "baton/args.hpp"
#include "baton/device.hpp"
#include "baton/range.hpp"
#include "common/spin_lock.hpp"

namespace baton::detail {

struct KernelEntry;
struct SplitRun;

enum class TaskKind : std::uint8_t {
  single,  // one launch over its whole range, on one device
  split,   // its range cut into chunks that the devices take (parallel_for)
};

enum class TaskState : std::uint8_t {
  pending,  // waits for predecessors
  ready,    // placed in a queue, or being taken
  issued,   // enqueued on a device, its completion event recorded (single)
  done,
  failed,
};

struct TaskRecord;

struct TaskRef {
  TaskRecord* record = nullptr;
  std::uint32_t generation = 0;
  friend bool operator==(const TaskRef&, const TaskRef&) = default;
};

// The queues of a device that tasks go down, each in order: compute, the
// side queue (QueueRole::side), and the copy-in queue, where a prefetch
// (Kernel::prefetch) ends with its copies.
enum class LaneId : std::uint8_t { compute, side, fetch };

// An event a task must follow, the device that recorded it and on which of
// its queues (a task on that same queue follows it by queue order alone).
struct EventWait {
  EventPtr event;
  int device = -1;
  LaneId lane = LaneId::compute;
};

// Four cache lines. A task with no buffer touches the first two only
// (identity, flags, links; what to run): a record is reused by another thread
// long after its last use, so every line touched is a cache miss. What only
// tasks with dependencies or exclusions need comes after.
struct alignas(64) TaskRecord {
  std::atomic<std::uint32_t> generation{1};
  std::uint32_t index = 0;  // in the pool
  TaskKind kind = TaskKind::single;
  // It touches buffers, so later tasks may depend on it: only then does it
  // need its edges guarded and its event kept.
  bool tracked = false;
  bool upstream_failed = false;         // a predecessor failed: it will not run
  std::atomic<bool> host_waits{false};  // a host thread waits for this very task
  std::atomic<TaskState> state{TaskState::pending};
  SpinLock lock;                  // guards successors, waits, event, device and state changes
  bool has_exclusions = false;    // `excluded` holds something
  bool holds_edges = false;       // its last run was tracked: waits and event to let go
  bool scrubbed = true;           // holds nothing of a finished run (TaskPool::scrub)
  LaneId lane = LaneId::compute;  // single: the queue it went down
  int policy = 0;
  int pinned = -1;  // baton::on(d)
  // Predecessors not yet issued (not yet done, for spread ones), plus one
  // while the submitter is still adding edges.
  std::atomic<int> pending{0};
  // References that keep the record from reuse: one until it is done, one
  // per device taking part in a spread task, one for a submitter that reads
  // its stats (parallel_for), one while a failure waits to be reported.
  std::atomic<int> refs{0};
  int placed_on = -1;  // the device its policy chose (told when it leaves that queue)
  int device = -1;     // single: where it was issued
  const KernelEntry* kernel = nullptr;
  TaskRecord* next = nullptr;  // inbox and free-list link
  SplitRun* split = nullptr;   // spread tasks

  // What to run: set by the submitting thread, read-only once released.
  Range range;
  std::vector<RunArg> args;
  std::exception_ptr error;  // why it failed

  // Dependencies (tracked tasks only).
  EventPtr event;                       // single: its completion once issued
  std::vector<EventWait> waits;         // predecessors issued but maybe not complete
  std::vector<TaskRecord*> successors;  // released when it is issued (single) or done (split)
  std::vector<TaskRef> consumers;       // successors released before it completed

  std::vector<char> excluded;  // devices it must not run on (out of memory there); rare

  TaskRef ref() { return {this, generation.load(std::memory_order_relaxed)}; }
  bool finished() const {
    const TaskState s = state.load(std::memory_order_acquire);
    return s == TaskState::done || s == TaskState::failed;
  }
};

}  // namespace baton::detail
