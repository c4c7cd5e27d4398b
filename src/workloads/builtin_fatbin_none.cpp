// Built without nvcc: no built-in CUDA kernels (see builtin_fatbin.hpp).
#include "workloads/builtin_fatbin.hpp"

namespace baton::detail {

std::span<const unsigned char> builtin_cuda_fatbin() {
  return {};
}

}  // namespace baton::detail
