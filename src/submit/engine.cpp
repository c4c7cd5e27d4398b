#include "submit/engine.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "baton/error.hpp"
#include "submit/fault.hpp"
#include "submit/launch.hpp"

namespace baton::detail {

namespace {

MachineView machine_of(const DeviceSet& set, const Options& options) {
  MachineView m;
  m.devices = int(set.devices.size());
  m.options = options;
  for (const auto& d : set.devices) {
    const DeviceInfo& i = d->info();
    m.peak.push_back(i.peak_gflops);
    m.memory_node.push_back(i.memory_node);
    m.names.push_back(i.name);
    m.parallel_items.push_back(std::max<std::uint64_t>(1, i.parallel_items));
    m.wave_step.push_back(std::clamp<std::uint64_t>(i.wave_step, 1, m.parallel_items.back()));
    m.identity.push_back(i.name + " | " + i.description);
  }
  // Paths once, for the Runtime's life: no search per run.
  m.paths.assign(m.devices, std::vector<PathCost>(m.devices));
  m.host_path.assign(m.devices, PathCost{});
  for (int i = 0; i < m.devices; ++i) {
    const DeviceInfo& a = set.devices[i]->info();
    if (a.memory_node == kHostNode) continue;
    if (auto p = set.topology.path(a.topology_id, "host")) m.host_path[i] = *p;
  }
  for (int i = 0; i < m.devices; ++i)
    for (int j = 0; j < m.devices; ++j) {
      const DeviceInfo &a = set.devices[i]->info(), &b = set.devices[j]->info();
      if (a.memory_node == b.memory_node) continue;  // same memory: nothing moves
      if (auto p = set.topology.path(a.topology_id, b.topology_id)) m.paths[i][j] = *p;
    }
  return m;
}

}  // namespace

Engine::Engine(DeviceSet& devices, const Options& options, const std::vector<PolicyEntry>& policies,
               const void* owner)
    : set_(devices),
      options_(options),
      owner_(owner),
      clock_(devices.devices.at(0)->clock()),
      machine_(machine_of(devices, options)),
      trace_(machine_.names) {
  static std::atomic<std::uint64_t> engines{0};
  serial_ = engines.fetch_add(1) + 1;
  for (const auto& d : set_.devices)
    if (&d->clock() != &clock_)
      raise(Errc::invalid_argument, d->name(),
            "its clock is not the other devices' (sim devices run on virtual time: do not mix "
            "them with real ones)");
  for (const PolicyEntry& p : policies) {
    PolicySlot slot;
    slot.name = p.name;
    slot.entry = &p;
    policies_.push_back(std::move(slot));
  }
  const std::vector<long long> faults = parse_faults(options_.fault, machine_.names);
  for (int d = 0; d < machine_.devices; ++d) {
    std::vector<unsigned> cpus =
        d < int(set_.affinity.size()) ? set_.affinity[d] : std::vector<unsigned>{};
    workers_.push_back(
        std::make_unique<Worker>(*this, d, *set_.devices[d], std::move(cpus), faults[d]));
  }
  last_totals_.resize(workers_.size());
  last_reruns_.resize(workers_.size());
  live_devices_.store(machine_.devices);
  policy_index(options_.policy);  // a bad default fails here, naming the known ones
  for (auto& w : workers_) w->start();
}

Engine::~Engine() {
  try {
    wait_until([&] { return completed_.load() >= submitted_.load(); }, nullptr);
  } catch (...) {  // nothing to report to anyone any more
  }
  clock_.host_leaving();
  for (auto& w : workers_) w->stop();
  std::lock_guard lock(failed_mu_);
  failed_.clear();
}

int Engine::policy_index(const std::string& name) {
  for (std::size_t i = 0; i < policies_.size(); ++i) {
    PolicySlot& slot = policies_[i];
    if (slot.name != name) continue;
    if (!slot.instance) {
      std::lock_guard lock(runs_mu_);
      if (!slot.instance) {
        slot.instance = slot.entry->make(machine_);
        slot.steals = slot.instance->steals();
        slot.learns = slot.instance->learns();
        if (slot.steals) any_stealing_.store(true);
      }
    }
    return int(i);
  }
  std::string known;
  for (const auto& p : policies_) known += (known.empty() ? "" : ", ") + p.name;
  raise(Errc::invalid_argument, "policy", "unknown policy '" + name + "' (known: " + known + ")");
}

const std::vector<int>* Engine::victim_order(int d) const {
  for (const PolicySlot& p : policies_)
    if (p.name == options_.policy && p.instance) return p.instance->victim_order(d);
  return nullptr;
}

const KernelEntry& Engine::kernel_entry(const Kernel& k) {
  if (last_kernel_ && last_kernel_->kernel.id() == k.id()) return *last_kernel_;
  auto& slot = kernels_[k.id()];
  if (!slot) {
    slot = std::make_unique<KernelEntry>(
        KernelEntry{k, {}, {}, {}, {}, nullptr, nullptr, nullptr, false});
    slot->weights = std::make_unique<std::atomic<double>[]>(workers_.size());
    slot->left_out = std::make_unique<std::atomic<bool>[]>(workers_.size());
    slot->busy_items = std::make_unique<std::atomic<double>[]>(workers_.size());
    for (std::size_t d = 0; d < workers_.size(); ++d) {
      slot->left_out[d].store(false);
      slot->busy_items[d].store(0.0);
      const bool runs = k.runs_on(set_.devices[d]->info().backend);
      slot->runs_on.push_back(runs);
      const BackendKind code = set_.devices[d]->info().code_backend();
      slot->parallel_items.push_back(k.item_per_thread(code) ? machine_.parallel_items[d] : 1);
      slot->wave_step.push_back(k.item_per_thread(code) ? machine_.wave_step[d] : 1);
      slot->pass_items.push_back(k.pass_items(code));
      slot->weights[d].store(runs ? std::max(machine_.peak[d], 1e-9) : 0.0);
    }
  }
  last_kernel_ = slot.get();
  return *slot;
}

void Engine::set_rates(const Kernel& kernel, const std::vector<double>& rates,
                       const std::vector<char>& left_out) {
  if (rates.size() != workers_.size() || (!left_out.empty() && left_out.size() != rates.size()))
    raise(Errc::invalid_argument, kernel.name(), "need one rate per device");
  std::lock_guard lock(submit_mu_);
  auto& e = const_cast<KernelEntry&>(kernel_entry(kernel));
  for (std::size_t d = 0; d < rates.size(); ++d) {
    e.weights[d].store(e.runs_on[d] ? std::max(rates[d], 1e-9) : 0.0);
    e.left_out[d].store(!left_out.empty() && left_out[d]);
  }
  e.calibrated = true;
  weights_epoch_.fetch_add(1, std::memory_order_release);
}

void Engine::set_busy_items(const Kernel& kernel, const std::vector<double>& items) {
  if (items.size() != workers_.size())
    raise(Errc::invalid_argument, kernel.name(), "need one figure per device");
  std::lock_guard lock(submit_mu_);
  const KernelEntry& e = kernel_entry(kernel);
  for (std::size_t d = 0; d < items.size(); ++d) e.busy_items[d].store(std::max(0.0, items[d]));
}

const std::vector<double>* Engine::known_rates(const Kernel& kernel, int pinned) {
  thread_local std::vector<double> rates;
  std::lock_guard lock(submit_mu_);
  const KernelEntry& e = kernel_entry(kernel);
  if (!e.calibrated) return nullptr;
  rates.assign(workers_.size(), 0.0);
  for (std::size_t d = 0; d < rates.size(); ++d)
    rates[d] = e.runs_on[d] && (!e.left_out[d] || int(d) == pinned) ? e.weights[d].load() : 0;
  return &rates;
}

void Engine::track(const std::shared_ptr<BufferState>& buffer) {
  std::lock_guard lock(buffers_mu_);
  if (buffers_.size() >= 64 && buffers_.size() == buffers_.capacity())
    std::erase_if(buffers_, [](const auto& w) { return w.expired(); });
  buffers_.push_back(buffer);
}

// ---- submission ----

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

// ---- progress ----

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

// ---- waiting ----

void Engine::notify_hosts() {
  std::lock_guard lock(hosts_mu_);
  for (Parker* p : hosts_) p->unpark();
}

template <class Done>
void Engine::wait_until(Done done, TaskRecord* task) {
  if (done()) return;
  if (!clock_.is_virtual()) {  // a short task is over before a sleep would begin
    // Yielding: the devices' workers may share this thread's cores.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return;
      std::this_thread::yield();
    }
  }
  std::unique_ptr<Parker> parker = clock_.make_parker(false);
  if (task) task->host_waits.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard lock(hosts_mu_);
    hosts_.push_back(parker.get());
  }
  while (!done()) parker->park();
  std::lock_guard lock(hosts_mu_);
  std::erase(hosts_, parker.get());
}

