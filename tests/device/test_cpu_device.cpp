// What only the cpu backend does: a launch split over the device's threads.
// Copies, errors and events are the device contract's (device/contract/).
#include <gtest/gtest.h>

#include <atomic>

#include "baton/devices.hpp"

using namespace baton;

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
