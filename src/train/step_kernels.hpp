// The three kernels of a data-parallel training step, with code for each
// backend this build has (the sim backend runs the cpu code on virtual time):
//   grad:    items are micro-batches; each device adds the summed gradient and
//            loss of the micro-batches it runs into its own accumulator.
//   publish: one device copies its accumulator into its slot of the step's
//            gradient slots (and its loss), and zeroes it for the next step.
//   adamw:   items are parameters; each sums the slots in slot order (so every
//            split of the work gives the same bits) and takes one AdamW step.
#pragma once

#include <cstdint>

#include "baton/kernel.hpp"
#include "train/kernel_args.hpp"
#include "train/mlp.hpp"

namespace baton::train {

struct StepKernels {
  // in(params, whole), in(x, Part{mb * inputs}), in(y, Part{mb * outputs}),
  // local(accumulator of params + 1 floats: the gradient, then the loss),
  // uint32 mb, uint32 weights version (a GPU keeps a bf16 copy of the
  // weights, made again when the version changes: the step number).
  Kernel grad;
  // local(accumulator), out(gradient slots), out(loss slots, one element),
  // PublishArgs, uint64 params; over the slot's elements [first, first + params).
  Kernel publish;
  // in(gradient slots, whole), inout(params), inout(m), inout(v), AdamWRates,
  // AdamWStep, SlotArgs.
  Kernel adamw;
};

StepKernels make_step_kernels(const MlpLayout& layout, int micro_batch);

// Floating-point operations of forward and backward per sample (2 per
// multiply-add, backward twice forward): for throughput figures and sim costs.
double flops_per_sample(const MlpLayout& layout);

}  // namespace baton::train
