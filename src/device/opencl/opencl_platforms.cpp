#include "device/opencl/opencl_platforms.hpp"

#include "baton/error.hpp"
#include "device/opencl/cl_error.hpp"

namespace baton::detail::opencl {

namespace {

const std::string kWhere = "opencl";

// clGet*Info strings come with a terminating NUL (counted in the size) and,
// on some drivers, trailing blanks.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint count = 0;
  cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND) return {};  // a platform may have no device
  check(status, "clGetDeviceIDs", kWhere);
  std::vector<cl_device_id> devices(count);
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr),
        "clGetDeviceIDs", kWhere);
  return devices;
}

}  // namespace

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, what, 0, nullptr, &size), "clGetPlatformInfo", kWhere);
  std::string s(size, '\0');
  check(clGetPlatformInfo(platform, what, size, s.data(), nullptr), "clGetPlatformInfo", kWhere);
  return trimmed(std::move(s));
}

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, what, 0, nullptr, &size), "clGetDeviceInfo", kWhere);
  std::string s(size, '\0');
  check(clGetDeviceInfo(device, what, size, s.data(), nullptr), "clGetDeviceInfo", kWhere);
  return trimmed(std::move(s));
}

std::vector<ClPlatform> discover_platforms() {
  cl_uint count = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &count);
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no vendor driver is installed.
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0))
    raise(Errc::backend_unavailable, kWhere,
          "no OpenCL platform: the ICD loader found no driver (" +
              cl_failure("clGetPlatformIDs", status) +
              "); install one, e.g. pocl-opencl-icd, or check /etc/OpenCL/vendors");
  check(status, "clGetPlatformIDs", kWhere);
  std::vector<cl_platform_id> ids(count);
  check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs", kWhere);

  std::vector<ClPlatform> platforms;
  for (cl_platform_id id : ids) {
    ClPlatform p{id, platform_string(id, CL_PLATFORM_NAME), devices_of(id), {}};
    for (cl_device_id d : p.devices) p.device_names.push_back(device_string(d, CL_DEVICE_NAME));
    platforms.push_back(std::move(p));
  }
  return platforms;
}

}  // namespace baton::detail::opencl
