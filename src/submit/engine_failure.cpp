// When a device fails: its memory's data is saved or marked lost, the spread
// tasks it took part in are offered to the devices left, and the tasks it
// held are placed again. When none is left, everything fails with each
// device's cause.
#include <algorithm>

#include "baton/error.hpp"
#include "submit/engine.hpp"

namespace baton::detail {

void Engine::requeue(std::vector<TaskRecord*>& tasks) {
  if (tasks.empty()) return;
  // Placement may use the shared queue, whose owner is the submit lock's holder.
  std::lock_guard lock(submit_mu_);
  for (TaskRecord* t : tasks) {
    if (t->placed_on >= 0) {
      thread_local std::vector<double> transfer;
      policy(t).unplaced(t->placed_on, shape(t, weights_of(t), transfer, false));
      t->placed_on = -1;
    }
    make_ready(t, nullptr);
  }
  tasks.clear();
}

void Engine::exclude(TaskRecord* t, int d, const std::string& why) {
  if (!t->has_exclusions) t->excluded.assign(workers_.size(), 0);
  t->excluded[d] = 1;
  t->has_exclusions = true;
  t->placed_on = -1;
  for (int i = 0; i < int(workers_.size()); ++i)
    if (can_run(t, i)) {
      std::vector<TaskRecord*> again{t};
      requeue(again);
      return;
    }
  fail(t,
       std::make_exception_ptr(Error(Errc::out_of_memory, t->kernel->kernel.name(),
                                     "no device has memory for it (last: " + why + ")")),
       nullptr);
}

void Engine::lost_in_flight(TaskRecord* t, const std::string& cause) {
  std::vector<TaskRef> consumers;
  {
    std::lock_guard lock(t->lock);
    consumers.swap(t->consumers);
    t->event.reset();
    t->device = -1;
    t->state.store(TaskState::ready, std::memory_order_release);
  }
  // Tasks that already took its results as their input cannot be trusted.
  const auto error = std::make_exception_ptr(
      Error(Errc::device_failed, t->kernel->kernel.name(),
            "an input came from a task whose device failed before it completed: " + cause));
  for (const TaskRef& c : consumers) {
    std::lock_guard lock(c.record->lock);
    if (c.record->generation.load() != c.generation || c.record->finished()) continue;
    c.record->upstream_failed = true;
    if (!c.record->error) c.record->error = error;
  }
}

void Engine::device_failed(Worker& w, const std::string& cause, std::vector<TaskRecord*>& requeued,
                           std::vector<TaskRecord*>& left) {
  const std::string name = w.device().name();
  {
    std::lock_guard lock(causes_mu_);
    causes_.push_back(name + ": " + cause);
  }
  live_devices_.fetch_sub(1);
  weights_epoch_.fetch_add(1, std::memory_order_release);
  // Its memory: another device on the same node serves it, else what only it
  // holds is saved home where the device still answers. Its instances of
  // per-device buffers are its alone: they go with it.
  std::vector<std::shared_ptr<BufferState>> buffers;
  {
    std::lock_guard lock(buffers_mu_);
    for (auto& b : buffers_)
      if (auto s = b.lock()) buffers.push_back(std::move(s));
  }
  for (auto& b : buffers)
    if (DeviceInstances* local = b->instances())
      local->drop_device(w.device(), name + ": " + cause);
  const MemoryNode node = w.device().info().memory_node;
  if (node != kHostNode) {
    Device* heir = nullptr;
    for (auto& o : workers_)
      if (o->alive() && o->device().info().memory_node == node) heir = &o->device();
    for (auto& b : buffers) {
      if (b->instances()) continue;
      if (heir)
        b->rehome(node, *heir);
      else
        b->drop_node(node, "its only copy was on " + name + ", which failed: " + cause);
    }
  }
  // Spread tasks under way: the devices left that may run them take part;
  // devices left out of the kernel's work (KernelEntry) once no other does.
  {
    std::lock_guard lock(runs_mu_);
    for (TaskRecord* t : active_spreads_) {
      SplitRun& run = *t->split;
      std::lock_guard run_lock(run.mu);
      auto offer = [&](bool left_out_too) {
        bool taken = false;
        for (int d = 0; d < int(workers_.size()); ++d) {
          if (run.participating[d] == 0 && (left_out_too || run.plan.weights[d] > 0) &&
              can_run(t, d))
            announce(t, d);
          taken = taken || (d != w.index() && run.participating[d] == 1);
        }
        return taken;
      };
      if (!offer(false)) offer(true);
    }
  }
  requeue(requeued);
  for (TaskRecord* t : left) spread_leave(t, w);
  wake_all();
}

}  // namespace baton::detail
