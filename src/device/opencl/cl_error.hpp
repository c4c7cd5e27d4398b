// Translation of OpenCL status codes into baton errors. Every cl_int that can
// fail goes through check(), which names the call and the status.
#pragma once

#include <string>

#include "device/opencl/cl_api.hpp"

namespace baton::detail::opencl {

// "CL_OUT_OF_RESOURCES", ...; "CL_ERROR(-1234)" for codes no header names.
std::string cl_error_name(cl_int status);

// "clEnqueueWriteBuffer: CL_INVALID_VALUE"
std::string cl_failure(const char* call, cl_int status);

// Throws Error(Errc::device_failed, where, cl_failure(call, status)).
// `where`: a device name ("opencl0.0") or "opencl".
[[noreturn]] void fail(cl_int status, const char* call, const std::string& where);

inline void check(cl_int status, const char* call, const std::string& where) {
  if (status != CL_SUCCESS) [[unlikely]]
    fail(status, call, where);
}

}  // namespace baton::detail::opencl
