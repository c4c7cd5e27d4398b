// The sim backend: virtual devices with a speed (work units per ns) that may
// change at given virtual times, virtual links, and one virtual clock shared
// by the devices of a set (sim_clock.hpp). Memory is real host memory, one
// replica per device, and kernels with cpu code really run on it, so
// coherence is checked for real while time is simulated.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/link.hpp"
#include "common/perf_model.hpp"
#include "device/sim/sim_clock.hpp"
#include "device/sim/sim_links.hpp"

namespace baton::detail {

struct SimSpeedChange {
  double at_s;
  double speed;
};

struct SimDeviceSpec {
  std::string id;  // topology node id
  double speed = 1;
  double memory_gbps = 0;  // device memory bandwidth (GB/s); 0: kernels' bytes cost nothing
  // Memory it holds; an allocation past it fails as a GPU's would (0: only
  // the host's memory bounds it).
  std::uint64_t memory_bytes = 0;
  std::vector<SimSpeedChange> changes;
  double fail_at_s = -1;  // < 0: never fails
  // Items it runs at once, as a GPU's SMs run their resident threads: a
  // span takes whole waves of this many, each as long as this many items
  // take at `speed` (a span of fewer takes a whole wave). 0: items run one
  // after another, a span's time in proportion to its items.
  std::uint64_t parallel_items = 0;
  // Work its worker keeps in flight; 0: the machine's pipeline_depth. A
  // machine of GPUs beside a CPU: 3 for the GPUs, 1 for the CPU, as the
  // cuda and cpu backends set them.
  int pipeline_depth = 0;
  // Of those, what the least part of a wave takes as long as: a last part
  // with fewer items takes as long as this many. On an H100 a seventh of a
  // wave of 2^18-fma items took 0.16 of a wave's time. 0: all of
  // parallel_items (any part of a wave as long as a whole one).
  std::uint64_t busy_items = 0;
  // A part of a wave takes whole steps of this many (a GPU: a block on every
  // SM; DeviceInfo::wave_step), and at least as long as busy_items. 0: steps
  // of one item.
  std::uint64_t wave_step = 0;
  // A real device's identity in the machine's performance models ("cuda0 |
  // NVIDIA H200 ..."): a kernel they have times for takes the time measured
  // there; others take their cost at `speed`. Empty: always the cost.
  std::string measured_as;
};

struct SimMachine {
  std::vector<SimDeviceSpec> devices;
  std::vector<std::string> switches;  // nodes that only forward (an NVSwitch, a PCIe switch)
  // Between device, switch ids and "host"; every device has one to host.
  std::vector<TopoLink> links;
  double launch_us = -1;  // < 0: BATON_SIM_LAUNCH_US
  // How long a parked thread (a device's worker, a host waiting on a task)
  // takes to run once woken: a futex wake-up and the cold first launch after
  // it. On H100 partitions a run's first chunks began 30 to 100 us after it.
  double wake_us = 0;
  int execute = -1;  // run kernels and copy bytes (1), keep time only (0); < 0: BATON_SIM_EXECUTE
  // Work its workers keep in flight: 1 runs each chunk's copies and kernel in
  // turn; a GPU's 3 copies the next chunk in while the kernel runs.
  int pipeline_depth = 1;
  // The performance models (the file baton keeps: BATON_PERF_MODEL_FILE) that
  // devices' measured_as names are looked up in; empty: none.
  std::string perf_models;
};

// Parses the args of a sim spec item: "8,4,2,1", a path to a JSON file, or
// the name of a preset machine (presets/NAME.json, e.g. "dgx1").
SimMachine parse_sim_args(const std::string& args);
SimMachine sim_machine_from_json(const std::string& text, const std::string& origin);

// A device's way to host: its links, what they cost together, and the loads
// of the machine's links, which the devices behind one link share.
struct SimHostRoute {
  PathCost cost;
  std::vector<std::size_t> links;  // indices into sim_network(machine).links()
  std::shared_ptr<SimLinkLoads> loads;
};

// Completes when the shared virtual clock reaches its time.
class SimEvent final : public Event {
 public:
  SimEvent(std::shared_ptr<SimClock> clock, double time) : clock_(std::move(clock)), time_(time) {}
  void wait() override { clock_->wait_until(time_); }
  bool ready() override { return clock_->now() >= time_; }
  // At most `seconds` of virtual time, as a GPU's poll returns: a worker
  // waiting on a long kernel still sees the work given to it meanwhile.
  bool wait_for(double seconds) override {
    clock_->wait_until(std::min(time_, clock_->now() + seconds));
    return ready();
  }
  double due_s() const override { return time_; }
  double seconds_since(Event& start) override {
    auto* s = dynamic_cast<SimEvent*>(&start);
    return s ? time_ - s->time_ : -1;
  }
  double time() const { return time_; }