void Engine::wait(Task task) {
  TaskRecord* t = pool_.at(task.index);
  if (!t || task.generation == 0)
    raise(Errc::invalid_argument, "wait", "not a task of this Runtime");
  auto over = [&] {
    return t->generation.load(std::memory_order_acquire) != task.generation || t->finished();
  };
  wait_until(over, t);
  // A failed task keeps its record until its error is raised, here or by wait_all().
  std::exception_ptr error;
  {
    std::lock_guard lock(failed_mu_);
    auto it = std::find(failed_.begin(), failed_.end(), t);
    if (it == failed_.end() || t->generation.load() != task.generation) {
      let_go_when_idle();
      return;
    }
    error = t->error;
    failed_.erase(it);
  }
  drop_ref(t, nullptr);
  std::rethrow_exception(error);
}

// Finished tasks' records keep their buffers until they are taken again
// (TaskPool::give). With no work left they let go now, so that buffers the
// caller dropped free their memory: an H100 sweep of cases, each run waited
// for on its own, once ran out of device memory at its tenth case.
void Engine::let_go_when_idle() {
  if (completed_.load(std::memory_order_seq_cst) < submitted_.load(std::memory_order_seq_cst))
    return;
  std::lock_guard lock(submit_mu_);
  pool_.scrub_returned();
}

