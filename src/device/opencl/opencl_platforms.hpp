// Enumeration of OpenCL platforms and devices through the ICD loader, and the
// typed clGet*Info queries the rest of the backend uses.
#pragma once

#include <string>
#include <vector>

#include "device/opencl/cl_error.hpp"
#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

struct ClPlatform {
  cl_platform_id id = nullptr;
  std::string name;
  std::vector<cl_device_id> devices;
  std::vector<std::string> device_names;  // parallel to `devices`
};

// Every platform the ICD loader offers, in its order, with all its devices.
// Throws Error(backend_unavailable) when the loader finds no platform at all.
std::vector<ClPlatform> discover_platforms();

std::string platform_string(cl_platform_id platform, cl_platform_info what);
std::string device_string(cl_device_id device, cl_device_info what);

// A fixed-size clGetDeviceInfo value (cl_uint, cl_ulong, cl_bool, size_t, ...).
template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), "clGetDeviceInfo", "opencl");
  return value;
}

}  // namespace baton::detail::opencl