 private:
  std::shared_ptr<SimClock> clock_;
  double time_;
};

class SimDevice final : public Device {
 public:
  // `execute` false: launches and copies take their virtual time and touch
  // no memory (a plan of a machine too large to run on this host).
  SimDevice(DeviceInfo info, SimDeviceSpec spec, double launch_us, bool execute, SimHostRoute host,
            std::shared_ptr<SimClock> clock, std::shared_ptr<const PerfModel> measured = nullptr);
  DeviceMemory allocate(std::size_t bytes) override;
  void release(DeviceMemory memory) override;
  Queue& queue(QueueRole role) override;
  Queue& copy_in_from(const Device& peer) override;
  Clock& clock() override { return *clock_; }
  bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                      DeviceMemory src, std::size_t src_offset, std::size_t bytes) override;

  void add_peer_path(const std::string& peer_name, PathCost cost) { peers_[peer_name] = cost; }
  double peer_gbps(const Device& peer) const override {
    auto it = peers_.find(peer.name());
    return it == peers_.end() ? 0.0 : it->second.gbps;
  }
  bool twin_of(const Device& other) const override;
  void change_speed(double at_s, double speed);
  void fail_at(double at_s) { spec_.fail_at_s = at_s; }
  // Virtual time at which `work` units started at `start` are done.
  double finish_time(double start, double work) const;
  // The same for a kernel of `work` units touching `bytes` of device memory:
  // the later of its compute and its memory time (a roofline).
  double finish_time(double start, double work, double bytes) const;
  // When `kernel` launched over `span` at `start` is done: as measured on the
  // device it stands for, where the models have the kernel (from the sizes
  // measured, PerfModel::predict_nearest; at the speed it has then against
  // its own), else by its cost in whole waves of parallel_items.
  double finish_time(double start, const Kernel& kernel, Span span) const;
  double capacity(double t0, double t1) const;
  double speed_at(double t) const;
  bool failed_at(double t) const { return spec_.fail_at_s >= 0 && t >= spec_.fail_at_s; }
  double launch_s() const { return launch_us_ * 1e-6; }
  std::uint64_t bytes_moved(LinkKind kind) const { return moved_[std::size_t(kind)].load(); }

 private:
  class SimQueue;
  // A copy's bytes, where the device runs code (memmove: a copy within one
  // memory may overlap); time only, nothing. An empty copy may name no
  // memory at all (a null pointer), which memmove may not be given.
  void move_bytes(void* dst, const void* src, std::size_t bytes) const {
    if (execute_ && bytes > 0) std::memmove(dst, src, bytes);
  }
  SimDeviceSpec spec_;
  double launch_us_;
  bool execute_;
  SimHostRoute host_;
  std::shared_ptr<SimClock> clock_;
  std::shared_ptr<const PerfModel> measured_;
  std::map<std::string, PathCost> peers_;
  std::array<std::atomic<std::uint64_t>, kLinkKinds> moved_{};  // bytes by LinkKind
  void moved(LinkKind kind, std::size_t bytes) { moved_[std::size_t(kind)] += bytes; }
  std::array<std::unique_ptr<SimQueue>, kQueueRoles> queues_;  // by QueueRole
  // Copies in from peers, a queue per kind of path (the worst link on it):
  // each link moves its bytes beside the others, as NCCL's channels do.
  std::array<std::unique_ptr<SimQueue>, kLinkKinds> peer_in_;
  std::mutex memory_mu_;
  std::uint64_t allocated_ = 0;  // against spec_.memory_bytes
};

}  // namespace baton::detail
