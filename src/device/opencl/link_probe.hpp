// The link between host memory and a device, measured when the device opens:
// OpenCL reports no bus figures, and a measurement is what the topology should
// be checked against anyway.
#pragma once

#include <cstddef>

#include "baton/device.hpp"

namespace baton::detail::opencl {

struct LinkFigures {
  double gbps = 0;        // host-to-device, GB/s
  double latency_us = 0;  // a 4-byte write, enqueue to completion
};

// Medians of a few timed writes (after a warm-up that also makes the driver
// allocate), through the device's copy_in queue. Each large write moves
// `bytes`; about 10 ms in all on PoCL for the default.
LinkFigures probe_host_link(Device& device, std::size_t bytes = std::size_t(16) << 20);

}  // namespace baton::detail::opencl
