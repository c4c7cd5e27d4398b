#include "device/sim/sim_device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "baton/error.hpp"
#include "baton/sim.hpp"
#include "device/backend.hpp"
#include "device/completed_event.hpp"
#include "device/host_memory.hpp"

namespace baton::detail {

// Commands run at once on host memory; each advances the device's virtual clock.
class SimDevice::SimQueue final : public Queue {
 public:
  explicit SimQueue(SimDevice& dev) : dev_(dev) {}
  void write(DeviceMemory dst, std::size_t off, const void* host, std::size_t bytes) override {
    std::memcpy(static_cast<char*>(dst.ptr) + off, host, bytes);
    dev_.now_ += dev_.host_path_.seconds(double(bytes));
  }
  void read(void* host, DeviceMemory src, std::size_t off, std::size_t bytes) override {
    std::memcpy(host, static_cast<const char*>(src.ptr) + off, bytes);
    dev_.now_ += dev_.host_path_.seconds(double(bytes));
  }
  void copy(DeviceMemory dst, std::size_t doff, DeviceMemory src, std::size_t soff,
            std::size_t bytes) override {
    std::memmove(static_cast<char*>(dst.ptr) + doff, static_cast<const char*>(src.ptr) + soff,
                 bytes);
  }
  void launch(const Kernel& k, Span span, const KernelArgs& args) override {
    double start = dev_.now_;
    if (dev_.failed_at(start))
      raise(Errc::device_failed, dev_.name(),
            "simulated failure at t=" + std::to_string(start) + " s");
    if (const CpuFn* fn = k.cpu_fn()) (*fn)(span, args);
    dev_.now_ = dev_.finish_time(start + dev_.launch_s(), k.cost_of(span));
  }
  EventPtr record() override { return std::make_shared<CompletedEvent>(dev_.now_); }
  void wait(const EventPtr& e) override {
    e->wait();
    dev_.now_ = std::max(dev_.now_, e->sim_time());
  }
  void finish() override {}

 private:
  SimDevice& dev_;
};

SimDevice::SimDevice(DeviceInfo info, SimDeviceSpec spec, double launch_us, PathCost host_path)
    : Device(std::move(info)),
      spec_(std::move(spec)),
      launch_us_(launch_us),
      host_path_(host_path),
      queue_(std::make_unique<SimQueue>(*this)) {
  std::sort(spec_.changes.begin(), spec_.changes.end(),
            [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
}

DeviceMemory SimDevice::allocate(std::size_t bytes) {
  return allocate_host(name(), bytes);
}

void SimDevice::release(DeviceMemory memory) {
  release_host(memory);
}

Queue& SimDevice::queue(QueueRole) {
  return *queue_;
}

bool SimDevice::copy_from_peer(Queue& q, DeviceMemory dst, std::size_t doff, Device& peer,
                               DeviceMemory src, std::size_t soff, std::size_t bytes) {
  auto it = peers_.find(peer.name());
  if (it == peers_.end()) return false;
  std::memcpy(static_cast<char*>(dst.ptr) + doff, static_cast<const char*>(src.ptr) + soff, bytes);
  (void)q;
  now_ += it->second.seconds(double(bytes));
  return true;
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
    if (args.empty())
      raise(Errc::bad_device_spec, "sim", "sim needs speeds or a file, e.g. sim:8,4,2,1");
    SimMachine m = parse_sim_args(args);
    Topology& topo = ctx.topology();
    for (const auto& d : m.devices) topo.add_node({d.id, "sim"});
    for (const auto& l : m.links) topo.add_link(l);
    std::vector<SimDevice*> made;
    DeviceList list;
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
      const SimDeviceSpec& d = m.devices[i];
      auto host = topo.path(d.id, "host");
      if (!host) raise(Errc::bad_topology, d.id, "sim device has no path to host");
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
      info.pipeline_depth = 1;
      auto dev = std::make_unique<SimDevice>(std::move(info), d, m.launch_us, *host);
      made.push_back(dev.get());
      list.push_back(std::move(dev));
    }
    for (SimDevice* a : made)
      for (SimDevice* p : made)
        if (a != p)
          if (auto link = topo.link(a->info().topology_id, p->info().topology_id))
            a->add_peer_path(p->name(), PathCost{link->gbps, link->latency_us, link->kind, 1});
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

bool is_sim(const Device& device) {
  return dynamic_cast<const detail::SimDevice*>(&device);
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

}  // namespace baton::sim
