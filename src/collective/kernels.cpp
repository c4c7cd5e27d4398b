#include "collective/kernels.hpp"

namespace baton::collective {

namespace {

constexpr const char* kCudaSource = R"CU(
extern "C" __global__ void baton_collective_add(unsigned long long begin, unsigned long long end,
                                                float* to, const float* from) {
  const unsigned long long i = begin + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < end) to[i] += from[i];
}
)CU";

constexpr const char* kOpenclSource = R"CL(
__kernel void baton_collective_add(ulong begin, ulong end, __global float* to,
                                   __global const float* from) {
  const ulong i = begin + get_global_id(0);
  if (i < end) to[i] += from[i];
}
)CL";

}  // namespace

Kernel add_kernel() {
  static const Kernel shared = [] {
    Kernel k("collective.add");
    k.cpu([](Span s, const KernelArgs& a) {
      float* to = a.ptr<float>(0);
      const float* from = a.ptr<float>(1);
      for (std::uint64_t i = s.begin; i < s.end; ++i) to[i] += from[i];
    });
    k.cuda_source(kCudaSource, "baton_collective_add");
    k.opencl(kOpenclSource, "baton_collective_add");
    // Two loads and a store an element, as the sim backend counts.
    k.cost([](Span s) { return 3.0 * double(s.size()); });
    k.traffic([](Span s) { return 12.0 * double(s.size()); });
    // A reduction's sums run beside backward's long kernels, not behind them.
    k.side_queue();
    return k;
  }();
  return shared;
}

Kernel touch_kernel() {
  static const Kernel shared = [] {
    Kernel k("collective.touch");
    // Nothing is launched: the copies in are the whole of it.
    k.cpu([](Span, const KernelArgs&) {});
    k.native(BackendKind::cuda, [](void*, Span, const KernelArgs&) {});
    k.native(BackendKind::opencl, [](void*, Span, const KernelArgs&) {});
    k.cost([](Span) { return 0.0; });
    k.prefetch();
    return k;
  }();
  return shared;
}

}  // namespace baton::collective
