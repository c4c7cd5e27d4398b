// The CUDA kernels of the training step, compiled by nvcc at build time into
// a fatbin embedded in baton_train (train_fatbin.hpp). publish and
// losses_shared follow the runtime's kernel convention (begin, end, ...;
// include/baton/kernel.hpp) and run as baton kernels (step_kernels.hpp says
// what each does); the two updates take the same arguments but are launched
// by update_cuda.cpp on a grid of its own. The others are steps of the native
// grad kernel (grad_cuda.cpp), launched by it on its stream.
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

__device__ float adamw(const AdamWRates& r, const AdamWStep& s, float g, float& p, float& m,
                       float& v) {
  g *= s.scale;
  m = r.beta1 * m + (1.0f - r.beta1) * g;
  v = r.beta2 * v + (1.0f - r.beta2) * g * g;
  const float update = (m / s.correction1) / (sqrtf(v / s.correction2) + r.eps);
  p -= r.lr * (update + s.weight_decay * p);
  return p;
}

// The gradients an update sums, in order (accumulators in device order, or
// slots in slot order), gathered by a block's first thread into shared memory.
struct Sources {
  static constexpr unsigned kMax = 64;  // the host launcher checks the count
  const float* at[kMax];
  unsigned count;
  bool quads;  // every array is 16-byte aligned: four parameters a load
};

__device__ bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

// AdamW over parameters [begin, end), from the weights `from` to `p`
// (another array: the step's weights stay for a redo), grid-stride: four at a time with
// 16-byte loads where every array allows it (the update is memory-bound), one
// at a time at the unaligned edges. Each parameter's arithmetic is the same
// either way, so every split gives the same bits.
__device__ void adamw_range(unsigned long long begin, unsigned long long end, const Sources& src,
                            const float* from, float* p, float* m, float* v, __nv_bfloat16* low,
                            const AdamWRates& r, const AdamWStep& s) {
  const unsigned long long stride = 256ull * gridDim.x, t = item();
  auto one = [&](unsigned long long i) {
    float g = 0.0f;
    for (unsigned k = 0; k < src.count; ++k) g += src.at[k][i];
    float w = from[i];
    low[i] = __float2bfloat16(adamw(r, s, g, w, m[i], v[i]));
    p[i] = w;
  };
  const bool quads = src.quads && aligned16(from) && aligned16(p) && aligned16(m) && aligned16(v) &&
                     (reinterpret_cast<unsigned long long>(low) & 7) == 0;
  const unsigned long long head = quads ? min(end, (begin + 3) & ~3ull) : end;
  const unsigned long long n4 = (end - head) / 4;
  for (unsigned long long i = begin + t; i < head; i += stride) one(i);
  for (unsigned long long q = t; q < n4; q += stride) {
    const unsigned long long i = head + 4 * q;
    float4 g = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (unsigned k = 0; k < src.count; ++k) {
      const float4 a = *reinterpret_cast<const float4*>(src.at[k] + i);
      g.x += a.x, g.y += a.y, g.z += a.z, g.w += a.w;
    }
    float4 pp = *reinterpret_cast<const float4*>(from + i), mm = *reinterpret_cast<float4*>(m + i),
           vv = *reinterpret_cast<float4*>(v + i);
    const __nv_bfloat162 lo = __floats2bfloat162_rn(adamw(r, s, g.x, pp.x, mm.x, vv.x),
                                                    adamw(r, s, g.y, pp.y, mm.y, vv.y));
    const __nv_bfloat162 hi = __floats2bfloat162_rn(adamw(r, s, g.z, pp.z, mm.z, vv.z),
                                                    adamw(r, s, g.w, pp.w, mm.w, vv.w));
    *reinterpret_cast<float4*>(p + i) = pp;
    *reinterpret_cast<float4*>(m + i) = mm;
    *reinterpret_cast<float4*>(v + i) = vv;
    *reinterpret_cast<__nv_bfloat162*>(low + i) = lo;
    *reinterpret_cast<__nv_bfloat162*>(low + i + 2) = hi;
  }
  for (unsigned long long i = head + 4 * n4 + t; i < end; i += stride) one(i);
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

// The two updates are launched by update_cuda.cpp with a grid of its own
// choosing (not one thread per item).
extern "C" __global__ void baton_train_adamw_slots(unsigned long long begin, unsigned long long end,
                                                   const float* slots, const float* from, float* p,
                                                   float* m, float* v, __nv_bfloat16* low,
                                                   AdamWRates r, AdamWStep s, SlotArgs sl) {
  __shared__ Sources src;
  if (threadIdx.x == 0) {
    src.count = sl.slots;
    src.quads = true;
    for (unsigned k = 0; k < sl.slots; ++k) {
      src.at[k] = slots + k * sl.stride;
      src.quads = src.quads && aligned16(src.at[k]);
    }
  }
  __syncthreads();
  adamw_range(begin, end, src, from, p, m, v, low, r, s);
}

// The accumulators in place: a device's counts only when it holds this
// accumulation (its tag), summed in device order.
extern "C" __global__ void baton_train_adamw_shared(
    unsigned long long begin, unsigned long long end, const float* const* table, const float* from,
    float* p, float* m, float* v, __nv_bfloat16* low, AdamWRates r, AdamWStep s, InstanceArgs in) {
  __shared__ Sources src;
  if (threadIdx.x == 0) {
    src.count = 0;
    src.quads = true;
    for (unsigned d = 0; d < in.devices; ++d) {
      const float* acc = table[d];
      if (!acc || !tagged(acc, in.params, in.tag)) continue;
      src.at[src.count++] = acc;
      src.quads = src.quads && aligned16(acc);
    }
  }
  __syncthreads();
  adamw_range(begin, end, src, from, p, m, v, low, r, s);
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
