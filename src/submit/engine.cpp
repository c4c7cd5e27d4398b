#include "submit/engine.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "baton/error.hpp"
#include "common/wave_cost.hpp"
#include "submit/fault.hpp"

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
  traits_.resize(policies_.size());
  trace_log_ = &trace_;
  write_back_ = options_.write_back;
  const std::vector<long long> faults = parse_faults(options_.fault, machine_.names);
  for (int d = 0; d < machine_.devices; ++d) {
    std::vector<unsigned> cpus =
        d < int(set_.affinity.size()) ? set_.affinity[d] : std::vector<unsigned>{};
    workers_.push_back(
        std::make_unique<Worker>(*this, d, *set_.devices[d], std::move(cpus), faults[d]));
    peers_.push_back(workers_.back().get());
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
        traits_[i] = {slot.instance->steals(), slot.instance->learns()};
        if (traits_[i].steals) any_stealing_.store(true);
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
    slot.reset(new KernelEntry{k, {}, {}, {}, {}, nullptr, nullptr, nullptr, {}, false});
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
  e.calibrated.store(true);
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
  if (!e.calibrated.load()) return nullptr;
  rates.assign(workers_.size(), 0.0);
  for (std::size_t d = 0; d < rates.size(); ++d)
    rates[d] = e.runs_on[d] && (!e.left_out[d] || int(d) == pinned) ? e.weights[d].load() : 0;
  return &rates;
}

std::uint64_t Engine::runs_at_once(const Kernel& kernel, int d) {
  std::lock_guard lock(submit_mu_);
  return kernel_entry(kernel).parallel_items.at(std::size_t(d));
}

void Engine::set_timed_runs(const Kernel& kernel, TimedRuns runs) {
  for (const auto* v : {&runs.items, &runs.least_items, &runs.least_s})
    if (v->size() != workers_.size())
      raise(Errc::invalid_argument, kernel.name(), "need one figure per device");
  std::lock_guard lock(submit_mu_);
  const_cast<KernelEntry&>(kernel_entry(kernel)).timed = std::move(runs);
}

double Engine::least_time_in_waves(const Kernel& kernel, std::uint64_t items,
                                   const std::vector<double>& rates) {
  std::lock_guard lock(submit_mu_);
  const KernelEntry& e = kernel_entry(kernel);
  const TimedRuns& timed = e.timed;
  if (timed.least_s.size() != workers_.size()) return 0;
  // One of the D devices runs at least items / D; where that is no fewer
  // than every device's least run had, it takes no less than the least of
  // those runs' times.
  double floor = std::numeric_limits<double>::infinity(), most_least = 0;
  int devices = 0;
  for (std::size_t d = 0; d < rates.size() && d < workers_.size(); ++d)
    if (rates[d] > 0) {
      ++devices;
      floor = std::min(floor, timed.least_s[d]);
      most_least = std::max(most_least, timed.least_items[d]);
    }
  if (devices == 0 || double(items) < most_least * devices || !(floor > 0)) floor = 0;
  thread_local std::vector<Waves> waves;
  waves.clear();
  bool any = false;
  for (std::size_t d = 0; d < rates.size() && d < workers_.size(); ++d) {
    if (!(rates[d] > 0)) continue;
    const double at_once = double(e.parallel_items[d]);
    if (!(at_once > 1)) {
      waves.push_back({1, 1, 1, rates[d]});
      continue;
    }
    const double least = timed.least_s[d];
    const Waves shape{at_once, double(e.wave_step[d]), 0, 0};
    const double rate = whole_wave_rate(shape, least, timed.items[d], rates[d]);
    if (!(rate > 0)) return floor;  // timed on too few items to tell
    waves.push_back({at_once, shape.step, least * rate, rate});
    any = true;
  }
  return std::max(floor, any ? detail::least_time_in_waves(items, waves) : 0.0);
}

void Engine::track(const std::shared_ptr<BufferState>& buffer) {
  std::lock_guard lock(buffers_mu_);
  if (buffers_.size() >= 64 && buffers_.size() == buffers_.capacity())
    std::erase_if(buffers_, [](const auto& w) { return w.expired(); });
  buffers_.push_back(buffer);
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
