// The CUDA kernels of the training step, compiled by nvcc at build time into
// a fatbin embedded in baton_train (train_fatbin.hpp). The first four follow
// the runtime's kernel convention (begin, end, ...; include/baton/kernel.hpp)
// and run as baton kernels (step_kernels.hpp says what each does). The others
// are steps of the native grad kernel (grad_cuda.cpp), launched by it on its
// stream.
#include <cuda_bf16.h>

#include <cstdint>

#include "train/kernel_args.hpp"

using baton::train::AdamWRates;
using baton::train::AdamWStep;
using baton::train::InstanceArgs;
using baton::train::PublishArgs;
using baton::train::SlotArgs;

namespace {

__device__ unsigned long long item() {
  return blockIdx.x * 256ull + threadIdx.x;
}

constexpr float kSqrt2OverPi = 0.7978845608028654f, kCubic = 0.044715f;

__device__ float gelu(float z) {
  return 0.5f * z * (1.0f + tanhf(kSqrt2OverPi * (z + kCubic * z * z * z)));
}
__device__ float gelu_grad(float z) {
  const float t = tanhf(kSqrt2OverPi * (z + kCubic * z * z * z));
  return 0.5f * (1.0f + t) + 0.5f * z * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3 * kCubic * z * z);
}

}  // namespace

__device__ bool tagged(const float* acc, unsigned long long params, unsigned tag) {
  return __float_as_uint(acc[baton::train::tag_at(params)]) == tag;
}

__device__ void adamw(const AdamWRates& r, const AdamWStep& s, float g, float* p, float* m,
                      float* v, __nv_bfloat16* low) {
  float pi = *p, mi = *m, vi = *v;
  g *= s.scale;
  mi = r.beta1 * mi + (1.0f - r.beta1) * g;
  vi = r.beta2 * vi + (1.0f - r.beta2) * g * g;
  const float update = (mi / s.correction1) / (sqrtf(vi / s.correction2) + r.eps);
  pi -= r.lr * (update + s.weight_decay * pi);
  *p = pi, *m = mi, *v = vi;
  *low = __float2bfloat16(pi);
}

extern "C" __global__ void baton_train_publish(unsigned long long begin, unsigned long long end,
                                               const float* acc, float* slots, float* losses,
                                               PublishArgs p, unsigned long long params) {
  const unsigned long long i = begin + item();
  if (i >= end) return;
  const bool mine = tagged(acc, params, p.tag);
  slots[i] = mine ? acc[i - p.first] : 0.0f;
  if (i == p.first) losses[p.slot] = mine ? acc[baton::train::loss_at(params)] : 0.0f;
}

extern "C" __global__ void baton_train_adamw_slots(unsigned long long begin, unsigned long long end,
                                                   const float* slots, float* p, float* m, float* v,
                                                   __nv_bfloat16* low, AdamWRates r, AdamWStep s,
                                                   SlotArgs sl) {
  const unsigned long long i = begin + item();
  if (i >= end) return;
  float g = 0.0f;
  for (unsigned k = 0; k < sl.slots; ++k) g += slots[k * sl.stride + i];
  adamw(r, s, g, p + i, m + i, v + i, low + i);
}

// The accumulators in place: a device's counts only when it holds this
// accumulation (its tag), summed in device order.
extern "C" __global__ void baton_train_adamw_shared(unsigned long long begin,
                                                    unsigned long long end,
                                                    const float* const* table, float* p, float* m,
                                                    float* v, __nv_bfloat16* low, AdamWRates r,
                                                    AdamWStep s, InstanceArgs in) {
  const unsigned long long i = begin + item();
  if (i >= end) return;
  float g = 0.0f;
  for (unsigned d = 0; d < in.devices; ++d) {
    const float* acc = table[d];
    if (acc && tagged(acc, in.params, in.tag)) g += acc[i];
  }
  adamw(r, s, g, p + i, m + i, v + i, low + i);
}

extern "C" __global__ void baton_train_losses_shared(unsigned long long begin,
                                                     unsigned long long end,
                                                     const float* const* table, float* losses,
                                                     InstanceArgs in) {
  const unsigned long long d = item();
  if (begin >= end || d >= in.devices) return;
  const float* acc = table[d];
  losses[d] = acc && tagged(acc, in.params, in.tag) ? acc[baton::train::loss_at(in.params)] : 0.0f;
}

// ---- steps of the grad kernel ----

extern "C" __global__ void baton_train_to_bf16(unsigned long long n, const float* in,
                                               __nv_bfloat16* out) {
  for (unsigned long long i = item(); i < n; i += gridDim.x * 256ull)
    out[i] = __float2bfloat16(in[i]);
}

// dz = prediction - target, elementwise, and the sum of 0.5 * dz^2 added to *loss.
extern "C" __global__ void baton_train_loss(unsigned long long n, const __nv_bfloat16* prediction,
                                            const float* target, __nv_bfloat16* dz, float* loss) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (unsigned long long i = item(); i < n; i += gridDim.x * 256ull) {
    const float d = __bfloat162float(prediction[i]) - target[i];
    dz[i] = __float2bfloat16(d);
    sum += 0.5f * d * d;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(loss, partial[0]);
}

// db[c] += sum over rows of dz[r][c] (row-major rows x cols): a thread per
// column and a slice of rows (blockIdx.y), adding its slice's sum.
extern "C" __global__ void baton_train_bias_grad(unsigned rows, unsigned cols,
                                                 const __nv_bfloat16* dz, float* db) {
  const unsigned c = blockIdx.x * 256u + threadIdx.x;
  if (c >= cols) return;
  const unsigned per = (rows + gridDim.y - 1) / gridDim.y;
  const unsigned r0 = blockIdx.y * per, r1 = min(rows, r0 + per);
  float sum = 0.0f;
  for (unsigned r = r0; r < r1; ++r) sum += __bfloat162float(dz[std::size_t(r) * cols + c]);
  if (r1 > r0) atomicAdd(db + c, sum);
}

// Where cuBLASLt has no fused epilogue for a GEMM: z += bias, then aux = z
// and z = gelu(z) (gelu != 0), over row-major rows x cols.
extern "C" __global__ void baton_train_bias_gelu(unsigned long long n, unsigned cols,
                                                 __nv_bfloat16* z, __nv_bfloat16* aux,
                                                 const __nv_bfloat16* bias, int gelu_on) {
  for (unsigned long long i = item(); i < n; i += gridDim.x * 256ull) {
    const float v = __bfloat162float(z[i]) + __bfloat162float(bias[i % cols]);
    if (aux) aux[i] = __float2bfloat16(v);
    z[i] = __float2bfloat16(gelu_on ? gelu(v) : v);
  }
}

// d *= gelu'(aux), elementwise.
extern "C" __global__ void baton_train_gelu_backward(unsigned long long n, __nv_bfloat16* d,
                                                     const __nv_bfloat16* aux) {
  for (unsigned long long i = item(); i < n; i += gridDim.x * 256ull)
    d[i] = __float2bfloat16(__bfloat162float(d[i]) * gelu_grad(__bfloat162float(aux[i])));
}
