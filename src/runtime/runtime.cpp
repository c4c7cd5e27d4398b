#include "baton/runtime.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>

#include "baton/error.hpp"
#include "common/human_bytes.hpp"
#include "device/host_memory.hpp"
#include "memory/coherence.hpp"
#include "sched/policy.hpp"
#include "submit/engine.hpp"

namespace baton {

namespace detail {

void* buffer_host(BufferState& s, bool for_write) {
  return s.host_access(for_write);
}

}  // namespace detail

Runtime::Runtime(Options options) : Runtime(open_devices(options.devices, options), options) {}

Runtime::Runtime(DeviceSet devices, Options options)
    : options_(std::move(options)), set_(std::move(devices)) {
  if (set_.devices.empty()) raise(Errc::invalid_argument, "runtime", "no devices");
  if (!set_.host_memory) set_.host_memory = detail::pageable_host_memory();
  if (!options_.topology_file.empty()) {
    Topology file = Topology::load(options_.topology_file);
    for (const auto& n : file.nodes()) set_.topology.add_node(n);
    for (const auto& l : file.links()) set_.topology.add_link(l);
  }
  engine_ = std::make_unique<detail::Engine>(set_, options_, detail::policies(), this);
  default_policy_ = engine_->policy_index(options_.policy);
  for (const auto& d : set_.devices) {
    const DeviceInfo& info = d->info();
    const bool host_bound =
        info.memory_node == kHostNode || info.memory_bytes == 0 || info.maps_host_memory;
    if (host_bound) {
      largest_device_memory_ = 0;
      break;
    }
    largest_device_memory_ = std::max(largest_device_memory_, info.memory_bytes);
  }
}

Runtime::~Runtime() {
  try {
    engine_->wait_all();
  } catch (const Error&) {  // a failure nobody waited for: nothing left to report it to
  }
  for (auto& weak : buffers_)
    if (auto b = weak.lock()) b->detach_devices();
  engine_.reset();
}

Clock& Runtime::clock() {
  return engine_->clock();
}

std::shared_ptr<detail::BufferState> Runtime::make_buffer(std::size_t n, std::size_t element_size) {
  if (element_size && n > SIZE_MAX / element_size)
    raise(Errc::invalid_argument, "buffer",
          std::to_string(n) + " elements of " + std::to_string(element_size) +
              " bytes overflow the address space");
  return keep(std::make_shared<detail::BufferState>(n * element_size, this, engine_.get(),
                                                    set_.host_memory));
}

std::shared_ptr<detail::BufferState> Runtime::make_per_device(std::size_t n,
                                                              std::size_t element_size) {
  if (element_size && n > SIZE_MAX / element_size)
    raise(Errc::invalid_argument, "per-device buffer",
          std::to_string(n) + " elements of " + std::to_string(element_size) +
              " bytes overflow the address space");
  return keep(std::make_shared<detail::BufferState>(detail::BufferState::PerDeviceTag{},
                                                    n * element_size, this, engine_.get()));
}

void Runtime::read_instance(detail::BufferState& state, int device, void* out) {
  if (state.owner() != this)
    raise(Errc::invalid_argument, "read", "a buffer made by another Runtime was passed");
  if (device < 0 || device >= int(set_.devices.size()))
    raise(Errc::invalid_argument, "read",
          "device " + std::to_string(device) + " of " + std::to_string(set_.devices.size()));
  state.read_instance(*set_.devices[device], device, out);
}

std::shared_ptr<detail::BufferState> Runtime::wrap_memory(void* p, std::size_t n,
                                                          std::size_t element_size) {
  if (!p && n > 0) raise(Errc::invalid_argument, "buffer", "wrapped memory is null");
  return keep(std::make_shared<detail::BufferState>(p, n * element_size, this, engine_.get(),
                                                    set_.host_memory));
}

std::shared_ptr<detail::BufferState> Runtime::keep(std::shared_ptr<detail::BufferState> state) {
  if (buffers_.size() >= 64 && buffers_.size() == buffers_.capacity())
    std::erase_if(buffers_, [](const auto& w) { return w.expired(); });
  buffers_.push_back(state);
  engine_->track(state);
  return state;
}

Runtime::Packed Runtime::packer() {
  thread_local std::vector<detail::RunArg> scratch;
  scratch.clear();
  Packed p;
  p.args = &scratch;
  return p;
}

void Runtime::pack_buffer(Packed& p, BufferArg b) {
  detail::RunArg a;
  a.is_buffer = true;
  a.buffer = std::move(b);
  p.args->push_back(std::move(a));
}

void Runtime::pack_scalar(Packed& p, const void* value, std::size_t n) {
  detail::RunArg a;
  a.scalar = scalar_bytes(value, n);
  p.args->push_back(std::move(a));
}

bool Runtime::failed(int d) const {
  if (d < 0 || d >= int(set_.devices.size()))
    raise(Errc::invalid_argument, "runtime", "no device " + std::to_string(d));
  return !engine_->alive(d);
}

std::string Runtime::failure(int d) const {
  return failed(d) ? engine_->failure(d) : std::string();
}

void Runtime::check_fits(const Kernel& kernel, const Packed& p) const {
  // On every submit to bounded devices: a sum first, buffers named twice counted
  // twice; only a sum too large is looked at again.
  std::uint64_t bytes = 0;
  for (const auto& a : *p.args)
    if (a.is_buffer && a.buffer.state) bytes += a.buffer.state->bytes();
  if (bytes <= largest_device_memory_) return;
  bytes = 0;
  std::vector<const detail::BufferState*> seen;
  for (const auto& a : *p.args) {
    const detail::BufferState* s = a.is_buffer ? a.buffer.state.get() : nullptr;
    if (!s || std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
    seen.push_back(s);
    bytes += s->bytes();
  }
  if (bytes <= largest_device_memory_) return;
  const Device* largest = nullptr;
  for (const auto& d : set_.devices)
    if (!largest || d->info().memory_bytes > largest->info().memory_bytes) largest = d.get();
  raise(Errc::out_of_memory, kernel.name(),
        "its buffers take " + detail::human_bytes(bytes) +
            ", more than any device's memory (the most: " + largest->name() + ", " +
            detail::human_bytes(largest->info().memory_bytes) + ")");
}

Task Runtime::submit_packed(Range range, const Kernel& kernel, Packed& p, bool keep) {
  if (largest_device_memory_) check_fits(kernel, p);
  detail::Engine::Request r;
  r.kind = p.split ? detail::TaskKind::split : detail::TaskKind::single;
  r.range = range;
  r.kernel = &kernel;
  r.args = p.args;
  r.policy = p.policy ? engine_->policy_index(*p.policy) : default_policy_;
  r.pinned = p.on;
  r.keep = keep;
  if (p.on < -1) raise(Errc::invalid_argument, kernel.name(), "baton::on() takes a device index");
  return engine_->submit(std::move(r));
}

void Runtime::wait(Task task) {
  engine_->wait(task);
}

RunStats Runtime::wait_all() {
  return engine_->wait_all();
}

Runtime::PendingRun Runtime::start_packed(Range range, const Kernel& kernel, Packed& p) {
  PendingRun run;
  for (const auto& a : *p.args)
    if (a.is_buffer && a.buffer.state) run.buffers.push_back(a.buffer.state);
  run.kernel = &kernel;
  run.range = range;
  run.pinned = p.on;
  run.task = submit_packed(range, kernel, p, true);
  return run;
}

RunStats Runtime::wait(PendingRun run) {
  const Kernel& kernel = *run.kernel;
  const Range range = run.range;
  const int pinned = run.pinned;
  const Task task = run.task;
  try {
    engine_->wait(task);
  } catch (...) {
    engine_->release(task);
    throw;
  }
  RunStats stats = engine_->spread_stats(task);
  engine_->release(task);
  for (auto& b : run.buffers) {
    b->settle();
    stats.managed_memory = stats.managed_memory || b->any_managed();
  }
  // The oracle: items over the sum of the devices' calibrated rates (shared
  // resources counted once: Calibration), or the rates each showed in this
  // run where none were measured; no less than the calibrated waves allow.
  const std::vector<double>* known = engine_->known_rates(kernel, pinned);
  thread_local std::vector<double> rates;
  rates.assign(set_.devices.size(), 0.0);
  for (std::size_t d = 0; d < set_.devices.size(); ++d) {
    if (!kernel.runs_on(set_.devices[d]->info().backend)) continue;
    if (pinned >= 0 && int(d) != pinned) continue;
    const DeviceStats& s = stats.devices[d];
    if (known)
      rates[d] = (*known)[d];
    else if (s.busy_s > 0)
      rates[d] = double(s.items) / s.busy_s;
  }
  const double total_rate = std::accumulate(rates.begin(), rates.end(), 0.0);
  stats.oracle_s = total_rate > 0 ? double(range.n) / total_rate : 0;
  if (known) stats.waves_bound_s = engine_->least_time_in_waves(kernel, range.n, rates);
  stats.oracle_s = std::max(stats.oracle_s, stats.waves_bound_s);
  stats.efficiency = stats.makespan_s > 0 ? stats.oracle_s / stats.makespan_s : 0;
  return stats;
}

void Runtime::set_standalone_rates(const Kernel& kernel, std::vector<double> rates) {
  std::vector<char> left_out(rates.size());
  for (std::size_t d = 0; d < rates.size(); ++d) left_out[d] = !(rates[d] > 0);
  engine_->set_rates(kernel, rates, left_out);
}

void Runtime::start_trace() {
  engine_->trace_log().start();
}

void Runtime::trace_span(const std::string& name, double begin_s, double end_s) {
  detail::TraceSpan s;
  s.name = name;
  s.begin_s = begin_s;
  s.end_s = end_s;
  engine_->trace_log().add_host(std::move(s));
}

void Runtime::trace_counter(const std::string& name, double time_s, double value) {
  engine_->trace_log().add_counter({name, time_s, value});
}

void Runtime::write_trace(const std::string& path) {
  wait_all();
  const std::string json = engine_->trace_log().finish(clock().is_virtual());
  std::ofstream out(path);
  out << json << "\n";
  if (!out) raise(Errc::invalid_argument, "trace", "cannot write '" + path + "'");
}

}  // namespace baton
