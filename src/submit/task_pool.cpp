#include "submit/task_pool.hpp"

#include "baton/error.hpp"

namespace baton::detail {

TaskPool::TaskPool() : slabs_(new std::atomic<TaskRecord*>[kMaxSlabs]) {
  for (std::uint32_t i = 0; i < kMaxSlabs; ++i) slabs_[i].store(nullptr, std::memory_order_relaxed);
}

TaskPool::~TaskPool() {
  for (std::uint32_t i = 0; i < slab_count_; ++i) delete[] slabs_[i].load();
}

TaskRecord* TaskPool::take() {
  if (!local_) {
    std::lock_guard lock(mu_);
    local_ = returned_;
    returned_ = nullptr;
  }
  if (!local_) {
    if (slab_count_ == kMaxSlabs)
      raise(Errc::out_of_memory, "submit",
            "more than " + std::to_string(std::uint64_t(kSlab) * kMaxSlabs) +
                " tasks in flight: wait for some before submitting more");
    auto* slab = new TaskRecord[kSlab];
    for (std::uint32_t i = 0; i < kSlab; ++i) {
      slab[i].index = slab_count_ * kSlab + i;
      slab[i].next = i + 1 < kSlab ? &slab[i + 1] : nullptr;
    }
    slabs_[slab_count_].store(slab, std::memory_order_release);
    ++slab_count_;
    local_ = slab;
  }
  TaskRecord* r = local_;
  local_ = r->next;
  r->next = nullptr;
  scrub(r);
  return r;
}

void TaskPool::scrub(TaskRecord* r) {
  if (r->scrubbed) return;
  r->scrubbed = true;
  r->args.clear();
  r->error = nullptr;
  if (r->holds_edges) {
    r->waits.clear();
    r->event.reset();
    r->holds_edges = false;
  }
}

// Records given back go in front of both lists (flush, take), and a scrub
// reaches every record behind them: the first one already scrubbed ends the
// walk. Walking the whole pool on every wait cost a 16-item parallel_for
// about 15 us once the pool had grown.
void TaskPool::scrub_returned() {
  std::lock_guard lock(mu_);
  for (TaskRecord* r = returned_; r && !r->scrubbed; r = r->next) scrub(r);
  for (TaskRecord* r = local_; r && !r->scrubbed; r = r->next) scrub(r);
}

void TaskPool::give(TaskRecord* r, FreeBatch& batch) {
  {
    // First the generation, under the lock that dependency checks hold: from
    // here on they see a task long done, never one that looks pending again.
    std::lock_guard lock(r->lock);
    r->generation.fetch_add(1, std::memory_order_release);
  }
  // Its buffers and events are let go later, by the submitting thread that
  // took those references (scrub()): dropping them here would move their
  // reference counts' cache lines between threads on every task.
  if (r->tracked) {  // only tracked tasks have edges
    r->successors.clear();
    r->consumers.clear();
    r->holds_edges = true;
  }
  if (r->has_exclusions) {
    r->excluded.clear();
    r->has_exclusions = false;
  }
  r->upstream_failed = false;
  r->scrubbed = false;
  r->tracked = false;
  r->device = r->pinned = r->placed_on = -1;
  r->split = nullptr;
  r->host_waits.store(false, std::memory_order_relaxed);
  r->state.store(TaskState::pending, std::memory_order_relaxed);
  r->next = batch.head;
  batch.head = r;
  if (!batch.tail) batch.tail = r;
  if (++batch.count >= kBatch) flush(batch);
}

void TaskPool::flush(FreeBatch& batch) {
  if (!batch.head) return;
  std::lock_guard lock(mu_);
  batch.tail->next = returned_;
  returned_ = batch.head;
  batch = FreeBatch{};
}

TaskRecord* TaskPool::at(std::uint32_t index) const {
  const std::uint32_t slab = index / kSlab;
  if (slab >= kMaxSlabs) return nullptr;
  TaskRecord* s = slabs_[slab].load(std::memory_order_acquire);
  return s ? &s[index % kSlab] : nullptr;
}

}  // namespace baton::detail
