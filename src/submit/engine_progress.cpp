// Progress: an issued task's event handed to the tasks that follow it, a
// finished one's successors released, a failed one's error passed down.
#include <vector>

#include "submit/engine.hpp"

namespace baton::detail {

void Engine::release(std::vector<TaskRecord*>& successors, Worker* from) {
  for (TaskRecord* s : successors)
    if (s->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(s, from);
}

void Engine::issued(TaskRecord* t, const EventPtr& done, int device, LaneId lane, Worker& from) {
  if (!t->tracked) {  // nothing can follow it: no edges to guard, no event to keep
    t->state.store(TaskState::issued, std::memory_order_release);
    return;
  }
  std::vector<TaskRecord*> successors;
  {
    std::lock_guard lock(t->lock);
    t->event = done;
    t->device = device;
    t->lane = lane;
    t->state.store(TaskState::issued, std::memory_order_release);
    successors.swap(t->successors);
    for (TaskRecord* s : successors) t->consumers.push_back(s->ref());
  }
  for (TaskRecord* s : successors) {
    std::lock_guard lock(s->lock);
    s->waits.push_back({done, device, lane});
  }
  release(successors, &from);
  // The record keeps the capacity for its next task: no allocation per task.
  // Nothing else touches an issued task's successors.
  successors.clear();
  t->successors.swap(successors);
}

void Engine::finished(TaskRecord* t, Worker& by, double seconds) {
  if (t->upstream_failed) {  // it read the results of a task lost with its device
    fail(t, t->error, &by);
    return;
  }
  if (learns(t)) {
    thread_local std::vector<double> transfer;
    policy(t).finished(by.index(), shape(t, weights_of(t), transfer, false), seconds);
  }
  if (t->tracked) {
    std::lock_guard lock(t->lock);
    t->state.store(TaskState::done, std::memory_order_release);
    t->consumers.clear();
  } else {
    t->state.store(TaskState::done, std::memory_order_release);
  }
  if (t->host_waits.load(std::memory_order_seq_cst)) notify_hosts();
  count_done(&by);
  drop_ref(t, &by);
}

void Engine::count_done(Worker* by) {
  if (by)
    by->count_finished();
  else
    published(1);
}

void Engine::published(std::uint64_t tasks) {
  if (tasks == 0) return;
  const std::uint64_t now = completed_.fetch_add(tasks, std::memory_order_seq_cst) + tasks;
  if (now >= wait_all_target_.load(std::memory_order_seq_cst)) notify_hosts();
}

void Engine::fail(TaskRecord* t, std::exception_ptr error, Worker* by) {
  // Iterative: a failure runs down chains of any length.
  std::vector<TaskRecord*> todo{t};
  std::vector<std::exception_ptr> why{error};
  while (!todo.empty()) {
    TaskRecord* f = todo.back();
    std::exception_ptr e = why.back();
    todo.pop_back(), why.pop_back();
    std::vector<TaskRecord*> successors;
    remember_failure(f);  // before anyone can see it failed: wait() looks for it there
    {
      std::lock_guard lock(f->lock);
      f->error = e;
      f->state.store(TaskState::failed, std::memory_order_release);
      successors.swap(f->successors);
    }
    if (f->split) {  // no device takes further chunks of it
      f->split->source->abort();
      std::lock_guard lock(runs_mu_);
      std::erase(active_spreads_, f);
    }
    if (f->host_waits.load(std::memory_order_seq_cst)) notify_hosts();
    count_done(by);
    for (TaskRecord* s : successors) {
      {
        std::lock_guard lock(s->lock);
        s->upstream_failed = true;
        if (!s->error) s->error = e;
      }
      if (s->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        todo.push_back(s);
        why.push_back(s->error);
      }
    }
    drop_ref(f, by);
  }
}

void Engine::remember_failure(TaskRecord* t) {
  t->refs.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(failed_mu_);
  failed_.push_back(t);
}

void Engine::drop_ref(TaskRecord* t, Worker* by) {
  if (t->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (SplitRun* run = t->split) {
    std::unique_ptr<ChunkSource> source = std::move(run->source);
    std::lock_guard lock(runs_mu_);
    policies_[run->policy].idle_sources.push_back(std::move(source));
    for (auto& r : idle_runs_)
      if (!r) r.reset(run), run = nullptr;
    if (run) idle_runs_.emplace_back(run);
  }
  if (by) {
    pool_.give(t, by->free_batch());
  } else {
    FreeBatch batch;
    pool_.give(t, batch);
    pool_.flush(batch);
  }
}

}  // namespace baton::detail
