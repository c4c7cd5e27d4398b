// Telemetry: the host's load from /proc/stat, and the sampler over a set's
// devices (a ring of the last readings, what each device can report, what a
// round costs). The CUDA side, NVML's readings, is in tests/device/cuda/test_nvml.cpp.
#include <gtest/gtest.h>

#include <thread>

#include "baton/devices.hpp"
#include "resource/host_load.hpp"
#include "resource/telemetry.hpp"
#include "topology/discover.hpp"

using namespace baton;
using namespace baton::detail;

TEST(HostLoad, ProcStatGivesBusyAndTotalTime) {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const auto cpus = parse_proc_stat(
      "cpu  100 10 50 800 20 5 5 10 0 0\n"
      "cpu0 60 5 30 400 10 5 0 0 0 0\n"
      "cpu1 40 5 20 400 10 0 5 10 0 0\n"
      "intr 123 4 5\n");
  ASSERT_EQ(cpus.size(), 3u);
  EXPECT_EQ(cpus[0].busy, 180u);
  EXPECT_EQ(cpus[0].total, 1000u);
  EXPECT_EQ(cpus[2].busy, 80u);
  EXPECT_DOUBLE_EQ(busy_share({180, 1000}, {280, 1200}), 0.5);
  EXPECT_EQ(busy_share({180, 1000}, {180, 1000}), 0) << "no time passed";
  EXPECT_TRUE(parse_proc_stat("intr 1 2\n").empty());
  EXPECT_FALSE(read_cpu_times().empty()) << "this host has /proc/stat";
}

TEST(Telemetry, KeepsTheLastReadingsOfEachDevice) {
  DeviceSet set = open_devices("cpu:1x1,sim:1");
  Telemetry t({set.devices[0].get(), set.devices[1].get()}, std::chrono::milliseconds(5), 3);
  EXPECT_EQ(t.source(0), "host");
  EXPECT_EQ(t.source(1), "none");
  EXPECT_FALSE(t.latest(0));
  t.start();
  while (t.rounds() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  t.stop();
  EXPECT_FALSE(t.running());
  const auto cpu = t.history(0);
  ASSERT_EQ(cpu.size(), 3u) << "a ring of 3";
  for (std::size_t k = 1; k < cpu.size(); ++k) EXPECT_GT(cpu[k].time_s, cpu[k - 1].time_s);
  EXPECT_GE(cpu.back().util_pct, 0);
  EXPECT_LE(cpu.back().util_pct, 100);
  EXPECT_EQ(cpu.back().memory_total, host_info().memory_bytes);
  EXPECT_GT(cpu.back().memory_used, 0u);
  const auto sim = t.latest(1);
  ASSERT_TRUE(sim);
  EXPECT_LT(sim->util_pct, 0) << "a sim device reports nothing";
  EXPECT_GT(t.seconds_per_round(), 0);
}
