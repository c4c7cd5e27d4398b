// OpenCL C of the built-in balance kernels. All three live in one source, so a
// context builds them once (the OpenCL backend caches programs by source).
// Parameters follow include/baton/kernel.hpp: (ulong begin, ulong end, ...),
// item begin + get_global_id(0), nothing done at or past end.
#pragma once

namespace baton::workloads {

const char* opencl_kernels_source();

// (begin, end, const float* in, float* out, float a, float b, int iters):
// x = in[i]; iters times x = x * a + b; out[i] = x.
inline constexpr const char* kOpenclFmaEntry = "baton_fma";
// (begin, end, float a, const float* x, float* y): y[i] = a * x[i] + y[i].
inline constexpr const char* kOpenclSaxpyEntry = "baton_saxpy";
// (begin, end): no work; measures launch overhead.
inline constexpr const char* kOpenclEmptyEntry = "baton_empty";

}  // namespace baton::workloads
