// Handles and tags of the task API (see runtime.hpp).
#pragma once

#include <cstdint>

namespace baton {

// A submitted task; wait for it with Runtime::wait. Cheap to copy, and it
// stays valid after the task is done (waiting for it then returns at once).
struct Task {
  std::uint32_t index = ~std::uint32_t{0};
  std::uint32_t generation = 0;
};

// Passed among a task's arguments: spread its range over the devices in
// chunks, each device taking chunks by the policy (what parallel_for does).
// Without it a task runs as one launch on one device the policy picks.
struct Split {};
inline constexpr Split split{};

// Passed among a task's arguments: run it on device `device` (its index in
// Runtime::devices()), or, with baton::split, spread it over that device
// alone. If that device fails the task runs elsewhere, unless it uses that
// device's instance of a per-device buffer (baton::local), which went with
// the device: then it fails (Errc::device_failed), as do the tasks after it.
struct On {
  int device = -1;
};
inline constexpr On on(int device) {
  return On{device};
}

}  // namespace baton
