#include "train/adamw.hpp"

#include "baton/error.hpp"

namespace baton::train {

AdamWRates rates_of(const AdamW& opt) {
  return {opt.lr, opt.beta1, opt.beta2, opt.eps};
}

AdamWStep step_of(const AdamW& opt, int step, float scale) {
  if (step < 1) raise(Errc::invalid_argument, "adamw", "steps count from 1");
  return {opt.weight_decay, scale, 1.0f - std::pow(opt.beta1, float(step)),
          1.0f - std::pow(opt.beta2, float(step))};
}

void adamw_cpu(const AdamW& opt, int step, float scale, std::span<float> params,
               std::span<const float> grad, std::span<float> m, std::span<float> v) {
  if (grad.size() != params.size() || m.size() != params.size() || v.size() != params.size())
    raise(Errc::invalid_argument, "adamw", "parameters, gradient and moments differ in size");
  const AdamWRates r = rates_of(opt);
  const AdamWStep s = step_of(opt, step, scale);
  for (std::size_t i = 0; i < params.size(); ++i)
    adamw_update(r, s, grad[i], params[i], m[i], v[i]);
}

}  // namespace baton::train
