#include "train/cuda/update_cuda.hpp"

#include <algorithm>
#include <cstdint>

#include "baton/error.hpp"
#include "train/cuda/stream_state.hpp"
#include "train/kernel_args.hpp"

namespace baton::train {

namespace {

using namespace cuda_step;

// The update is bound by memory: a grid of a few blocks per SM, each thread
// striding over four parameters at a time (train_kernels.cu), keeps enough
// loads in flight, also on a partition with few SMs; one thread per
// parameter launched 850 000 blocks for 218 M parameters.
constexpr std::uint64_t kMaxBlocks = 4096;

// As the kernel's table of sources (accumulators or slots) sits in shared memory.
constexpr std::uint32_t kMaxSources = 64;

// `sources(args)`: how many gradients the update sums, read once the
// arguments are known to be there.
template <class Sources>
void update(CUfunction(Functions::*fn), const char* where, CUstream stream, Span span,
            const KernelArgs& args, Sources sources) {
  if (args.size() != 9) raise(Errc::invalid_argument, where, "expects 9 arguments");
  if (const std::uint32_t n = sources(args); n > kMaxSources)
    raise(Errc::invalid_argument, where,
          "sums at most " + std::to_string(kMaxSources) + " gradients; got " + std::to_string(n));
  if (span.empty()) return;
  StreamState& st = state_for(stream, where);
  std::uint64_t begin = span.begin, end = span.end;
  void* ptrs[6];  // the gradients, the weights from and to, m, v, the bf16 copy
  for (int i = 0; i < 6; ++i) ptrs[i] = args[std::size_t(i)].memory.ptr;
  const unsigned blocks =
      unsigned(std::clamp<std::uint64_t>((span.size() + 1023) / 1024, 1, kMaxBlocks));
  launch(st.fn.*fn, stream, blocks, 1,
         {&begin, &end, &ptrs[0], &ptrs[1], &ptrs[2], &ptrs[3], &ptrs[4], &ptrs[5],
          const_cast<unsigned char*>(args[6].value), const_cast<unsigned char*>(args[7].value),
          const_cast<unsigned char*>(args[8].value)},
         where);
}

}  // namespace

void add_cuda_update(StepKernels& k) {
  k.adamw_shared.native(BackendKind::cuda, [](void* stream, Span span, const KernelArgs& args) {
    update(&Functions::adamw_shared, "train.adamw_shared", static_cast<CUstream>(stream), span,
           args, [](const KernelArgs& a) { return a.value<InstanceArgs>(8).devices; });
  });
  k.adamw_slots.native(BackendKind::cuda, [](void* stream, Span span, const KernelArgs& args) {
    update(&Functions::adamw_slots, "train.adamw_slots", static_cast<CUstream>(stream), span, args,
           [](const KernelArgs& a) { return a.value<SlotArgs>(8).slots; });
  });
}

}  // namespace baton::train
