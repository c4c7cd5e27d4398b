// The built-in CUDA kernels (src/workloads/kernels_cuda.cu: baton_fma,
// baton_saxpy, baton_empty) as one fatbin embedded in the library. Empty when
// the build had no nvcc.
#pragma once

#include <span>

namespace baton::detail {

std::span<const unsigned char> builtin_cuda_fatbin();

}  // namespace baton::detail
