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
  // Its first chunk, whose time also holds the wait for what the run
  // depended on (a device's rate is best learned from the chunks after it).
  std::uint64_t first_chunk_items = 0;
  double first_chunk_s = 0;
  bool failed = false;  // the device failed; its work ran elsewhere
  std::string failure;
  // The run's buffers did not fit this device's memory; its share ran on
  // the others (why, as the allocation said). Empty: they fitted.
  std::string out_of_memory;
};

struct RunStats {
  std::string policy;
  std::vector<DeviceStats> devices;
  std::uint64_t tasks = 0;
  std::uint64_t items = 0;
  double start_s = 0;  // on the devices' clock, when the work became ready
  double makespan_s = 0;
  // The makespan if every device ran flat out the whole time: items over the
  // sum of each device's standalone throughput (sim: its exact capacity), or
  // waves_bound_s where that is more.
  double oracle_s = 0;
  // The least time the devices' waves allow, as calibrated: a GPU runs a
  // wave of items at once, and a last part of one takes as long as its steps
  // and never less than a few items do; nor is any run shorter than the
  // least of the devices' least runs, where each share could hold as many
  // items (0: none of this applies, or not calibrated). One wave and a
  // fiftieth cannot end in 1.02 waves' time.
  double waves_bound_s = 0;
  double efficiency = 0;        // oracle_s / makespan_s
  std::uint64_t reruns = 0;     // chunks or tasks re-run after a device failed
  bool managed_memory = false;  // some replica fell back to unified memory
  bool simulated = false;       // times are on the sim backend's virtual clock
  double throughput() const { return makespan_s > 0 ? double(items) / makespan_s : 0; }
};

// What Runtime::calibrate measured for a kernel. Devices that share a
// resource (DeviceInfo::shares) are also run side by side; where a device
// alone does more than its group together, the others are left out of the
// kernel's work. The rates used (splits, the oracle) are those of the
// devices' best arrangement.
struct Calibration {
  struct Group {
    std::vector<int> devices;
    std::string resource;     // what they share ("host-cores", "gpu:...")
    double together = 0;      // items/s, all of them side by side
    double best_alone = 0;    // items/s, the fastest of them alone
    bool alone_wins = false;  // only that one runs the kernel
  };
  std::vector<double> alone;   // per device, items/s running alone
  std::vector<double> used;    // per device, items/s in the arrangement used (0: left out)
  std::vector<char> left_out;  // per device
  // Per device, its least warm-up run (start and wait included) and that
  // time's worth of items at its rate alone: the least a last part of a wave
  // is costed as (ws's first split, the oracle's bound in waves).
  std::vector<double> least_run_s;
  std::vector<double> busy_items;
  std::vector<Group> groups;    // devices that share something, two or more
  double oracle_rate() const {  // items/s: what the devices can do together at best
    double r = 0;
    for (double x : used) r += x;
    return r;
  }
};

}  // namespace baton
