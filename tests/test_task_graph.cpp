#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;
using Deps = std::vector<std::vector<std::size_t>>;

TEST(TaskGraph, DependenciesFollowDataAccessOrder) {
  Options o;
  o.devices = "cpu:2x1";
  Runtime rt(o);
  const std::size_t n = 4096;
  auto a = rt.buffer<float>(n), b = rt.buffer<float>(n), c = rt.buffer<float>(n);
  Kernel fma = workloads::fma_kernel(1), saxpy = workloads::saxpy_kernel();
  for (std::size_t i = 0; i < n; ++i) a.host()[i] = 1.0f, c.host()[i] = 0.0f;
  rt.submit({n, 256}, fma, in(a), out(b), 2.0f, 1.0f, 1);  // 0: b = 2a+1 = 3
  rt.submit({n, 256}, saxpy, 1.0f, in(a), inout(c));       // 1: independent of 0: c = 1
  rt.submit({n, 256}, saxpy, 1.0f, in(b), inout(c));       // 2: after 0 (reads b), 1 (c): c = 4
  rt.submit({n, 256}, fma, in(c), out(a), 1.0f, 0.0f,
            1);  // 3: after 2 (reads c), WAR on a: 0 and 1
  EXPECT_EQ(rt.dependencies(), (Deps{{}, {}, {0, 1}, {2, 0, 1}}));
  auto stats = rt.wait_all();
  ASSERT_EQ(stats.size(), 4u);
  for (const auto& s : stats) EXPECT_EQ(s.items, n);
  auto ha = a.read(), hc = c.read();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_FLOAT_EQ(hc[i], 4.0f);
    ASSERT_FLOAT_EQ(ha[i], 4.0f);
  }
  EXPECT_TRUE(rt.dependencies().empty());  // the graph ran and was cleared
}

TEST(TaskGraph, BadTasksAreRejectedAtSubmission) {
  Options o;
  o.devices = "cpu";
  Runtime rt(o);
  auto a = rt.buffer<float>(8);
  EXPECT_THROW(rt.submit({0, 1}, workloads::saxpy_kernel(), 1.0f, in(a), inout(a)), Error);
  EXPECT_THROW(rt.submit({8, 1}, workloads::saxpy_kernel(), Policy::by_name("lifo")), Error);
}
