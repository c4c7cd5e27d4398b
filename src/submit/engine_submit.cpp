// Submission: a task's arguments are checked, its edges to earlier tasks
// drawn, and once ready it goes to a device's queue or, spread, to every
// device that can run it.
#include <algorithm>

#include "baton/error.hpp"
#include "submit/engine.hpp"
#include "submit/launch.hpp"

namespace baton::detail {

Task Engine::submit(Request r) {
  std::lock_guard lock(submit_mu_);
  const KernelEntry& kernel = kernel_entry(*r.kernel);
  check_args(kernel.kernel, *r.args, r.range, r.kind == TaskKind::split, owner_);
  if (r.pinned >= int(workers_.size()))
    raise(Errc::invalid_argument, kernel.kernel.name(),
          "baton::on(" + std::to_string(r.pinned) + "): there are " +
              std::to_string(workers_.size()) + " devices");
  if (r.pinned >= 0 && !kernel.runs_on[r.pinned])
    raise(Errc::no_implementation, kernel.kernel.name(),
          "baton::on(" + std::to_string(r.pinned) + "): " + machine_.names[r.pinned] +
              " has no implementation of this kernel");
  if (std::none_of(kernel.runs_on.begin(), kernel.runs_on.end(), [](char c) { return c; }))
    raise(Errc::no_implementation, kernel.kernel.name(),
          "no device in the set can run this kernel");

  TaskRecord* t = pool_.take();
  t->kind = r.kind;
  t->range = r.range;
  t->kernel = &kernel;
  for (RunArg& a : *r.args) t->args.push_back(std::move(a));
  t->policy = r.policy;
  t->pinned = r.pinned;
  t->tracked =
      std::any_of(t->args.begin(), t->args.end(), [](const RunArg& a) { return a.is_buffer; });
  t->state.store(TaskState::pending, std::memory_order_relaxed);
  t->pending.store(1, std::memory_order_relaxed);  // held while edges are added
  t->refs.store(r.keep ? 2 : 1, std::memory_order_relaxed);
  if (epoch_start_ < 0) epoch_start_ = clock_.now();
  const TaskRef self = t->ref();
  submitted_.store(submitted_.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
  if (!t->tracked) {  // no buffer: nothing to follow
    make_ready(t, nullptr);
    return Task{self.record->index, self.generation};
  }
  accesses_of(t->args, {t->range.first, t->range.first + t->range.n}, t->pinned,
              int(workers_.size()), accesses_);
  follows_.clear();
  tracker_.add(self, accesses_, follows_);
  for (const TaskRef& pred : follows_) depend(t, pred);
  if (t->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(t, nullptr);
  return Task{self.record->index, self.generation};
}

// `t` (being submitted) must follow `pred`. Locks: pred's, then t's (no one takes
// a task's lock while holding its successor's).
void Engine::depend(TaskRecord* t, const TaskRef& pred) {
  TaskRecord* p = pred.record;
  std::lock_guard lock(p->lock);
  if (p->generation.load(std::memory_order_relaxed) != pred.generation) return;  // long done
  switch (p->state.load(std::memory_order_relaxed)) {
    case TaskState::done:
      return;
    case TaskState::failed: {
      std::lock_guard own(t->lock);  // an earlier predecessor's worker may write t too
      t->upstream_failed = true;
      if (!t->error) t->error = p->error;
      return;
    }
    case TaskState::issued: {
      // t's waits grow under t's lock: a worker issuing another of its
      // predecessors (already linked) appends to them at the same time.
      std::lock_guard own(t->lock);
      t->waits.push_back({p->event, p->device, p->lane});
      return;
    }
    default:
      p->successors.push_back(t);
      t->pending.fetch_add(1, std::memory_order_relaxed);
  }
}

bool Engine::can_run(const TaskRecord* t, int d) const {
  return t->kernel->runs_on[d] && workers_[d]->alive() && (!t->has_exclusions || !t->excluded[d]);
}

void Engine::fill_weights(const TaskRecord* t, std::vector<double>& weights) const {
  weights.resize(workers_.size());
  bool any = false;
  for (int pass = 0; pass < 2 && !any; ++pass)  // the second: only left-out devices can run it
    for (std::size_t d = 0; d < weights.size(); ++d) {
      const bool out = pass == 0 && int(d) != t->pinned &&
                       t->kernel->left_out[d].load(std::memory_order_relaxed);
      weights[d] =
          !out && can_run(t, int(d)) ? t->kernel->weights[d].load(std::memory_order_relaxed) : 0.0;
      any = any || weights[d] > 0;
    }
}

// Most tasks of a thread are of the kernel its last one was: their weights
// stay as they were until a device fails or rates change (the epoch moves).
const std::vector<double>& Engine::weights_of(const TaskRecord* t) const {
  // Keyed by serials, not addresses: a later engine or kernel entry may
  // live where an earlier one did.
  struct Cache {
    std::uint64_t engine = 0, kernel = 0, epoch = 0;
    std::vector<double> weights;
  };
  thread_local Cache cache, uncached;
  if (t->has_exclusions ||
      (t->pinned >= 0 && t->kernel->left_out[t->pinned].load(std::memory_order_relaxed))) {
    fill_weights(t, uncached.weights);
    return uncached.weights;
  }
  const std::uint64_t epoch = weights_epoch_.load(std::memory_order_acquire);
  const std::uint64_t kernel = t->kernel->kernel.id();
  if (cache.engine != serial_ || cache.kernel != kernel || cache.epoch != epoch) {
    fill_weights(t, cache.weights);
    cache.engine = serial_, cache.kernel = kernel, cache.epoch = epoch;
  }
  return cache.weights;
}

TaskShape Engine::shape(const TaskRecord* t, const std::vector<double>& weights,
                        std::vector<double>& transfer, bool with_transfers) const {
  TaskShape s;
  s.kernel_id = t->kernel->kernel.id();
  s.kernel_name = &t->kernel->kernel.name();
  s.items = t->range.n;
  s.weights = weights;
  transfer.clear();
  if (!with_transfers || !t->tracked) return s;
  // Only worth reading the buffers' state where devices sit on several memories.
  bool several = false;
  for (int d = 1; d < machine_.devices && !several; ++d)
    several = machine_.memory_node[d] != machine_.memory_node[0];
  if (!several) return s;
  transfer.assign(workers_.size(), 0.0);
  const Span items{t->range.first, t->range.first + t->range.n};
  for (const RunArg& a : t->args) {
    if (!a.is_buffer || a.buffer.mode == Access::out || a.buffer.state->instances()) continue;
    const Span r = byte_region(a.buffer, items);
    BufferState& b = *a.buffer.state;
    // Where the bytes are: host memory unless some device node holds more of them.
    int holder_dev = -1;
    std::uint64_t holder_bytes = b.valid_bytes(kHostNode, r.begin, r.end);
    for (int d = 0; d < machine_.devices; ++d) {
      if (machine_.memory_node[d] == kHostNode) continue;
      const std::uint64_t n = b.valid_bytes(machine_.memory_node[d], r.begin, r.end);
      if (n > holder_bytes) holder_dev = d, holder_bytes = n;
    }
    for (int d = 0; d < machine_.devices; ++d) {
      const std::uint64_t have = b.valid_bytes(machine_.memory_node[d], r.begin, r.end);
      const double missing = double(r.size() - std::min<std::uint64_t>(r.size(), have));
      if (missing <= 0) continue;
      const PathCost& path =
          holder_dev >= 0 ? machine_.paths[d][holder_dev] : machine_.host_path[d];
      transfer[d] += path.seconds(missing);
    }
  }
  s.transfer_s = transfer;
  return s;
}

bool Engine::fail_if_no_device(TaskRecord* t, const std::vector<double>& weights, Worker* from) {
  if (std::any_of(weights.begin(), weights.end(), [](double w) { return w > 0; })) return false;
  fail(t,
       std::make_exception_ptr(Error(Errc::device_failed, t->kernel->kernel.name(),
                                     "no live device can run this kernel" + causes())),
       from);
  return true;
}

void Engine::make_ready(TaskRecord* t, Worker* from) {
  if (t->upstream_failed) {
    fail(t, t->error, from);
    return;
  }
  t->state.store(TaskState::ready, std::memory_order_release);
  if (t->kind == TaskKind::split)
    start_split(t);
  else
    place_single(t, from);
}

// A task pinned to a device that works on that device's instance of a
// per-device buffer (baton::local) means that instance: run elsewhere it
// would take another device's and answer wrong, silently. It fails with its
// device instead, and what follows it fails too.
bool Engine::lost_with_its_device(TaskRecord* t, Worker* from) {
  if (t->pinned < 0 || workers_[t->pinned]->alive()) return false;
  const bool own_instance = std::any_of(t->args.begin(), t->args.end(), [](const RunArg& a) {
    return a.is_buffer && a.buffer.state->instances() && a.buffer.mode != Access::in;
  });
  if (!own_instance) return false;
  fail(t,
       std::make_exception_ptr(Error(Errc::device_failed, t->kernel->kernel.name(),
                                     machine_.names[t->pinned] +
                                         " failed, and with it its instance of a per-device "
                                         "buffer this task was pinned there to use")),
       from);
  return true;
}

void Engine::place_single(TaskRecord* t, Worker* from) {
  thread_local std::vector<double> transfer;
  SchedulingPolicy& pol = policy(t);
  int d = kAnyDevice;
  const std::vector<double>& weights = weights_of(t);
  if (lost_with_its_device(t, from) || fail_if_no_device(t, weights, from)) return;
  if (t->pinned >= 0 && weights[t->pinned] > 0) {
    d = t->pinned;
  } else {
    d = pol.place(shape(t, weights, transfer, pol.wants_transfer_costs()));
    t->placed_on = d;
    if (d >= 0 && !(weights[d] > 0)) d = kAnyDevice;
  }
  if (d == kAnyDevice) {
    // A worker keeps what it releases (the data is likely here); tasks from
    // the submitter go round the devices in proportion to their capability,
    // and idle devices steal to even out the rest.
    if (from && weights[from->index()] > 0) {
      from->push_local(t, stealable(t));
      return;
    }
    d = by_capability(weights);
  }
  if (from && from->index() == d) {
    from->push_local(t, stealable(t));
    return;
  }
  const bool others_may_take = stealable(t);  // read before: once posted, t may run and go
  workers_[d]->post(t);
  if (others_may_take && any_idle()) wake_one(d);
}

// The golden-ratio sequence over the cumulative weights: each device gets a
// share in proportion to its weight, spread evenly, with no state but a counter.
int Engine::by_capability(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += std::max(0.0, w);
  // n * golden ratio, modulo 1, in 64-bit fixed point.
  const std::uint64_t n = spread_counter_.fetch_add(1, std::memory_order_relaxed);
  const double at = double((n * 0x9e3779b97f4a7c15ull) >> 11) * 0x1p-53 * total;
  double acc = 0;
  int last = 0;
  for (std::size_t d = 0; d < weights.size(); ++d) {
    if (!(weights[d] > 0)) continue;
    acc += weights[d];
    last = int(d);
    if (at < acc) break;
  }
  return last;
}

void Engine::left_queue(TaskRecord* t, int d) {
  if (t->placed_on < 0 || !learns(t)) return;
  SchedulingPolicy& pol = policy(t);
  thread_local std::vector<double> transfer;
  pol.unplaced(t->placed_on, shape(t, weights_of(t), transfer, false));
  t->placed_on = -1;
  (void)d;
}

void Engine::wake_one(int except) {
  for (auto& w : workers_)
    if (w->index() != except && w->sleeping()) {
      w->wake();
      return;
    }
}

void Engine::wake_all() {
  for (auto& w : workers_) w->wake();
}

}  // namespace baton::detail
