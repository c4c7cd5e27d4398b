// CUDA versions of the built-in kernels, compiled by nvcc at build time into
// one fatbin (sm_80, sm_90 and compute_90 PTX) embedded in libbaton; see
// src/workloads/builtin_fatbin.hpp. Parameters follow include/baton/kernel.hpp:
// (begin, end, ...), item begin + global thread id, nothing done at or past end.

extern "C" __global__ void baton_fma(unsigned long long begin, unsigned long long end,
                                     const float* in, float* out, float a, float b, int iters) {
  const unsigned long long i = begin + blockIdx.x * 256ull + threadIdx.x;
  if (i >= end) return;
  float x = in[i];
  for (int k = 0; k < iters; ++k) x = fmaf(x, a, b);
  out[i] = x;
}

extern "C" __global__ void baton_fma_rows(unsigned long long begin, unsigned long long end,
                                          const float* in, float* out, float a, float b, int iters,
                                          int width) {
  const unsigned long long i = begin + blockIdx.x * 256ull + threadIdx.x;
  if (i >= end) return;
  if (width == 0) {
    float x = in[0] + float(i % 1024) / 1024.0f;
    for (int k = 0; k < iters; ++k) x = fmaf(x, a, b);
    out[i] = x;
    return;
  }
  for (unsigned long long j = i * width; j < (i + 1) * width; ++j) {
    float x = in[j];
    for (int k = 0; k < iters; ++k) x = fmaf(x, a, b);
    out[j] = x;
  }
}

extern "C" __global__ void baton_saxpy(unsigned long long begin, unsigned long long end, float a,
                                       const float* x, float* y) {
  const unsigned long long i = begin + blockIdx.x * 256ull + threadIdx.x;
  if (i >= end) return;
  y[i] = a * x[i] + y[i];
}

extern "C" __global__ void baton_empty(unsigned long long, unsigned long long) {}

extern "C" __global__ void baton_count(unsigned long long begin, unsigned long long end, int* c) {
  const unsigned long long i = begin + blockIdx.x * 256ull + threadIdx.x;
  if (i >= end) return;
  c[i] += 1;
}

extern "C" __global__ void baton_tally(unsigned long long begin, unsigned long long end, int* c) {
  const unsigned long long i = begin + blockIdx.x * 256ull + threadIdx.x;
  if (i >= end) return;
  atomicAdd(c, 1);
}

extern "C" __global__ void baton_sum_instances(unsigned long long begin, unsigned long long end,
                                               const int* const* table, int* out, int devices) {
  if (begin + blockIdx.x * 256ull + threadIdx.x != begin || begin >= end) return;
  int sum = 0;
  for (int d = 0; d < devices; ++d)
    if (table[d]) sum += table[d][0];
  out[0] = sum;
}