RunStats Engine::stats_since(std::vector<DeviceStats>& last) {
  RunStats s;
  double last_done = 0;
  for (std::size_t d = 0; d < workers_.size(); ++d) {
    WorkerCounters& c = workers_[d]->counters();
    DeviceStats now;
    now.name = machine_.names[d];
    now.tasks = c.tasks.load();
    now.chunks = c.chunks.load();
    now.items = c.items.load();
    now.steals = c.steals.load();
    now.bytes_in = c.bytes_in.load();
    now.bytes_out = c.bytes_out.load();
    now.busy_s = c.busy_s.load();
    DeviceStats diff = now;
    diff.tasks -= last[d].tasks;
    diff.chunks -= last[d].chunks;
    diff.items -= last[d].items;
    diff.steals -= last[d].steals;
    diff.bytes_in -= last[d].bytes_in;
    diff.bytes_out -= last[d].bytes_out;
    diff.busy_s -= last[d].busy_s;
    diff.failed = !workers_[d]->alive();
    if (diff.failed) diff.failure = workers_[d]->failure();
    last[d] = now;
    const std::uint64_t reruns = c.reruns.load();
    s.reruns += reruns - last_reruns_[d];
    last_reruns_[d] = reruns;
    s.tasks += diff.tasks;
    s.items += diff.items;
    last_done = std::max(last_done, c.last_done_s.load());
    s.devices.push_back(std::move(diff));
  }
  s.start_s = epoch_start_ < 0 ? clock_.now() : epoch_start_;
  s.makespan_s = std::max(0.0, last_done - s.start_s);
  s.simulated = clock_.is_virtual();
  s.policy = options_.policy;
  return s;
}

RunStats Engine::wait_all() {
  const std::uint64_t target = submitted_.load(std::memory_order_seq_cst);
  std::uint64_t seen = wait_all_target_.load();
  while (target < seen && !wait_all_target_.compare_exchange_weak(seen, target)) {
  }
  wait_until([&] { return completed_.load(std::memory_order_seq_cst) >= target; }, nullptr);
  wait_all_target_.store(~std::uint64_t{0});
  std::vector<TaskRecord*> failed;
  {
    std::lock_guard lock(failed_mu_);
    failed.swap(failed_);
  }
  RunStats stats;
  {
    std::lock_guard lock(submit_mu_);
    stats = stats_since(last_totals_);
    epoch_start_ = -1;
    tracker_.prune();
    pool_.scrub_returned();  // buffers of finished tasks may go now
  }
  std::exception_ptr first;
  for (TaskRecord* t : failed) {
    if (!first) first = t->error;
    drop_ref(t, nullptr);
  }
  if (first) std::rethrow_exception(first);
  return stats;
}

void Engine::before_host_access(BufferState& buffer, std::uint64_t b, std::uint64_t e,
                                bool for_write) {
  std::vector<TaskRef> users;
  {
    std::lock_guard lock(submit_mu_);
    tracker_.users(&buffer, b, e, for_write, users);
  }
  for (const TaskRef& u : users) {
    TaskRecord* t = u.record;
    wait_until(
        [&] {
          return t->generation.load(std::memory_order_acquire) != u.generation || t->finished();
        },
        t);
  }
}

std::string Engine::causes() const {
  std::lock_guard lock(causes_mu_);
  std::string s;
  for (const auto& c : causes_) s += (s.empty() ? " (" : "; ") + c;
  return s.empty() ? s : s + ")";
}

}  // namespace baton::detail
