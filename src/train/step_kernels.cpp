#include "train/step_kernels.hpp"

#include <array>
#include <bit>
#include <mutex>
#include <vector>

#include "baton/error.hpp"
#include "collective/kernels.hpp"
#include "train/adamw.hpp"
#include "train/mlp_cpu.hpp"
#ifdef BATON_TRAIN_CUDA
#include "train/cuda/grad_cuda.hpp"
#endif
#ifdef BATON_TRAIN_OPENCL
#include "train/opencl/grad_opencl.hpp"
#endif

namespace baton::train {

namespace {

// The threads of one cpu device run pieces of a chunk side by side; one
// lock per accumulator (by address, among these) says which of them may
// sum into it directly.
std::mutex& accumulator_lock(const void* accumulator) {
  static std::array<std::mutex, 16> locks;
  return locks[(reinterpret_cast<std::uintptr_t>(accumulator) >> 6) % locks.size()];
}

bool tagged(const float* acc, std::uint64_t params, std::uint32_t tag) {
  return std::bit_cast<std::uint32_t>(acc[tag_at(params)]) == tag;
}

// The fp32 code (cpu, and the sim devices that run it; OpenCL) reads the
// fp32 weights (argument 0), CUDA's bf16 GEMMs the bf16 copy (argument 1):
// neither is moved to a device that does not read it (the other would double
// what every step's all-gather moves between separate memories).
void weights_read(Kernel& k) {
  k.unused(BackendKind::cpu, {1}).unused(BackendKind::sim, {1}).unused(BackendKind::opencl, {1});
  k.unused(BackendKind::cuda, {0});
}

// Device memory traffic, for the sim backend's roofline. Per row of a
// micro-batch: its input and target in fp32, each layer's output and
// pre-activation in bf16, written and read back.
double row_traffic(const MlpLayout& layout) {
  const MlpShape& shape = layout.shape();
  double bytes = 4.0 * (shape.inputs + shape.outputs);
  for (const Layer& l : layout.layers()) bytes += 8.0 * l.out;
  return bytes;
}
// Per parameter of a pass's backward: the bf16 weight read twice (forward,
// the data gradient), the fp32 gradient read and written.
constexpr double kBackwardBytesPerParam = 12;

Kernel grad_kernel(const MlpLayout& layout, int micro_batch) {
  Kernel k("train.grad");
  k.cpu([layout](Span s, const KernelArgs& a) {
    if (a.size() != 7) raise(Errc::invalid_argument, "train.grad", "expects 7 arguments");
    const std::uint64_t mb = a.value<std::uint32_t>(5);
    const std::uint32_t tag = a.value<std::uint32_t>(6);
    const std::uint64_t rows = s.size() * mb, first_row = s.begin * mb;
    if (rows > std::uint64_t(INT32_MAX))
      raise(Errc::invalid_argument, "train.grad", "a chunk of more than 2^31 rows");
    const std::size_t params = layout.params();
    const float* x = a.ptr<float>(2) + first_row * std::uint64_t(layout.shape().inputs);
    const float* y = a.ptr<float>(3) + first_row * std::uint64_t(layout.shape().outputs);
    float* acc = a.ptr<float>(4);
    thread_local std::vector<float> grad, workspace;
    auto start_if_new = [&] {  // the first piece of this accumulation here overwrites
      if (tagged(acc, params, tag)) return;
      std::fill(acc, acc + params + 1, 0.0f);
      acc[tag_at(params)] = std::bit_cast<float>(tag);
    };
    // The piece sums straight into the accumulator where no other thread of
    // the device holds it (always, on a device of one thread); else into a
    // scratch added after.
    std::unique_lock lock(accumulator_lock(acc), std::try_to_lock);
    if (lock.owns_lock()) {
      start_if_new();
      acc[loss_at(params)] +=
          float(loss_and_grad_cpu(layout, a.ptr<float>(0), x, y, int(rows), acc, workspace));
      return;
    }
    grad.assign(params, 0.0f);
    const double loss =
        loss_and_grad_cpu(layout, a.ptr<float>(0), x, y, int(rows), grad.data(), workspace);
    lock.lock();
    start_if_new();
    for (std::size_t i = 0; i < params; ++i) acc[i] += grad[i];
    acc[loss_at(params)] += float(loss);
  });
  const double per_micro_batch = flops_per_sample(layout) * micro_batch;
  k.cost([per_micro_batch](Span s) { return per_micro_batch * double(s.size()); });
  // In passes, each over every weight and gradient.
  const std::uint64_t per_pass = micro_batches_per_pass(micro_batch);
  const double per_pass_bytes = kBackwardBytesPerParam * double(layout.params());
  const double per_micro_batch_bytes = row_traffic(layout) * micro_batch;
  k.traffic([=](Span s) {
    const double passes = double((s.size() + per_pass - 1) / per_pass);
    return passes * per_pass_bytes + per_micro_batch_bytes * double(s.size());
  });
  weights_read(k);
  return k;
}

Kernel forward_kernel(const MlpLayout& layout, std::size_t layer, int micro_batch) {
  Kernel k("train.forward." + std::to_string(layer));
  k.cpu([layout, layer](Span s, const KernelArgs& a) {
    const LayerArgs l = a.value<LayerArgs>(4);
    const float* x = a.ptr<float>(2) + s.begin * l.rows * std::uint64_t(layout.shape().inputs);
    forward_layer_cpu(layout, layer, a.ptr<float>(0), x, int(l.rows), a.ptr<float>(3));
  });
  // Its multiply-adds, 2 FLOP each (flops_per_sample's forward share).
  const auto& layers = layout.layers();
  const Layer& at = layers[layer];
  const double per_micro_batch = 2.0 * double(at.in) * double(at.out) * micro_batch;
  k.cost([per_micro_batch](Span s) { return per_micro_batch * double(s.size()); });
  // Its bf16 weights read once; per row, its outputs (row_traffic's share),
  // the inputs read by the first layer, the targets by the last.
  const MlpShape& shape = layout.shape();
  const double weight_bytes = 2.0 * double(at.end() - at.weight);
  double row_bytes = 8.0 * at.out;
  if (layer == 0) row_bytes += 4.0 * shape.inputs;
  if (layer + 1 == layers.size()) row_bytes += 4.0 * shape.outputs;
  const double per_micro_batch_bytes = row_bytes * micro_batch / 2;
  k.traffic([=](Span s) { return weight_bytes + per_micro_batch_bytes * double(s.size()); });
  weights_read(k);
  return k;
}

Kernel backward_kernel(const MlpLayout& layout, std::size_t layer, OutRows part, int micro_batch) {
  const Layer& at = layout.layers()[layer];
  const bool whole = part.begin == 0 && part.end == at.out;
  std::string name = "train.backward." + std::to_string(layer);
  if (!whole) {  // appended piece by piece: g++ 12 warns (wrongly) on a + chain here
    name += '.';
    name += std::to_string(part.begin);
    name += '-';
    name += std::to_string(part.end);
  }
  Kernel k(name);
  const bool loss = layer + 1 == layout.layers().size() && part.end == at.out;
  k.cpu([layout, layer, part, loss](Span s, const KernelArgs& a) {
    const LayerArgs l = a.value<LayerArgs>(7);
    const std::uint64_t first_row = s.begin * l.rows;
    const std::size_t params = layout.params();
    const float* acc = a.ptr<float>(5);
    const bool counts = tagged(acc, params, l.tag);  // else this device ran nothing before
    const double sum =
        layer_rows_cpu(layout, layer, a.ptr<float>(2) + first_row * layout.shape().inputs,
                       a.ptr<float>(3) + first_row * layout.shape().outputs, int(l.rows),
                       a.ptr<float>(4), counts ? acc : nullptr, a.ptr<float>(6), part);
    if (loss) a.ptr<float>(8)[l.slot] = float(sum) + (counts ? acc[loss_at(params)] : 0.0f);
  });
  // The rows' share of the weight gradient's multiply-adds, over the micro-batch.
  const double per_micro_batch = 2.0 * double(at.in) * double(part.end - part.begin) * micro_batch;
  k.cost([per_micro_batch](Span s) { return per_micro_batch * double(s.size()); });
  // Their fp32 gradient read and written.
  const double bytes = 8.0 * double(at.in) * double(part.end - part.begin);
  k.traffic([bytes](Span) { return bytes; });
  weights_read(k);
  return k;
}

Kernel below_kernel(const MlpLayout& layout, std::size_t layer, int micro_batch) {
  Kernel k("train.below." + std::to_string(layer));
  k.cpu([layout, layer](Span, const KernelArgs& a) {
    const LayerArgs l = a.value<LayerArgs>(3);
    below_layer_cpu(layout, layer, a.ptr<float>(0), int(l.rows), a.ptr<float>(2));
  });
  const Layer& at = layout.layers()[layer];
  const double per_micro_batch = 2.0 * double(at.in) * double(at.out) * micro_batch;
  k.cost([per_micro_batch](Span s) { return per_micro_batch * double(s.size()); });
  // The rest of a backward's bytes a parameter: the weights read (a GPU's
  // bf16 copy, read twice).
  const double bytes = (kBackwardBytesPerParam - 8.0) * double(at.end() - at.weight);
  k.traffic([bytes](Span) { return bytes; });
  weights_read(k);
  return k;
}

// Bytes of device memory the update touches per parameter, for the sim
// backend's roofline (it is bound by memory): one gradient read, the weight
// and both moments read and written, the bf16 copy written. Read in place,
// each further accumulator adds 4.
double update_traffic(Span s) {
  return 30.0 * double(s.size());
}

// The update of both reductions over items `s`: arguments 1-7 are the
// weights it starts from, the weights it writes, m, v, the bf16 copy of what
// it writes, AdamWRates and AdamWStep; gradient(i) sums item i's.
template <class Gradient>
void update_span(Span s, const KernelArgs& a, Gradient gradient) {
  const float* from = a.ptr<float>(1);
  float *p = a.ptr<float>(2), *m = a.ptr<float>(3), *v = a.ptr<float>(4);
  std::uint16_t* low = a.ptr<std::uint16_t>(5);
  const AdamWRates r = a.value<AdamWRates>(6);
  const AdamWStep st = a.value<AdamWStep>(7);
  for (std::uint64_t i = s.begin; i < s.end; ++i) {
    float w = from[i];
    adamw_update(r, st, gradient(i), w, m[i], v[i]);
    p[i] = w;
    low[i] = bf16_bits(w);
  }
}

Kernel adamw_shared_kernel() {
  Kernel k("train.adamw_shared");
  k.cpu([](Span s, const KernelArgs& a) {
    const float* const* table = a.ptr<const float*>(0);
    const InstanceArgs in = a.value<InstanceArgs>(8);
    thread_local std::vector<const float*> live;
    live.clear();
    for (std::uint32_t d = 0; d < in.devices; ++d)
      if (table[d] && tagged(table[d], in.params, in.tag)) live.push_back(table[d]);
    update_span(s, a, [&](std::uint64_t i) {
      float g = 0.0f;
      for (const float* acc : live) g += acc[i];
      return g;
    });
  });
  k.cost([](Span s) { return 12.0 * double(s.size()); });
  k.traffic(update_traffic);
  return k;
}

Kernel losses_shared_kernel() {
  Kernel k("train.losses_shared");
  k.cpu([](Span s, const KernelArgs& a) {
    if (s.empty()) return;
    const float* const* table = a.ptr<const float*>(0);
    float* losses = a.ptr<float>(1);
    const InstanceArgs in = a.value<InstanceArgs>(2);
    for (std::uint32_t d = 0; d < in.devices; ++d)
      losses[d] =
          table[d] && tagged(table[d], in.params, in.tag) ? table[d][loss_at(in.params)] : 0.0f;
  });
  return k;
}

Kernel publish_kernel() {
  Kernel k("train.publish");
  k.cpu([](Span s, const KernelArgs& a) {
    const float* acc = a.ptr<float>(0);
    float* slots = a.ptr<float>(1);
    const PublishArgs p = a.value<PublishArgs>(3);
    const std::uint64_t params = a.value<std::uint64_t>(4);
    const bool mine = tagged(acc, params, p.tag);
    for (std::uint64_t i = s.begin; i < s.end; ++i) slots[i] = mine ? acc[i - p.first] : 0.0f;
    if (s.begin == p.first) a.ptr<float>(2)[p.slot] = mine ? acc[loss_at(params)] : 0.0f;
  });
  k.cost([](Span s) { return double(s.size()); });
  k.traffic([](Span s) { return 8.0 * double(s.size()); });  // a float read, one written
  return k;
}

Kernel adamw_slots_kernel() {
  Kernel k("train.adamw_slots");
  k.cpu([](Span s, const KernelArgs& a) {
    const float* slots = a.ptr<float>(0);
    const SlotArgs sl = a.value<SlotArgs>(8);
    update_span(s, a, [&](std::uint64_t i) {
      float g = 0.0f;
      for (std::uint32_t k = 0; k < sl.slots; ++k) g += slots[k * sl.stride + i];
      return g;
    });
  });
  k.cost([](Span s) { return 12.0 * double(s.size()); });
  k.traffic(update_traffic);
  k.side_queue();  // a bucket's update runs while the next layers' backward does
  return k;
}

}  // namespace

std::vector<OutRows> backward_parts(const MlpLayout& layout, std::size_t layer,
                                    std::uint64_t part_bytes) {
  const Layer& l = layout.layers()[layer];
  const std::uint64_t bytes = 4 * std::uint64_t(l.end() - l.weight);
  const int parts =
      int(std::clamp<std::uint64_t>(bytes / std::max<std::uint64_t>(part_bytes, 1), 1, l.out));
  std::vector<OutRows> out;
  for (int p = 0; p < parts; ++p)
    out.push_back(
        {int(std::int64_t(l.out) * p / parts), int(std::int64_t(l.out) * (p + 1) / parts)});
  return out;
}

double flops_per_sample(const MlpLayout& layout) {
  double macs = 0;
  for (const Layer& l : layout.layers()) macs += double(l.in) * double(l.out);
  return 6.0 * macs;
}

StepKernels make_step_kernels(const MlpLayout& layout, int micro_batch, std::uint64_t part_bytes) {
  StepKernels k{grad_kernel(layout, micro_batch),
                adamw_shared_kernel(),
                losses_shared_kernel(),
                publish_kernel(),
                adamw_slots_kernel(),
                collective::touch_kernel(),
                {},
                {},
                {},
                {}};
  for (std::size_t i = 0; i < layout.layers().size(); ++i) {
    k.forward.push_back(forward_kernel(layout, i, micro_batch));
    k.parts.push_back(backward_parts(layout, i, part_bytes));
    std::vector<Kernel> parts;
    for (OutRows part : k.parts.back())
      parts.push_back(backward_kernel(layout, i, part, micro_batch));
    k.backward.push_back(std::move(parts));
    if (i > 0) k.below.push_back(below_kernel(layout, i, micro_batch));
  }
#ifdef BATON_TRAIN_CUDA
  add_cuda_code(k, layout, micro_batch);
#endif
#ifdef BATON_TRAIN_OPENCL
  add_opencl_code(k, layout);
#endif
  return k;
}

}  // namespace baton::train
