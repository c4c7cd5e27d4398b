// AdamW (decoupled weight decay, Loshchilov & Hutter) on fp32 master weights.
#pragma once

#include <span>

namespace baton::train {

struct AdamW {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
};

// Step `step` (from 1) with gradient grad * scale (scale: 1 / global batch
// turns summed gradients into the mean's); m and v are the moment estimates.
void adamw_cpu(const AdamW& opt, int step, float scale, std::span<float> params,
               std::span<const float> grad, std::span<float> m, std::span<float> v);

}  // namespace baton::train
