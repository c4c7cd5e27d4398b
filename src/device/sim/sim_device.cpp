#include "device/sim/sim_device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <sys/mman.h>

#include "baton/error.hpp"
#include "baton/sim.hpp"
#include "baton/topology.hpp"
#include "common/human_bytes.hpp"
#include "common/wave_cost.hpp"
#include "device/backend.hpp"
#include "device/copy_range.hpp"
#include "device/host_memory.hpp"

namespace baton::detail {

// Commands run at once on host memory; each occupies its queue for its
// virtual duration, from when the queue is free (and not before now). Each
// role has a queue of its own, as a GPU's copy engines work beside its SMs:
// a copy in overlaps the kernel before it.
class SimDevice::SimQueue final : public Queue {
 public:
  explicit SimQueue(SimDevice& dev) : dev_(dev) {}
  void write(DeviceMemory dst, std::size_t off, const void* host, std::size_t bytes,
             HostKind) override {
    check_copy_range(dst, off, bytes, dev_.name(), "write");
    dev_.move_bytes(static_cast<char*>(dst.ptr) + off, host, bytes);
    cross_host_route(SimLinkLoads::to_device, bytes);
  }
  void read(void* host, DeviceMemory src, std::size_t off, std::size_t bytes, HostKind) override {
    check_copy_range(src, off, bytes, dev_.name(), "read");
    dev_.move_bytes(host, static_cast<const char*>(src.ptr) + off, bytes);
    cross_host_route(SimLinkLoads::to_host, bytes);
  }
  void copy(DeviceMemory dst, std::size_t doff, DeviceMemory src, std::size_t soff,
            std::size_t bytes) override {
    check_copy_range(dst, doff, bytes, dev_.name(), "copy");
    check_copy_range(src, soff, bytes, dev_.name(), "copy");
    dev_.move_bytes(static_cast<char*>(dst.ptr) + doff, static_cast<const char*>(src.ptr) + soff,
                    bytes);
  }
  void launch(const Kernel& k, Span span, const KernelArgs& args) override {
    const double start = start_time();
    if (dev_.failed_at(start))
      raise(Errc::device_failed, dev_.name(),
            "simulated failure at t=" + std::to_string(start) + " s");
    if (const CpuFn* fn = k.cpu_fn(); fn && dev_.execute_) (*fn)(span, args);
    set_time(dev_.finish_time(start, k, span));
  }
  EventPtr record() override { return std::make_shared<SimEvent>(dev_.clock_, time()); }
  // From when the queue is free or now, whichever is later: the commands
  // after it take their own time from there.
  EventPtr record_timed() override { return std::make_shared<SimEvent>(dev_.clock_, start_time()); }
  void wait(const EventPtr& e) override {
    if (auto* sim = dynamic_cast<SimEvent*>(e->recorded())) {
      std::lock_guard lock(mu_);
      time_ = std::max({time_, dev_.clock_->now(), sim->time()});
      return;
    }
    e->wait();
  }
  bool can_wait(const EventPtr& e) override {
    return dynamic_cast<SimEvent*>(e->recorded()) || e->ready();
  }
  void finish() override { dev_.clock_->wait_until(time()); }

  // A copy to or from host: from when the queue and the links of the
  // device's route are free.
  void cross_host_route(SimLinkLoads::Direction dir, std::size_t bytes) {
    const SimHostRoute& host = dev_.host_;
    dev_.moved(host.cost.worst, bytes);
    std::lock_guard lock(mu_);
    const double from = std::max(time_, dev_.clock_->now());
    time_ =
        host.loads->cross(host.links, dir, from, double(bytes)) + host.cost.seconds(double(bytes));
  }

  // The queue is busy for `seconds` more, from when it is free.
  void occupy(double seconds) {
    std::lock_guard lock(mu_);
    time_ = std::max(time_, dev_.clock_->now()) + seconds;
  }

 private:
  double time() const {
    std::lock_guard lock(mu_);
    return time_;
  }
  double start_time() const {
    std::lock_guard lock(mu_);
    return std::max(time_, dev_.clock_->now());
  }
  void set_time(double t) {
    std::lock_guard lock(mu_);
    time_ = t;
  }

