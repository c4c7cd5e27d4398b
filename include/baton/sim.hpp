// Controls of the sim backend's virtual devices that a user of the API may need:
// a device that slows down (another job starts to share it) or fails mid-run.
#pragma once

#include "baton/device.hpp"

namespace baton::sim {

// True for a device of the sim backend.
bool is_sim(const Device& device);
// From virtual time `at_s` on, the device runs at `speed` (work units per ns).
// Throws Error(invalid_argument) for a device that is not a sim device.
void change_speed(Device& device, double at_s, double speed);
// Launches that start at or after virtual time `at_s` fail with Errc::device_failed.
void fail_at(Device& device, double at_s);
// Work units the device completes between virtual times t0 and t1.
double capacity(const Device& device, double t0, double t1);

}  // namespace baton::sim
