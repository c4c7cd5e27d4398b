// What baton records about one OpenCL device: its DeviceInfo, allocation
// limit and the kind of link between it and host memory.
#pragma once

#include <cstdint>

#include "baton/device.hpp"
#include "baton/link.hpp"
#include "device/opencl/opencl_spec.hpp"

namespace baton::detail::opencl {

struct ClDeviceFacts {
  DeviceInfo info;  // memory_node is left to the caller
  std::uint64_t max_alloc = 0;
  LinkKind host_link = LinkKind::pcie;
};

ClDeviceFacts query_device(const ClPlatform& platform, ClDeviceIndex index);

// fp32 peak: compute units x clock x lanes x 2 (one FMA per lane per cycle).
// OpenCL reports no lane count, so it is guessed: on CPUs the native float
// vector width (16 for AVX-512, 8 for AVX2; one FMA pipe assumed), on GPUs by
// vendor (NVIDIA 128 per SM, AMD 64 per CU, Intel 8 per EU), otherwise 32.
// The scheduler calibrates on measured rates; this only seeds the first split.
double estimate_peak_gflops(cl_device_type type, cl_uint vendor_id, cl_uint compute_units,
                            cl_uint clock_mhz, cl_uint native_float_width);

}  // namespace baton::detail::opencl
