#include "workloads/balance_kernels.hpp"

#include <algorithm>
#include <atomic>

#ifdef BATON_HAVE_CUDA
#include "workloads/builtin_fatbin.hpp"
#endif
#ifdef BATON_HAVE_OPENCL
#include "workloads/kernels_opencl.hpp"
#endif

namespace baton::workloads {

// Attaches the GPU versions of built-in kernel `entry` that this build has.
static void add_gpu_code(Kernel& k, const char* entry) {
#ifdef BATON_HAVE_CUDA
  auto fatbin = detail::builtin_cuda_fatbin();
  if (!fatbin.empty()) k.cuda_image(fatbin, entry);
#endif
#ifdef BATON_HAVE_OPENCL
  k.opencl(opencl_kernels_source(), entry);
#endif
  (void)k, (void)entry;
}

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
  add_gpu_code(k, "baton_fma");
  const double per_item = iters_for_sim_cost;
  k.cost([per_item](Span s) { return per_item * double(s.size()); });
  return k;
}

Kernel fma_rows_kernel(int iters_for_sim_cost, int width, bool with_cpu) {
  Kernel k("fma_rows");
  if (with_cpu)
    k.cpu([](Span s, const KernelArgs& a) {
      const float* in = a.ptr<float>(0);
      float* out = a.ptr<float>(1);
      const float mul = a.value<float>(2), add = a.value<float>(3);
      const int iters = a.value<int>(4), w = a.value<int>(5);
      auto steps = [&](float x) {
        for (int r = 0; r < iters; ++r) x = x * mul + add;
        return x;
      };
      for (std::uint64_t i = s.begin; i < s.end; ++i) {
        if (w == 0) {
          out[i] = steps(in[0] + float(i % 1024) / 1024.0f);
          continue;
        }
        for (std::uint64_t j = i * std::uint64_t(w); j < (i + 1) * std::uint64_t(w); ++j)
          out[j] = steps(in[j]);
      }
    });
  add_gpu_code(k, "baton_fma_rows");
  const double per_item = double(iters_for_sim_cost) * std::max(1, width);
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
  add_gpu_code(k, "baton_saxpy");
  return k;
}

Kernel count_kernel() {
  Kernel k("count");
  k.cpu([](Span s, const KernelArgs& a) {
    int* c = a.ptr<int>(0);
    for (std::uint64_t i = s.begin; i < s.end; ++i) c[i] += 1;
  });
  add_gpu_code(k, "baton_count");
  return k;
}

Kernel tally_kernel() {
  Kernel k("tally");
  k.cpu([](Span s, const KernelArgs& a) {
    std::atomic_ref<int>(*a.ptr<int>(0)).fetch_add(int(s.size()), std::memory_order_relaxed);
  });
  add_gpu_code(k, "baton_tally");
  return k;
}

Kernel sum_instances_kernel() {
  Kernel k("sum_instances");
  k.cpu([](Span s, const KernelArgs& a) {
    if (s.empty()) return;
    int* const* table = a.ptr<int*>(0);
    int sum = 0;
    for (int d = 0; d < a.value<int>(2); ++d)
      if (table[d]) sum += table[d][0];
    a.ptr<int>(1)[0] = sum;
  });
#ifdef BATON_HAVE_CUDA
  k.cuda_image(detail::builtin_cuda_fatbin(), "baton_sum_instances");
#endif
  return k;
}

Kernel empty_kernel() {
  Kernel k("empty");
  k.cpu([](Span, const KernelArgs&) {});
  add_gpu_code(k, "baton_empty");
  return k;
}

}  // namespace baton::workloads
