// Controls of the sim backend's virtual devices that a user of the API may need:
// a device that slows down (another job starts to share it) or fails mid-run,
// and what the devices could do at best, for judging a schedule.
#pragma once

#include <vector>

#include "baton/device.hpp"
#include "baton/link.hpp"

namespace baton::sim {

// From virtual time `at_s` on, the device runs at `speed` (work units per ns).
// Throws Error(invalid_argument) for a device that is not a sim device.
void change_speed(Device& device, double at_s, double speed);
// Launches that start at or after virtual time `at_s` fail with Errc::device_failed.
void fail_at(Device& device, double at_s);
// Work units the device completes between virtual times t0 and t1.
double capacity(const Device& device, double t0, double t1);
// Bytes the device's copies have moved so far over links of `kind`: to and
// from host memory over its host link, and from peers (counted by the
// receiver only) over the path's slowest kind. A copy staged through host
// memory counts on both host links. For comparing what schedules move where.
std::uint64_t bytes_moved(const Device& device, LinkKind kind);
// The virtual time, from `t0`, at which the devices running flat out together
// complete `work` units: the oracle a schedule is measured against.
double oracle_seconds(const std::vector<const Device*>& devices, double work, double t0);

}  // namespace baton::sim
