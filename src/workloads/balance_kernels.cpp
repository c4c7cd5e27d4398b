#include "workloads/balance_kernels.hpp"

namespace baton::workloads {

Kernel fma_kernel(int iters_for_sim_cost, bool with_cpu) {
  Kernel k("fma");
  if (with_cpu)
    k.cpu([](Span s, const KernelArgs& a) {
      const float* in = a.ptr<float>(0);
      float* out = a.ptr<float>(1);
      const float mul = a.value<float>(2), add = a.value<float>(3);
      const int iters = a.value<int>(4);
      for (std::uint64_t i = s.begin; i < s.end; ++i) {
        float x = in[i];
        for (int r = 0; r < iters; ++r) x = x * mul + add;
        out[i] = x;
      }
    });
  const double per_item = iters_for_sim_cost;
  k.cost([per_item](Span s) { return per_item * double(s.size()); });
  return k;
}

Kernel saxpy_kernel() {
  Kernel k("saxpy");
  k.cpu([](Span s, const KernelArgs& a) {
    const float alpha = a.value<float>(0);
    const float* x = a.ptr<float>(1);
    float* y = a.ptr<float>(2);
    for (std::uint64_t i = s.begin; i < s.end; ++i) y[i] = alpha * x[i] + y[i];
  });
  return k;
}

Kernel empty_kernel() {
  Kernel k("empty");
  k.cpu([](Span, const KernelArgs&) {});
  return k;
}

}  // namespace baton::workloads
