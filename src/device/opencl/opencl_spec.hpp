// The arguments of an `opencl` device-spec item: "" (every device of every
// platform), "P" (every device of platform P) or "P.D" (device D of platform P).
#pragma once

#include <string>
#include <vector>

#include "device/opencl/opencl_platforms.hpp"

namespace baton::detail::opencl {

struct ClDeviceIndex {
  int platform = 0;
  int device = 0;
  friend bool operator==(const ClDeviceIndex&, const ClDeviceIndex&) = default;
};

// The devices `args` names among `platforms`. Throws Error(bad_device_spec)
// for malformed text or an index that does not exist (the message lists what
// does), Error(backend_unavailable) when the selection holds no device.
std::vector<ClDeviceIndex> select_devices(const std::string& args,
                                          const std::vector<ClPlatform>& platforms);

}  // namespace baton::detail::opencl
