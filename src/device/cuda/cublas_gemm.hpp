// GEMM through cuBLAS (libcublas.so.13, loaded at run time) as a baton
// kernel: C = A * B, row-major, with the span covering rows of C, so
// parallel_for spreads blocks of rows over the GPUs (and partitions).
#pragma once

#include <cstdint>

#include "baton/kernel.hpp"

namespace baton {

enum class GemmType : std::uint8_t { f32, bf16 };

struct GemmSpec {
  std::uint64_t m = 0, n = 0, k = 0;  // C is m x n, A m x k, B k x n
  GemmType type = GemmType::bf16;     // of A, B and C; accumulation is fp32
  bool tf32 = false;                  // f32 only: let the tensor cores round inputs to tf32
};

// Arguments: (A, B, C) as buffers of spec.type elements. Launching a span
// [r0, r1) computes rows r0..r1-1 of C on the launching queue's stream; the
// kernel has a CUDA implementation only (and a cost: 2 n k flops a row).
// Throws Error(invalid_argument) for a spec cuBLAS cannot take (dimensions
// past 2^31).
Kernel cuda_gemm_kernel(GemmSpec spec);

}  // namespace baton
