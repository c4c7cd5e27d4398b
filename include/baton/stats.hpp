// What one run did, per device and in all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton {

struct DeviceStats {
  std::string name;
  std::uint64_t tasks = 0;   // whole tasks it ran
  std::uint64_t chunks = 0;  // chunks of split tasks it ran
  std::uint64_t items = 0;
  std::uint64_t steals = 0;     // chunks or tasks this device stole
  std::uint64_t bytes_in = 0;   // copied into its memory
  std::uint64_t bytes_out = 0;  // copied back to host memory
  double busy_s = 0;            // time its worker had chunks in flight
  bool failed = false;          // the device failed; its work ran elsewhere
  std::string failure;
};

struct RunStats {
  std::string policy;
  std::vector<DeviceStats> devices;
  std::uint64_t tasks = 0;
  std::uint64_t items = 0;
  double start_s = 0;  // on the devices' clock, when the work became ready
  double makespan_s = 0;
  // The makespan if every device ran flat out the whole time: items over the
  // sum of each device's standalone throughput (sim: its exact capacity).
  double oracle_s = 0;
  double efficiency = 0;        // oracle_s / makespan_s
  std::uint64_t reruns = 0;     // chunks or tasks re-run after a device failed
  bool managed_memory = false;  // some replica fell back to unified memory
  bool simulated = false;       // times are on the sim backend's virtual clock
  double throughput() const { return makespan_s > 0 ? double(items) / makespan_s : 0; }
};

}  // namespace baton
