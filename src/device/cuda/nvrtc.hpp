// Run-time compilation of CUDA C++ through NVRTC, loaded with dlopen
// (libnvrtc.so.13). Compiles straight to a cubin for the device's
// architecture, so the driver has nothing left to JIT.
#pragma once

#include <string>
#include <vector>

namespace baton::cuda {

// A cubin for sm_<cc_major><cc_minor>. Throws Error(compile_failed, kernel,
// "<NVRTC's error>\n<compile log>") when the source does not compile, and
// Error(compile_failed) naming the library when NVRTC cannot be loaded.
std::vector<char> nvrtc_compile(const std::string& source, const std::string& kernel, int cc_major,
                                int cc_minor);

}  // namespace baton::cuda
