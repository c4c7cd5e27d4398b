// The sim backend: virtual devices with a speed (work units per ns) that may
// change at given virtual times, virtual links, and a virtual clock. Memory is
// real host memory, one replica per device, and kernels with cpu code really
// run on it, so coherence is checked for real while time is simulated.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "baton/device.hpp"
#include "baton/topology.hpp"
#include "device/virtual_clock.hpp"

namespace baton::detail {

struct SimSpeedChange {
  double at_s;
  double speed;
};

struct SimDeviceSpec {
  std::string id;  // topology node id
  double speed = 1;
  std::vector<SimSpeedChange> changes;
  double fail_at_s = -1;  // < 0: never fails
};

struct SimMachine {
  std::vector<SimDeviceSpec> devices;
  std::vector<TopoLink> links;  // between device ids and "host"
  double launch_us = 5;
};

// Parses the args of a sim spec item: "8,4,2,1" or a path to a JSON file.
SimMachine parse_sim_args(const std::string& args);
SimMachine sim_machine_from_json(const std::string& text, const std::string& origin);

class SimDevice final : public Device, public VirtualClock {
 public:
  SimDevice(DeviceInfo info, SimDeviceSpec spec, double launch_us, PathCost host_path);
  DeviceMemory allocate(std::size_t bytes) override;
  void release(DeviceMemory memory) override;
  Queue& queue(QueueRole role) override;
  bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                      DeviceMemory src, std::size_t src_offset, std::size_t bytes) override;

  double now() const override { return now_; }
  void set_now(double t) override { now_ = t; }

  void add_peer_path(const std::string& peer_name, PathCost cost) { peers_[peer_name] = cost; }
  void change_speed(double at_s, double speed);
  void fail_at(double at_s) { spec_.fail_at_s = at_s; }
  // Virtual time at which `work` units started at `start` are done.
  double finish_time(double start, double work) const;
  double capacity(double t0, double t1) const;
  double speed_at(double t) const;
  bool failed_at(double t) const { return spec_.fail_at_s >= 0 && t >= spec_.fail_at_s; }
  double launch_s() const { return launch_us_ * 1e-6; }
  const PathCost& host_path() const { return host_path_; }

 private:
  class SimQueue;
  SimDeviceSpec spec_;
  double launch_us_;
  PathCost host_path_;
  std::map<std::string, PathCost> peers_;
  double now_ = 0;
  std::unique_ptr<Queue> queue_;
};

}  // namespace baton::detail
