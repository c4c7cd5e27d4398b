#include "train/adamw.hpp"

#include <cmath>

#include "baton/error.hpp"

namespace baton::train {

void adamw_cpu(const AdamW& opt, int step, float scale, std::span<float> params,
               std::span<const float> grad, std::span<float> m, std::span<float> v) {
  if (grad.size() != params.size() || m.size() != params.size() || v.size() != params.size())
    raise(Errc::invalid_argument, "adamw", "parameters, gradient and moments differ in size");
  if (step < 1) raise(Errc::invalid_argument, "adamw", "steps count from 1");
  const float c1 = 1.0f - std::pow(opt.beta1, float(step));
  const float c2 = 1.0f - std::pow(opt.beta2, float(step));
  for (std::size_t i = 0; i < params.size(); ++i) {
    const float g = grad[i] * scale;
    m[i] = opt.beta1 * m[i] + (1.0f - opt.beta1) * g;
    v[i] = opt.beta2 * v[i] + (1.0f - opt.beta2) * g * g;
    const float update = (m[i] / c1) / (std::sqrt(v[i] / c2) + opt.eps);
    params[i] -= opt.lr * (update + opt.weight_decay * params[i]);
  }
}

}  // namespace baton::train
