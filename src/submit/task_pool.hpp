// Task records, allocated a slab at a time and reused: a task's record goes
// back to the pool when it is done and nothing refers to it, and its next
// task gets the next generation. Workers give records back in batches, so the
// submitting thread and the workers rarely touch the same free list.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "submit/task.hpp"

namespace baton::detail {

// Records a worker has given back, not yet returned to the pool.
struct FreeBatch {
  TaskRecord* head = nullptr;
  TaskRecord* tail = nullptr;
  int count = 0;
};

class TaskPool {
 public:
  TaskPool();
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // A clean record. Called under the engine's submit lock only.
  TaskRecord* take();
  // Moves `r` to its next generation and adds it to `batch`, which goes back
  // to the pool when full. Its buffers and events are let go when it is
  // taken again, or by scrub_returned().
  void give(TaskRecord* r, FreeBatch& batch);
  // Lets go of what records back in the pool still hold (buffers, events).
  // Under the engine's submit lock, like take().
  void scrub_returned();
  void flush(FreeBatch& batch);
  // The record at `index`, or null for an index never handed out.
  TaskRecord* at(std::uint32_t index) const;

 private:
  static void scrub(TaskRecord* r);
  static constexpr std::uint32_t kSlab = 1024, kMaxSlabs = 1 << 16;
  static constexpr int kBatch = 64;
  std::unique_ptr<std::atomic<TaskRecord*>[]> slabs_;
  std::uint32_t slab_count_ = 0;  // under the submit lock
  TaskRecord* local_ = nullptr;   // the submitter's free list, under the submit lock
  std::mutex mu_;
  TaskRecord* returned_ = nullptr;  // given back by workers, under mu_
};

}  // namespace baton::detail
