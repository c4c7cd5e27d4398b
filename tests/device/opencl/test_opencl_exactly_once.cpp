// The foundation property on a mixed machine: with the CPU and an OpenCL
// device sharing a range, every item runs exactly once, whatever the policy.
// The OpenCL side goes through the whole runtime: replicas, copies in and
// out, pipelined chunks and cross-backend events.
#include <gtest/gtest.h>

#include <random>

#include "baton/error.hpp"
#include "baton/runtime.hpp"

using namespace baton;

namespace {

Kernel counting_kernel() {
  Kernel k("count");
  k.cpu([](Span s, const KernelArgs& a) {
    int* c = a.ptr<int>(0);
    for (auto i = s.begin; i < s.end; ++i) c[i] += 1;
  });
  k.opencl(R"CL(
__kernel void count(ulong begin, ulong end, __global int* c) {
  const ulong i = begin + get_global_id(0);
  if (i < end) c[i] += 1;
}
)CL",
           "count");
  return k;
}

TEST(OpenclExactlyOnce, CpuAndOpenclShareEveryRangeExactlyOnce) {
  Options o;
  o.devices = "cpu,opencl";
  std::unique_ptr<Runtime> rt;
  try {
    rt = std::make_unique<Runtime>(o);
  } catch (const Error& e) {
    if (e.code() != Errc::backend_unavailable) throw;
    GTEST_SKIP() << "no OpenCL device: " << e.what();
  }
  const Kernel k = counting_kernel();
  std::mt19937_64 g(7);
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t n = 5000 + g() % 200000, chunk = round == 0 ? 0 : 1 + g() % 4096;
    for (const char* policy : {"static", "weighted", "ws", "ws-topo"}) {
      auto counts = rt->buffer<int>(n);
      std::fill(counts.host().begin(), counts.host().end(), 0);
      const RunStats s =
          rt->parallel_for(Range{n, chunk}, k, inout(counts), Policy::by_name(policy));
      const std::string what =
          std::string(policy) + " n=" + std::to_string(n) + " chunk=" + std::to_string(chunk);
      auto c = counts.read();
      std::size_t wrong = 0;
      for (int v : c) wrong += v != 1;
      EXPECT_EQ(wrong, 0u) << what;
      std::uint64_t items = 0;
      for (const auto& d : s.devices) items += d.items;
      EXPECT_EQ(items, n) << what;
      if (std::string(policy) == "static") {  // an equal split: the OpenCL device did run
        for (const auto& d : s.devices) EXPECT_GT(d.items, 0u) << what << " " << d.name;
      }
    }
  }
}

}  // namespace
