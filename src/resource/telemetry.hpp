// Live telemetry of every device of a set: one background thread reads each
// device every period and keeps its last readings in a ring. CUDA devices
// read NVML (utilisation, memory, power, SM clock, temperature; partitions
// share their GPU's figures); devices that compute on the host CPU (cpu,
// PoCL) read the host's load and memory from /proc; sim devices have none.
// The sampler measures what a round costs it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "baton/device.hpp"
#include "resource/host_load.hpp"

namespace baton {

struct DeviceReading {
  double time_s = 0;                                // steady-clock seconds
  double util_pct = -1;                             // busy share of the last period; < 0: not known
  std::uint64_t memory_used = 0, memory_total = 0;  // bytes; total 0: not known
  double power_w = -1;                              // < 0: not known
  unsigned clock_mhz = 0;                           // 0: not known
  int temperature_c = -1;                           // < 0: not known
};

class Telemetry {
 public:
  // `devices` must outlive the sampler.
  Telemetry(std::vector<const Device*> devices, std::chrono::milliseconds period,
            std::size_t capacity = 600);
  ~Telemetry();
  Telemetry(const Telemetry&) = delete;
  Telemetry& operator=(const Telemetry&) = delete;

  void start();  // no-op while running
  void stop();
  bool running() const { return thread_.joinable(); }
  // What the device reports at all ("nvml", "host", "none").
  const std::string& source(std::size_t device) const { return sources_[device]; }
  // The readings kept, oldest first (at most `capacity`).
  std::vector<DeviceReading> history(std::size_t device) const;
  std::optional<DeviceReading> latest(std::size_t device) const;
  std::uint64_t rounds() const { return rounds_.load(); }
  // Mean wall time of one round over every device, in seconds.
  double seconds_per_round() const;

 private:
  void run();
  void sample_round();

  std::vector<const Device*> devices_;
  std::vector<std::string> sources_;
  std::vector<int> nvml_index_;  // per device; -1: none
  std::chrono::milliseconds period_;
  std::size_t capacity_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> rounds_{0};
  mutable std::mutex mu_;
  std::vector<std::vector<DeviceReading>> rings_;  // per device
  std::vector<std::size_t> next_;                  // per device: the slot written next
  double spent_s_ = 0;                             // in rounds, under mu_
  std::vector<detail::CpuTimes> last_cpu_;         // the sampler thread's last /proc/stat
};

}  // namespace baton
