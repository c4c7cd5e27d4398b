// The 16-byte scalars the training kernels take, shared by their host code
// and their CUDA code (so this header includes nothing but <cstdint>).
//
// A device's gradient accumulator holds params + 2 floats: the summed
// gradient, the summed loss, and a tag (the bits of a uint32) naming the
// accumulation it holds. The first chunk of an accumulation on a device
// overwrites what is there and sets the tag; readers take an accumulator
// whose tag is not theirs as zero. Nothing is ever zeroed between steps.
#pragma once

#include <cstdint>

namespace baton::train {

// Where in an accumulator the loss and the tag sit, for `params` parameters.
constexpr std::uint64_t loss_at(std::uint64_t params) {
  return params;
}
constexpr std::uint64_t tag_at(std::uint64_t params) {
  return params + 1;
}

// A publish: the slot's first element in the gradient slots, its index, and
// the accumulation being published.
struct PublishArgs {
  std::uint64_t first = 0;
  std::uint32_t slot = 0;
  std::uint32_t tag = 0;
};
// A micro-batch run a layer at a time (the last one a device runs in a
// step, so that the reduction of each layer's gradient starts while the
// layers below it are still computed): its rows, the accumulation the
// device's accumulator must hold to count, and the slot its layers'
// gradients (the accumulator's plus its own) and its loss are written to.
struct LayerArgs {
  std::uint32_t rows = 0;
  std::uint32_t tag = 0;
  std::uint32_t slot = 0;
  std::uint32_t unused = 0;
};
// The gradient slots an update sums: elements per slot (the parameter count) and slots.
struct SlotArgs {
  std::uint64_t stride = 0;
  std::uint32_t slots = 0;
  std::uint32_t unused = 0;
};
// The accumulators an update (or the loss gather) reads in place, through
// the table of baton::instances(): the parameter count, the table's length
// and the accumulation to take.
struct InstanceArgs {
  std::uint64_t params = 0;
  std::uint32_t devices = 0;
  std::uint32_t tag = 0;
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
