#include "device/opencl/opencl_device_info.hpp"

#include <string>

namespace baton::detail::opencl {

namespace {

constexpr cl_uint kVendorNvidia = 0x10de, kVendorAmd = 0x1002, kVendorIntel = 0x8086;

double lanes_per_unit(cl_device_type type, cl_uint vendor_id, cl_uint native_float_width) {
  if (type & CL_DEVICE_TYPE_CPU) return native_float_width > 0 ? native_float_width : 4;
  switch (vendor_id) {
    case kVendorNvidia:
      return 128;
    case kVendorAmd:
      return 64;
    case kVendorIntel:
      return 8;
    default:
      return 32;
  }
}

}  // namespace

double estimate_peak_gflops(cl_device_type type, cl_uint vendor_id, cl_uint compute_units,
                            cl_uint clock_mhz, cl_uint native_float_width) {
  return double(compute_units) * clock_mhz * 1e-3 *
         lanes_per_unit(type, vendor_id, native_float_width) * 2.0;
}

ClDeviceFacts query_device(const ClPlatform& platform, ClDeviceIndex index) {
  const cl_device_id id = platform.devices[index.device];
  const auto type = device_value<cl_device_type>(id, CL_DEVICE_TYPE);
  const auto units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
  const auto mhz = device_value<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  const auto vendor = device_value<cl_uint>(id, CL_DEVICE_VENDOR_ID);
  const auto width = device_value<cl_uint>(id, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  // Integrated GPUs share host memory; their "link" is the memory system.
  const bool shares_host_memory =
      (type & CL_DEVICE_TYPE_CPU) || device_value<cl_bool>(id, CL_DEVICE_HOST_UNIFIED_MEMORY);

  ClDeviceFacts facts;
  DeviceInfo& info = facts.info;
  info.name = "opencl" + std::to_string(index.platform) + "." + std::to_string(index.device);
  info.description = platform.device_names[index.device] + " (" + platform.name + ", driver " +
                     device_string(id, CL_DRIVER_VERSION) + ", " + std::to_string(mhz) + " MHz)";
  info.backend = BackendKind::opencl;
  info.topology_id = info.name;
  info.compute_units = int(units);
  // A GPU keeps a work-group per compute unit busy at least; a CPU device
  // runs one work-group per core.
  info.parallel_items =
      std::uint64_t(units) * ((type & CL_DEVICE_TYPE_GPU)
                                  ? device_value<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE)
                                  : 1);
  // A GPU's work-groups fill its compute units together: a part of a wave
  // takes as long as a whole one.
  if (type & CL_DEVICE_TYPE_GPU) info.wave_step = info.parallel_items;
  info.peak_gflops = estimate_peak_gflops(type, vendor, units, mhz, width);
  info.memory_bytes = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.pipeline_depth = 2;  // a transfer of the next chunk overlaps the current kernel
  facts.max_alloc = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  facts.host_link = shares_host_memory ? LinkKind::sys : LinkKind::pcie;
  if (type & CL_DEVICE_TYPE_CPU)
    info.shares = {"host-cores"};  // PoCL computes on the host's cores
  else
    info.needs_driver_thread = true;
  return facts;
}

}  // namespace baton::detail::opencl
