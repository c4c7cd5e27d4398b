#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "baton/sim.hpp"
#include "device/sim/sim_device.hpp"

using namespace baton;
using baton::detail::SimDevice;

static SimDevice& sim_dev(DeviceSet& s, int i) {
  return dynamic_cast<SimDevice&>(*s.devices[i]);
}

TEST(SimDevice, SpeedsAndChangesGiveExactTimes) {
  auto set = open_devices("sim:2,1");
  SimDevice& d = sim_dev(set, 0);
  EXPECT_DOUBLE_EQ(d.finish_time(0, 2e9), 1.0);  // 2 units/ns: 2e9 units per second
  d.change_speed(0.5, 1);                        // half-time: half speed
  EXPECT_DOUBLE_EQ(d.finish_time(0, 2e9), 1.5);  // 1e9 done by 0.5 s, 1e9 more at 1e9/s
  EXPECT_DOUBLE_EQ(sim::capacity(d, 0, 1), 1.5e9);
  EXPECT_DOUBLE_EQ(d.speed_at(0.7), 1);
}

TEST(SimDevice, TransfersCostLinkTimeAndLaunchesCostWork) {
  auto set = open_devices("sim:1");
  SimDevice& d = sim_dev(set, 0);
  DeviceMemory m = d.allocate(55'000'000);
  std::vector<char> host(55'000'000, 3);
  d.set_now(0);
  d.queue(QueueRole::copy_in).write(m, 0, host.data(), host.size());
  EXPECT_NEAR(d.now(), 5e-6 + 1e-3, 1e-12);  // default link: 55 GB/s, 5 us
  Kernel k("cost");
  k.cost([](Span s) { return 1e6 * double(s.size()); });
  double before = d.now();
  d.queue(QueueRole::compute).launch(k, {0, 3}, KernelArgs({}));
  EXPECT_NEAR(d.now() - before, d.launch_s() + 3e-3, 1e-12);
  d.release(m);
}

TEST(SimDevice, EventsOrderWorkAcrossDevices) {
  auto set = open_devices("sim:1,1");
  SimDevice &a = sim_dev(set, 0), &b = sim_dev(set, 1);
  a.set_now(2.0);
  EventPtr e = a.queue(QueueRole::compute).record();
  EXPECT_DOUBLE_EQ(e->sim_time(), 2.0);
  b.set_now(0.5);
  b.queue(QueueRole::compute).wait(e);
  EXPECT_DOUBLE_EQ(b.now(), 2.0);  // b's later work starts after a's event
}

TEST(SimDevice, FailsAtTheGivenTime) {
  auto set = open_devices("sim:1");
  SimDevice& d = sim_dev(set, 0);
  sim::fail_at(d, 1.0);
  Kernel k("k");
  d.set_now(0.5);
  EXPECT_NO_THROW(d.queue(QueueRole::compute).launch(k, {0, 1}, KernelArgs({})));
  d.set_now(1.0);
  try {
    d.queue(QueueRole::compute).launch(k, {0, 1}, KernelArgs({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_failed);
    EXPECT_EQ(e.where(), "sim0");
  }
}

TEST(SimDevice, TopologyFileDescribesDevicesLinksAndEvents) {
  const char* path = "test_sim_machine.json";
  std::ofstream(path) << R"({"launch_us": 1,
    "devices": [{"id": "g0", "speed": 4, "changes": [{"at_s": 1, "speed": 2}]}, {"id": "g1", "speed": 4}],
    "links": [{"a": "g0", "b": "g1", "kind": "nvlink", "gbps": 400, "latency_us": 1}]})";
  auto set = open_devices(std::string("sim:") + path);
  ASSERT_EQ(set.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(sim_dev(set, 0).speed_at(1.5), 2);
  auto p = set.topology.path("g0", "g1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->worst, LinkKind::nvlink);
  EXPECT_TRUE(set.topology.path("g0", "host"));  // default host link added
  std::remove(path);
}

TEST(SimDevice, BadTopologyFilesAreClearErrors) {
  const char* cases[] = {
      R"({"devices": []})",
      R"({"devices": [{"id": "a"}]})",
      R"({"devices": [{"id": "a", "speed": 0}]})",
      R"({"devices": [{"id": "a", "speed": 1}], "links": [{"a": "a", "b": "q", "gbps": 1}]})",
      R"({"devices": [{"id": "a", "speed": 1, "changes": [{"at_s": -1, "speed": 1}]}]})",
      "not json",
  };
  for (const char* text : cases) {
    try {
      baton::detail::sim_machine_from_json(text, "m.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_topology) << text;
      EXPECT_EQ(e.where(), "m.json");
    }
  }
}
