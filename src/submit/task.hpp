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

// An event a task must follow, and the device whose compute queue recorded it
// (a task on that same device follows it by queue order alone).
struct EventWait {
  EventPtr event;
  int device = -1;
};

struct TaskRecord {
  std::atomic<std::uint32_t> generation{1};
  std::uint32_t index = 0;  // in the pool

  // What to run: set by the submitting thread, read-only once released.
  TaskKind kind = TaskKind::single;
  Range range;
  const KernelEntry* kernel = nullptr;
  std::vector<RunArg> args;
  int policy = 0;
  int pinned = -1;  // baton::on(d)
  // It touches buffers, so later tasks may depend on it: only then does it
  // need its edges guarded and its event kept.
  bool tracked = false;

  // Dependencies. `pending` counts predecessors not yet issued (not yet done,
  // for spread ones), plus one while the submitter is still adding edges.
  std::atomic<int> pending{0};
  SpinLock lock;  // guards successors, waits, event, device and state changes
  std::atomic<TaskState> state{TaskState::pending};
  std::vector<TaskRecord*> successors;  // released when it is issued (single) or done (split)
  std::vector<EventWait> waits;         // predecessors issued but maybe not complete
  std::vector<TaskRef> consumers;       // successors released before it completed
  bool upstream_failed = false;         // a predecessor failed: it will not run
  std::exception_ptr error;             // why it failed
  EventPtr event;                       // single: its completion once issued
  int device = -1;                      // single: where it was issued

  // References that keep the record from reuse: one until it is done, one
  // per device taking part in a spread task, one for a submitter that reads
  // its stats (parallel_for), one while a failure waits to be reported.
  std::atomic<int> refs{0};
  std::atomic<bool> host_waits{false};  // a host thread waits for this very task

  int placed_on = -1;          // the device its policy chose (told when it leaves that queue)
  std::vector<char> excluded;  // devices it must not run on (out of memory there); rare
  SplitRun* split = nullptr;   // spread tasks
  TaskRecord* next = nullptr;  // inbox and free-list link

  TaskRef ref() { return {this, generation.load(std::memory_order_relaxed)}; }
  bool finished() const {
    const TaskState s = state.load(std::memory_order_acquire);
    return s == TaskState::done || s == TaskState::failed;
  }
};

}  // namespace baton::detail
