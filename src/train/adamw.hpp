// AdamW (decoupled weight decay, Loshchilov & Hutter) on fp32 master weights.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>

#include "train/kernel_args.hpp"

namespace baton::train {

struct AdamW {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
};

AdamWRates rates_of(const AdamW& opt);
// Step `step` (from 1); throws Error(invalid_argument) below 1.
AdamWStep step_of(const AdamW& opt, int step, float scale);

// One parameter's update from its summed gradient g. Every backend's
// optimizer kernel computes exactly this, in this order.
inline void adamw_update(const AdamWRates& r, const AdamWStep& s, float g, float& p, float& m,
                         float& v) {
  g *= s.scale;
  m = r.beta1 * m + (1.0f - r.beta1) * g;
  v = r.beta2 * v + (1.0f - r.beta2) * g * g;
  const float update = (m / s.correction1) / (std::sqrt(v / s.correction2) + r.eps);
  p -= r.lr * (update + s.weight_decay * p);
}

// The bits of f as bfloat16, rounded to nearest even (as __float2bfloat16).
inline std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}

// The update over whole arrays, on the host.
void adamw_cpu(const AdamW& opt, int step, float scale, std::span<float> params,
               std::span<const float> grad, std::span<float> m, std::span<float> v);

}  // namespace baton::train
