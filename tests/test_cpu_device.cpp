#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "support/held_event.hpp"

using namespace baton;

TEST(CpuDevice, CopiesRoundTrip) {
  auto set = open_devices("cpu");
  Device& d = *set.devices[0];
  DeviceMemory a = d.allocate(64), b = d.allocate(64);
  std::vector<int> src(16), dst(16, 0);
  for (int i = 0; i < 16; ++i) src[i] = i * 7;
  Queue& q = d.queue(QueueRole::copy_in);
  q.write(a, 0, src.data(), 64, HostKind::pageable);
  q.copy(b, 8, a, 0, 56);
  q.read(dst.data(), b, 0, 64, HostKind::pageable);
  q.finish();
  for (int i = 2; i < 16; ++i) EXPECT_EQ(dst[i], src[i - 2]);
  d.release(a);
  d.release(b);
}

TEST(CpuDevice, LaunchCoversTheSpanOnceAcrossItsThreads) {
  auto set = open_devices("cpu:1x3");
  Device& d = *set.devices[0];
  std::vector<std::atomic<int>> hits(1000);
  std::atomic<int> calls{0};
  Kernel k("count");
  k.cpu([&](Span s, const KernelArgs&) {
    calls.fetch_add(1);
    for (auto i = s.begin; i < s.end; ++i) hits[i].fetch_add(1);
  });
  d.queue(QueueRole::compute).launch(k, {100, 900}, KernelArgs({}));
  EXPECT_EQ(calls.load(), 3);  // one piece per thread
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(hits[i].load(), (i >= 100 && i < 900) ? 1 : 0) << i;
}

TEST(CpuDevice, KernelWithoutCpuCodeIsAnError) {
  auto set = open_devices("cpu");
  Kernel k("gpu_only");
  k.opencl("__kernel void f(ulong b, ulong e) {}", "f");
  try {
    set.devices[0]->queue(QueueRole::compute).launch(k, {0, 1}, KernelArgs({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::no_implementation);
    EXPECT_EQ(e.where(), "cpu0");
  }
}

TEST(CpuDevice, QueueWaitsForAnotherDevicesEvent) {
  auto set = open_devices("cpu:2x1");
  auto late = std::make_shared<test::HeldEvent>();
  std::atomic<bool> ran{false};
  Kernel k("flag");
  k.cpu([&](Span, const KernelArgs&) { ran = true; });
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(ran.load());  // still held back by the wait
    late->complete();
  });
  Queue& q = set.devices[1]->queue(QueueRole::compute);
  q.wait(late);
  q.launch(k, {0, 1}, KernelArgs({}));
  other.join();
  EXPECT_TRUE(ran.load());
  EXPECT_TRUE(q.record()->ready());
}
