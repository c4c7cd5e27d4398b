// The kernels of a data-parallel training step, with code for each backend
// this build has (the sim backend runs the cpu code on virtual time):
//   grad:    items are micro-batches; each device sums the gradient and loss of
//            the micro-batches it runs into its own accumulator (a per-device
//            buffer, tagged with the accumulation: kernel_args.hpp).
//   Where every device shares one memory (the cpu devices, the partitions of
//   one GPU), the accumulators are read in place:
//   adamw_shared: items are parameters; each sums the accumulators in device
//            order (so every split of the work gives the same bits), takes
//            one AdamW step and writes the weight's bf16 copy.
//   losses_shared: one item; the loss of each device's accumulator.
//   Elsewhere each device first copies its accumulator to a slot, which a
//   communicator reduces (collective/):
//   publish: one device's accumulator into its slot, its loss into its loss
//            slot.
//   adamw_slots: as adamw_shared, over gradients read from slots (`slots` of
//            them, `stride` apart, summed in order; the trainer passes the one
//            slot that holds a share's reduced sum).
//   With the reduction overlapped, each device runs its last micro-batch of
//   a step a layer at a time instead, writing its slot itself:
//   forward[i]: one item, a micro-batch; layer i of its forward, keeping
//            what backward needs in a per-device buffer.
//   backward[i][p]: part p of layer i's gradient of that micro-batch plus
//            the accumulator's (backward_parts: rows of its weights), into
//            the slot over those parameters, the last part first (as the
//            buckets are cut from the end); the last layer's last part also
//            writes the loss. Then below[i - 1], the gradient below layer i,
//            before layer i - 1's. From the last layer down: a bucket is
//            reduced once the parts over it are done, while the rest of the
//            layer is computed.
// Both updates write the step's weights beside the ones they read (a step
// redone after a device fails starts from the same weights).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "baton/kernel.hpp"
#include "train/kernel_args.hpp"
#include "train/mlp.hpp"
#include "train/mlp_cpu.hpp"

namespace baton::train {

struct StepKernels {
  // in(params, whole), in(bf16 weights, whole), in(x, Part{mb * inputs}),
  // in(y, Part{mb * outputs}), local(accumulator of params + 2 floats),
  // uint32 mb, uint32 tag. The cpu code computes with the fp32 weights, the
  // GPU code with the bf16 copy the update writes beside them (so a GPU
  // neither casts them nor, on another memory, copies the fp32 ones in).
  Kernel grad;
  // instances(accumulator), in(params), out(next params), inout(m), inout(v),
  // out(next bf16 weights), AdamWRates, AdamWStep, InstanceArgs.
  Kernel adamw_shared;
  // instances(accumulator), out(losses: one per device), InstanceArgs.
  Kernel losses_shared;
  // local(accumulator), out(gradient slots), out(loss slots, one element),
  // PublishArgs, uint64 params; over the slot's elements [first, first + params).
  Kernel publish;
  // in(gradient slots, whole), in(params), out(next params), inout(m),
  // inout(v), out(next bf16 weights), AdamWRates, AdamWStep, SlotArgs. On
  // the side queue.
  Kernel adamw_slots;
  // in(x, whole), in(y, whole), and nothing to do: run on a device, it brings
  // the next batch into that device's memory while the current step computes.
  Kernel stage;
  // Per layer, from the first: in(params, the layer's elements), in(bf16
  // weights, the layer's elements), in(x, Part{mb * inputs}), local(saved:
  // layout.workspace(mb) floats), LayerArgs. A layer waits for its own
  // weights only: the next step's first layers run while the last ones'
  // updated weights are still on their way.
  std::vector<Kernel> forward;
  // Per layer, per part: in(params, whole), in(bf16 weights, whole), in(x,
  // Part), in(y, Part), local(saved), local(accumulator), out(slot, the
  // part's elements), LayerArgs; the last layer's last part also
  // out(losses, the slot's element).
  std::vector<std::vector<Kernel>> backward;
  std::vector<std::vector<OutRows>> parts;  // per layer: each backward kernel's rows
  // Per layer above the first: in(params, whole), in(bf16 weights, whole),
  // local(saved), LayerArgs.
  std::vector<Kernel> below;
};

// Layers larger than two `part_bytes` have their gradient in parts (backward_parts).
StepKernels make_step_kernels(const MlpLayout& layout, int micro_batch, std::uint64_t part_bytes);

// Layer i's weight gradient cut into parts of about `part_bytes`, each its
// rows [begin, end) (the last with the bias): whole for a layer smaller
// than two of them. The parts' elements, in order, cover the layer's.
std::vector<OutRows> backward_parts(const MlpLayout& layout, std::size_t layer,
                                    std::uint64_t part_bytes);

// The GPU code runs a chunk of micro-batches in passes of whole micro-batches,
// about 4096 rows each; every pass reads the weights and reads and writes
// the fp32 gradient once, however few rows it has.
inline std::uint64_t micro_batches_per_pass(int micro_batch) {
  constexpr int kRowsPerPass = 4096;
  return std::uint64_t(std::max(1, kRowsPerPass / std::max(1, micro_batch)));
}

// Floating-point operations of forward and backward per sample (2 per
// multiply-add, backward twice forward): for throughput figures and sim costs.
double flops_per_sample(const MlpLayout& layout);

}  // namespace baton::train
