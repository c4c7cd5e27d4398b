// Device memory that buffers take, counted on the device as it is taken and
// given back (Device::held_bytes), so a run can report its peak per device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "baton/device.hpp"

namespace baton::detail {

inline DeviceMemory allocate_held(Device& dev, std::size_t bytes) {
  DeviceMemory m = dev.allocate(bytes);
  dev.count_held(std::int64_t(bytes));
  return m;
}

// Counted back first: a lost device's release may throw.
inline void release_held(Device& dev, DeviceMemory memory, std::size_t bytes) {
  dev.count_held(-std::int64_t(bytes));
  dev.release(memory);
}

}  // namespace baton::detail