  SimDevice& dev_;
  // Its worker, and host threads reading buffers, enqueue on it.
  mutable std::mutex mu_;
  double time_ = 0;  // when the work queued so far is done
};

SimDevice::SimDevice(DeviceInfo info, SimDeviceSpec spec, double launch_us, bool execute,
                     SimHostRoute host, std::shared_ptr<SimClock> clock,
                     std::shared_ptr<const PerfModel> measured)
    : Device(std::move(info)),
      spec_(std::move(spec)),
      launch_us_(launch_us),
      execute_(execute),
      host_(std::move(host)),
      clock_(std::move(clock)),
      measured_(std::move(measured)) {
  for (auto& q : queues_) q = std::make_unique<SimQueue>(*this);
  for (auto& q : peer_in_) q = std::make_unique<SimQueue>(*this);
  std::sort(spec_.changes.begin(), spec_.changes.end(),
            [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
}

DeviceMemory SimDevice::allocate(std::size_t bytes) {
  if (spec_.memory_bytes) {
    std::lock_guard lock(memory_mu_);
    if (bytes > spec_.memory_bytes - allocated_)
      raise(Errc::out_of_memory, name(),
            "needs " + human_bytes(bytes) + ", but " +
                human_bytes(spec_.memory_bytes - allocated_) + " of its " +
                human_bytes(spec_.memory_bytes) + " is free");
    allocated_ += bytes;
  }
  try {
    if (!execute_) {
      // Nothing touches it: address space, not memory, so a plan of 64 GPUs
      // of a large model is not bounded by this host's memory.
      void* p = mmap(nullptr, std::max<std::size_t>(bytes, 1), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED)
        raise(Errc::out_of_memory, name(),
              "cannot reserve " + human_bytes(bytes) + " of address space");
      return DeviceMemory{p, 0, bytes};
    }
    return allocate_host(name(), bytes);
  } catch (...) {
    std::lock_guard lock(memory_mu_);
    if (spec_.memory_bytes) allocated_ -= bytes;
    throw;
  }
}

void SimDevice::release(DeviceMemory memory) {
  if (spec_.memory_bytes) {
    std::lock_guard lock(memory_mu_);
    allocated_ -= memory.bytes;
  }
  if (!execute_)
    munmap(memory.ptr, std::max<std::size_t>(memory.bytes, 1));
  else
    release_host(memory);
}

Queue& SimDevice::queue(QueueRole role) {
  return *queues_[std::size_t(role)];
}

Queue& SimDevice::copy_in_from(const Device& peer) {
  auto it = peers_.find(peer.name());
  if (it == peers_.end()) return queue(QueueRole::copy_in);
  return *peer_in_[std::size_t(it->second.worst)];
}

bool SimDevice::copy_from_peer(Queue& q, DeviceMemory dst, std::size_t doff, Device& peer,
                               DeviceMemory src, std::size_t soff, std::size_t bytes) {
  auto it = peers_.find(peer.name());
  if (it == peers_.end()) return false;
  move_bytes(static_cast<char*>(dst.ptr) + doff, static_cast<const char*>(src.ptr) + soff, bytes);
  auto* own = dynamic_cast<SimQueue*>(&q);  // the coherence passes copy_in_from(peer)
  if (!own) raise(Errc::internal, name(), "a peer copy on a queue that is not a sim device's");
  own->occupy(it->second.seconds(double(bytes)));
  moved(it->second.worst, bytes);
  return true;
}

bool SimDevice::twin_of(const Device& other) const {
  const auto* o = dynamic_cast<const SimDevice*>(&other);
  auto steady = [](const SimDeviceSpec& s) { return s.changes.empty() && s.fail_at_s < 0; };
  return o && steady(spec_) && steady(o->spec_) && spec_.speed == o->spec_.speed &&
         spec_.memory_gbps == o->spec_.memory_gbps && spec_.memory_bytes == o->spec_.memory_bytes &&
         spec_.parallel_items == o->spec_.parallel_items &&
         spec_.busy_items == o->spec_.busy_items && spec_.wave_step == o->spec_.wave_step &&
         launch_us_ == o->launch_us_ && execute_ == o->execute_ &&
         host_.cost.gbps == o->host_.cost.gbps &&
         host_.cost.latency_us == o->host_.cost.latency_us &&
         info().pipeline_depth == o->info().pipeline_depth &&
         spec_.measured_as == o->spec_.measured_as;
}

void SimDevice::change_speed(double at_s, double speed) {
  if (!(speed > 0)) raise(Errc::invalid_argument, name(), "a sim speed must be positive");
  spec_.changes.push_back({at_s, speed});
  std::sort(spec_.changes.begin(), spec_.changes.end(),
            [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
}

double SimDevice::speed_at(double t) const {
  double s = spec_.speed;
  for (const auto& c : spec_.changes)
    if (c.at_s <= t) s = c.speed;
  return s;
}

// Walks the piecewise-constant speed profile from `start` until `work` is done.
double SimDevice::finish_time(double start, double work) const {
  double t = start, left = work;
  for (const auto& c : spec_.changes) {
    if (c.at_s <= t) continue;
    double rate = speed_at(t) * 1e9;
    double can = (c.at_s - t) * rate;
    if (can >= left) return t + left / rate;
    left -= can;
    t = c.at_s;
  }
  return t + left / (speed_at(t) * 1e9);
}

double SimDevice::finish_time(double start, double work, double bytes) const {
  const double compute = finish_time(start, work);
  if (!(spec_.memory_gbps > 0) || !(bytes > 0)) return compute;
  // A device slowed (another job on it) has its bandwidth cut alike.
  const double memory_s = bytes / (spec_.memory_gbps * 1e9) * (spec_.speed / speed_at(start));
  return std::max(compute, start + memory_s);
}

double SimDevice::finish_time(double start, const Kernel& kernel, Span span) const {
  if (measured_ && !spec_.measured_as.empty()) {
    // A measured time holds the launch too.
    const double s = measured_->predict_nearest(kernel.name(), spec_.measured_as, span.size());
    if (s > 0) return start + s * spec_.speed / speed_at(start);
  }
  double work = kernel.cost_of(span);
  const std::uint64_t lanes = spec_.parallel_items;
  if (lanes > 0 && span.size() > 0 && kernel.item_per_thread(info().code_backend())) {
    // Waves, where the code of the backend it stands for runs an item a
    // thread: the last part of one as long as its whole steps, and at least
    // as long as busy_items would, as the scheduler weighs it.
    const double busy = double(spec_.busy_items > 0 ? spec_.busy_items : lanes);
    const Waves waves{double(lanes), double(spec_.wave_step), busy, 1.0};
    work *= waves.costed(double(span.size())) / double(span.size());
  }
  return finish_time(start + launch_s(), work, kernel.traffic_of(span));
}

double SimDevice::capacity(double t0, double t1) const {
  double t = t0, units = 0;
  for (const auto& c : spec_.changes) {
    if (c.at_s <= t) continue;
    if (c.at_s >= t1) break;
    units += (c.at_s - t) * speed_at(t) * 1e9;
    t = c.at_s;
  }
  return units + std::max(0.0, t1 - t) * speed_at(t) * 1e9;
}

Backend sim_backend() {
  Backend b;
  b.name = "sim";
  b.spec_help =
      "  sim:S1,S2,...         virtual devices of speeds S (work units per ns), linked to host\n"
      "  sim:FILE.json         virtual devices, links and events from a topology file\n";
  b.in_default_set = false;
  b.create = [](const std::string& args, BackendContext& ctx) {
    SimMachine m = parse_sim_args(args);
    // One clock for every sim device of the set, whichever spec item made them.
    std::shared_ptr<void>& shared = ctx.shared("sim");
    if (!shared) shared = std::make_shared<SimClock>();
    auto clock = std::static_pointer_cast<SimClock>(shared);
    clock->wake_after(m.wake_us * 1e-6);
    const double launch_us = m.launch_us >= 0 ? m.launch_us : ctx.options().sim_launch_us;
    const bool execute = m.execute >= 0 ? m.execute == 1 : ctx.options().sim_execute;
    std::shared_ptr<PerfModel> measured;
    if (!m.perf_models.empty()) {
      if (!std::filesystem::exists(expand_home(m.perf_models)))
        raise(Errc::bad_topology, m.perf_models, "no such performance models file");
      measured = std::make_shared<PerfModel>();
      measured->load(m.perf_models);
    }
    for (const auto& d : m.devices) ctx.add_node({d.id, "sim"});
    for (const auto& sw : m.switches) ctx.add_node({sw, "switch"});
    for (const auto& l : m.links) ctx.add_link(l);
    std::vector<SimDevice*> made;
    DeviceList list;
    const Topology net = sim_network(m);
    auto loads = std::make_shared<SimLinkLoads>(net);
    std::vector<std::vector<std::size_t>> routes(m.devices.size());
    std::vector<PathCost> costs;
    std::vector<int> users(net.links().size(), 0);  // devices whose route crosses each link
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
      auto cost = net.path(m.devices[i].id, "host", &routes[i]);
      if (!cost) raise(Errc::bad_topology, m.devices[i].id, "sim device has no path to host");
      for (std::size_t l : routes[i]) ++users[l];
      costs.push_back(*cost);
    }
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
      const SimDeviceSpec& d = m.devices[i];
      std::vector<std::size_t>& route = routes[i];
      DeviceInfo info;
      info.name = "sim" + std::to_string(i);
      char speed[32];
      std::snprintf(speed, sizeof speed, "%g", d.speed);
      info.description = "virtual device '" + d.id + "', speed " + speed;
      info.backend = BackendKind::sim;
      info.topology_id = d.id;
      info.memory_node = ctx.new_memory_node();
      info.compute_units = 1;
      info.peak_gflops = d.speed;
      info.memory_bytes = d.memory_bytes;
      if (d.parallel_items > 0) info.parallel_items = d.parallel_items;
      if (d.wave_step > 0) info.wave_step = d.wave_step;
      info.pipeline_depth = d.pipeline_depth > 0 ? d.pipeline_depth : m.pipeline_depth;
      for (std::size_t l : route)  // the shared link nearest the device names it
        if (users[l] > 1 && info.host_link.empty())
          info.host_link = net.links()[l].a + "-" + net.links()[l].b;
      if (!execute) info.stands_for = BackendKind::cuda;
      auto dev = std::make_unique<SimDevice>(std::move(info), d, launch_us, execute,
                                             SimHostRoute{costs[i], std::move(route), loads}, clock,
                                             measured);
      made.push_back(dev.get());
      list.push_back(std::move(dev));
    }
    // Peers: devices joined by links or switches, host memory aside (a copy
    // through host is the coherence's staging, not a peer copy).
    Topology peers;
    for (const auto& d : m.devices) peers.add_node({d.id, "sim"});
    for (const auto& sw : m.switches) peers.add_node({sw, "switch"});
    for (const auto& l : m.links)
      if (l.a != "host" && l.b != "host") peers.add_link(l);
    for (SimDevice* a : made)
      for (SimDevice* p : made)
        if (a != p)
          if (auto path = peers.path(a->info().topology_id, p->info().topology_id))
            a->add_peer_path(p->name(), *path);
    return list;
  };
  return b;
}

}  // namespace baton::detail

namespace baton::sim {

static detail::SimDevice& as_sim(Device& d) {
  auto* s = dynamic_cast<detail::SimDevice*>(&d);
  if (!s) raise(Errc::invalid_argument, d.name(), "not a sim device");
  return *s;
}

void change_speed(Device& device, double at_s, double speed) {
  as_sim(device).change_speed(at_s, speed);
}
void fail_at(Device& device, double at_s) {
  as_sim(device).fail_at(at_s);
}
double capacity(const Device& device, double t0, double t1) {
  return as_sim(const_cast<Device&>(device)).capacity(t0, t1);
}

std::uint64_t bytes_moved(const Device& device, LinkKind kind) {
  return as_sim(const_cast<Device&>(device)).bytes_moved(kind);
}

double oracle_seconds(const std::vector<const Device*>& devices, double work, double t0) {
  auto done_by = [&](double t) {
    double units = 0;
    for (const Device* d : devices) units += capacity(*d, t0, t0 + t);
    return units;
  };
  double hi = 1e-9;
  while (done_by(hi) < work && hi < 1e9) hi *= 2;
  double lo = 0;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (done_by(mid) < work ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace baton::sim
