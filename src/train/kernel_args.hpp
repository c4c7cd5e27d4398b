// The 16-byte scalars the training kernels take, shared by their host code
// and their CUDA code (so this header includes nothing).
#pragma once

#include <cstdint>

namespace baton::train {

// A publish: the slot's first element in the gradient slots, its index.
struct PublishArgs {
  std::uint64_t first = 0;
  std::uint32_t slot = 0;
  std::uint32_t unused = 0;
};
// The gradient slots an update sums: elements per slot (the parameter count) and slots.
struct SlotArgs {
  std::uint64_t stride = 0;
  std::uint32_t slots = 0;
  std::uint32_t unused = 0;
};
// AdamW's hyper-parameters, and what one step adds: the gradient's scale
// (1 / global batch turns summed gradients into the mean's) and the bias
// corrections 1 - beta^step.
struct AdamWRates {
  float lr = 0, beta1 = 0, beta2 = 0, eps = 0;
};
struct AdamWStep {
  float weight_decay = 0, scale = 1, correction1 = 1, correction2 = 1;
};

}  // namespace baton::train
