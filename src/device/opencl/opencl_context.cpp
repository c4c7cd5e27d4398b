#include "device/opencl/opencl_context.hpp"

#include "device/opencl/cl_error.hpp"

namespace baton::detail::opencl {

namespace {

cl_context create_context(cl_platform_id platform, const std::vector<cl_device_id>& devices,
                          const std::string& where) {
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(properties, cl_uint(devices.size()), devices.data(), nullptr,
                                       nullptr, &status);
  check(status, "clCreateContext", where);
  return context;
}

}  // namespace

ClContext::ClContext(cl_platform_id platform, const std::vector<cl_device_id>& devices,
                     std::string where)
    : context_(create_context(platform, devices, where)), programs_(context_.get()) {}

}  // namespace baton::detail::opencl
