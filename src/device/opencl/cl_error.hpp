// Translation of OpenCL status codes into baton errors. Every cl_int that can
// fail goes through check(), which names the call and the status.
#pragma once

#include <string>

#include "baton/error.hpp"
#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

// "CL_OUT_OF_RESOURCES", ...; "CL_ERROR(-1234)" for codes no header names.
std::string cl_error_name(cl_int status);

// "clEnqueueWriteBuffer: CL_INVALID_VALUE"
std::string cl_failure(const char* call, cl_int status);

// How baton treats a failed call: out_of_memory; compile_failed for programs
// that do not build; device_failed where the device stopped or lost work (its
// work moves elsewhere); invalid_argument for every CL_INVALID_* and the rest,
// a usage error raised to the caller that never retires a device.
Errc classify(cl_int status);

// Throws Error(classify(status), where, cl_failure(call, status)).
// `where`: a device name ("opencl0.0") or "opencl".
[[noreturn]] void fail(cl_int status, const char* call, const std::string& where);

inline void check(cl_int status, const char* call, const std::string& where) {
  if (status != CL_SUCCESS) [[unlikely]]
    fail(status, call, where);
}

}  // namespace baton::detail::opencl
