#include "workloads/kernels_opencl.hpp"

namespace baton::workloads {

const char* opencl_kernels_source() {
  return R"CL(
__kernel void baton_fma(ulong begin, ulong end, __global const float* in, __global float* out,
                        float a, float b, int iters) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  float x = in[i];
  for (int k = 0; k < iters; ++k) x = x * a + b;
  out[i] = x;
}

__kernel void baton_fma_rows(ulong begin, ulong end, __global const float* in,
                             __global float* out, float a, float b, int iters, int width) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  if (width == 0) {
    float x = in[0] + (float)(i % 1024) / 1024.0f;
    for (int k = 0; k < iters; ++k) x = x * a + b;
    out[i] = x;
    return;
  }
  for (ulong j = i * width; j < (i + 1) * width; ++j) {
    float x = in[j];
    for (int k = 0; k < iters; ++k) x = x * a + b;
    out[j] = x;
  }
}

__kernel void baton_saxpy(ulong begin, ulong end, float a, __global const float* x,
                          __global float* y) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  y[i] = a * x[i] + y[i];
}

__kernel void baton_count(ulong begin, ulong end, __global int* c) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  c[i] += 1;
}

__kernel void baton_tally(ulong begin, ulong end, __global int* c) {
  const ulong i = begin + get_global_id(0);
  if (i >= end) return;
  atomic_inc(c);
}

__kernel void baton_empty(ulong begin, ulong end) {
  (void)begin;
  (void)end;
}
)CL";
}

}  // namespace baton::workloads
