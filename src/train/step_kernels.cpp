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
  // The fp32 code (cpu, and the sim devices that run it; OpenCL) reads the
  // fp32 weights, CUDA's bf16 GEMMs the bf16 copy: neither is moved to a
  // device that does not read it (the other would double what every step's
  // all-gather moves between separate memories).
  k.unused(BackendKind::cpu, {1}).unused(BackendKind::sim, {1}).unused(BackendKind::opencl, {1});
  k.unused(BackendKind::cuda, {0});
  return k;
}

// Bytes of device memory the update touches per parameter, for the sim
// backend's roofline (it is bound by memory): one gradient read, the weight
// and both moments read and written, the bf16 copy written. Read in place,
// each further accumulator adds 4.
double update_traffic(Span s) {
  return 30.0 * double(s.size());
}

// The update of both reductions over items `s`: arguments 1-6 are params, m,
// v, the bf16 weights, AdamWRates and AdamWStep; gradient(i) sums item i's.
template <class Gradient>
void update_span(Span s, const KernelArgs& a, Gradient gradient) {
  float *p = a.ptr<float>(1), *m = a.ptr<float>(2), *v = a.ptr<float>(3);
  std::uint16_t* low = a.ptr<std::uint16_t>(4);
  const AdamWRates r = a.value<AdamWRates>(5);
  const AdamWStep st = a.value<AdamWStep>(6);
  for (std::uint64_t i = s.begin; i < s.end; ++i) {
    adamw_update(r, st, gradient(i), p[i], m[i], v[i]);
    low[i] = bf16_bits(p[i]);
  }
}

Kernel adamw_shared_kernel() {
  Kernel k("train.adamw_shared");
  k.cpu([](Span s, const KernelArgs& a) {
    const float* const* table = a.ptr<const float*>(0);
    const InstanceArgs in = a.value<InstanceArgs>(7);
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
    const SlotArgs sl = a.value<SlotArgs>(7);
    update_span(s, a, [&](std::uint64_t i) {
      float g = 0.0f;
      for (std::uint32_t k = 0; k < sl.slots; ++k) g += slots[k * sl.stride + i];
      return g;
    });
  });
  k.cost([](Span s) { return 12.0 * double(s.size()); });
  k.traffic(update_traffic);
  return k;
}

}  // namespace

double flops_per_sample(const MlpLayout& layout) {
  double macs = 0;
  for (const Layer& l : layout.layers()) macs += double(l.in) * double(l.out);
  return 6.0 * macs;
}

StepKernels make_step_kernels(const MlpLayout& layout, int micro_batch) {
  StepKernels k{grad_kernel(layout, micro_batch),
                adamw_shared_kernel(),
                losses_shared_kernel(),
                publish_kernel(),
                adamw_slots_kernel(),
                collective::touch_kernel()};
#ifdef BATON_TRAIN_CUDA
  add_cuda_code(k, layout);
#endif
#ifdef BATON_TRAIN_OPENCL
  add_opencl_code(k, layout);
#endif
  return k;
}

}  // namespace baton::train
